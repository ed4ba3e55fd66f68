package erasure_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"engram/adapters/localvec"
	"engram/adapters/sqlstore"
	"engram/adapters/ulids"
	"engram/app/erasure"
	"engram/app/lifecycle"
	"engram/domain/conversation"
	domain "engram/domain/erasure"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

var (
	alice = memory.Scope{Tenant: "t1", User: "alice"}
	bob   = memory.Scope{Tenant: "t1", User: "bob"}
	start = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
)

// world is the SQLite stores wired as bootstrap wires them.
type world struct {
	t        *testing.T
	ctx      context.Context
	clock    *fakeclock.Clock
	ids      ports.IDs
	jobs     *sqlstore.JobStore
	erasures *sqlstore.ErasureStore
	memories *sqlstore.MemoryStore
	messages *sqlstore.MessageStore
	lexical  *sqlstore.LexicalDocs
	vectors  *localvec.Index
	svc      *erasure.Service
}

func newWorld(t *testing.T, extra ...erasure.Purger) *world {
	t.Helper()
	stores := teststore.New(t)
	w := &world{t: t, ctx: context.Background(), clock: fakeclock.New(start), ids: ulids.New(),
		jobs: stores.Jobs, erasures: stores.Erasures, memories: stores.Memories, messages: stores.Messages, lexical: stores.Lexical}
	vx, err := localvec.New(localvec.Options{Dimension: 2})
	if err != nil {
		t.Fatal(err)
	}
	w.vectors = vx
	purgers := append([]erasure.Purger{
		{Step: domain.Step{Name: "vectors", Phase: domain.PhaseDerived}, Purge: w.vectors},
		{Step: domain.Step{Name: "truth", Phase: domain.PhaseTruth}, Purge: stores.Purger(w.clock)},
		{Step: domain.Step{Name: "lexical", Phase: domain.PhaseDerived}, Purge: w.lexical},
	}, extra...)
	w.svc, err = erasure.New(erasure.Deps{
		Erasures: w.erasures, Jobs: w.jobs, Purgers: purgers, Memories: w.memories, Messages: w.messages,
		Vectors: w.vectors, Lexical: w.lexical, Clock: w.clock, IDs: w.ids,
	}, erasure.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func key(t *testing.T, raw string) memory.Key {
	t.Helper()
	k, err := memory.ParseKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// learn stores a memory as extraction would, from message messageID, with its
// vector and lexical document.
func (w *world) learn(scope memory.Scope, raw, content, messageID string) memory.Memory {
	w.t.Helper()
	k := key(w.t, raw)
	src := memory.Source{Channel: memory.ChannelExtraction, ConversationID: "c1", MessageID: messageID}
	d, err := memory.ParseDraft(memory.DraftInput{Type: "fact", Content: content}, src)
	if err != nil {
		w.t.Fatal(err)
	}
	m, err := w.memories.Update(w.ctx, scope, k, func(cur *memory.Memory) (memory.Change, error) {
		if cur == nil {
			m, err := memory.New(w.ids.New(), scope, k, d, memory.Policy{}, w.clock.Now())
			return memory.Change{Memory: m, Event: memory.NewEvent(w.ids.New(), memory.OpAdd, nil, m)}, err
		}
		next, err := cur.Replace(d, memory.Policy{}, w.clock.Now())
		return memory.Change{Memory: next, Event: memory.NewEvent(w.ids.New(), memory.OpUpdate, cur, next)}, err
	})
	if err != nil {
		w.t.Fatalf("learn %s: %v", raw, err)
	}
	w.index(m.ID(), scope, memory.KindMemory)
	return m
}

func (w *world) post(scope memory.Scope, id, content string) conversation.Message {
	w.t.Helper()
	m, err := conversation.New(scope, conversation.Input{ConversationID: "c1", MessageID: id, Role: "user", Content: content}, w.ids.New(), w.clock.Now(), 0)
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.messages.Ingest(w.ctx, scope, []conversation.Message{m}); err != nil {
		w.t.Fatal(err)
	}
	w.index(m.Seq, scope, memory.KindMessage)
	return m
}

// index gives an item a vector and a lexical document, as the indexers would.
func (w *world) index(id string, scope memory.Scope, kind memory.Kind) {
	w.t.Helper()
	vk := memory.KindMemory
	if kind == memory.KindMessage {
		vk = memory.KindMessage
	}
	if err := w.vectors.Upsert(w.ctx, []ports.VectorRecord{{ID: id, Tenant: scope.Tenant, User: scope.User, Kind: vk, At: start, Vector: []float32{1, 1}}}); err != nil {
		w.t.Fatal(err)
	}
	if err := w.lexical.Put(w.ctx, []ports.LexicalDoc{{Tenant: scope.Tenant, User: scope.User, Kind: kind, ID: id, At: start, Terms: []string{"x"}}}); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) vectorIDs(scope memory.Scope) []string {
	w.t.Helper()
	hits, err := w.vectors.Search(w.ctx, ports.VectorQuery{Tenant: scope.Tenant, User: scope.User, Vector: []float32{1, 1}, Limit: 100})
	if err != nil {
		w.t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	slices.Sort(ids)
	return ids
}

func (w *world) lexicalIDs(scope memory.Scope) []string {
	w.t.Helper()
	ch, err := w.lexical.ChangesSince(w.ctx, scope, 0)
	if err != nil {
		w.t.Fatal(err)
	}
	var ids []string
	for _, d := range ch.Docs {
		ids = append(ids, d.ID)
	}
	slices.Sort(ids)
	return ids
}

func (w *world) ops(scope memory.Scope, raw string) []memory.Op {
	w.t.Helper()
	events, err := w.memories.History(w.ctx, scope, key(w.t, raw))
	if err != nil {
		w.t.Fatal(err)
	}
	var ops []memory.Op
	for _, e := range events {
		ops = append(ops, e.Op)
		if e.Op == memory.OpPurge && (e.After.Content != "" || e.Before != nil) {
			w.t.Errorf("%s: the PURGE event keeps content: %+v", raw, e)
		}
	}
	return ops
}

// flaky is a purge step that fails its first failures calls.
type flaky struct {
	failures int32
	calls    atomic.Int32
	err      error
}

func (f *flaky) PurgeUser(context.Context, memory.Scope) (map[string]int64, error) {
	if n := f.calls.Add(1); n <= f.failures {
		return map[string]int64{"sessions": 1}, f.err
	}
	return map[string]int64{"sessions": 2}, nil
}

func TestEraseUser_opensOneErasureAndNamesWhoAsked(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	first, err := w.svc.EraseUser(w.ctx, erasure.EraseUser{Scope: alice, Actor: "dpo"})
	if err != nil || !first.Created || first.Job.RequestedBy != "dpo" || first.Job.Kind != ports.JobEraseUser {
		t.Fatalf("first erase = %+v, %v", first, err)
	}
	second, err := w.svc.EraseUser(w.ctx, erasure.EraseUser{Scope: alice})
	if err != nil || second.Created || second.Job.ID != first.Job.ID {
		t.Errorf("second erase = %+v, %v; want the open job", second, err)
	}
	if other, _ := w.svc.EraseUser(w.ctx, erasure.EraseUser{Scope: bob}); other.Job.RequestedBy != domain.DefaultActor {
		t.Errorf("no actor recorded as %q", other.Job.RequestedBy)
	}
	if _, err := w.svc.EraseUser(w.ctx, erasure.EraseUser{Scope: alice, Actor: "bad\x00actor"}); err == nil {
		t.Error("an actor with a NUL was accepted")
	}
}

// A step fails mid-way (the job is cut short after the truth step): the runner
// puts the job back with a retry time, the counts of what was removed stay on it,
// the user stays hidden and frozen; the rerun finishes the purge and the job.
func TestRunJob_resumesAfterAStepFails(t *testing.T) {
	t.Parallel()
	sessions := &flaky{failures: 1, err: errors.New("session store down")}
	w := newWorld(t, erasure.Purger{Step: domain.Step{Name: "sessions", Phase: domain.PhaseTruth}, Purge: sessions})
	w.learn(alice, "diet", "vegetarian", "m1")
	w.post(alice, "m1", "I am vegetarian")
	w.learn(bob, "diet", "eats fish", "m1")
	er, err := w.svc.EraseUser(w.ctx, erasure.EraseUser{Scope: alice})
	if err != nil {
		t.Fatal(err)
	}
	runner := lifecycle.NewJobRunner(lifecycle.New(w.jobs, w.memories, w.jobs, w.clock, w.ids, lifecycle.Options{}),
		lifecycle.JobRunnerOptions{Worker: "w1", Handlers: map[ports.JobKind]lifecycle.JobHandler{ports.JobEraseUser: w.svc}})

	if n, err := runner.Tick(w.ctx); n != 1 || err != nil {
		t.Fatalf("first tick: %d %v", n, err)
	}
	job, err := w.jobs.Job(w.ctx, "t1", er.Job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if job.Status != ports.JobQueued || job.Error == "" || job.Counts["memories"] != 1 || job.Counts["messages"] != 1 || job.Counts["sessions"] != 1 {
		t.Fatalf("after the failed run: %+v; want it queued again with the counts so far", job)
	}
	if id, _ := w.erasures.Erasing(w.ctx, alice); id != er.Job.ID {
		t.Fatal("the user is no longer being erased after a failed run")
	}
	if n, _ := runner.Tick(w.ctx); n != 0 {
		t.Fatal("the failed job ran again before its retry time")
	}
	if got := w.vectorIDs(alice); len(got) != 2 {
		t.Fatalf("vectors before the derived steps ran: %v", got)
	}

	w.clock.Advance(domain.RetryDelay(job.Attempts))
	if n, err := runner.Tick(w.ctx); n != 1 || err != nil {
		t.Fatalf("second tick: %d %v", n, err)
	}
	done, err := w.jobs.Job(w.ctx, "t1", er.Job.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"memories": 1, "messages": 1, "memory_events": 1, "sessions": 3, "vectors": 2, "lexical_docs": 2, "jobs": 0}
	for k, v := range want {
		if done.Counts[k] != v {
			t.Errorf("counts %v, want %v", done.Counts, want)
			break
		}
	}
	if done.Status != ports.JobDone || done.Scope.User != alice.Fingerprint() || done.Attempts != 2 {
		t.Errorf("done job %+v", done)
	}
	if got := w.vectorIDs(alice); len(got) != 0 {
		t.Errorf("alice's vectors left: %v", got)
	}
	if got := w.lexicalIDs(alice); len(got) != 0 {
		t.Errorf("alice's lexical documents left: %v", got)
	}
	if got := w.vectorIDs(bob); len(got) != 1 {
		t.Errorf("bob's vectors: %v", got)
	}
	if _, err := w.memories.Get(w.ctx, bob, key(t, "diet")); err != nil {
		t.Errorf("bob's memory: %v", err)
	}
	// A clean slate.
	m := w.learn(alice, "diet", "eats fish now", "m1")
	if ops := w.ops(alice, "diet"); !slices.Equal(ops, []memory.Op{memory.OpAdd}) || m.Version() != 1 {
		t.Errorf("after the erasure: %v, version %d", ops, m.Version())
	}
}

func TestRunJob_waitsForClaimedRows(t *testing.T) {
	t.Parallel()
	busy := &flaky{failures: 2, err: fmt.Errorf("rows are claimed: %w", ports.ErrConflict)}
	w := newWorld(t, erasure.Purger{Step: domain.Step{Name: "sessions", Phase: domain.PhaseTruth}, Purge: busy})
	er, err := w.svc.EraseUser(w.ctx, erasure.EraseUser{Scope: alice})
	if err != nil {
		t.Fatal(err)
	}
	claimed, err := w.jobs.ClaimJob(w.ctx, "w1", w.clock.Now(), time.Minute)
	if err != nil || claimed.ID != er.Job.ID {
		t.Fatal(err)
	}
	counts, err := w.svc.RunJob(w.ctx, "w1", claimed)
	if err != nil {
		t.Fatalf("a busy step was not waited out: %v", err)
	}
	if counts["sessions"] != 4 || busy.calls.Load() != 3 {
		t.Errorf("counts %v after %d calls; want 1+1+2 sessions from 3 calls", counts, busy.calls.Load())
	}
}

func TestDeleteMessage_cascadePurgesWhatWasLearnedFromItAndNothingElse(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m1 := w.post(alice, "m1", "I am allergic to peanuts")
	m2 := w.post(alice, "m2", "I live in Wuhan")
	w.learn(alice, "allergy", "peanuts", "m1")
	w.learn(alice, "city", "Wuhan", "m2")
	w.learn(alice, "diet", "no nuts", "m2")
	diet := w.learn(alice, "diet", "no nuts at all", "m1") // updated from m1: its history holds m1
	w.learn(bob, "allergy", "none", "m1")

	out, err := w.svc.DeleteMessage(w.ctx, erasure.DeleteMessage{Scope: alice, MessageID: "m1", Cascade: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Message.Seq != m1.Seq || !slices.Equal(out.Purged, []memory.Key{key(t, "allergy"), key(t, "diet")}) {
		t.Errorf("deleted %+v, purged %v; want m1 with allergy and diet", out.Message, out.Purged)
	}
	if _, err := w.messages.Message(w.ctx, alice, "m1"); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("m1 is still there: %v", err)
	}
	for _, gone := range []string{"allergy", "diet"} {
		if _, err := w.memories.Get(w.ctx, alice, key(t, gone)); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("%s survived the cascade: %v", gone, err)
		}
		if ops := w.ops(alice, gone); !slices.Equal(ops, []memory.Op{memory.OpPurge}) {
			t.Errorf("%s history %v, want one PURGE", gone, ops)
		}
	}
	if got, err := w.memories.Get(w.ctx, alice, key(t, "city")); err != nil || got.Content() != "Wuhan" {
		t.Errorf("city (learned from m2) = %+v, %v", got.State(), err)
	}
	if _, err := w.memories.Get(w.ctx, bob, key(t, "allergy")); err != nil {
		t.Errorf("bob's memory from his own m1: %v", err)
	}
	city, _ := w.memories.Get(w.ctx, alice, key(t, "city"))
	if got, want := w.vectorIDs(alice), sorted(m2.Seq, city.ID()); !slices.Equal(got, want) {
		t.Errorf("vectors left %v, want m2's and city's %v (diet was %s)", got, want, diet.ID())
	}
	if got, want := w.lexicalIDs(alice), sorted(m2.Seq, city.ID()); !slices.Equal(got, want) {
		t.Errorf("lexical documents left %v, want %v", got, want)
	}

	// Without cascade, only the message goes.
	if out, err := w.svc.DeleteMessage(w.ctx, erasure.DeleteMessage{Scope: alice, MessageID: "m2"}); err != nil || len(out.Purged) != 0 {
		t.Errorf("delete m2 = %+v, %v", out, err)
	}
	if _, err := w.memories.Get(w.ctx, alice, key(t, "city")); err != nil {
		t.Errorf("city went with m2 without a cascade: %v", err)
	}
	// The cascade of a message already gone still finds what was learned from it.
	out, err = w.svc.DeleteMessage(w.ctx, erasure.DeleteMessage{Scope: alice, MessageID: "m2", Cascade: true})
	if err != nil || out.Message.Seq != "" || !slices.Equal(out.Purged, []memory.Key{key(t, "city")}) {
		t.Errorf("cascade after the message went = %+v, %v; want city", out, err)
	}
	if _, err := w.svc.DeleteMessage(w.ctx, erasure.DeleteMessage{Scope: alice, MessageID: "m2", Cascade: true}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("nothing left to delete: %v, want not found", err)
	}
	if _, err := w.svc.DeleteMessage(w.ctx, erasure.DeleteMessage{Scope: alice, MessageID: " "}); err == nil {
		t.Error("a blank message id was accepted")
	}
}

func TestPurgeMemory_leavesOneContentFreeEventAndNoDerivedCopy(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := w.learn(alice, "allergy", "peanuts", "m1")
	w.learn(alice, "city", "Wuhan", "m2")
	was, err := w.svc.PurgeMemory(w.ctx, erasure.PurgeMemory{Scope: alice, Key: "Allergy"})
	if err != nil || was.ID() != m.ID() {
		t.Fatalf("purge = %+v, %v", was.State(), err)
	}
	if ops := w.ops(alice, "allergy"); !slices.Equal(ops, []memory.Op{memory.OpPurge}) {
		t.Errorf("history %v", ops)
	}
	if got := w.vectorIDs(alice); slices.Contains(got, m.ID()) || len(got) != 1 {
		t.Errorf("vectors %v", got)
	}
	if got := w.lexicalIDs(alice); slices.Contains(got, m.ID()) || len(got) != 1 {
		t.Errorf("lexical documents %v", got)
	}
	if _, err := w.svc.PurgeMemory(w.ctx, erasure.PurgeMemory{Scope: alice, Key: "allergy"}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("second purge: %v, want not found", err)
	}
}

func sorted(ids ...string) []string {
	slices.Sort(ids)
	return ids
}
