package contract

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/ports"
)

// TraceStores are one backend's trace store and the erasure store its writes
// consult.
type TraceStores struct {
	Traces   ports.TraceStore
	Erasures ports.ErasureStore
}

// RunTraceStore is the contract every ports.TraceStore adapter must pass. open
// returns empty stores; each case opens its own.
func RunTraceStore(t *testing.T, open func(t *testing.T) TraceStores) {
	t.Helper()
	at := time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.UTC)
	scope := memory.Scope{Tenant: "acme", User: "dev"}
	// Ids sort by time, as the ports.IDs of the product make them.
	idAt := func(when time.Time) string { return ulid.MustNew(ulid.Timestamp(when), ulid.DefaultEntropy()).String() }
	trace := func(sc memory.Scope, when time.Time) promptctx.Trace {
		return promptctx.Trace{
			ID: idAt(when), Scope: sc, At: when, Query: "发布推迟到哪天？ and the budget", SessionID: "s1", FlowID: "report",
			ModeUsed: "lexical", FallbackReason: "vector_timeout", Budget: 4000, InjectedChars: 321,
			SourceCount: map[promptctx.Section]int{promptctx.Memories: 1, promptctx.Recent: 2, promptctx.External: 0},
			Items: []promptctx.TraceItem{
				{ID: "release-date", Kind: "memory", Section: promptctx.Memories, Source: "memories", Score: 0.4375, Snippet: "发布推迟到 12 月 15 日"},
				{ID: "x1/user", Kind: "message", Section: promptctx.Recent, Source: "session", Score: 1, Snippet: "hello", Truncated: true},
			},
			RawHits: []promptctx.RawHit{
				{ID: "release-date", Kind: "memory", Section: promptctx.Memories, Source: "memories", Score: 0.4375, Kept: true},
				{ID: "m-9", Kind: "message", Section: promptctx.Episodes, Source: "messages", Score: 0.05, Reason: "below_min_score"},
			},
			Omitted: map[string]int{"below_min_score": 87},
			Timings: map[string]time.Duration{"total": 3*time.Millisecond + 217*time.Microsecond, "memories": 1500 * time.Microsecond},
		}
	}

	t.Run("a trace round-trips; another tenant finds nothing; an id is stored once", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		tr := trace(scope, at)
		must(t, s.Traces.SaveTraces(ctx, []promptctx.Trace{tr}))
		got, err := s.Traces.Trace(ctx, "acme", tr.ID)
		want := tr
		want.At = at.Truncate(time.Microsecond)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v (err %v)\nwant %+v", got, err, want)
		}
		if _, err := s.Traces.Trace(ctx, "globex", tr.ID); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("another tenant read the trace: %v", err)
		}
		if _, err := s.Traces.Trace(ctx, "acme", idAt(at)); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("an unknown id: %v", err)
		}
		again := tr
		again.Query = "rewritten"
		must(t, s.Traces.SaveTraces(ctx, []promptctx.Trace{again}))
		if got, _ := s.Traces.Trace(ctx, "acme", tr.ID); got.Query != tr.Query {
			t.Errorf("a second save of the id changed it: %q", got.Query)
		}
		empty := promptctx.Trace{ID: idAt(at.Add(time.Second)), Scope: scope, At: at, Query: "q"}
		must(t, s.Traces.SaveTraces(ctx, []promptctx.Trace{empty}))
		if got, err := s.Traces.Trace(ctx, "acme", empty.ID); err != nil || got.Query != "q" || len(got.Items) != 0 || len(got.RawHits) != 0 {
			t.Errorf("a trace with nothing injected: %+v %v", got, err)
		}
	})

	t.Run("the latest is the user's newest, never another user's", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		other := memory.Scope{Tenant: "acme", User: "ops"}
		var batch []promptctx.Trace
		for i := range 3 {
			batch = append(batch, trace(scope, at.Add(time.Duration(i)*time.Minute)))
		}
		batch = append(batch, trace(other, at.Add(time.Hour)), trace(memory.Scope{Tenant: "globex", User: "dev"}, at.Add(2*time.Hour)))
		must(t, s.Traces.SaveTraces(ctx, batch))
		if got, err := s.Traces.LatestTrace(ctx, scope); err != nil || got.ID != batch[2].ID {
			t.Errorf("latest of dev: %s %v, want %s", got.ID, err, batch[2].ID)
		}
		if got, err := s.Traces.LatestTrace(ctx, other); err != nil || got.ID != batch[3].ID {
			t.Errorf("latest of ops: %s %v", got.ID, err)
		}
		if _, err := s.Traces.LatestTrace(ctx, memory.Scope{Tenant: "acme", User: "nobody"}); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("a user without traces: %v", err)
		}
	})

	t.Run("the listing pages the user's traces newest first, never another user's", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		var mine []promptctx.Trace
		for i := range 5 {
			mine = append(mine, trace(scope, at.Add(time.Duration(i)*time.Minute)))
		}
		others := []promptctx.Trace{trace(memory.Scope{Tenant: "acme", User: "ops"}, at.Add(30*time.Second)),
			trace(memory.Scope{Tenant: "globex", User: "dev"}, at.Add(90*time.Second))}
		must(t, s.Traces.SaveTraces(ctx, append(slices.Clone(mine), others...)))
		ids := func(ts []promptctx.Trace) []string {
			out := []string{}
			for _, tr := range ts {
				out = append(out, tr.ID)
			}
			return out
		}
		first, err := s.Traces.ListTraces(ctx, scope, "", 2)
		if want := []string{mine[4].ID, mine[3].ID}; err != nil || !slices.Equal(ids(first), want) {
			t.Fatalf("first page %v %v, want %v", ids(first), err, want)
		}
		if first[0].Query != mine[4].Query || len(first[0].RawHits) != 2 {
			t.Errorf("a listed trace lost its content: %+v", first[0])
		}
		rest, err := s.Traces.ListTraces(ctx, scope, first[1].ID, 10)
		if want := []string{mine[2].ID, mine[1].ID, mine[0].ID}; err != nil || !slices.Equal(ids(rest), want) {
			t.Errorf("after the cursor %v %v, want %v", ids(rest), err, want)
		}
		if end, err := s.Traces.ListTraces(ctx, scope, mine[0].ID, 10); err != nil || len(end) != 0 {
			t.Errorf("past the oldest: %v %v", ids(end), err)
		}
		if none, err := s.Traces.ListTraces(ctx, memory.Scope{Tenant: "acme", User: "nobody"}, "", 10); err != nil || len(none) != 0 {
			t.Errorf("a user without traces: %v %v", ids(none), err)
		}
	})

	t.Run("the sweep removes what is older than the cutoff, oldest first, by batches", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		var batch []promptctx.Trace
		for i := range 5 {
			batch = append(batch, trace(scope, at.Add(time.Duration(i)*24*time.Hour)))
		}
		must(t, s.Traces.SaveTraces(ctx, batch))
		cutoff := at.Truncate(time.Microsecond).Add(3 * 24 * time.Hour) // the first three are older
		if n, err := s.Traces.DeleteTracesBefore(ctx, cutoff, 2); err != nil || n != 2 {
			t.Fatalf("first batch: %d %v", n, err)
		}
		if _, err := s.Traces.Trace(ctx, "acme", batch[0].ID); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("the oldest survived the first batch: %v", err)
		}
		if _, err := s.Traces.Trace(ctx, "acme", batch[2].ID); err != nil {
			t.Errorf("the third went in the first batch of two: %v", err)
		}
		if n, err := s.Traces.DeleteTracesBefore(ctx, cutoff, 2); err != nil || n != 1 {
			t.Fatalf("second batch: %d %v", n, err)
		}
		if n, _ := s.Traces.DeleteTracesBefore(ctx, cutoff, 2); n != 0 {
			t.Errorf("third batch removed %d", n)
		}
		for _, tr := range batch[3:] {
			if _, err := s.Traces.Trace(ctx, "acme", tr.ID); err != nil {
				t.Errorf("a trace newer than the cutoff went: %v", err)
			}
		}
	})

	t.Run("purge removes the user's traces and no one else's", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		other := memory.Scope{Tenant: "acme", User: "ops"}
		must(t, s.Traces.SaveTraces(ctx, []promptctx.Trace{trace(scope, at), trace(scope, at.Add(time.Second)), trace(other, at)}))
		counts, err := s.Traces.PurgeUser(ctx, scope)
		if err != nil || counts[ports.PurgedTraces] != 2 {
			t.Fatalf("purge %v %v", counts, err)
		}
		if _, err := s.Traces.LatestTrace(ctx, scope); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("after purge: %v", err)
		}
		if _, err := s.Traces.LatestTrace(ctx, other); err != nil {
			t.Errorf("the purge reached another user: %v", err)
		}
	})

	t.Run("a user being erased gets no trace written", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		other := memory.Scope{Tenant: "acme", User: "ops"}
		job := ports.Job{ID: memNewID(), Kind: ports.JobEraseUser, Scope: scope, Status: ports.JobQueued, CreatedAt: at}
		if _, created, err := s.Erasures.BeginErasure(ctx, job); err != nil || !created {
			t.Fatalf("begin erasure: %v %v", created, err)
		}
		erased, kept := trace(scope, at), trace(other, at.Add(time.Second))
		if err := s.Traces.SaveTraces(ctx, []promptctx.Trace{erased, kept}); err != nil {
			t.Fatalf("a batch holding an erased user's trace failed: %v", err)
		}
		if _, err := s.Traces.Trace(ctx, "acme", erased.ID); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("the erased user's trace was written: %v", err)
		}
		if _, err := s.Traces.Trace(ctx, "acme", kept.ID); err != nil {
			t.Errorf("the other user's trace of the batch: %v", err)
		}
	})

	t.Run("concurrent saves all land", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), memTestContext(t)
		var wg sync.WaitGroup
		ids := make([][]string, 8)
		for w := range 8 {
			wg.Go(func() {
				for i := range 10 {
					tr := trace(memory.Scope{Tenant: "acme", User: fmt.Sprintf("u%d", w)}, at.Add(time.Duration(w*10+i)*time.Millisecond))
					ids[w] = append(ids[w], tr.ID)
					if err := s.Traces.SaveTraces(ctx, []promptctx.Trace{tr}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		for w := range ids {
			for _, id := range ids[w] {
				if _, err := s.Traces.Trace(ctx, "acme", id); err != nil {
					t.Errorf("trace %s: %v", id, err)
				}
			}
		}
	})
}
