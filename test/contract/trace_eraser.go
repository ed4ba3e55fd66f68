package contract

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/ports"
)

// TraceErasers are one backend's trace store and its eraser (the same rows).
type TraceErasers struct {
	Traces ports.TraceStore
	Eraser ports.TraceEraser
}

// RunTraceEraser is the contract every ports.TraceEraser adapter must pass. open
// returns empty stores; each case opens its own.
func RunTraceEraser(t *testing.T, open func(t *testing.T) TraceErasers) {
	t.Helper()
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	alice, bob := memory.Scope{Tenant: "acme", User: "alice"}, memory.Scope{Tenant: "acme", User: "bob"}
	trace := func(sc memory.Scope, session, flow string, items ...promptctx.TraceItem) promptctx.Trace {
		tr := promptctx.Trace{ID: ulid.MustNew(ulid.Timestamp(at), ulid.DefaultEntropy()).String(), Scope: sc, At: at,
			Query: "what do I like", SessionID: session, FlowID: flow, Items: items}
		for _, it := range items {
			tr.RawHits = append(tr.RawHits, promptctx.RawHit{ID: it.ID, Kind: it.Kind, Section: it.Section, Kept: true})
		}
		return tr
	}
	memoryItem := func(key, text string) promptctx.TraceItem {
		return promptctx.TraceItem{ID: key, Kind: "memory", Section: promptctx.Memories, Snippet: text}
	}
	messageItem := func(id, text string) promptctx.TraceItem {
		return promptctx.TraceItem{ID: id, Kind: "message", Section: promptctx.Episodes, Snippet: text}
	}

	t.Run("RedactTraces blanks the items of every trace of the user that quotes them, and only those", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := context.Background()
		quoting := trace(alice, "s1", "f", memoryItem("likes.koalabanjo", "plays the koalabanjo"), messageItem(`m"1\x`, "I play the koalabanjo"))
		other := trace(alice, "s2", "f", memoryItem("likes.tea", "likes green tea"))
		bobs := trace(bob, "s1", "f", memoryItem("likes.koalabanjo", "bob's koalabanjo"))
		must(t, s.Traces.SaveTraces(ctx, []promptctx.Trace{quoting, other, bobs}))
		n, err := s.Eraser.RedactTraces(ctx, alice, map[string]string{"likes.koalabanjo": "purged.ab12", `m"1\x`: ""})
		if err != nil || n != 1 {
			t.Fatalf("RedactTraces = %d, %v; want the one trace that quotes them", n, err)
		}
		got, err := s.Traces.Trace(ctx, "acme", quoting.ID)
		must(t, err)
		want := []promptctx.TraceItem{{ID: "purged.ab12", Kind: "memory", Section: promptctx.Memories, Purged: true},
			{ID: `m"1\x`, Kind: "message", Section: promptctx.Episodes, Purged: true}}
		for i, it := range got.Items {
			if it != want[i] {
				t.Errorf("item %d = %+v, want %+v", i, it, want[i])
			}
		}
		for _, h := range got.RawHits {
			if !h.Purged || h.ID == "likes.koalabanjo" {
				t.Errorf("raw hit %+v, want it purged under its new id", h)
			}
		}
		if got.Query != quoting.Query || got.SessionID != "s1" {
			t.Errorf("the rest of the trace changed: %+v", got)
		}
		for _, kept := range []promptctx.Trace{other, bobs} {
			tr, err := s.Traces.Trace(ctx, "acme", kept.ID)
			must(t, err)
			if tr.Items[0].Purged || tr.Items[0].Snippet == "" {
				t.Errorf("trace %s of %s was redacted too: %+v", tr.ID, tr.Scope.User, tr.Items)
			}
		}
		if n, err := s.Eraser.RedactTraces(ctx, alice, map[string]string{`m"1\x`: ""}); err != nil || n != 0 {
			t.Errorf("a second redaction = %d, %v; want no change", n, err)
		}
	})

	t.Run("DeleteSessionTraces removes the calls made in the session, of one flow or of any", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := context.Background()
		inF, inG, elsewhere, bobs := trace(alice, "s1", "f"), trace(alice, "s1", "g"), trace(alice, "s10", "f"), trace(bob, "s1", "f")
		must(t, s.Traces.SaveTraces(ctx, []promptctx.Trace{inF, inG, elsewhere, bobs}))
		if n, err := s.Eraser.DeleteSessionTraces(ctx, alice, "s1", "f"); err != nil || n != 1 {
			t.Fatalf("DeleteSessionTraces(flow f) = %d, %v; want 1", n, err)
		}
		if n, err := s.Eraser.DeleteSessionTraces(ctx, alice, "s1", ""); err != nil || n != 1 {
			t.Fatalf("DeleteSessionTraces(any flow) = %d, %v; want the other flow's 1", n, err)
		}
		for _, gone := range []promptctx.Trace{inF, inG} {
			if _, err := s.Traces.Trace(ctx, "acme", gone.ID); err == nil {
				t.Errorf("trace of session s1 (flow %s) is still there", gone.FlowID)
			}
		}
		for _, kept := range []promptctx.Trace{elsewhere, bobs} {
			if _, err := s.Traces.Trace(ctx, "acme", kept.ID); err != nil {
				t.Errorf("trace %s (%s, %s) went too: %v", kept.ID, kept.Scope.User, kept.SessionID, err)
			}
		}
	})

	t.Run("an id with LIKE's wildcards narrows nothing wrongly", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := context.Background()
		wild := trace(alice, "s_1", "f", messageItem("m_%", "text"))
		near := trace(alice, "sx1", "f", messageItem("mx%", "other text"))
		must(t, s.Traces.SaveTraces(ctx, []promptctx.Trace{wild, near}))
		if n, err := s.Eraser.RedactTraces(ctx, alice, map[string]string{"m_%": ""}); err != nil || n != 1 {
			t.Errorf("RedactTraces(m_%%) = %d, %v; want 1", n, err)
		}
		if n, err := s.Eraser.DeleteSessionTraces(ctx, alice, "s_1", ""); err != nil || n != 1 {
			t.Errorf("DeleteSessionTraces(s_1) = %d, %v; want 1", n, err)
		}
		tr, err := s.Traces.Trace(ctx, "acme", near.ID)
		if err != nil || tr.Items[0].Purged || !strings.Contains(tr.Items[0].Snippet, "other") {
			t.Errorf("the look-alike trace = %+v, %v; want it untouched", tr.Items, err)
		}
	})
}
