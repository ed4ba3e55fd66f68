package contract

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/session"
	"engram/ports"
)

// SessionBackend is what every short-term session store serves: the store, its
// folding side and whole-session import (the target of the Redis recovery drain).
type SessionBackend interface {
	ports.SessionStore
	ports.SessionFolds
	ports.SessionImporter
}

// RunSessionStore is the contract of every session store (SQLite,
// PostgreSQL, Redis). open returns an empty store bounded by limits whose clock is
// the system clock (Redis expires keys by its own); each case opens its own and
// uses its own tenant, so stores on a shared server do not see each other.
//
// Beyond the ports' comments:
//   - Times come back in UTC to the microsecond; messages oldest first with Seq
//     counting from 1 in the session.
//   - A user id, flow id or session id containing ':' or '%' never shares a
//     session with another.
//   - The fold queue holds a session from the append that reaches FoldAt until a
//     fold leaves it below; claims and leases are measured against the times the
//     calls carry (FoldClaim.Now, Fold.At), not the store's clock.
//   - Twenty exchanges appended while folds run lose nothing and duplicate
//     nothing: every message ends in the summary or in the session, once.
func RunSessionStore(t *testing.T, open func(t *testing.T, limits session.Limits) SessionBackend) {
	t.Helper()
	long := session.Limits{MaxHistory: 40, MessageTTL: time.Hour, SummaryTTL: 2 * time.Hour}

	t.Run("an appended exchange reads back with its meta and index entry", func(t *testing.T) {
		t.Parallel()
		s, ctx, ref := open(t, long), sessContext(t), sessRefFor(t, "f1", "s1")
		t0 := sessNow()
		got := sessAppend(t, ctx, s, sessExchange(t, ref, "x1", "周报生成", "帮我写周报", "好的，这周做了什么？", t0), 0)
		if got.Duplicate || got.FoldQueued || got.Meta.MessageCount != 2 || got.Meta.Held != 2 {
			t.Fatalf("appended %+v", got)
		}
		sessAppend(t, ctx, s, sessExchange(t, ref, "x2", "", "完成了 3 个需求", "记下了。", t0.Add(time.Second)), 0)

		v := sessRead(t, ctx, s, ref, 0)
		wantMeta := session.Meta{Ref: ref, FlowName: "周报生成", CreatedAt: t0, LastActiveAt: t0.Add(time.Second), MessageCount: 4, Held: 4}
		if v.Meta != wantMeta {
			t.Errorf("meta %+v\nwant %+v (an exchange without flow_name keeps the name)", v.Meta, wantMeta)
		}
		want := []session.Message{
			{ID: "x1/user", ExchangeID: "x1", Role: conversation.RoleUser, Content: "帮我写周报", At: t0, Seq: 1},
			{ID: "x1/assistant", ExchangeID: "x1", Role: conversation.RoleAssistant, Content: "好的，这周做了什么？", At: t0, Seq: 2},
			{ID: "x2/user", ExchangeID: "x2", Role: conversation.RoleUser, Content: "完成了 3 个需求", At: t0.Add(time.Second), Seq: 3},
			{ID: "x2/assistant", ExchangeID: "x2", Role: conversation.RoleAssistant, Content: "记下了。", At: t0.Add(time.Second), Seq: 4},
		}
		if !slices.Equal(v.Messages, want) {
			t.Errorf("messages\n%+v\nwant\n%+v", v.Messages, want)
		}
		for _, m := range v.Messages {
			if m.At.Location() != time.UTC {
				t.Errorf("message %s at %v is not UTC", m.ID, m.At)
			}
		}
		if v.Summary != (session.Summary{}) {
			t.Errorf("summary %+v before any fold", v.Summary)
		}
		if last := sessRead(t, ctx, s, ref, 3); !slices.Equal(last.Messages, want[1:]) {
			t.Errorf("limit 3 gave %v", sessIDs(last.Messages))
		}
		if list := sessList(t, ctx, s, ref.Scope, ports.SessionQuery{}); len(list) != 1 || list[0] != wantMeta {
			t.Errorf("index %+v", list)
		}
	})

	t.Run("an exchange id recorded before writes nothing", func(t *testing.T) {
		t.Parallel()
		s, ctx, ref := open(t, long), sessContext(t), sessRefFor(t, "f1", "s1")
		t0 := sessNow()
		sessAppend(t, ctx, s, sessExchange(t, ref, "x1", "", "hello", "hi", t0), 0)
		again := sessAppend(t, ctx, s, sessExchange(t, ref, "x1", "", "hello", "hi", t0.Add(time.Minute)), 0)
		if !again.Duplicate || again.Meta.MessageCount != 2 || !again.Meta.LastActiveAt.Equal(t0) {
			t.Fatalf("retry appended %+v", again)
		}
		other := sessAppend(t, ctx, s, sessExchange(t, sessRefFor(t, "f1", "s2"), "x1", "", "hello", "hi", t0), 0)
		if other.Duplicate {
			t.Fatal("an exchange id of another session was taken for a retry")
		}
		if v := sessRead(t, ctx, s, ref, 0); len(v.Messages) != 2 {
			t.Errorf("%d messages after a retry", len(v.Messages))
		}
	})

	t.Run("messages are trimmed to the maximum history and the count goes on", func(t *testing.T) {
		t.Parallel()
		s, ctx, ref := open(t, session.Limits{MaxHistory: 5, MessageTTL: time.Hour, SummaryTTL: time.Hour}), sessContext(t), sessRefFor(t, "f1", "s1")
		t0 := sessNow()
		for i := 1; i <= 4; i++ {
			sessAppend(t, ctx, s, sessExchange(t, ref, fmt.Sprintf("x%d", i), "", "q", "a", t0.Add(time.Duration(i)*time.Second)), 0)
		}
		v := sessRead(t, ctx, s, ref, 0)
		if ids := sessIDs(v.Messages); !slices.Equal(ids, []string{"x2/assistant", "x3/user", "x3/assistant", "x4/user", "x4/assistant"}) {
			t.Errorf("held %v", ids)
		}
		if v.Meta.MessageCount != 8 || v.Meta.Held != 5 || v.Messages[0].Seq != 4 {
			t.Errorf("meta %+v, first seq %d", v.Meta, v.Messages[0].Seq)
		}
	})

	t.Run("the index lists the user's sessions newest first across flows", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t, long), sessContext(t)
		t0 := sessNow()
		a, b, c := sessRefFor(t, "flow-a", "s1"), sessRefFor(t, "flow-b", "s1"), sessRefFor(t, "flow-a", "s2")
		sessAppend(t, ctx, s, sessExchange(t, a, "x1", "A", "q", "a", t0), 0)
		sessAppend(t, ctx, s, sessExchange(t, b, "x1", "B", "q", "a", t0.Add(time.Second)), 0)
		sessAppend(t, ctx, s, sessExchange(t, c, "x1", "A", "q", "a", t0.Add(2*time.Second)), 0)
		sessAppend(t, ctx, s, sessExchange(t, a, "x2", "", "q", "a", t0.Add(3*time.Second)), 0)
		other := session.Ref{Scope: memory.Scope{Tenant: a.Scope.Tenant, User: "someone-else"}, FlowID: "flow-a", SessionID: "s1"}
		sessAppend(t, ctx, s, sessExchange(t, other, "x1", "", "q", "a", t0.Add(4*time.Second)), 0)

		if got := sessRefs(sessList(t, ctx, s, a.Scope, ports.SessionQuery{})); !slices.Equal(got, []session.Ref{a, c, b}) {
			t.Errorf("listing %v", got)
		}
		if got := sessRefs(sessList(t, ctx, s, a.Scope, ports.SessionQuery{Limit: 2})); !slices.Equal(got, []session.Ref{a, c}) {
			t.Errorf("limit 2: %v", got)
		}
		if got := sessRefs(sessList(t, ctx, s, a.Scope, ports.SessionQuery{SessionID: "s1"})); !slices.Equal(got, []session.Ref{a, b}) {
			t.Errorf("session s1 in every flow: %v", got)
		}
		if got := sessList(t, ctx, s, a.Scope, ports.SessionQuery{SessionID: "nope"}); len(got) != 0 {
			t.Errorf("unknown session id listed %v", got)
		}
	})

	t.Run("ids with colons and percent signs never share a session", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t, long), sessContext(t)
		tenant := sessTenant()
		refs := []session.Ref{
			{Scope: memory.Scope{Tenant: tenant, User: "a:b"}, FlowID: "c", SessionID: "d"},
			{Scope: memory.Scope{Tenant: tenant, User: "a"}, FlowID: "b:c", SessionID: "d"},
			{Scope: memory.Scope{Tenant: tenant, User: "a"}, FlowID: "b", SessionID: "c:d"},
			{Scope: memory.Scope{Tenant: tenant, User: "a%3Ab"}, FlowID: "c", SessionID: "d"},
			{Scope: memory.Scope{Tenant: tenant, User: "a"}, FlowID: "b", SessionID: "c%3Ad"},
			{Scope: memory.Scope{Tenant: tenant, User: "a"}, FlowID: "*", SessionID: "[d]"},
		}
		t0 := sessNow()
		for i, r := range refs {
			sessAppend(t, ctx, s, sessExchange(t, r, "x", "", fmt.Sprintf("message %d", i), "ok", t0.Add(time.Duration(i)*time.Millisecond)), 0)
		}
		for i, r := range refs {
			v := sessRead(t, ctx, s, r, 0)
			if len(v.Messages) != 2 || v.Messages[0].Content != fmt.Sprintf("message %d", i) || v.Meta.Ref != r {
				t.Errorf("%+v holds %+v", r, v.Messages)
			}
		}
		if got := sessList(t, ctx, s, memory.Scope{Tenant: tenant, User: "a"}, ports.SessionQuery{}); len(got) != 4 {
			t.Errorf("user a lists %v", sessRefs(got))
		}
		if err := s.DeleteSession(ctx, refs[2]); err != nil {
			t.Fatal(err)
		}
		if v := sessRead(t, ctx, s, refs[4], 0); len(v.Messages) != 2 {
			t.Errorf("deleting %+v removed %+v", refs[2], refs[4])
		}
	})

	t.Run("another tenant or user sees nothing", func(t *testing.T) {
		t.Parallel()
		s, ctx, ref := open(t, long), sessContext(t), sessRefFor(t, "f1", "s1")
		sessAppend(t, ctx, s, sessExchange(t, ref, "x1", "", "secret", "ok", sessNow()), 0)
		for _, sc := range []memory.Scope{{Tenant: sessTenant(), User: ref.Scope.User}, {Tenant: ref.Scope.Tenant, User: "other"}} {
			other := session.Ref{Scope: sc, FlowID: ref.FlowID, SessionID: ref.SessionID}
			if _, err := s.Session(ctx, other, 0); !errors.Is(err, ports.ErrNotFound) {
				t.Errorf("%+v read another scope's session: %v", sc, err)
			}
			if got := sessList(t, ctx, s, sc, ports.SessionQuery{}); len(got) != 0 {
				t.Errorf("%+v lists %v", sc, got)
			}
			if err := s.DeleteSession(ctx, other); !errors.Is(err, ports.ErrNotFound) {
				t.Errorf("%+v deleted another scope's session: %v", sc, err)
			}
		}
		if v := sessRead(t, ctx, s, ref, 0); len(v.Messages) != 2 {
			t.Error("the owner lost the session")
		}
	})

	t.Run("delete removes messages, meta, summary and index entry of one flow", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t, long), sessContext(t)
		a, b := sessRefFor(t, "flow-a", "s1"), sessRefFor(t, "flow-b", "s1")
		t0 := sessNow()
		for i := 1; i <= 3; i++ {
			sessAppend(t, ctx, s, sessExchange(t, a, fmt.Sprintf("x%d", i), "", "q", "a", t0), 2)
		}
		sessAppend(t, ctx, s, sessExchange(t, b, "x1", "", "q", "a", t0), 2)
		sessFoldOnce(t, ctx, s, "folder", t0.Add(time.Second), 2, 2)
		if v := sessRead(t, ctx, s, a, 0); v.Summary.Text == "" {
			t.Fatal("no summary to delete")
		}
		if err := s.DeleteSession(ctx, a); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Session(ctx, a, 0); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("read after delete: %v", err)
		}
		if got := sessRefs(sessList(t, ctx, s, a.Scope, ports.SessionQuery{})); !slices.Equal(got, []session.Ref{b}) {
			t.Errorf("index after delete: %v", got)
		}
		if err := s.DeleteSession(ctx, a); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("second delete: %v", err)
		}
		again := sessAppend(t, ctx, s, sessExchange(t, a, "x1", "", "q", "a", t0.Add(time.Minute)), 0)
		if again.Duplicate || again.Meta.MessageCount != 2 {
			t.Errorf("a deleted session remembered its exchanges: %+v", again)
		}
		if v := sessRead(t, ctx, s, a, 0); v.Summary.Text != "" {
			t.Errorf("the deleted summary came back: %q", v.Summary.Text)
		}
	})

	t.Run("messages and meta expire, the summary outlives them, a new turn starts again", func(t *testing.T) {
		t.Parallel()
		limits := session.Limits{MaxHistory: 40, MessageTTL: 600 * time.Millisecond, SummaryTTL: time.Hour}
		s, ctx, ref := open(t, limits), sessContext(t), sessRefFor(t, "f1", "s1")
		t0 := sessNow()
		sessAppend(t, ctx, s, sessExchange(t, ref, "x1", "", "q", "a", t0), 2)
		sessAppend(t, ctx, s, sessExchange(t, ref, "x2", "", "q", "a", t0), 2)
		sessFoldOnce(t, ctx, s, "folder", t0, 2, 2)
		sessWait(t, "the messages to expire", func() bool {
			v, err := s.Session(ctx, ref, 0)
			return err == nil && !v.Meta.Live() && len(v.Messages) == 0
		})
		v := sessRead(t, ctx, s, ref, 0)
		if v.Summary.Text == "" || v.Summary.Version != 1 {
			t.Fatalf("summary %+v did not outlive the messages", v.Summary)
		}
		if got := sessList(t, ctx, s, ref.Scope, ports.SessionQuery{}); len(got) != 0 {
			t.Errorf("an expired session is listed: %v", got)
		}
		t1 := sessNow()
		again := sessAppend(t, ctx, s, sessExchange(t, ref, "x1", "", "q", "a", t1), 0)
		if again.Duplicate || again.Meta.MessageCount != 2 || !again.Meta.CreatedAt.Equal(t1) {
			t.Errorf("the session did not start again: %+v", again)
		}
		if v := sessRead(t, ctx, s, ref, 0); v.Summary.Text == "" || len(v.Messages) != 2 || v.Messages[0].Seq != 1 {
			t.Errorf("after starting again: summary %q, messages %+v", v.Summary.Text, v.Messages)
		}
	})

	t.Run("the summary expires too", func(t *testing.T) {
		t.Parallel()
		limits := session.Limits{MaxHistory: 40, MessageTTL: 300 * time.Millisecond, SummaryTTL: 600 * time.Millisecond}
		s, ctx, ref := open(t, limits), sessContext(t), sessRefFor(t, "f1", "s1")
		t0 := sessNow()
		sessAppend(t, ctx, s, sessExchange(t, ref, "x1", "", "q", "a", t0), 2)
		sessFoldOnce(t, ctx, s, "folder", t0, 2, 0)
		sessWait(t, "the whole session to expire", func() bool {
			_, err := s.Session(ctx, ref, 0)
			return errors.Is(err, ports.ErrNotFound)
		})
	})

	t.Run("the fold queue holds a session from the threshold until a fold leaves it below", func(t *testing.T) {
		t.Parallel()
		s, ctx, ref := open(t, long), sessContext(t), sessRefFor(t, "f1", "s1")
		t0 := sessNow()
		if got := sessAppend(t, ctx, s, sessExchange(t, ref, "x1", "", "q", "a", t0), 4); got.FoldQueued {
			t.Fatal("queued below the threshold")
		}
		if claimed := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w", Now: t0.Add(time.Hour), Lease: time.Minute, Limit: 10}); len(claimed) != 0 {
			t.Fatalf("claimed a session below the threshold: %v", claimed)
		}
		if got := sessAppend(t, ctx, s, sessExchange(t, ref, "x2", "", "q", "a", t0.Add(time.Second)), 4); !got.FoldQueued {
			t.Fatal("not queued at the threshold")
		}
		// Not due before the exchange that queued it.
		if claimed := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w", Now: t0, Lease: time.Minute, Limit: 10}); len(claimed) != 0 {
			t.Fatalf("claimed before it was due: %v", claimed)
		}
		sessAppend(t, ctx, s, sessExchange(t, ref, "x3", "", "q", "a", t0.Add(2*time.Second)), 4)
		sessAppend(t, ctx, s, sessExchange(t, ref, "x4", "", "q", "a", t0.Add(3*time.Second)), 4)
		// 8 messages, threshold 4, keep 2: the fold leaves 2, below the threshold.
		sessFoldOnce(t, ctx, s, "w", t0.Add(4*time.Second), 4, 2)
		v := sessRead(t, ctx, s, ref, 0)
		if ids := sessIDs(v.Messages); !slices.Equal(ids, []string{"x4/user", "x4/assistant"}) || v.Meta.Held != 2 || v.Meta.MessageCount != 8 {
			t.Fatalf("after the fold: %v, meta %+v", ids, v.Meta)
		}
		if want := "x1/user x1/assistant x2/user x2/assistant x3/user x3/assistant"; v.Summary.Text != want || v.Summary.Version != 1 ||
			!v.Summary.UpdatedAt.Equal(t0.Add(4*time.Second)) {
			t.Fatalf("summary %+v", v.Summary)
		}
		if claimed := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w", Now: t0.Add(time.Hour), Lease: time.Minute, Limit: 10}); len(claimed) != 0 {
			t.Fatalf("still queued after the fold: %v", claimed)
		}
	})

	t.Run("a session still at the threshold after a fold stays queued", func(t *testing.T) {
		t.Parallel()
		s, ctx, ref := open(t, long), sessContext(t), sessRefFor(t, "f1", "s1")
		t0 := sessNow()
		for i := 1; i <= 3; i++ {
			sessAppend(t, ctx, s, sessExchange(t, ref, fmt.Sprintf("x%d", i), "", "q", "a", t0), 2)
		}
		// Fold only the first turn: 4 messages stay, above the threshold 2.
		claimed := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w", Now: t0, Lease: time.Minute, Limit: 10})
		if len(claimed) != 1 {
			t.Fatalf("claimed %d", len(claimed))
		}
		f := session.Fold{Ref: ref, Holder: "w", MessageIDs: []string{"x1/user", "x1/assistant"}, Summary: "s1", At: t0, FoldAt: 2}
		if err := s.ApplyFold(ctx, f); err != nil {
			t.Fatal(err)
		}
		if again := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w", Now: t0.Add(time.Second), Lease: time.Minute, Limit: 10}); len(again) != 1 || len(again[0].Messages) != 4 {
			t.Fatalf("not queued after a fold that left 4 messages: %+v", again)
		}
	})

	t.Run("claims are one holder's until the lease lapses, and a release sets the retry", func(t *testing.T) {
		t.Parallel()
		s, ctx, ref := open(t, long), sessContext(t), sessRefFor(t, "f1", "s1")
		t0 := sessNow()
		sessAppend(t, ctx, s, sessExchange(t, ref, "x1", "", "q", "a", t0), 2)
		first := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w1", Now: t0, Lease: time.Minute, Limit: 10})
		if len(first) != 1 || first[0].Meta.Ref != ref || len(first[0].Messages) != 2 {
			t.Fatalf("first claim %+v", first)
		}
		if got := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w2", Now: t0.Add(30 * time.Second), Lease: time.Minute, Limit: 10}); len(got) != 0 {
			t.Fatal("a live claim was given to another holder")
		}
		second := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w2", Now: t0.Add(2 * time.Minute), Lease: time.Minute, Limit: 10})
		if len(second) != 1 {
			t.Fatal("a lapsed claim was not given again")
		}
		late := session.Fold{Ref: ref, Holder: "w1", MessageIDs: []string{"x1/user"}, Summary: "late", At: t0.Add(2 * time.Minute), FoldAt: 2}
		if err := s.ApplyFold(ctx, late); !errors.Is(err, ports.ErrConflict) {
			t.Fatalf("a fold under a lost claim: %v", err)
		}
		// w1 releasing does nothing: the claim is w2's.
		if err := s.ReleaseFold(ctx, ref, "w1", time.Time{}); err != nil {
			t.Fatal(err)
		}
		if err := s.ReleaseFold(ctx, ref, "w2", t0.Add(10*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w3", Now: t0.Add(9 * time.Minute), Lease: time.Minute, Limit: 10}); len(got) != 0 {
			t.Fatal("claimed before the retry time")
		}
		if got := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w3", Now: t0.Add(10 * time.Minute), Lease: time.Minute, Limit: 10}); len(got) != 1 {
			t.Fatal("not claimed at the retry time")
		}
		if err := s.ReleaseFold(ctx, ref, "w3", time.Time{}); err != nil {
			t.Fatal(err)
		}
		if got := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w4", Now: t0.Add(time.Hour), Lease: time.Minute, Limit: 10}); len(got) != 0 {
			t.Fatal("a session released without a retry time is still queued")
		}
		if v := sessRead(t, ctx, s, ref, 0); len(v.Messages) != 2 || v.Summary.Text != "" {
			t.Errorf("claims changed the session: %+v", v)
		}
	})

	t.Run("a fold onto a summary that moved writes nothing", func(t *testing.T) {
		t.Parallel()
		s, ctx, ref := open(t, long), sessContext(t), sessRefFor(t, "f1", "s1")
		t0 := sessNow()
		sessAppend(t, ctx, s, sessExchange(t, ref, "x1", "", "q", "a", t0), 2)
		sessAppend(t, ctx, s, sessExchange(t, ref, "x2", "", "q", "a", t0), 2)
		sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w", Now: t0, Lease: time.Minute, Limit: 10})
		stale := session.Fold{Ref: ref, Holder: "w", BaseVersion: 3, MessageIDs: []string{"x1/user", "x1/assistant"}, Summary: "stale", At: t0, FoldAt: 2}
		if err := s.ApplyFold(ctx, stale); !errors.Is(err, ports.ErrConflict) {
			t.Fatalf("a fold onto version 3 of a session at version 0: %v", err)
		}
		if v := sessRead(t, ctx, s, ref, 0); len(v.Messages) != 4 || v.Summary.Text != "" {
			t.Errorf("a refused fold wrote: %+v", v)
		}
	})

	t.Run("twenty exchanges racing folds lose nothing and duplicate nothing", func(t *testing.T) {
		t.Parallel()
		s, ctx, ref := open(t, session.Limits{MaxHistory: 1000, MessageTTL: time.Hour, SummaryTTL: time.Hour}), sessContext(t), sessRefFor(t, "f1", "s1")
		t0 := sessNow()
		const foldAt, keep = 10, 4
		var want []string
		for i := range 10 {
			x := sessExchange(t, ref, fmt.Sprintf("pre-%02d", i), "", "q", "a", t0)
			sessAppend(t, ctx, s, x, foldAt)
			want = append(want, sessIDs(x.Messages())...)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, 40)
		for i := range 20 {
			x := sessExchange(t, ref, fmt.Sprintf("race-%02d", i), "", "q", "a", t0.Add(time.Duration(i+1)*time.Millisecond))
			want = append(want, sessIDs(x.Messages())...)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if _, err := s.AppendExchange(ctx, ports.SessionAppend{Exchange: x, FoldAt: foldAt}); err != nil {
					errs <- err
				}
			}()
		}
		folds := 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 5; round++ {
				n, err := sessFold(ctx, s, "folder", t0.Add(time.Second), foldAt, keep, func() {
					if round == 0 {
						close(start) // the appends race the first fold between its read and its write
					}
				})
				if err != nil {
					errs <- err
					return
				}
				folds += n
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		// Fold what is still due, then every message must be in the summary or
		// the session, exactly once.
		for {
			n, err := sessFold(ctx, s, "folder", t0.Add(time.Hour), foldAt, keep, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			folds += n
		}
		v := sessRead(t, ctx, s, ref, 0)
		got := append(strings.Fields(v.Summary.Text), sessIDs(v.Messages)...)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("after %d folds the session holds\n%v\nwant every message once\n%v", folds, got, want)
		}
		if folds == 0 || v.Meta.MessageCount != 60 || v.Summary.Version != int64(folds) {
			t.Errorf("%d folds, meta %+v, summary version %d", folds, v.Meta, v.Summary.Version)
		}
	})

	t.Run("two folders never claim the same session", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t, long), sessContext(t)
		t0 := sessNow()
		for i := range 6 {
			sessAppend(t, ctx, s, sessExchange(t, sessRefFor(t, "f1", fmt.Sprintf("s%d", i)), "x1", "", "q", "a", t0), 2)
		}
		var mu sync.Mutex
		seen := map[session.Ref]string{}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				holder := fmt.Sprintf("w%d", w)
				views, err := s.ClaimFolds(ctx, ports.FoldClaim{Holder: holder, Now: t0, Lease: time.Minute, Limit: 3})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for _, v := range views {
					if prev, dup := seen[v.Meta.Ref]; dup {
						t.Errorf("%+v claimed by %s and %s", v.Meta.Ref, prev, holder)
					}
					seen[v.Meta.Ref] = holder
				}
			}()
		}
		wg.Wait()
		if len(seen) != 6 {
			t.Errorf("%d of 6 queued sessions claimed", len(seen))
		}
	})

	t.Run("a whole session replaces the stored one at its revision", func(t *testing.T) {
		t.Parallel()
		s, ctx, ref := open(t, session.Limits{MaxHistory: 4, MessageTTL: time.Hour, SummaryTTL: time.Hour}), sessContext(t), sessRefFor(t, "f1", "s1")
		t0 := sessNow()
		in := session.State{
			View: session.View{
				Meta:    session.Meta{Ref: ref, FlowName: "F", CreatedAt: t0, LastActiveAt: t0.Add(time.Minute), MessageCount: 12},
				Summary: session.Summary{Text: "earlier", Version: 3, UpdatedAt: t0},
			},
			ExchangeIDs: []string{"x1", "x2", "x3"},
		}
		for _, x := range []string{"x1", "x2", "x3"} {
			in.Messages = append(in.Messages, sessExchange(t, ref, x, "", "q "+x, "a "+x, t0).Messages()...)
		}
		for i := range in.Messages {
			in.Messages[i].Seq = int64(i + 7)
		}
		if err := s.ReplaceSession(ctx, in, 5); !errors.Is(err, ports.ErrConflict) {
			t.Fatalf("replace of an absent session at revision 5: %v", err)
		}
		if err := s.ReplaceSession(ctx, in, 0); err != nil {
			t.Fatal(err)
		}
		out, err := s.ExportSession(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if ids := sessIDs(out.Messages); !slices.Equal(ids, []string{"x2/user", "x2/assistant", "x3/user", "x3/assistant"}) {
			t.Errorf("messages %v: want the last 4", ids)
		}
		wantMeta := in.Meta
		wantMeta.Held = 4
		if out.Meta != wantMeta || out.Summary != in.Summary || !slices.Equal(out.ExchangeIDs, in.ExchangeIDs) || out.Rev == 0 {
			t.Errorf("exported %+v", out)
		}
		if got := sessRefs(sessList(t, ctx, s, ref.Scope, ports.SessionQuery{})); !slices.Equal(got, []session.Ref{ref}) {
			t.Errorf("index %v", got)
		}
		if dup := sessAppend(t, ctx, s, sessExchange(t, ref, "x2", "", "q", "a", t0), 0); !dup.Duplicate {
			t.Error("an imported exchange id is not recognised")
		}
		next := sessAppend(t, ctx, s, sessExchange(t, ref, "x4", "", "q", "a", t0.Add(2*time.Minute)), 0)
		if next.Meta.MessageCount != 14 {
			t.Errorf("count after the import: %d", next.Meta.MessageCount)
		}
		if err := s.ReplaceSession(ctx, in, out.Rev); !errors.Is(err, ports.ErrConflict) {
			t.Errorf("replace at a revision that moved: %v", err)
		}
		if v := sessRead(t, ctx, s, ref, 0); v.Messages[len(v.Messages)-1].ID != "x4/assistant" || v.Messages[len(v.Messages)-1].Seq != 14 {
			t.Errorf("a refused replace wrote, or the seq did not follow the count: %+v", v.Messages)
		}
	})

	t.Run("purging a user removes every session and nothing of others", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t, long), sessContext(t)
		t0 := sessNow()
		a, b := sessRefFor(t, "f1", "s1"), sessRefFor(t, "f2", "s2")
		other := session.Ref{Scope: memory.Scope{Tenant: a.Scope.Tenant, User: a.Scope.User + ":x"}, FlowID: "f1", SessionID: "s1"}
		for _, r := range []session.Ref{a, b, other} {
			sessAppend(t, ctx, s, sessExchange(t, r, "x1", "", "q", "a", t0), 2)
		}
		sessAppend(t, ctx, s, sessExchange(t, a, "x2", "", "q", "a", t0), 2)
		for {
			n, err := sessFold(ctx, s, "w", t0, 2, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
		counts, err := s.PurgeUser(ctx, a.Scope)
		if err != nil {
			t.Fatal(err)
		}
		if counts["sessions"] != 2 || counts["session_messages"] < 2 || counts["summaries"] < 1 {
			t.Errorf("purge counted %v", counts)
		}
		for _, r := range []session.Ref{a, b} {
			if _, err := s.Session(ctx, r, 0); !errors.Is(err, ports.ErrNotFound) {
				t.Errorf("%+v after purge: %v", r, err)
			}
		}
		if got := sessList(t, ctx, s, a.Scope, ports.SessionQuery{}); len(got) != 0 {
			t.Errorf("index after purge: %v", got)
		}
		if v := sessRead(t, ctx, s, other, 0); len(v.Messages) == 0 && v.Summary.Text == "" {
			t.Error("purging a user removed another user's session")
		}
		if got := sessClaim(t, ctx, s, ports.FoldClaim{Holder: "w", Now: t0.Add(time.Hour), Lease: time.Minute, Limit: 10}); len(got) != 0 {
			for _, v := range got {
				if v.Meta.Ref.Scope == a.Scope {
					t.Errorf("a purged session is still queued for a fold: %+v", v.Meta.Ref)
				}
			}
		}
	})
}

