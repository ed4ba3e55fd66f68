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
// Beyond the port's comments: times come back in UTC to the microsecond, and a
// second key with a taken hash or id is ports.ErrConflict.
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

	runAPIKeyLifecycle(t, open, created)

	t.Run("a key keeps the one user it reaches", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		pinned := ports.APIKey{ID: memNewID(), Tenant: "acme", User: "alice", Hash: keyHash("a"), CreatedAt: created}
		tenantWide := ports.APIKey{ID: memNewID(), Tenant: "acme", Hash: keyHash("b"), CreatedAt: created}
		for _, k := range []ports.APIKey{pinned, tenantWide} {
			if err := store.CreateAPIKey(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := store.APIKeyByHash(ctx, pinned.Hash); err != nil || got.User != "alice" {
			t.Errorf("the user-scoped key: %+v, %v", got, err)
		}
		if got, err := store.APIKeyByHash(ctx, tenantWide.Hash); err != nil || got.User != "" {
			t.Errorf("the tenant key: %+v, %v", got, err)
		}
		listed, err := store.ListAPIKeys(ctx, false)
		if err != nil || len(listed) != 2 || listed[0].User+listed[1].User != "alice" {
			t.Errorf("listed %+v, %v", listed, err)
		}
	})

	t.Run("the generation changes with every key created or revoked, and only then", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		generation := func() int64 {
			t.Helper()
			g, err := store.Generation(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		start := generation()
		key := ports.APIKey{ID: memNewID(), Tenant: "acme", Hash: keyHash("a"), CreatedAt: created}
		if err := store.CreateAPIKey(ctx, key); err != nil {
			t.Fatal(err)
		}
		afterCreate := generation()
		if afterCreate == start {
			t.Fatalf("a creation left the generation at %d", start)
		}
		if err := store.TouchAPIKey(ctx, key.ID, created.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := store.CreateAPIKey(ctx, key); !errors.Is(err, ports.ErrConflict) {
			t.Fatalf("a second creation: %v", err)
		}
		if g := generation(); g != afterCreate {
			t.Errorf("a use or a refused creation moved the generation from %d to %d", afterCreate, g)
		}
		if _, err := store.RevokeAPIKey(ctx, key.ID, created.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		afterRevoke := generation()
		if afterRevoke == afterCreate {
			t.Errorf("a revocation left the generation at %d", afterCreate)
		}
		if _, err := store.RevokeAPIKey(ctx, key.ID, created.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if g := generation(); g != afterRevoke {
			t.Errorf("revoking a revoked key moved the generation from %d to %d", afterRevoke, g)
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

// runAPIKeyLifecycle: listing, revocation and last use.
func runAPIKeyLifecycle(t *testing.T, open func(t *testing.T) ports.APIKeyStore, created time.Time) {
	t.Run("list is oldest first and hides revoked keys unless asked", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		if keys, err := store.ListAPIKeys(ctx, true); err != nil || len(keys) != 0 {
			t.Fatalf("empty store lists %v, %v", keys, err)
		}
		if has, err := store.HasActiveAPIKeys(ctx); err != nil || has {
			t.Fatalf("empty store: has active = %v, %v", has, err)
		}
		var ids []string
		for i, tenant := range []string{"acme", "globex", "acme"} {
			k := ports.APIKey{ID: memNewID(), Tenant: tenant, Hash: keyHash(tenant + string(rune('a'+i))), CreatedAt: created.Add(time.Duration(i) * time.Hour)}
			if err := store.CreateAPIKey(ctx, k); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, k.ID)
		}
		revokedAt := created.Add(5 * time.Hour)
		if _, err := store.RevokeAPIKey(ctx, ids[1], revokedAt); err != nil {
			t.Fatal(err)
		}
		active, err := store.ListAPIKeys(ctx, false)
		if err != nil || len(active) != 2 || active[0].ID != ids[0] || active[1].ID != ids[2] {
			t.Fatalf("active keys = %+v, %v; want the first and the third", active, err)
		}
		all, err := store.ListAPIKeys(ctx, true)
		if err != nil || len(all) != 3 || all[1].ID != ids[1] || !all[1].RevokedAt.Equal(revokedAt.UTC().Truncate(time.Microsecond)) {
			t.Fatalf("all keys = %+v, %v", all, err)
		}
		for _, k := range active {
			if !k.Active() || !k.LastUsedAt.IsZero() || k.Hash == "" {
				t.Errorf("listed key %+v", k)
			}
		}
	})

	t.Run("a revoked key no longer authenticates; revoking again keeps the first time", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		key := ports.APIKey{ID: memNewID(), Tenant: "acme", Hash: keyHash("r"), CreatedAt: created}
		if err := store.CreateAPIKey(ctx, key); err != nil {
			t.Fatal(err)
		}
		first := created.Add(time.Minute)
		got, err := store.RevokeAPIKey(ctx, key.ID, first)
		if err != nil || got.Active() || got.Tenant != "acme" || !got.RevokedAt.Equal(first.UTC().Truncate(time.Microsecond)) {
			t.Fatalf("revoke = %+v, %v", got, err)
		}
		if _, err := store.APIKeyByHash(ctx, key.Hash); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("a revoked key is found by hash: err = %v", err)
		}
		if has, err := store.HasActiveAPIKeys(ctx); err != nil || has {
			t.Errorf("only a revoked key: has active = %v, %v", has, err)
		}
		again, err := store.RevokeAPIKey(ctx, key.ID, first.Add(time.Hour))
		if err != nil || !again.RevokedAt.Equal(got.RevokedAt) {
			t.Errorf("second revoke = %+v, %v; want the first revocation time kept", again, err)
		}
		if _, err := store.RevokeAPIKey(ctx, memNewID(), first); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("revoking an unknown id: err = %v, want ErrNotFound", err)
		}
	})

	t.Run("touch records the latest use only", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		key := ports.APIKey{ID: memNewID(), Tenant: "acme", Hash: keyHash("t"), CreatedAt: created}
		if err := store.CreateAPIKey(ctx, key); err != nil {
			t.Fatal(err)
		}
		used := created.Add(2 * time.Hour)
		if err := store.TouchAPIKey(ctx, key.ID, used); err != nil {
			t.Fatal(err)
		}
		if err := store.TouchAPIKey(ctx, key.ID, used.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := store.TouchAPIKey(ctx, memNewID(), used); err != nil {
			t.Errorf("touching an unknown id: %v", err)
		}
		got, err := store.APIKeyByHash(ctx, key.Hash)
		if err != nil || !got.LastUsedAt.Equal(used.UTC().Truncate(time.Microsecond)) {
			t.Errorf("last used = %v, %v; want %v", got.LastUsedAt, err, used.UTC())
		}
	})
}

// keyHash is what the API stores for a secret: its hex sha256.
func keyHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
