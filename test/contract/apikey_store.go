package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"engram/ports"
)

// RunAPIKeyStore is the contract every ports.APIKeyStore adapter must pass. open
// returns an empty store; each case opens its own.
//
// Beyond the port's comments: CreatedAt comes back in UTC to the microsecond, and
// a second key with a taken hash or id is ports.ErrConflict.
func RunAPIKeyStore(t *testing.T, open func(t *testing.T) ports.APIKeyStore) {
	t.Helper()
	created := time.Date(2026, 11, 30, 17, 0, 0, 987654321, time.FixedZone("CST", 8*3600))

	t.Run("create then find by hash", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		key := ports.APIKey{ID: memNewID(), Tenant: "acme", Hash: keyHash("a"), CreatedAt: created}
		if err := store.CreateAPIKey(ctx, key); err != nil {
			t.Fatalf("create: %v", err)
		}
		got, err := store.APIKeyByHash(ctx, key.Hash)
		if err != nil {
			t.Fatalf("by hash: %v", err)
		}
		want := key
		want.CreatedAt = created.UTC().Truncate(time.Microsecond)
		if got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})

	t.Run("unknown hash is not found", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		if err := store.CreateAPIKey(ctx, ports.APIKey{ID: memNewID(), Tenant: "acme", Hash: keyHash("a"), CreatedAt: created}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.APIKeyByHash(ctx, keyHash("b")); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("err = %v, want ErrNotFound", err)
		}
	})

	t.Run("a taken hash or id is a conflict", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		first := ports.APIKey{ID: memNewID(), Tenant: "acme", Hash: keyHash("a"), CreatedAt: created}
		if err := store.CreateAPIKey(ctx, first); err != nil {
			t.Fatal(err)
		}
		for name, dup := range map[string]ports.APIKey{
			"same hash": {ID: memNewID(), Tenant: "other", Hash: first.Hash, CreatedAt: created},
			"same id":   {ID: first.ID, Tenant: "other", Hash: keyHash("c"), CreatedAt: created},
		} {
			if err := store.CreateAPIKey(ctx, dup); !errors.Is(err, ports.ErrConflict) {
				t.Errorf("%s: err = %v, want ErrConflict", name, err)
			}
		}
		got, err := store.APIKeyByHash(ctx, first.Hash)
		if err != nil || got.Tenant != "acme" {
			t.Errorf("the first key changed: %+v, %v", got, err)
		}
		if _, err := store.APIKeyByHash(ctx, keyHash("c")); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("the refused key was stored: err = %v", err)
		}
	})

	t.Run("keys of several tenants live side by side", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		tenants := map[string]string{keyHash("a"): "acme", keyHash("b"): "globex", keyHash("c"): "acme"}
		for hash, tenant := range tenants {
			if err := store.CreateAPIKey(ctx, ports.APIKey{ID: memNewID(), Tenant: tenant, Hash: hash, CreatedAt: created}); err != nil {
				t.Fatal(err)
			}
		}
		for hash, tenant := range tenants {
			got, err := store.APIKeyByHash(ctx, hash)
			if err != nil || got.Tenant != tenant {
				t.Errorf("hash %s…: tenant %q, err %v; want %q", hash[:8], got.Tenant, err, tenant)
			}
		}
	})
}

// keyHash is what the API stores for a secret: its hex sha256.
func keyHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
