package memstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/adapters/memstore"
	"engram/domain/memory"
	"engram/ports"
)

func TestCountActive_leavesOutExpiredDeletedAndNoise(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.NewMemoryStore()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
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
		in := memory.DraftInput{Type: "fact", Content: "about " + m.key.String()}
		if m.ttlDays != 0 {
			in.TTLDays = &m.ttlDays
		}
		d, err := memory.ParseDraft(in, memory.Source{})
		if err != nil {
			t.Fatal(err)
		}
		at := now.AddDate(0, 0, -2)
		_, err = store.Update(ctx, m.scope, m.key, func(*memory.Memory) (memory.Change, error) {
			mem, err := memory.New(ulid.Make().String(), m.scope, m.key, d, memory.Policy{}, at)
			if err != nil {
				return memory.Change{}, err
			}
			if m.deleted {
				mem = mem.Deactivate(memory.Source{}, at)
			}
			return memory.Change{Memory: mem, Event: memory.NewEvent(ulid.Make().String(), memory.OpAdd, nil, mem)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n, err := store.CountActive(ctx, now); err != nil || n != 2 {
		t.Errorf("count active = %d, %v; want 2", n, err)
	}
}

func TestHasAny_turnsTrueWithTheFirstKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memstore.NewAPIKeyStore()
	if has, _ := store.HasActiveAPIKeys(ctx); has {
		t.Fatal("an empty store has keys")
	}
	if err := store.CreateAPIKey(ctx, ports.APIKey{ID: "k1", Tenant: "a", Hash: "h1"}); err != nil {
		t.Fatal(err)
	}
	if has, _ := store.HasActiveAPIKeys(ctx); !has {
		t.Error("the key is not seen")
	}
}
