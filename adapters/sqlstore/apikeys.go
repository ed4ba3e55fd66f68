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

// CreateAPIKey stores a key; ports.ErrConflict when its id or hash is taken.
func (s *APIKeyStore) CreateAPIKey(ctx context.Context, key ports.APIKey) error {
	row := toAPIKeyRow(key)
	// One statement needs no transaction, and a taken hash is final: WriteTx would
	// only retry it.
	_, err := s.db.bun.NewInsert().Model(&row).Exec(ctx)
	return wrapErr("create api key", err)
}

// APIKeyByHash returns the key with this hash, or ports.ErrNotFound.
func (s *APIKeyStore) APIKeyByHash(ctx context.Context, hash string) (ports.APIKey, error) {
	var row apiKeyRow
	if err := s.db.bun.NewSelect().Model(&row).Where("k.key_hash = ?", hash).Scan(ctx); err != nil {
		return ports.APIKey{}, wrapErr("get api key", err)
	}
	return row.toAPIKey(), nil
}

type apiKeyRow struct {
	bun.BaseModel `bun:"table:api_keys,alias:k"`

	ID        string    `bun:"id,pk"`
	TenantID  string    `bun:"tenant_id"`
	KeyHash   string    `bun:"key_hash"`
	CreatedAt time.Time `bun:"created_at"`
}

func toAPIKeyRow(k ports.APIKey) apiKeyRow {
	return apiKeyRow{ID: k.ID, TenantID: k.Tenant, KeyHash: k.Hash, CreatedAt: dbTime(k.CreatedAt)}
}

func (r *apiKeyRow) toAPIKey() ports.APIKey {
	return ports.APIKey{ID: r.ID, Tenant: r.TenantID, Hash: r.KeyHash, CreatedAt: dbTime(r.CreatedAt)}
}
