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

	"engram/adapters/sqlstore"
	"engram/app/auth"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
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
	*sqlstore.APIKeyStore
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
		store: &countingStore{APIKeyStore: teststore.New(t).APIKeys},
		logs:  &bytes.Buffer{},
	}
	opts.Logger = slog.New(slog.NewTextHandler(f.logs, nil))
	f.authn = auth.New(opts, f.store, f.clock, &seqIDs{})
	return f
}

func (f *fixture) tenant(t *testing.T, key string) (string, error) {
	t.Helper()
	who, err := f.authn.Authenticate(context.Background(), key)
	return who.Tenant, err
}

func TestAuthenticate_openModeEndsWhenTheFirstKeyIsCreated(t *testing.T) {
	t.Parallel()
	f := newFixture(t, auth.Options{Open: true})
	if tenant, err := f.tenant(t, ""); err != nil || tenant != auth.OpenTenant {
		t.Fatalf("open mode: %q, %v", tenant, err)
	}
	secret, err := f.authn.CreateKey(context.Background(), "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	// The creation bumped the key generation: the very next request sees the key.
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
	if _, err := f.tenant(t, ""); !errors.Is(err, ports.ErrUnauthenticated) {
		t.Errorf("after the last key was revoked a request without a key got err = %v, want unauthenticated", err)
	}
}

func TestAuthenticate_revokedKeyIsRefusedAtTheNextRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t, auth.Options{})
	secret, err := f.authn.CreateKey(context.Background(), "acme", "")
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
	// No time passes: the revocation bumped the key generation, which every
	// request reads, so the cached lookup is dropped.
	if _, err := f.tenant(t, secret); !errors.Is(err, ports.ErrUnauthenticated) {
		t.Errorf("the revoked key at the next request: err = %v, want unauthenticated", err)
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
	secret, err := f.authn.CreateKey(context.Background(), "acme", "")
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

// Another process revokes through the store: this process learns it from the
// generation alone, at its next request.
func TestAuthenticate_aRevocationByAnotherProcessIsSeenAtTheNextRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t, auth.Options{CacheTTL: time.Hour})
	secret, err := f.authn.CreateKey(context.Background(), "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.tenant(t, secret); err != nil {
		t.Fatal(err)
	}
	other := auth.New(auth.Options{}, f.store, f.clock, &seqIDs{})
	keys, _ := other.ListKeys(context.Background(), false)
	if _, _, err := other.RevokeKey(context.Background(), keys[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.tenant(t, secret); !errors.Is(err, ports.ErrUnauthenticated) {
		t.Errorf("a key revoked by another process, cached for an hour here: err = %v, want unauthenticated", err)
	}
}

func TestAuthenticate_aUserScopedKeyNamesItsUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t, auth.Options{Configured: map[string]string{"configured-key-0123456789": "globex"}})
	secret, err := f.authn.CreateKey(context.Background(), "acme", "alice")
	if err != nil {
		t.Fatal(err)
	}
	who, err := f.authn.Authenticate(context.Background(), secret)
	if err != nil || who.Tenant != "acme" || who.User != "alice" || !who.Pinned() || who.KeyID == "" {
		t.Fatalf("the user-scoped key: %+v, %v", who, err)
	}
	if !who.Reaches("alice") || who.Reaches("bob") {
		t.Errorf("alice's key reaches alice %v, bob %v", who.Reaches("alice"), who.Reaches("bob"))
	}
	tenantKey, err := f.authn.Authenticate(context.Background(), "configured-key-0123456789")
	if err != nil || tenantKey.Pinned() || !tenantKey.Reaches("bob") || tenantKey.KeyID == who.KeyID {
		t.Errorf("a configured key: %+v, %v", tenantKey, err)
	}
	keys, _ := f.authn.ListKeys(context.Background(), false)
	if len(keys) != 1 || keys[0].User != "alice" {
		t.Errorf("listed keys %+v", keys)
	}
}

// unreadableGeneration is a store whose generation cannot be read.
type unreadableGeneration struct{ *countingStore }

func (unreadableGeneration) Generation(context.Context) (int64, error) {
	return 0, errors.New("database is locked")
}

func TestAuthenticate_aStoredKeyIsNotTrustedWhenTheGenerationCannotBeRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t, auth.Options{Configured: map[string]string{"configured-key-0123456789": "globex"}})
	secret, err := f.authn.CreateKey(context.Background(), "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	broken := auth.New(auth.Options{Configured: map[string]string{"configured-key-0123456789": "globex"}},
		unreadableGeneration{f.store}, f.clock, &seqIDs{})
	if _, err := broken.Authenticate(context.Background(), secret); err == nil || errors.Is(err, ports.ErrUnauthenticated) {
		t.Errorf("a stored key without its generation: err = %v, want an error other than unauthenticated", err)
	}
	if who, err := broken.Authenticate(context.Background(), "configured-key-0123456789"); err != nil || who.Tenant != "globex" {
		t.Errorf("a configured key needs no read: %+v, %v", who, err)
	}
}
