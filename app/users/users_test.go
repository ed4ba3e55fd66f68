package users_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/users"
	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/teststore"
)

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

type fixture struct {
	erasures *sqlstore.ErasureStore
	memories *sqlstore.MemoryStore
	messages *sqlstore.MessageStore
	svc      *users.Service
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	stores := teststore.New(t)
	f := &fixture{erasures: stores.Erasures, memories: stores.Memories, messages: stores.Messages}
	f.svc = users.New([]users.Source{{Kind: users.KindMemories, Activity: f.memories}, {Kind: users.KindMessages, Activity: f.messages}},
		f.erasures, f.messages)
	return f
}

func (f *fixture) save(t *testing.T, user, raw string, at time.Time) {
	t.Helper()
	scope := memory.Scope{Tenant: "t1", User: user}
	k, _ := memory.ParseKey(raw)
	d, _ := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: "x"}, memory.Source{Channel: memory.ChannelTool})
	ids := ulids.New()
	if _, err := f.memories.Update(context.Background(), scope, k, func(*memory.Memory) (memory.Change, error) {
		m, err := memory.New(ids.New(), scope, k, d, memory.Policy{}, at)
		return memory.Change{Memory: m, Event: memory.NewEvent(ids.New(), memory.OpAdd, nil, m)}, err
	}); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) post(t *testing.T, user, id string, at time.Time) {
	t.Helper()
	scope := memory.Scope{Tenant: "t1", User: user}
	m, err := conversation.New(scope, conversation.Input{ConversationID: "c1", MessageID: id, Role: "user", Content: "hi " + id, CreatedAt: at}, ulids.New().New(), at, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.messages.Ingest(context.Background(), scope, []conversation.Message{m}); err != nil {
		t.Fatal(err)
	}
}

func TestListUsers_pagesOverEveryStoreAndHidesUsersBeingErased(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.save(t, "alice", "diet", t0)
	f.save(t, "alice", "city", t0.Add(time.Minute))
	f.post(t, "alice", "m1", t0.Add(time.Hour))
	f.post(t, "bob", "m1", t0)
	f.save(t, "carol", "diet", t0)
	f.save(t, "dave", "diet", t0)
	if _, _, err := f.erasures.BeginErasure(ctx, ports.Job{ID: "erase-dave", Scope: memory.Scope{Tenant: "t1", User: "dave"}, Kind: ports.JobEraseUser}); err != nil {
		t.Fatal(err)
	}
	var got []users.UserSummary
	cursor := ""
	pages := 0
	for {
		page, err := f.svc.ListUsers(ctx, users.ListUsers{Tenant: "t1", Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, page.Items...)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	var names []string
	for _, u := range got {
		names = append(names, u.User)
	}
	if !slices.Equal(names, []string{"alice", "bob", "carol"}) || pages != 2 {
		t.Fatalf("users %v in %d pages, want alice bob carol (dave is being erased) in 2", names, pages)
	}
	a := got[0]
	if a.Counts[users.KindMemories] != 2 || a.Counts[users.KindMessages] != 1 || a.Counts[users.KindSessions] != 0 || !a.LastActiveAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("alice %+v", a)
	}
	if b := got[1]; b.Counts[users.KindMemories] != 0 || b.Counts[users.KindMessages] != 1 {
		t.Errorf("bob %+v", b)
	}
	if other, err := f.svc.ListUsers(ctx, users.ListUsers{Tenant: "t2"}); err != nil || len(other.Items) != 0 {
		t.Errorf("another tenant sees %+v, %v", other, err)
	}
}

func TestListUsers_refusesABadLimitOrCursor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, q := range []users.ListUsers{{Tenant: "t1", Limit: -1}, {Tenant: "t1", Limit: 1001}, {Tenant: "t1", Cursor: "not-a-cursor"}} {
		var ve *invalid.Error
		if _, err := f.svc.ListUsers(context.Background(), q); !errors.As(err, &ve) {
			t.Errorf("%+v: %v, want a validation error", q, err)
		}
	}
}

func TestListMessages_pagesOldestFirstWithFilters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	for i := 4; i >= 0; i-- { // arrive newest first
		f.post(t, "alice", fmt.Sprintf("m%d", i), t0.Add(time.Duration(i)*time.Minute))
	}
	alice := memory.Scope{Tenant: "t1", User: "alice"}
	var ids []string
	cursor := ""
	for {
		page, err := f.svc.ListMessages(ctx, users.ListMessages{Scope: alice, Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Items {
			ids = append(ids, m.ID)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if want := []string{"m0", "m1", "m2", "m3", "m4"}; !slices.Equal(ids, want) {
		t.Errorf("pages %v, want %v", ids, want)
	}
	page, err := f.svc.ListMessages(ctx, users.ListMessages{Scope: alice, Since: t0.Add(time.Minute), Until: t0.Add(3 * time.Minute), Status: "pending"})
	if err != nil || len(page.Items) != 2 || page.Items[0].ID != "m1" || page.NextCursor != "" {
		t.Errorf("since 1m until 3m, pending = %+v, %v", page, err)
	}
	for _, q := range []users.ListMessages{
		{Scope: alice, Status: "DONE"}, {Scope: alice, Since: t0, Until: t0}, {Scope: alice, Cursor: "bogus"}, {Scope: alice, ConversationID: "a\x00b"}, {Scope: alice, Limit: 5000},
	} {
		var ve *invalid.Error
		if _, err := f.svc.ListMessages(ctx, q); !errors.As(err, &ve) {
			t.Errorf("%+v: %v, want a validation error", q, err)
		}
	}
}

func TestListUsers_onlyKeepsTheListingToOneUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.save(t, "alice", "diet", t0)
	f.post(t, "bob", "m1", t0)
	f.save(t, "dave", "diet", t0)
	if _, _, err := f.erasures.BeginErasure(ctx, ports.Job{ID: "erase-dave", Scope: memory.Scope{Tenant: "t1", User: "dave"}, Kind: ports.JobEraseUser}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		only, cursor string
		want         []string
	}{
		{"bob", "", []string{"bob"}},
		{"alice", "", []string{"alice"}},
		{"nobody", "", nil},                 // nothing stored of them
		{"dave", "", nil},                   // being erased
		{"alice", "dTphbGljZQ", []string{}}, // a later page: the one user was on the first
	} {
		page, err := f.svc.ListUsers(ctx, users.ListUsers{Tenant: "t1", Only: c.only, Cursor: c.cursor})
		if err != nil {
			t.Fatalf("only %s: %v", c.only, err)
		}
		var names []string
		for _, u := range page.Items {
			names = append(names, u.User)
		}
		if !slices.Equal(names, c.want) && !(len(names) == 0 && len(c.want) == 0) || page.NextCursor != "" {
			t.Errorf("only %s (cursor %q): %v next %q, want %v", c.only, c.cursor, names, page.NextCursor, c.want)
		}
	}
	if page, err := f.svc.ListUsers(ctx, users.ListUsers{Tenant: "t2", Only: "alice"}); err != nil || len(page.Items) != 0 {
		t.Errorf("alice of another tenant: %+v, %v", page, err)
	}
}
