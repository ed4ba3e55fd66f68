package auth_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/adapters/memstore"
	"engram/app/auth"
	"engram/ports"
	"engram/test/fakeclock"
)

type seqIDs struct {
	mu sync.Mutex
	n  int
}

func (s *seqIDs) New() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return "key" + string(rune('0'+s.n))
}

// countingStore counts the writes of last use.
type countingStore struct {
	*memstore.APIKeyStore
	mu      sync.Mutex
	touches int
}

func (s *countingStore) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	s.mu.Lock()
	s.touches++
	s.mu.Unlock()
	return s.APIKeyStore.TouchAPIKey(ctx, id, at)
}

func (s *countingStore) touchCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.touches
}

type fixture struct {
	clock *fakeclock.Clock
	store *countingStore
	authn *auth.Authenticator
	logs  *bytes.Buffer
}

func newFixture(t *testing.T, opts auth.Options) *fixture {
	t.Helper()
	f := &fixture{
		clock: fakeclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)),
		store: &countingStore{APIKeyStore: memstore.NewAPIKeyStore()},
		logs:  &bytes.Buffer{},
	}
	opts.Logger = slog.New(slog.NewTextHandler(f.logs, nil))
	f.authn = auth.New(opts, f.store, f.clock, &seqIDs{})
	return f
}

func (f *fixture) tenant(t *testing.T, key string) (string, error) {
	t.Helper()
	return f.authn.Authenticate(context.Background(), key)
}

func TestAuthenticate_openModeEndsWhenTheFirstKeyIsCreated(t *testing.T) {
	t.Parallel()
	f := newFixture(t, auth.Options{Open: true})
	if tenant, err := f.tenant(t, ""); err != nil || tenant != auth.OpenTenant {
		t.Fatalf("open mode: %q, %v", tenant, err)
	}
	secret, err := f.authn.CreateKey(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	// Within the cache TTL open mode holds; after it, the key is found.
	f.clock.Advance(auth.DefaultCacheTTL)
	if _, err := f.tenant(t, ""); !errors.Is(err, ports.ErrUnauthenticated) {
		t.Errorf("a request without a key after open mode ended: err = %v, want unauthenticated", err)
	}
	if tenant, err := f.tenant(t, secret); err != nil || tenant != "acme" {
		t.Errorf("the created key: %q, %v", tenant, err)
	}
	if f.authn.Open() || !strings.Contains(f.logs.String(), "open mode ended") || !strings.Contains(f.logs.String(), `tenant \"default\"`) {
		t.Errorf("open = %v; logs:\n%s", f.authn.Open(), f.logs.String())
	}

	// Revoking the only key does not reopen the server.
	keys, _ := f.authn.ListKeys(context.Background(), false)
	if _, _, err := f.authn.RevokeKey(context.Background(), keys[0].ID); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(auth.DefaultCacheTTL)
	if _, err := f.tenant(t, ""); !errors.Is(err, ports.ErrUnauthenticated) {
		t.Errorf("after the last key was revoked a request without a key got err = %v, want unauthenticated", err)
	}
}

func TestAuthenticate_revokedKeyIsRefusedOnceTheCacheExpires(t *testing.T) {
	t.Parallel()
	f := newFixture(t, auth.Options{})
	secret, err := f.authn.CreateKey(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	if tenant, err := f.tenant(t, secret); err != nil || tenant != "acme" {
		t.Fatalf("the created key: %q, %v", tenant, err)
	}
	keys, _ := f.authn.ListKeys(context.Background(), false)
	info, already, err := f.authn.RevokeKey(context.Background(), keys[0].ID)
	if err != nil || already || info.RevokedAt.IsZero() || info.Tenant != "acme" {
		t.Fatalf("revoke = %+v already=%v, %v", info, already, err)
	}
	f.clock.Advance(auth.DefaultCacheTTL)
	if _, err := f.tenant(t, secret); !errors.Is(err, ports.ErrUnauthenticated) {
		t.Errorf("the revoked key after the cache TTL: err = %v, want unauthenticated", err)
	}
	f.clock.Advance(time.Minute)
	if again, already, err := f.authn.RevokeKey(context.Background(), keys[0].ID); err != nil || !already || !again.RevokedAt.Equal(info.RevokedAt) {
		t.Errorf("second revoke = %+v already=%v, %v", again, already, err)
	}
	if _, _, err := f.authn.RevokeKey(context.Background(), "nope"); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("revoking an unknown id: %v", err)
	}
	if active, _ := f.authn.ListKeys(context.Background(), false); len(active) != 0 {
		t.Errorf("active keys after revoking the only one: %+v", active)
	}
	if all, _ := f.authn.ListKeys(context.Background(), true); len(all) != 1 {
		t.Errorf("all keys: %+v", all)
	}
}

func TestAuthenticate_lastUseIsWrittenAtMostOncePerMinute(t *testing.T) {
	t.Parallel()
	f := newFixture(t, auth.Options{Configured: map[string]string{"configured-key-0123456789": "globex"}})
	secret, err := f.authn.CreateKey(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if _, err := f.tenant(t, secret); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Second)
	}
	if n := f.store.touchCount(); n != 1 {
		t.Errorf("20 requests in 20 s wrote the last use %d times, want 1", n)
	}
	f.clock.Advance(time.Minute)
	if _, err := f.tenant(t, secret); err != nil {
		t.Fatal(err)
	}
	if n := f.store.touchCount(); n != 2 {
		t.Errorf("a request a minute later: %d writes, want 2", n)
	}
	keys, _ := f.authn.ListKeys(context.Background(), false)
	if len(keys) != 1 || !keys[0].LastUsedAt.Equal(f.clock.Now()) {
		t.Errorf("listed last use = %+v, want %v", keys, f.clock.Now())
	}
	// Configured keys are not stored: nothing to write.
	if tenant, err := f.tenant(t, "configured-key-0123456789"); err != nil || tenant != "globex" {
		t.Fatalf("configured key: %q, %v", tenant, err)
	}
	if n := f.store.touchCount(); n != 2 {
		t.Errorf("a configured key wrote a last use (%d writes)", n)
	}
}
