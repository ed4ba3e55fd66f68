package contract

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// LexicalIndex is one backend's lexical documents as the indexer writes them
// (ports.LexicalDocs) and search reads them back (ports.LexicalFeed).
type LexicalIndex interface {
	ports.LexicalDocs
	ports.LexicalFeed
}

// RunLexicalIndex is the contract every lexical index adapter must pass. open
// returns an empty index; each case opens its own.
//
// Behaviour the suite pins down beyond the port's comments:
//   - Terms come back exactly as stored, in order, repeats kept, Chinese included;
//     times in UTC to the microsecond.
//   - Every put or delete advances the user's generation by one; other users'
//     generations do not move.
//   - ChangesSince(g) returns each document changed after g once, in its
//     latest state, and deletions after g as Deleted; since 0 returns only live
//     documents and no deletions.
//   - Another user's or tenant's documents never come back, whatever the ids.
//   - Concurrent writers of one user get distinct generations, and a reader that
//     catches up from any generation misses nothing.
func RunLexicalIndex(t *testing.T, open func(t *testing.T) LexicalIndex) {
	t.Helper()
	alice := memory.Scope{Tenant: "t1", User: "alice"}
	at := time.Date(2026, 11, 30, 17, 4, 5, 123456789, time.FixedZone("CST", 8*3600))
	msg := func(sc memory.Scope, id string, terms ...string) ports.LexicalDoc {
		return ports.LexicalDoc{Tenant: sc.Tenant, User: sc.User, Kind: memory.KindMessage, ID: id,
			ConversationID: "conv-1", At: at, Speaker: "melani", Terms: terms}
	}
	mem := func(sc memory.Scope, id string, version int64, terms ...string) ports.LexicalDoc {
		return ports.LexicalDoc{Tenant: sc.Tenant, User: sc.User, Kind: memory.KindMemory, ID: id,
			MemoryType: "preference", At: at, ExpiresAt: at.AddDate(0, 6, 0), Terms: terms, Version: version}
	}

	t.Run("documents come back exactly, Chinese terms included", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		docs := []ports.LexicalDoc{
			msg(alice, "01M1", "喜", "喜欢", "欢", "paint", "paint", "2023"),
			mem(alice, "01K1", 3, "diet", "vegetarian"),
			{Tenant: "t1", User: "alice", Kind: memory.KindMessage, ID: "01M2", At: at}, // no terms
		}
		if err := x.Put(ctx, docs); err != nil {
			t.Fatalf("put: %v", err)
		}
		ch := lexChanges(t, ctx, x, alice, 0)
		want := map[string]ports.LexicalDoc{}
		for _, d := range docs {
			d.At, d.ExpiresAt = lexTime(d.At), lexTime(d.ExpiresAt)
			want[d.ID] = d
		}
		if len(ch.Docs) != len(docs) || len(ch.Deleted) != 0 {
			t.Fatalf("got %d docs and %d deletions, want %d and 0", len(ch.Docs), len(ch.Deleted), len(docs))
		}
		for _, d := range ch.Docs {
			w := want[d.ID]
			if len(d.Terms) == 0 && len(w.Terms) == 0 {
				d.Terms, w.Terms = nil, nil
			}
			if fmt.Sprintf("%#v", d) != fmt.Sprintf("%#v", w) {
				t.Errorf("doc %s:\n got %#v\nwant %#v", d.ID, d, w)
			}
		}
	})

	t.Run("generations count changes per user", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		bob := memory.Scope{Tenant: "t1", User: "bob"}
		if g := lexGen(t, ctx, x, alice); g != 0 {
			t.Fatalf("a new user has generation %d, want 0", g)
		}
		mustPut(t, ctx, x, msg(alice, "a", "x"), msg(alice, "b", "y"), msg(bob, "c", "z"))
		mustPut(t, ctx, x, msg(alice, "d", "x"))
		if err := x.Delete(ctx, alice, []ports.LexicalRef{{Kind: memory.KindMessage, ID: "a"}}); err != nil {
			t.Fatal(err)
		}
		if g := lexGen(t, ctx, x, alice); g != 3 {
			t.Errorf("alice: generation %d after two puts and a delete, want 3", g)
		}
		if g := lexGen(t, ctx, x, bob); g != 1 {
			t.Errorf("bob: generation %d after one put, want 1", g)
		}
	})

	t.Run("changes since a generation: latest state, deletions, nothing older", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		mustPut(t, ctx, x, mem(alice, "k1", 1, "tea"), mem(alice, "k2", 1, "coffee"), mem(alice, "k3", 1, "water"))
		g := lexGen(t, ctx, x, alice)
		mustPut(t, ctx, x, mem(alice, "k1", 2, "green", "tea"))
		if err := x.Delete(ctx, alice, []ports.LexicalRef{{Kind: memory.KindMemory, ID: "k2"}, {Kind: memory.KindMemory, ID: "unknown"}}); err != nil {
			t.Fatal(err)
		}
		ch := lexChanges(t, ctx, x, alice, g)
		if ids := lexIDs(ch.Docs); !slices.Equal(ids, []string{"k1"}) || ch.Docs[0].Version != 2 || !slices.Equal(ch.Docs[0].Terms, []string{"green", "tea"}) {
			t.Errorf("changed docs = %v (%+v), want k1 at version 2", ids, ch.Docs)
		}
		if len(ch.Deleted) != 1 || ch.Deleted[0] != (ports.LexicalRef{Kind: memory.KindMemory, ID: "k2"}) {
			t.Errorf("deleted = %v, want k2", ch.Deleted)
		}
		if ch.Generation != lexGen(t, ctx, x, alice) {
			t.Errorf("changes bring a reader to %d, want the current %d", ch.Generation, lexGen(t, ctx, x, alice))
		}
		all := lexChanges(t, ctx, x, alice, 0)
		if ids := lexIDs(all.Docs); !slices.Equal(ids, []string{"k1", "k3"}) || len(all.Deleted) != 0 {
			t.Errorf("since 0 = %v and %v deletions, want k1 k3 and none", ids, all.Deleted)
		}
		// Deleted, then put again: live again.
		mustPut(t, ctx, x, mem(alice, "k2", 3, "coffee"))
		if ids := lexIDs(lexChanges(t, ctx, x, alice, 0).Docs); !slices.Equal(ids, []string{"k1", "k2", "k3"}) {
			t.Errorf("after a put of a deleted doc: %v", ids)
		}
	})

	t.Run("the last copy of a document within one batch wins", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		mustPut(t, ctx, x, mem(alice, "k", 1, "old"), msg(alice, "m", "x"), mem(alice, "k", 2, "new"))
		ch := lexChanges(t, ctx, x, alice, 0)
		if len(ch.Docs) != 2 {
			t.Fatalf("got %d documents, want 2", len(ch.Docs))
		}
		for _, d := range ch.Docs {
			if d.ID == "k" && (d.Version != 2 || !slices.Equal(d.Terms, []string{"new"})) {
				t.Errorf("k = %+v, want the last copy", d)
			}
		}
	})

	t.Run("kinds are separate namespaces", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		mustPut(t, ctx, x, mem(alice, "same", 1, "memory"), msg(alice, "same", "message"))
		if err := x.Delete(ctx, alice, []ports.LexicalRef{{Kind: memory.KindMessage, ID: "same"}}); err != nil {
			t.Fatal(err)
		}
		ch := lexChanges(t, ctx, x, alice, 0)
		if len(ch.Docs) != 1 || ch.Docs[0].Kind != memory.KindMemory {
			t.Errorf("got %+v, want the memory only", ch.Docs)
		}
	})

	t.Run("other users and tenants never come back", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		others := []memory.Scope{{Tenant: "t1", User: "bob"}, {Tenant: "t2", User: "alice"}, {Tenant: "t1", User: "alice%"},
			{Tenant: "t1", User: "ALICE"}, {Tenant: "t1'; DROP TABLE lexical_docs; --", User: "alice"}}
		mustPut(t, ctx, x, mem(alice, "k", 1, "tea"))
		for _, o := range others {
			mustPut(t, ctx, x, mem(o, "k", 7, "tea"), mem(o, "only-"+o.User, 7, "tea"))
			if err := x.Delete(ctx, o, []ports.LexicalRef{{Kind: memory.KindMemory, ID: "k"}}); err != nil {
				t.Fatal(err)
			}
		}
		ch := lexChanges(t, ctx, x, alice, 0)
		if len(ch.Docs) != 1 || ch.Docs[0].Version != 1 {
			t.Errorf("alice sees %+v, want her one document", ch.Docs)
		}
		if v, err := x.Versions(ctx, alice, []string{"k", "only-bob"}); err != nil || len(v) != 1 || v["k"] != 1 {
			t.Errorf("versions = %v, %v; want k at 1 only", v, err)
		}
		if g := lexGen(t, ctx, x, alice); g != 1 {
			t.Errorf("alice's generation moved to %d by other users' writes", g)
		}
	})

	t.Run("versions of indexed memories", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		mustPut(t, ctx, x, mem(alice, "k1", 4, "a"), mem(alice, "k2", 9, "b"), msg(alice, "m1", "c"))
		if err := x.Delete(ctx, alice, []ports.LexicalRef{{Kind: memory.KindMemory, ID: "k2"}}); err != nil {
			t.Fatal(err)
		}
		v, err := x.Versions(ctx, alice, []string{"k1", "k2", "m1", "nope"})
		if err != nil || len(v) != 1 || v["k1"] != 4 {
			t.Errorf("versions = %v, %v; want only k1 at 4 (deleted and message documents are not memories)", v, err)
		}
	})

	t.Run("users with the most changes first", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		bob, carol := memory.Scope{Tenant: "t1", User: "bob"}, memory.Scope{Tenant: "t2", User: "carol"}
		if users, err := x.Users(ctx, 10); err != nil || len(users) != 0 {
			t.Fatalf("empty index: %v, %v", users, err)
		}
		mustPut(t, ctx, x, msg(bob, "a", "x"))
		for i := range 3 {
			mustPut(t, ctx, x, msg(alice, fmt.Sprint(i), "x"))
		}
		mustPut(t, ctx, x, msg(carol, "a", "x"))
		mustPut(t, ctx, x, msg(carol, "b", "x"))
		users, err := x.Users(ctx, 2)
		if err != nil || len(users) != 2 || users[0] != alice || users[1] != carol {
			t.Errorf("top 2 = %v, %v; want alice (3 changes), carol (2)", users, err)
		}
	})

	t.Run("concurrent writers: distinct generations, nothing missed by a reader", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		const writers, each = 8, 10
		seen := map[string]bool{}
		stop := make(chan struct{})
		type readerEnd struct {
			gen int64
			err error
		}
		readerDone := make(chan readerEnd, 1)
		go func() { // catches up over and over while the writers run
			var g int64
			for {
				ch, err := x.ChangesSince(ctx, alice, g)
				if err != nil {
					readerDone <- readerEnd{err: err}
					return
				}
				for _, d := range ch.Docs {
					seen[d.ID] = true
				}
				g = ch.Generation
				select {
				case <-stop:
					readerDone <- readerEnd{gen: g}
					return
				default:
				}
			}
		}()
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					if err := x.Put(ctx, []ports.LexicalDoc{msg(alice, fmt.Sprintf("w%d-%d", w, i), "x")}); err != nil {
						t.Errorf("put: %v", err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(stop)
		end := <-readerDone
		if end.err != nil {
			t.Fatal(end.err)
		}
		for _, d := range lexChanges(t, ctx, x, alice, end.gen).Docs { // the last catch-up
			seen[d.ID] = true
		}
		if len(seen) != writers*each {
			t.Errorf("the reader saw %d documents, want %d", len(seen), writers*each)
		}
		if g := lexGen(t, ctx, x, alice); g != writers*each {
			t.Errorf("generation %d after %d puts, want %d", g, writers*each, writers*each)
		}
	})

	t.Run("incomplete documents are refused", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		bad := []ports.LexicalDoc{{User: "u", Kind: memory.KindMemory, ID: "x"}, {Tenant: "t", Kind: memory.KindMemory, ID: "x"},
			{Tenant: "t", User: "u", Kind: "other", ID: "x"}, {Tenant: "t", User: "u", Kind: memory.KindMemory}}
		for _, d := range bad {
			if err := x.Put(ctx, []ports.LexicalDoc{d}); err == nil {
				t.Errorf("put %+v: no error", d)
			}
		}
	})
}

func lexContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func lexTime(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}

func mustPut(t *testing.T, ctx context.Context, x LexicalIndex, docs ...ports.LexicalDoc) {
	t.Helper()
	if err := x.Put(ctx, docs); err != nil {
		t.Fatalf("put: %v", err)
	}
}

func lexGen(t *testing.T, ctx context.Context, x LexicalIndex, sc memory.Scope) int64 {
	t.Helper()
	g, err := x.Generation(ctx, sc)
	if err != nil {
		t.Fatalf("generation: %v", err)
	}
	return g
}

func lexChanges(t *testing.T, ctx context.Context, x LexicalIndex, sc memory.Scope, since int64) ports.LexicalChanges {
	t.Helper()
	ch, err := x.ChangesSince(ctx, sc, since)
	if err != nil {
		t.Fatalf("changes since %d: %v", since, err)
	}
	return ch
}

func lexIDs(docs []ports.LexicalDoc) []string {
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	sort.Strings(ids)
	return ids
}

// LexicalPurgeIndex is a lexical index that an erasure can purge.
type LexicalPurgeIndex interface {
	LexicalIndex
	ports.UserPurger
}

// RunLexicalCompaction is the contract of tombstone compaction and of the
// erasure of a user's documents. open returns an empty index keeping tombstones of
// the latest window generations of a user.
//
// Behaviour the suite pins down:
//   - A deletion stays a tombstone for window generations of its user; then it is
//     forgotten, and a reader whose generation is older than the newest forgotten
//     one gets a Reset with every live document instead of changes.
//   - PurgeUser forgets every document of the user (tombstones too) and the
//     user's generation, and touches no one else. A reader holding the user gets a
//     Reset; when the user is written again, its generations continue above the
//     old ones, so even a reader at the user's last generation reloads.
func RunLexicalCompaction(t *testing.T, open func(t *testing.T, window int64) LexicalPurgeIndex) {
	t.Helper()
	alice := memory.Scope{Tenant: "t1", User: "alice"}
	bob := memory.Scope{Tenant: "t1", User: "bob"}
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	doc := func(sc memory.Scope, id string, terms ...string) ports.LexicalDoc {
		return ports.LexicalDoc{Tenant: sc.Tenant, User: sc.User, Kind: memory.KindMessage, ID: id, ConversationID: "c", At: at, Terms: terms}
	}
	del := func(t *testing.T, ctx context.Context, x LexicalPurgeIndex, sc memory.Scope, ids ...string) {
		t.Helper()
		refs := make([]ports.LexicalRef, len(ids))
		for i, id := range ids {
			refs[i] = ports.LexicalRef{Kind: memory.KindMessage, ID: id}
		}
		if err := x.Delete(ctx, sc, refs); err != nil {
			t.Fatal(err)
		}
	}
	deletedIDs := func(ch ports.LexicalChanges) []string {
		var ids []string
		for _, r := range ch.Deleted {
			ids = append(ids, r.ID)
		}
		sort.Strings(ids)
		return ids
	}

	t.Run("old tombstones are compacted and a reader behind them reloads", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t, 2), lexContext(t)
		mustPut(t, ctx, x, doc(alice, "d1", "a"), doc(alice, "d2", "b"), doc(alice, "d3", "c")) // gen 1
		del(t, ctx, x, alice, "d1")                                                             // gen 2
		mustPut(t, ctx, x, doc(alice, "x", "x"))                                                // gen 3
		mustPut(t, ctx, x, doc(alice, "y", "y"))                                                // gen 4
		del(t, ctx, x, alice, "d2")                                                             // gen 5: d1's tombstone (gen 2) goes
		if g := lexGen(t, ctx, x, alice); g != 5 {
			t.Fatalf("generation %d, want 5", g)
		}
		behind := lexChanges(t, ctx, x, alice, 1)
		if !behind.Reset || behind.Generation != 5 || len(behind.Deleted) != 0 || !slices.Equal(lexIDs(behind.Docs), []string{"d3", "x", "y"}) {
			t.Errorf("reader at 1 (behind the compacted tombstone) = reset %v gen %d docs %v deleted %v; want a reset to d3 x y at 5",
				behind.Reset, behind.Generation, lexIDs(behind.Docs), deletedIDs(behind))
		}
		within := lexChanges(t, ctx, x, alice, 3)
		if within.Reset || !slices.Equal(lexIDs(within.Docs), []string{"y"}) || !slices.Equal(deletedIDs(within), []string{"d2"}) {
			t.Errorf("reader at 3 = reset %v docs %v deleted %v; want y put and d2 deleted", within.Reset, lexIDs(within.Docs), deletedIDs(within))
		}
		if fresh := lexChanges(t, ctx, x, alice, 0); fresh.Reset || !slices.Equal(lexIDs(fresh.Docs), []string{"d3", "x", "y"}) {
			t.Errorf("a new reader = reset %v docs %v", fresh.Reset, lexIDs(fresh.Docs))
		}
		mustPut(t, ctx, x, doc(bob, "b1", "b"))
		if ch := lexChanges(t, ctx, x, bob, 0); len(ch.Docs) != 1 || ch.Reset {
			t.Errorf("bob: %+v", ch)
		}
	})

	t.Run("a purge forgets the user and only the user", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t, 100), lexContext(t)
		mustPut(t, ctx, x, doc(alice, "a1", "tea"), doc(alice, "a2", "coffee"), doc(bob, "b1", "tea"))
		del(t, ctx, x, alice, "a2")
		held := lexGen(t, ctx, x, alice)
		removed, err := x.PurgeUser(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		if removed["lexical_docs"] != 2 {
			t.Errorf("removed %v, want 2 lexical_docs (a live one and a tombstone)", removed)
		}
		if again, err := x.PurgeUser(ctx, alice); err != nil || again["lexical_docs"] != 0 {
			t.Errorf("second purge = %v, %v", again, err)
		}
		if g := lexGen(t, ctx, x, alice); g != 0 {
			t.Errorf("generation after the purge: %d, want 0", g)
		}
		if ch := lexChanges(t, ctx, x, alice, held); !ch.Reset || len(ch.Docs) != 0 {
			t.Errorf("a reader holding alice = reset %v docs %v; want a reset to nothing", ch.Reset, lexIDs(ch.Docs))
		}
		if ch := lexChanges(t, ctx, x, alice, 0); len(ch.Docs) != 0 {
			t.Errorf("alice's documents after the purge: %v", lexIDs(ch.Docs))
		}
		if users, err := x.Users(ctx, 10); err != nil || len(users) != 1 || users[0] != bob {
			t.Errorf("users after the purge = %v, %v; want bob", users, err)
		}
		if ch := lexChanges(t, ctx, x, bob, 0); !slices.Equal(lexIDs(ch.Docs), []string{"b1"}) {
			t.Errorf("bob's documents: %v", lexIDs(ch.Docs))
		}

		// Written again: generations go on above the old ones.
		mustPut(t, ctx, x, doc(alice, "new", "water"))
		g := lexGen(t, ctx, x, alice)
		if g <= held {
			t.Fatalf("generation after writing again = %d, want above %d", g, held)
		}
		ch := lexChanges(t, ctx, x, alice, held)
		if !ch.Reset || !slices.Equal(lexIDs(ch.Docs), []string{"new"}) || ch.Generation != g {
			t.Errorf("a reader at the erased generation %d = reset %v docs %v gen %d; want a reset to the new document at %d",
				held, ch.Reset, lexIDs(ch.Docs), ch.Generation, g)
		}
		if ch := lexChanges(t, ctx, x, alice, g); ch.Reset || len(ch.Docs)+len(ch.Deleted) != 0 {
			t.Errorf("a reader of the new documents = %+v, want nothing to do", ch)
		}
	})
}
