package contract

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/org"
	"engram/domain/profile"
	"engram/ports"
	"engram/test/fakeclock"
)

// ErasureMemories is what the erasure cases need of a memory store: the port, the
// purge of one memory, the user listing, and retrieval's reads.
type ErasureMemories interface {
	ports.MemoryStore
	ports.MemoryPurger
	ports.UserActivity
	MemoriesByID(ctx context.Context, scope memory.Scope, ids []string) ([]memory.Memory, error)
	TopMemories(ctx context.Context, scope memory.Scope, types []memory.Type, now time.Time, limit int) ([]memory.Memory, error)
}

// ErasureMessages is what the erasure cases need of a message store.
type ErasureMessages interface {
	MessageStore
	ports.MessageDeleter
	ports.MessageLister
	ports.UserActivity
	MessagesBySeq(ctx context.Context, scope memory.Scope, seqs []string) ([]conversation.Message, error)
}

// ErasureStores are one backend's stores over the same data. Truth is the
// backend's ports.UserPurger of the truth tables, reading claims' liveness from the
// clock open was given.
type ErasureStores struct {
	Erasures ports.ErasureStore
	Jobs     ports.JobStore
	Memories ErasureMemories
	Messages ErasureMessages
	Sync     VectorQueue
	Truth    ports.UserPurger
	Org      ports.OrgStore
	Activity ports.ActivityStore
}