// SessionSource is a store the recovery drain moves sessions out of.
type SessionSource interface {
	ports.SessionStore
	ports.SessionExporter
}

// RunSessionExporter is the contract of the stores sessions are moved out of
// (SQL).
func RunSessionExporter(t *testing.T, open func(t *testing.T, limits session.Limits) SessionSource) {
	t.Helper()
	limits := session.Limits{MaxHistory: 40, MessageTTL: time.Hour, SummaryTTL: time.Hour}

	t.Run("sessions are handed out least recently active first and removed at their revision", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t, limits), sessContext(t)
		t0 := sessNow()
		a, b := sessRefFor(t, "f1", "s1"), sessRefFor(t, "f1", "s2")
		sessAppend(t, ctx, s, sessExchange(t, b, "x1", "", "q", "a", t0.Add(time.Second)), 0)
		sessAppend(t, ctx, s, sessExchange(t, a, "x1", "", "q", "a", t0), 0)
		refs, err := s.SessionRefs(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(refs, []session.Ref{a, b}) {
			t.Fatalf("refs %v", refs)
		}
		if one, _ := s.SessionRefs(ctx, 1); !slices.Equal(one, []session.Ref{a}) {
			t.Errorf("limit 1: %v", one)
		}
		st, err := s.ExportSession(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Messages) != 2 || !slices.Equal(st.ExchangeIDs, []string{"x1"}) || st.Rev == 0 || st.Meta.Ref != a {
			t.Fatalf("exported %+v", st)
		}
		sessAppend(t, ctx, s, sessExchange(t, a, "x2", "", "q", "a", t0.Add(2*time.Second)), 0)
		if err := s.RemoveSession(ctx, a, st.Rev); !errors.Is(err, ports.ErrConflict) {
			t.Fatalf("remove after a new turn: %v", err)
		}
		st, _ = s.ExportSession(ctx, a)
		if err := s.RemoveSession(ctx, a, st.Rev); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ExportSession(ctx, a); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("export after remove: %v", err)
		}
		if err := s.RemoveSession(ctx, a, st.Rev); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("second remove: %v", err)
		}
		if refs, _ := s.SessionRefs(ctx, 10); !slices.Equal(refs, []session.Ref{b}) {
			t.Errorf("refs after remove: %v", refs)
		}
	})
}

