package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/domain/memory"
	"engram/ports"
)

func TestStats_SQLite(t *testing.T)   { t.Parallel(); testStats(t, DialectSQLite) }
func TestStats_Postgres(t *testing.T) { t.Parallel(); testStats(t, DialectPostgres) }

func testStats(t *testing.T, dialect Dialect) {
	db := openerFor(dialect)(t)
	ctx := testContext(t)
	memories, keys := NewMemoryStore(db), NewAPIKeyStore(db)
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

	if n, err := memories.CountActive(ctx, now); err != nil || n != 0 {
		t.Fatalf("empty store: %d, %v", n, err)
	}
	for _, m := range []struct {
		scope   memory.Scope
		key     memory.Key
		ttlDays int
		deleted bool
	}{
		{memory.Scope{Tenant: "a", User: "u1"}, memory.MustParseKey("counted"), 0, false},
		{memory.Scope{Tenant: "b", User: "u1"}, memory.MustParseKey("counted-too"), 30, false},
		{memory.Scope{Tenant: "a", User: "u2"}, memory.MustParseKey("expired"), 1, false},
		{memory.Scope{Tenant: "a", User: "u1"}, memory.MustParseKey("deleted"), 0, true},
		{memory.Scope{Tenant: "a", User: "u1"}, memory.MustParseKey("tool-list"), 0, false},
	} {
		saveForTest(t, ctx, memories, m.scope, m.key, m.ttlDays, m.deleted, now.AddDate(0, 0, -2))
	}
	if n, err := memories.CountActive(ctx, now); err != nil || n != 2 {
		t.Errorf("count active = %d, %v; want 2 (not expired, deleted or noise)", n, err)
	}

	if has, err := keys.HasActiveAPIKeys(ctx); err != nil || has {
		t.Fatalf("no keys yet: has = %v, %v", has, err)
	}
	if err := keys.CreateAPIKey(ctx, ports.APIKey{ID: "k1", Tenant: "a", Hash: "h1", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if has, err := keys.HasActiveAPIKeys(ctx); err != nil || !has {
		t.Errorf("after one key: has = %v, %v", has, err)
	}
}

func saveForTest(t *testing.T, ctx context.Context, store *MemoryStore, scope memory.Scope, key memory.Key, ttlDays int, deleted bool, at time.Time) {
	t.Helper()
	in := memory.DraftInput{Type: "fact", Content: "about " + key.String()}
	if ttlDays != 0 {
		in.TTLDays = &ttlDays
	}
	d, err := memory.ParseDraft(in, memory.Source{Channel: memory.ChannelTool})
	if err != nil {
		t.Fatal(err)
	}
	_, err = store.Update(ctx, scope, key, func(*memory.Memory) (memory.Change, error) {
		m, err := memory.New(ulid.Make().String(), scope, key, d, memory.Policy{}, at)
		if err != nil {
			return memory.Change{}, err
		}
		if deleted {
			m = m.Deactivate(memory.Source{Channel: memory.ChannelTool}, at)
		}
		return memory.Change{Memory: m, Event: memory.NewEvent(ulid.Make().String(), memory.OpAdd, nil, m)}, nil
	})
	if err != nil {
		t.Fatalf("save %s: %v", key, err)
	}
}