// RunErasure is the contract of erasure on a truth store: ports.ErasureStore,
// ports.UserPurger of the truth tables, ports.MemoryPurger, ports.MessageDeleter,
// ports.MessageLister, ports.UserActivity and the erasure-related behaviour of
// ports.JobStore (RecordJobCounts, FinishJob of an erasure) and ports.OrgStore
// (PutMember of a user being erased is refused) and ports.ActivityStore
// (RecordActivity of a user being erased is refused). open returns empty
// stores whose purger reads clock; each case opens its own.
//
// Behaviour the suite pins down:
//   - From BeginErasure to the job's DONE, the user's reads find nothing (not
//     found, empty pages, no events), every write is an *ports.ErasingError (which
//     is a ports.ErrConflict), and workers claim none of the user's messages or
//     memories. Other users and tenants are untouched.
//   - A DONE erasure names the user by fingerprint, and the user can be written
//     again from scratch.
//   - A purge removes every row of the user but the open erasure, counts what it
//     removed, removes nothing the second time, and refuses (ErrConflict) while a
//     worker holds a live claim.
func RunErasure(t *testing.T, open func(t *testing.T, clock ports.Clock) ErasureStores) {
	t.Helper()
	alice := memory.Scope{Tenant: "t1", User: "alice"}
	bob := memory.Scope{Tenant: "t1", User: "bob"}
	other := memory.Scope{Tenant: "t2", User: "alice"}
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tool := memory.Source{Channel: memory.ChannelTool}
	lease := time.Minute

	type world struct {
		ErasureStores
		clock *fakeclock.Clock
		ctx   context.Context
	}
	newWorld := func(t *testing.T) world {
		c := fakeclock.New(t0)
		return world{ErasureStores: open(t, c), clock: c, ctx: memTestContext(t)}
	}
	save := func(t *testing.T, w world, scope memory.Scope, key, content string) memory.Memory {
		t.Helper()
		m, err := memSave(w.ctx, w.Memories, scope, erasureKey(t, key), memDraft(t, memory.TypeFact, content, 3, 0.8, 0, tool), w.clock.Now())
		if err != nil {
			t.Fatalf("save %s: %v", key, err)
		}
		return m
	}
	post := func(t *testing.T, w world, scope memory.Scope, conv, id, content string, at time.Time) conversation.Message {
		t.Helper()
		m, err := conversation.New(scope, conversation.Input{ConversationID: conv, MessageID: id, Role: "user", Content: content, CreatedAt: at}, memNewID(), w.clock.Now(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Messages.Ingest(w.ctx, scope, []conversation.Message{m}); err != nil {
			t.Fatalf("ingest %s: %v", id, err)
		}
		return m
	}
	begin := func(t *testing.T, w world, scope memory.Scope) ports.Job {
		t.Helper()
		job, created, err := w.Erasures.BeginErasure(w.ctx, ports.Job{ID: memNewID(), Scope: scope, Kind: ports.JobEraseUser, CreatedAt: w.clock.Now(), RequestedBy: "dpo"})
		if err != nil || !created {
			t.Fatalf("begin erasure: %+v %v %v", job, created, err)
		}
		return job
	}
	finish := func(t *testing.T, w world, job ports.Job) {
		t.Helper()
		claimed, err := w.Jobs.ClaimJob(w.ctx, "w", w.clock.Now(), lease)
		if err != nil || claimed.ID != job.ID {
			t.Fatalf("claim the erasure: %+v %v", claimed, err)
		}
		claimed.Status, claimed.FinishedAt = ports.JobDone, w.clock.Now()
		if err := w.Jobs.FinishJob(w.ctx, "w", claimed); err != nil {
			t.Fatalf("finish the erasure: %v", err)
		}
	}
	erasing := func(t *testing.T, err error, what string) {
		t.Helper()
		var e *ports.ErasingError
		if !errors.As(err, &e) || !errors.Is(err, ports.ErrConflict) || e.JobID == "" {
			t.Errorf("%s while erasing: %v, want an *ErasingError (a conflict) naming the job", what, err)
		}
	}

	t.Run("an erasure begins once; a second request gets the open job", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		job := begin(t, w, alice)
		if job.Status != ports.JobQueued || job.Kind != ports.JobEraseUser || job.RequestedBy != "dpo" {
			t.Errorf("stored %+v", job)
		}
		again, created, err := w.Erasures.BeginErasure(w.ctx, ports.Job{ID: memNewID(), Scope: alice, Kind: ports.JobEraseUser, CreatedAt: t0})
		if err != nil || created || again.ID != job.ID {
			t.Errorf("second begin = %+v %v %v; want the open job", again, created, err)
		}
		if _, err := w.Jobs.ClaimJob(w.ctx, "w", t0, lease); err != nil {
			t.Fatal(err)
		}
		running, created, err := w.Erasures.BeginErasure(w.ctx, ports.Job{ID: memNewID(), Scope: alice, Kind: ports.JobEraseUser, CreatedAt: t0})
		if err != nil || created || running.ID != job.ID || running.Status != ports.JobRunning {
			t.Errorf("begin while it runs = %+v %v %v; want the running job", running, created, err)
		}
		if _, _, err := w.Erasures.BeginErasure(w.ctx, ports.Job{ID: memNewID(), Scope: bob, Kind: ports.JobConsolidate}); err == nil {
			t.Error("BeginErasure stored a job of another kind")
		}
		if _, err := w.Jobs.EnqueueJob(w.ctx, ports.Job{ID: memNewID(), Scope: bob, Kind: ports.JobEraseUser}); err == nil {
			t.Error("EnqueueJob stored an erasure, which must begin with BeginErasure")
		}
	})

	t.Run("an open erasure hides the user from every read and refuses every write", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		for _, sc := range []memory.Scope{alice, bob, other} {
			save(t, w, sc, "diet", "vegetarian "+sc.User)
			post(t, w, sc, "c1", "m1", "I am vegetarian", t0)
		}
		kept := save(t, w, alice, "city", "lives in Wuhan")
		job := begin(t, w, alice)

		if id, err := w.Erasures.Erasing(w.ctx, alice); err != nil || id != job.ID {
			t.Errorf("Erasing(alice) = %q, %v; want %s", id, err, job.ID)
		}
		if id, _ := w.Erasures.Erasing(w.ctx, bob); id != "" {
			t.Errorf("bob is erasing too: %s", id)
		}
		if got, err := w.Erasures.ErasingUsers(w.ctx, "t1", []string{"alice", "bob", "carol"}); err != nil || len(got) != 1 || got["alice"] != job.ID {
			t.Errorf("ErasingUsers = %v, %v", got, err)
		}
		if got, _ := w.Erasures.ErasingUsers(w.ctx, "t2", []string{"alice"}); len(got) != 0 {
			t.Errorf("another tenant's alice is erasing: %v", got)
		}

		key := erasureKey(t, "diet")
		if _, err := w.Memories.Get(w.ctx, alice, key); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("get: %v, want not found", err)
		}
		if page := memList(t, w.ctx, w.Memories, alice, ports.MemoryQuery{IncludeInactive: true, Now: t0}); len(page.Items) != 0 {
			t.Errorf("list: %d items", len(page.Items))
		}
		if h := memHistory(t, w.ctx, w.Memories, alice, key); len(h) != 0 {
			t.Errorf("history: %d events", len(h))
		}
		if ms, err := w.Memories.MemoriesByID(w.ctx, alice, []string{kept.ID()}); err != nil || len(ms) != 0 {
			t.Errorf("memories by id: %d, %v", len(ms), err)
		}
		if ms, err := w.Memories.TopMemories(w.ctx, alice, nil, t0, 10); err != nil || len(ms) != 0 {
			t.Errorf("top memories: %d, %v", len(ms), err)
		}
		if _, err := w.Messages.Message(w.ctx, alice, "m1"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("message: %v, want not found", err)
		}
		if page, err := w.Messages.ListMessages(w.ctx, alice, ports.MessageQuery{}); err != nil || len(page.Items) != 0 {
			t.Errorf("list messages: %+v, %v", page, err)
		}

		_, err := memSave(w.ctx, w.Memories, alice, erasureKey(t, "new"), memDraft(t, memory.TypeFact, "written during the erasure", 3, 0.8, 0, tool), t0)
		erasing(t, err, "save")
		_, err = memAppend(w.ctx, w.Memories, alice, erasureKey(t, "city"), "more", t0)
		erasing(t, err, "append")
		m, _ := conversation.New(alice, msgUser("c9", "m9", "hello"), memNewID(), t0, 0)
		_, err = w.Messages.Ingest(w.ctx, alice, []conversation.Message{m})
		erasing(t, err, "ingest")
		_, err = w.Jobs.EnqueueJob(w.ctx, ports.Job{ID: memNewID(), Scope: alice, Kind: ports.JobConsolidate, CreatedAt: t0})
		erasing(t, err, "enqueue")
		_, err = w.Memories.PurgeMemory(w.ctx, alice, key, func(cur memory.Memory) memory.Event {
			return memory.NewPurgeEvent(memNewID(), cur, memory.ChannelTool, t0)
		}, t0)
		erasing(t, err, "purge memory")
		_, err = w.Messages.DeleteMessage(w.ctx, alice, "m1", 2, t0)
		erasing(t, err, "delete message")
		for _, sc := range []memory.Scope{alice, bob} {
			m, err := org.NewMember(sc.User, org.MemberInput{DisplayName: "Name of " + sc.User}, t0)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = w.Org.PutMember(w.ctx, sc.Tenant, m, nil)
			if sc == alice {
				erasing(t, err, "put org member")
			} else if err != nil {
				t.Errorf("put org member of bob, who is not erased: %v", err)
			}
			a, err := profile.NewActivity(sc, profile.ActivityInput{EventID: "e1", Kind: "task_created", At: t0}, t0)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = w.Activity.RecordActivity(w.ctx, a)
			if sc == alice {
				erasing(t, err, "record activity")
			} else if err != nil {
				t.Errorf("record activity of bob, who is not erased: %v", err)
			}
		}

		// Workers take nothing of alice, and the others as usual.
		due, err := w.Messages.ClaimDue(w.ctx, ports.Claim{Worker: "x", Now: t0.Add(time.Hour), Lease: lease, MaxConversations: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range due {
			if d.Scope == alice {
				t.Errorf("extraction claimed alice's %s", d.ID)
			}
		}
		if len(due) != 2 {
			t.Errorf("extraction claimed %d messages, want bob's and the other tenant's", len(due))
		}
		mems, err := w.Sync.ClaimMemories(w.ctx, ports.VectorClaim{Worker: "x", Now: t0, Lease: lease, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := w.Sync.ClaimMessages(w.ctx, ports.VectorClaim{Worker: "x", Now: t0, Lease: lease, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range mems {
			if c.Memory.Scope() == alice {
				t.Errorf("the indexer claimed alice's memory %s", c.Memory.Key())
			}
		}
		for _, c := range msgs {
			if c.Message.Scope == alice {
				t.Errorf("the indexer claimed alice's message %s", c.Message.ID)
			}
		}
		if len(mems) != 2 || len(msgs) != 2 {
			t.Errorf("the indexer claimed %d memories and %d messages, want bob's and the other tenant's", len(mems), len(msgs))
		}

		if got, err := w.Memories.Get(w.ctx, bob, key); err != nil || got.Content() != "vegetarian bob" {
			t.Errorf("bob's memory: %+v, %v", got.State(), err)
		}
		if _, err := memSave(w.ctx, w.Memories, other, erasureKey(t, "more"), memDraft(t, memory.TypeFact, "another tenant writes on", 3, 0.8, 0, tool), t0); err != nil {
			t.Errorf("the other tenant's alice cannot write: %v", err)
		}
	})

	t.Run("a purge removes the user's rows, counts them, and does nothing twice", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		for _, sc := range []memory.Scope{alice, bob} {
			save(t, w, sc, "diet", "vegetarian")
			save(t, w, sc, "pet", "a cat")
			if _, err := memAppend(w.ctx, w.Memories, sc, erasureKey(t, "pet"), "named Tom", t0); err != nil {
				t.Fatal(err)
			}
			post(t, w, sc, "c1", "m1", "I am vegetarian", t0)
			post(t, w, sc, "c1", "m2", "I have a cat", t0.Add(time.Second))
		}
		if _, err := w.Jobs.EnqueueJob(w.ctx, ports.Job{ID: memNewID(), Scope: alice, Kind: ports.JobConsolidate, CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		job := begin(t, w, alice)
		removed, err := w.Truth.PurgeUser(w.ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{"memories": 2, "memory_events": 3, "messages": 2, "jobs": 1}
		for kind, n := range want {
			if removed[kind] != n {
				t.Errorf("removed %v, want %v", removed, want)
				break
			}
		}
		again, err := w.Truth.PurgeUser(w.ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		for kind, n := range again {
			if n != 0 {
				t.Errorf("a second purge removed %d %s", n, kind)
			}
		}
		if _, err := w.Jobs.Job(w.ctx, "t1", job.ID); err != nil {
			t.Errorf("the purge removed the erasure itself: %v", err)
		}
		finish(t, w, job)

		key := erasureKey(t, "diet")
		if _, err := w.Memories.Get(w.ctx, alice, key); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("alice's memory after the purge: %v", err)
		}
		if h := memHistory(t, w.ctx, w.Memories, alice, erasureKey(t, "pet")); len(h) != 0 {
			t.Errorf("alice's history after the purge: %d events", len(h))
		}
		if _, err := w.Messages.Message(w.ctx, alice, "m1"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("alice's message after the purge: %v", err)
		}
		if users, err := w.Memories.UsersAfter(w.ctx, "t1", "", 10); err != nil || !slices.Equal(users, []string{"bob"}) {
			t.Errorf("users with memories = %v, %v; want bob", users, err)
		}
		if users, err := w.Messages.UsersAfter(w.ctx, "t1", "", 10); err != nil || !slices.Equal(users, []string{"bob"}) {
			t.Errorf("users with messages = %v, %v; want bob", users, err)
		}
		if h := memHistory(t, w.ctx, w.Memories, bob, erasureKey(t, "pet")); len(h) != 2 {
			t.Errorf("bob's history: %d events, want 2", len(h))
		}
		if _, err := w.Messages.Message(w.ctx, bob, "m2"); err != nil {
			t.Errorf("bob's message: %v", err)
		}
	})

	t.Run("a done erasure names a fingerprint and the user starts a clean slate", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		save(t, w, alice, "diet", "vegetarian")
		post(t, w, alice, "c1", "m1", "I am vegetarian", t0)
		job := begin(t, w, alice)
		if _, err := w.Truth.PurgeUser(w.ctx, alice); err != nil {
			t.Fatal(err)
		}
		claimed, err := w.Jobs.ClaimJob(w.ctx, "w", t0, lease)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Jobs.RecordJobCounts(w.ctx, "intruder", job.ID, map[string]int{"memories": 9}); !errors.Is(err, ports.ErrConflict) {
			t.Errorf("counts recorded by a worker without the claim: %v", err)
		}
		if err := w.Jobs.RecordJobCounts(w.ctx, "w", job.ID, map[string]int{"memories": 1}); err != nil {
			t.Fatal(err)
		}
		if got, _ := w.Jobs.Job(w.ctx, "t1", job.ID); got.Counts["memories"] != 1 || got.Status != ports.JobRunning || got.Scope != alice {
			t.Errorf("after recording counts: %+v", got)
		}
		claimed.Status, claimed.FinishedAt, claimed.Counts = ports.JobDone, t0.Add(time.Minute), map[string]int{"memories": 1, "messages": 1}
		if err := w.Jobs.FinishJob(w.ctx, "w", claimed); err != nil {
			t.Fatal(err)
		}
		done, err := w.Jobs.Job(w.ctx, "t1", job.ID)
		if err != nil {
			t.Fatal(err)
		}
		if done.Scope.User != alice.Fingerprint() || done.Scope.Tenant != "t1" || done.Status != ports.JobDone ||
			done.Counts["messages"] != 1 || done.RequestedBy != "dpo" || !done.FinishedAt.Equal(t0.Add(time.Minute)) {
			t.Errorf("the audit record %+v must name alice by fingerprint and keep the counts", done)
		}
		if id, _ := w.Erasures.Erasing(w.ctx, alice); id != "" {
			t.Errorf("still erasing after DONE: %s", id)
		}

		// Written again: new memory, no trace of the old one.
		again, err := memSave(w.ctx, w.Memories, alice, erasureKey(t, "diet"), memDraft(t, memory.TypeFact, "eats fish now", 3, 0.8, 0, tool), t0.Add(2*time.Minute))
		if err != nil {
			t.Fatalf("save after the erasure: %v", err)
		}
		if h := memHistory(t, w.ctx, w.Memories, alice, erasureKey(t, "diet")); len(h) != 1 || h[0].Op != memory.OpAdd || h[0].Before != nil || h[0].MemoryID != again.ID() {
			t.Errorf("history after the erasure = %v, want one ADD without before", memOps(h))
		}
		m, _ := conversation.New(alice, msgUser("c1", "m1", "I eat fish"), memNewID(), t0.Add(2*time.Minute), 0)
		got, err := w.Messages.Ingest(w.ctx, alice, []conversation.Message{m})
		if err != nil || len(got) != 1 || !got[0].Created || got[0].Message.Content != "I eat fish" {
			t.Errorf("message m1 posted again = %+v, %v; want a new message", got, err)
		}
		second := begin(t, w, alice)
		if second.ID == job.ID {
			t.Error("a new erasure reused the done one")
		}
	})

	t.Run("a purge waits for live claims and goes on once they lapse", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		save(t, w, alice, "diet", "vegetarian")
		if _, err := w.Sync.ClaimMemories(w.ctx, ports.VectorClaim{Worker: "indexer", Now: t0, Lease: lease, Limit: 10}); err != nil {
			t.Fatal(err)
		}
		begin(t, w, alice)
		if _, err := w.Truth.PurgeUser(w.ctx, alice); !errors.Is(err, ports.ErrConflict) {
			t.Fatalf("purge under a live vector claim: %v, want a conflict", err)
		}
		if _, err := w.Memories.MemoriesByID(w.ctx, alice, nil); err != nil {
			t.Fatal(err)
		}
		w.clock.Set(t0.Add(lease))
		removed, err := w.Truth.PurgeUser(w.ctx, alice)
		if err != nil || removed["memories"] != 1 {
			t.Fatalf("purge after the lease: %v, %v", removed, err)
		}

		w2 := newWorld(t)
		post(t, w2, alice, "c1", "m1", "I am vegetarian", t0)
		if _, err := w2.Messages.ClaimDue(w2.ctx, ports.Claim{Worker: "extractor", Now: t0, Lease: lease, MaxConversations: 1}); err != nil {
			t.Fatal(err)
		}
		begin(t, w2, alice)
		if _, err := w2.Truth.PurgeUser(w2.ctx, alice); !errors.Is(err, ports.ErrConflict) {
			t.Fatalf("purge under a live extraction claim: %v, want a conflict", err)
		}
		w2.clock.Set(t0.Add(lease))
		if removed, err := w2.Truth.PurgeUser(w2.ctx, alice); err != nil || removed["messages"] != 1 {
			t.Fatalf("purge after the extraction lease: %v, %v", removed, err)
		}
	})

	t.Run("purging a memory leaves one content-free PURGE event", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		key := erasureKey(t, "allergy")
		first := save(t, w, alice, "allergy", "peanuts")
		if _, err := memAppend(w.ctx, w.Memories, alice, key, "and shellfish", t0); err != nil {
			t.Fatal(err)
		}
		save(t, w, alice, "city", "Wuhan")
		save(t, w, bob, "allergy", "none")
		purgeEvent := func(cur memory.Memory) memory.Event {
			return memory.NewPurgeEvent(memNewID(), cur, memory.ChannelTool, t0.Add(time.Minute))
		}
		was, err := w.Memories.PurgeMemory(w.ctx, alice, key, purgeEvent, t0)
		if err != nil {
			t.Fatal(err)
		}
		if was.ID() != first.ID() || was.Content() != "peanuts\nand shellfish" {
			t.Errorf("purge returned %+v, want the memory as it was", was.State())
		}
		if _, err := w.Memories.Get(w.ctx, alice, key); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("get after purge: %v", err)
		}
		h := memHistory(t, w.ctx, w.Memories, alice, key)
		purged := memory.PurgedKey(alice, key)
		if len(h) != 1 || h[0].Op != memory.OpPurge || h[0].Before != nil || h[0].After.Content != "" || h[0].MemoryID != first.ID() ||
			h[0].Key != purged || h[0].After.Key != purged {
			t.Fatalf("history after purge = %+v, want one content-free PURGE under the purged key", h)
		}
		if _, err := w.Memories.Event(w.ctx, alice, h[0].ID); err != nil {
			t.Errorf("the PURGE event cannot be read: %v", err)
		}
		if _, err := w.Memories.PurgeMemory(w.ctx, alice, key, purgeEvent, t0); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("second purge: %v, want not found", err)
		}
		if _, err := w.Memories.PurgeMemory(w.ctx, alice, erasureKey(t, "city"), func(cur memory.Memory) memory.Event {
			return memory.NewEvent(memNewID(), memory.OpDelete, &cur, cur.Deactivate(tool, t0))
		}, t0); err == nil {
			t.Error("a purge that keeps content in its event was stored")
		}
		if got, err := w.Memories.Get(w.ctx, alice, erasureKey(t, "city")); err != nil || !got.Active() {
			t.Errorf("the refused purge changed city: %+v %v", got.State(), err)
		}
		if got, err := w.Memories.Get(w.ctx, bob, key); err != nil || got.Content() != "none" {
			t.Errorf("bob's allergy: %+v, %v", got.State(), err)
		}
		again := save(t, w, alice, "allergy", "none now")
		if again.ID() == first.ID() || again.Version() != 1 {
			t.Errorf("saved again = %+v, want a new memory", again.State())
		}
		if ops := memOps(memHistory(t, w.ctx, w.Memories, alice, key)); !slices.Equal(ops, []memory.Op{memory.OpPurge, memory.OpAdd}) {
			t.Errorf("history after saving again = %v", ops)
		}
	})

	t.Run("a memory under a live vector claim is purged once the claim lapses", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		save(t, w, alice, "diet", "vegetarian")
		if _, err := w.Sync.ClaimMemories(w.ctx, ports.VectorClaim{Worker: "indexer", Now: t0, Lease: lease, Limit: 10}); err != nil {
			t.Fatal(err)
		}
		purge := func(cur memory.Memory) memory.Event {
			return memory.NewPurgeEvent(memNewID(), cur, memory.ChannelTool, t0)
		}
		if _, err := w.Memories.PurgeMemory(w.ctx, alice, erasureKey(t, "diet"), purge, t0.Add(time.Second)); !errors.Is(err, ports.ErrConflict) {
			t.Fatalf("purge under a live claim: %v, want a conflict", err)
		}
		if _, err := w.Memories.PurgeMemory(w.ctx, alice, erasureKey(t, "diet"), purge, t0.Add(lease)); err != nil {
			t.Fatalf("purge after the lease: %v", err)
		}
	})

	t.Run("deleting a message removes it and requeues its neighbours", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		var msgs []conversation.Message
		for i := range 7 {
			msgs = append(msgs, post(t, w, alice, "c1", fmt.Sprintf("m%d", i), fmt.Sprintf("line %d", i), t0.Add(time.Duration(i)*time.Second)))
		}
		post(t, w, bob, "c1", "m3", "bob's line", t0)
		claimed, err := w.Sync.ClaimMessages(w.ctx, ports.VectorClaim{Worker: "indexer", Now: t0, Lease: lease, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var outcomes []ports.MessageVectorOutcome
		for _, c := range claimed {
			outcomes = append(outcomes, ports.MessageVectorOutcome{Seq: c.Message.Seq, Status: memory.VectorSynced, SyncedAt: t0,
				Model: "m", TextHash: "h", Embedding: []float32{1, 0}})
		}
		if _, err := w.Sync.FinishMessages(w.ctx, "indexer", outcomes); err != nil {
			t.Fatal(err)
		}
		was, err := w.Messages.DeleteMessage(w.ctx, alice, "m3", 2, t0.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if was.ID != "m3" || was.Content != "line 3" || was.Seq != msgs[3].Seq {
			t.Errorf("deleted %+v", was)
		}
		if _, err := w.Messages.Message(w.ctx, alice, "m3"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("get after delete: %v", err)
		}
		if _, err := w.Messages.Message(w.ctx, bob, "m3"); err != nil {
			t.Errorf("bob's m3 went too: %v", err)
		}
		if _, err := w.Messages.DeleteMessage(w.ctx, alice, "m3", 2, t0); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("second delete: %v, want not found", err)
		}
		due, err := w.Sync.ClaimMessages(w.ctx, ports.VectorClaim{Worker: "indexer", Now: t0.Add(2 * time.Minute), Lease: lease, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{msgs[1].Seq, msgs[2].Seq, msgs[4].Seq, msgs[5].Seq}
		if got := vsSeqs(due); !slices.Equal(got, want) {
			t.Errorf("requeued %v, want the two on each side %v", got, want)
		}
		for _, mv := range due {
			if mv.Embedding == nil {
				t.Errorf("neighbour %s lost its own embedding (it must be re-mixed, not re-embedded)", mv.Message.ID)
			}
		}
	})

	t.Run("a message being extracted or indexed is deleted once the claim lapses", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		post(t, w, alice, "c1", "m1", "I am vegetarian", t0)
		post(t, w, alice, "c2", "m2", "I have a cat", t0)
		if _, err := w.Messages.ClaimDue(w.ctx, ports.Claim{Worker: "extractor", Now: t0, Lease: lease, MaxConversations: 10}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Messages.DeleteMessage(w.ctx, alice, "m1", 2, t0.Add(time.Second)); !errors.Is(err, ports.ErrConflict) {
			t.Errorf("delete while extracted: %v, want a conflict", err)
		}
		if _, err := w.Messages.DeleteMessage(w.ctx, alice, "m1", 2, t0.Add(lease)); err != nil {
			t.Errorf("delete after the lease: %v", err)
		}
		if _, err := w.Sync.ClaimMessages(w.ctx, ports.VectorClaim{Worker: "indexer", Now: t0.Add(lease), Lease: lease, Limit: 10}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Messages.DeleteMessage(w.ctx, alice, "m2", 2, t0.Add(lease+time.Second)); !errors.Is(err, ports.ErrConflict) {
			t.Errorf("delete while its conversation is indexed: %v, want a conflict", err)
		}
	})

	t.Run("messages list oldest first with filters and a cursor", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		// Said out of arrival order; two at the same instant.
		post(t, w, alice, "c1", "late", "third", t0.Add(3*time.Second))
		post(t, w, alice, "c1", "early", "first", t0.Add(time.Second))
		post(t, w, alice, "c2", "same-a", "second a", t0.Add(2*time.Second))
		post(t, w, alice, "c2", "same-b", "second b", t0.Add(2*time.Second))
		post(t, w, bob, "c1", "bobs", "not alice's", t0)
		var all []string
		q := ports.MessageQuery{Limit: 3}
		for {
			page, err := w.Messages.ListMessages(w.ctx, alice, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range page.Items {
				all = append(all, m.ID)
			}
			if !page.More {
				break
			}
			last := page.Items[len(page.Items)-1]
			q.After = &ports.MessageCursor{CreatedAt: last.CreatedAt, Seq: last.Seq}
		}
		if want := []string{"early", "same-a", "same-b", "late"}; !slices.Equal(all, want) {
			t.Errorf("pages = %v, want %v", all, want)
		}
		ids := func(q ports.MessageQuery) []string {
			page, err := w.Messages.ListMessages(w.ctx, alice, q)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, m := range page.Items {
				out = append(out, m.ID)
			}
			return out
		}
		if got := ids(ports.MessageQuery{ConversationID: "c2"}); !slices.Equal(got, []string{"same-a", "same-b"}) {
			t.Errorf("conversation c2 = %v", got)
		}
		if got := ids(ports.MessageQuery{Since: t0.Add(2 * time.Second), Until: t0.Add(3 * time.Second)}); !slices.Equal(got, []string{"same-a", "same-b"}) {
			t.Errorf("since 2s until 3s = %v", got)
		}
		if got := ids(ports.MessageQuery{Status: conversation.StatusPending}); len(got) != 4 {
			t.Errorf("pending = %v", got)
		}
		if got := ids(ports.MessageQuery{Status: conversation.StatusProcessed}); len(got) != 0 {
			t.Errorf("processed = %v", got)
		}
	})

	t.Run("user activity counts each store's share", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		save(t, w, alice, "a", "x")
		w.clock.Set(t0.Add(time.Hour))
		latest := save(t, w, alice, "b", "y")
		save(t, w, memory.Scope{Tenant: "t1", User: "carol"}, "a", "x")
		save(t, w, other, "a", "x")
		post(t, w, bob, "c1", "m1", "hello", t0)
		users, err := w.Memories.UsersAfter(w.ctx, "t1", "", 10)
		if err != nil || !slices.Equal(users, []string{"alice", "carol"}) {
			t.Errorf("users with memories = %v, %v", users, err)
		}
		if users, _ := w.Memories.UsersAfter(w.ctx, "t1", "alice", 10); !slices.Equal(users, []string{"carol"}) {
			t.Errorf("after alice = %v", users)
		}
		if users, _ := w.Memories.UsersAfter(w.ctx, "t1", "", 1); !slices.Equal(users, []string{"alice"}) {
			t.Errorf("limit 1 = %v", users)
		}
		act, err := w.Memories.Activity(w.ctx, "t1", []string{"alice", "bob"})
		if err != nil {
			t.Fatal(err)
		}
		if a := act["alice"]; a.Count != 2 || !a.LastActiveAt.Equal(latest.UpdatedAt()) {
			t.Errorf("alice's memories: %+v, want 2, last %s", a, latest.UpdatedAt())
		}
		if _, ok := act["bob"]; ok {
			t.Errorf("bob has no memories, yet %+v", act["bob"])
		}
		msgAct, err := w.Messages.Activity(w.ctx, "t1", []string{"bob"})
		if err != nil || msgAct["bob"].Count != 1 {
			t.Errorf("bob's messages: %+v, %v", msgAct, err)
		}
	})
}

func erasureKey(t *testing.T, raw string) memory.Key {
	t.Helper()
	k, err := memory.ParseKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