// ---------------------------------------------------------------- helpers

// sessTenants are unique per case: stores on a shared server must not meet.
func sessTenant() string { return "t" + strings.ToLower(ulid.Make().String()) }

var sessTenantOf sync.Map // *testing.T → tenant

func sessRefFor(t *testing.T, flow, id string) session.Ref {
	tenant, _ := sessTenantOf.LoadOrStore(t, sessTenant())
	return session.Ref{Scope: memory.Scope{Tenant: tenant.(string), User: "u1"}, FlowID: flow, SessionID: id}
}

func sessContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// sessNow is the real time (stores that expire by their own clock agree with it),
// to the microsecond.
func sessNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func sessExchange(t *testing.T, ref session.Ref, id, flowName, user, assistant string, at time.Time) session.Exchange {
	t.Helper()
	x, err := session.NewExchange(ref, session.ExchangeInput{ExchangeID: id, FlowName: flowName, UserMessage: user, AssistantMessage: assistant}, "", at)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func sessAppend(t *testing.T, ctx context.Context, s ports.SessionStore, x session.Exchange, foldAt int) ports.SessionAppended {
	t.Helper()
	got, err := s.AppendExchange(ctx, ports.SessionAppend{Exchange: x, FoldAt: foldAt})
	if err != nil {
		t.Fatalf("append %s: %v", x.ID, err)
	}
	return got
}

func sessRead(t *testing.T, ctx context.Context, s ports.SessionStore, ref session.Ref, limit int) session.View {
	t.Helper()
	v, err := s.Session(ctx, ref, limit)
	if err != nil {
		t.Fatalf("read %+v: %v", ref, err)
	}
	return v
}

func sessList(t *testing.T, ctx context.Context, s ports.SessionStore, scope memory.Scope, q ports.SessionQuery) []session.Meta {
	t.Helper()
	got, err := s.Sessions(ctx, scope, q)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	return got
}

func sessClaim(t *testing.T, ctx context.Context, s ports.SessionFolds, c ports.FoldClaim) []session.View {
	t.Helper()
	got, err := s.ClaimFolds(ctx, c)
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	return got
}

// sessFold claims what is due at now and folds it with a summary that lists the
// folded message ids after the previous summary's; between the read and the write
// it calls between (nil: nothing). It returns the folds applied; a fold that lost
// its race is released and not counted.
func sessFold(ctx context.Context, s SessionBackend, holder string, now time.Time, foldAt, keep int, between func()) (int, error) {
	views, err := s.ClaimFolds(ctx, ports.FoldClaim{Holder: holder, Now: now, Lease: time.Minute, Limit: 10})
	if err != nil {
		return 0, err
	}
	if between != nil {
		between()
	}
	policy := session.Policy{Threshold: foldAt, Keep: keep}
	applied := 0
	for _, v := range views {
		plan, ok := policy.Plan(v)
		if !ok {
			if err := s.ReleaseFold(ctx, v.Meta.Ref, holder, time.Time{}); err != nil {
				return applied, err
			}
			continue
		}
		text := strings.TrimSpace(plan.Previous + " " + strings.Join(sessIDs(plan.Slice), " "))
		err := s.ApplyFold(ctx, plan.Fold(text, holder, foldAt, now))
		switch {
		case err == nil:
			applied++
		case errors.Is(err, ports.ErrConflict):
			if err := s.ReleaseFold(ctx, v.Meta.Ref, holder, now); err != nil {
				return applied, err
			}
		default:
			return applied, err
		}
	}
	return applied, nil
}

// sessFoldOnce folds the due sessions once and fails unless one fold applied.
func sessFoldOnce(t *testing.T, ctx context.Context, s SessionBackend, holder string, now time.Time, foldAt, keep int) {
	t.Helper()
	n, err := sessFold(ctx, s, holder, now, foldAt, keep, nil)
	if err != nil || n == 0 {
		t.Fatalf("fold: %d applied, %v", n, err)
	}
}

func sessWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10s for %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func sessIDs(msgs []session.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

func sessRefs(metas []session.Meta) []session.Ref {
	out := make([]session.Ref, len(metas))
	for i, m := range metas {
		out[i] = m.Ref
	}
	return out
}

// SessionSweeper is a store whose expiry is emulated (SQL): what
// passed its time is invisible at once and removed by the sweep.
type SessionSweeper interface {
	SessionBackend
	SweepExpiredSessions(ctx context.Context, now time.Time, limit int) (int64, error)
}

// RunSessionSweep is the contract of the scheduler's sweep of expired sessions.
func RunSessionSweep(t *testing.T, open func(t *testing.T, limits session.Limits) SessionSweeper) {
	t.Helper()
	t.Run("the sweep removes expired sessions and keeps a summary that outlives its messages", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t, session.Limits{MaxHistory: 40, MessageTTL: time.Minute, SummaryTTL: time.Hour}), sessContext(t)
		t0 := sessNow()
		gone, kept, live := sessRefFor(t, "f", "gone"), sessRefFor(t, "f", "kept"), sessRefFor(t, "f", "live")
		sessAppend(t, ctx, s, sessExchange(t, gone, "x1", "", "q", "a", t0), 0)
		sessAppend(t, ctx, s, sessExchange(t, kept, "x1", "", "q", "a", t0), 2)
		sessFoldOnce(t, ctx, s, "w", t0, 2, 0)
		sessAppend(t, ctx, s, sessExchange(t, kept, "x2", "", "q", "a", t0), 0)
		sessAppend(t, ctx, s, sessExchange(t, live, "x1", "", "q", "a", t0), 0)

		if n, err := s.SweepExpiredSessions(ctx, time.Now(), 100); err != nil || n != 0 {
			t.Fatalf("swept %d live sessions: %v", n, err)
		}
		// Two minutes on, the messages of every session have expired; an hour
		// and a half on, the summary has too.
		n, err := s.SweepExpiredSessions(ctx, time.Now().Add(2*time.Minute), 100)
		if err != nil || n != 3 {
			t.Fatalf("swept %d of 3 expired sessions: %v", n, err)
		}
		if v := sessRead(t, ctx, s, kept, 0); v.Summary.Text == "" || v.Meta.Live() {
			t.Errorf("the sweep lost the summary, or kept the meta: %+v", v)
		}
		n, err = s.SweepExpiredSessions(ctx, time.Now().Add(90*time.Minute), 100)
		if err != nil || n != 1 {
			t.Fatalf("swept %d of the 1 expired summary: %v", n, err)
		}
		n, err = s.SweepExpiredSessions(ctx, time.Now().Add(90*time.Minute), 100)
		if err != nil || n != 0 {
			t.Fatalf("a second sweep found %d: %v", n, err)
		}
		if counts, err := s.PurgeUser(ctx, gone.Scope); err != nil || counts["sessions"] != 0 {
			t.Errorf("rows left after the sweep: %v %v", counts, err)
		}
	})
}
