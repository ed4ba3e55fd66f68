package sqlstore

import (
	"context"
	"time"

	"engram/domain/memory"
)

// ExpiredMemories lists active memories of every tenant whose expiry has passed,
// oldest expiry first (the scheduler's TTL sweep; served by the expires_at index).
func (s *MemoryStore) ExpiredMemories(ctx context.Context, now time.Time, limit int) ([]memory.Memory, error) {
	var rows []memoryRow
	err := s.db.bun.NewSelect().Model(&rows).
		Where("m.is_active = ?", true).
		Where("m.expires_at IS NOT NULL").
		Where("m.expires_at <= ?", dbTime(now)).
		OrderExpr("m.expires_at, m.id").
		Limit(int64(limit)).
		Scan(ctx)
	if err != nil {
		return nil, wrapErr("expired memories", err)
	}
	out := make([]memory.Memory, len(rows))
	for i := range rows {
		out[i] = memory.Restore(rows[i].toState())
	}
	return out, nil
}
