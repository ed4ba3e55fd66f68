package sqlstore

import (
	"context"
	"time"
)

// CountActive counts the memories of every tenant that a listing would show at
// now — active, unexpired, not noise — for the engram_memories_active gauge (a
// total, so its cardinality stays bounded).
func (s *MemoryStore) CountActive(ctx context.Context, now time.Time) (int64, error) {
	q := s.db.bun.NewSelect().Model((*memoryRow)(nil))
	n, err := onlyLive(withoutNoise(q), now).Count(ctx)
	return int64(n), wrapErr("count active memories", err)
}
