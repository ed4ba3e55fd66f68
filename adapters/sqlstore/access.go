package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// TouchMemories sets last_accessed_at of the tenant's memories with these ids to
// at, unless a later read already did. It changes no version and writes no event:
// a read is not a change (memory.Memory.Touch).
func (s *MemoryStore) TouchMemories(ctx context.Context, tenant string, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	at = dbTime(at)
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for start := 0; start < len(ids); start += lexicalBatch {
			_, err := tx.NewUpdate().Model((*memoryRow)(nil)).
				Set("last_accessed_at = ?", at).
				Where("tenant_id = ?", tenant).
				Where("id IN (?)", bun.List(ids[start:min(start+lexicalBatch, len(ids))])).
				Where("(last_accessed_at IS NULL OR last_accessed_at < ?)", at).
				Exec(ctx)
			if err != nil {
				return wrapErr("touch memories", err)
			}
		}
		return nil
	})
}
