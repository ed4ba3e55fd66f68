package sqlstore

import (
	"context"
	"time"
)

// CountActive counts active, unexpired memories of every tenant, for the
// engram_memories_active gauge (a total, so its cardinality stays bounded).
func (s *MemoryStore) CountActive(ctx context.Context, now time.Time) (int64, error) {
	n, err := s.db.bun.NewSelect().Model((*memoryRow)(nil)).
		Where("m.is_active = ?", true).
		Where("(m.expires_at IS NULL OR m.expires_at > ?)", dbTime(now)).
		Count(ctx)
	return int64(n), wrapErr("count active memories", err)
}

// HasAny reports whether any API key is stored; with none and none configured the
// server runs in open mode.
func (s *APIKeyStore) HasAny(ctx context.Context) (bool, error) {
	ok, err := s.db.bun.NewSelect().Model((*apiKeyRow)(nil)).Limit(1).Exists(ctx)
	return ok, wrapErr("check api keys", err)
}
