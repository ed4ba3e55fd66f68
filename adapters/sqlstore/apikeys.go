package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"engram/ports"
)

// APIKeyStore keeps tenants' API keys (hashes only) in api_keys.
type APIKeyStore struct {
	db *DB
}

var _ ports.APIKeyStore = (*APIKeyStore)(nil)

// NewAPIKeyStore serves ports.APIKeyStore from db.
func NewAPIKeyStore(db *DB) *APIKeyStore { return &APIKeyStore{db: db} }

// CreateAPIKey stores a key and bumps the generation; ports.ErrConflict when its
// id or hash is taken.
func (s *APIKeyStore) CreateAPIKey(ctx context.Context, key ports.APIKey) error {
	row := toAPIKeyRow(key)
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return wrapErr("create api key", err)
		}
		return bumpKeyGeneration(ctx, tx)
	})
}

// bumpKeyGeneration tells every process, at their next request, that the keys
// changed.
func bumpKeyGeneration(ctx context.Context, tx bun.Tx) error {
	_, err := tx.NewUpdate().Table("api_key_generation").Set("generation = generation + 1").Where("id = 1").Exec(ctx)
	return wrapErr("bump api key generation", err)
}

// Generation reads the number bumped by every key creation and revocation: one
// row by primary key.
func (s *APIKeyStore) Generation(ctx context.Context) (int64, error) {
	var gen int64
	err := s.db.bun.NewSelect().Table("api_key_generation").Column("generation").Where("id = 1").Scan(ctx, &gen)
	return gen, wrapErr("read api key generation", err)
}

// APIKeyByHash returns the active key with this hash, or ports.ErrNotFound.
func (s *APIKeyStore) APIKeyByHash(ctx context.Context, hash string) (ports.APIKey, error) {
	var row apiKeyRow
	err := s.db.bun.NewSelect().Model(&row).Where("k.key_hash = ?", hash).Where("k.revoked_at IS NULL").Scan(ctx)
	if err != nil {
		return ports.APIKey{}, wrapErr("get api key", err)
	}
	return row.toAPIKey(), nil
}

// HasActiveAPIKeys reports whether any key is active; with none and none
// configured the server runs in open mode.
func (s *APIKeyStore) HasActiveAPIKeys(ctx context.Context) (bool, error) {
	ok, err := s.db.bun.NewSelect().Model((*apiKeyRow)(nil)).Where("k.revoked_at IS NULL").Limit(1).Exists(ctx)
	return ok, wrapErr("check api keys", err)
}

// ListAPIKeys returns the keys, oldest first; revoked ones only when asked.
func (s *APIKeyStore) ListAPIKeys(ctx context.Context, includeRevoked bool) ([]ports.APIKey, error) {
	var rows []apiKeyRow
	q := s.db.bun.NewSelect().Model(&rows).OrderExpr("k.created_at, k.id")
	if !includeRevoked {
		q = q.Where("k.revoked_at IS NULL")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, wrapErr("list api keys", err)
	}
	keys := make([]ports.APIKey, len(rows))
	for i := range rows {
		keys[i] = rows[i].toAPIKey()
	}
	return keys, nil
}

// RevokeAPIKey marks the key revoked (once: a second revocation keeps the first
// time) and returns it, or ports.ErrNotFound.
func (s *APIKeyStore) RevokeAPIKey(ctx context.Context, id string, at time.Time) (ports.APIKey, error) {
	var row apiKeyRow
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*apiKeyRow)(nil)).Set("revoked_at = ?", dbTime(at)).
			Where("id = ?", id).Where("revoked_at IS NULL").Exec(ctx)
		if err != nil {
			return wrapErr("revoke api key", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			if err := bumpKeyGeneration(ctx, tx); err != nil {
				return err
			}
		}
		return wrapErr("revoke api key", tx.NewSelect().Model(&row).Where("k.id = ?", id).Scan(ctx))
	})
	if err != nil {
		return ports.APIKey{}, err
	}
	return row.toAPIKey(), nil
}

// TouchAPIKey records a use; an earlier time than the stored one changes nothing.
func (s *APIKeyStore) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	_, err := s.db.bun.NewUpdate().Model((*apiKeyRow)(nil)).Set("last_used_at = ?", dbTime(at)).
		Where("id = ?", id).Where("last_used_at IS NULL OR last_used_at < ?", dbTime(at)).Exec(ctx)
	return wrapErr("touch api key", err)
}

type apiKeyRow struct {
	bun.BaseModel `bun:"table:api_keys,alias:k"`

	ID         string    `bun:"id,pk"`
	TenantID   string    `bun:"tenant_id"`
	UserID     string    `bun:"user_id,nullzero"`
	KeyHash    string    `bun:"key_hash"`
	CreatedAt  time.Time `bun:"created_at"`
	LastUsedAt time.Time `bun:"last_used_at,nullzero"`
	RevokedAt  time.Time `bun:"revoked_at,nullzero"`
}

func toAPIKeyRow(k ports.APIKey) apiKeyRow {
	return apiKeyRow{ID: k.ID, TenantID: k.Tenant, UserID: k.User, KeyHash: k.Hash, CreatedAt: dbTime(k.CreatedAt),
		LastUsedAt: dbTime(k.LastUsedAt), RevokedAt: dbTime(k.RevokedAt)}
}

func (r *apiKeyRow) toAPIKey() ports.APIKey {
	return ports.APIKey{ID: r.ID, Tenant: r.TenantID, User: r.UserID, Hash: r.KeyHash, CreatedAt: dbTime(r.CreatedAt),
		LastUsedAt: dbTime(r.LastUsedAt), RevokedAt: dbTime(r.RevokedAt)}
}
