package contextbuild_test

import (
	"context"
	"testing"
	"time"

	"engram/app/contextbuild"
	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/test/teststore"
	"engram/test/wait"
)

// storedEraser records what the recorder asked of the store; the stored traces
// are the SQLite store's, written by the recorder's loop.
type storedEraser struct {
	redacted []map[string]string
	sessions []string
}

func (s *storedEraser) RedactTraces(_ context.Context, _ memory.Scope, erased map[string]string) (int64, error) {
	s.redacted = append(s.redacted, erased)
	return 0, nil
}

func (s *storedEraser) DeleteSessionTraces(_ context.Context, _ memory.Scope, sessionID, _ string) (int64, error) {
	s.sessions = append(s.sessions, sessionID)
	return 0, nil
}

// A trace handed over but not written yet is erased where it waits: it is written
// redacted, or not at all when its session was deleted, and the store is asked too.
func TestTraceEraser_erasesTracesNotWrittenYet(t *testing.T) {
	t.Parallel()
	store := teststore.New(t).Traces
	rec := contextbuild.NewTraceRecorder(store, contextbuild.RecorderOptions{})
	scope := memory.Scope{Tenant: "acme", User: "alice"}
	quoting := promptctx.Trace{ID: "01KTRACE00000000000000000A", Scope: scope, At: time.Now(), SessionID: "s2",
		Items:   []promptctx.TraceItem{{ID: "likes.koalabanjo", Kind: "memory", Snippet: "plays the koalabanjo"}},
		RawHits: []promptctx.RawHit{{ID: "likes.koalabanjo", Kind: "memory", Kept: true}}}
	inSession := promptctx.Trace{ID: "01KTRACE00000000000000000B", Scope: scope, At: time.Now(), SessionID: "s1"}
	ctx := context.Background()
	for _, tr := range []promptctx.Trace{quoting, inSession} {
		if err := rec.Record(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	stored := &storedEraser{}
	eraser := contextbuild.TraceEraser{Recorder: rec, Store: stored}
	if n, err := eraser.RedactTraces(ctx, scope, map[string]string{"likes.koalabanjo": "purged.ab12"}); err != nil || n != 1 {
		t.Fatalf("RedactTraces = %d, %v; want the pending trace", n, err)
	}
	if n, err := eraser.DeleteSessionTraces(ctx, scope, "s1", ""); err != nil || n != 1 {
		t.Fatalf("DeleteSessionTraces = %d, %v; want the pending trace", n, err)
	}
	if len(stored.redacted) != 1 || len(stored.sessions) != 1 {
		t.Errorf("the store was asked %v and %v, want once each", stored.redacted, stored.sessions)
	}
	if got, err := rec.Trace(ctx, "acme", quoting.ID); err != nil || got.Items[0].Snippet != "" || got.Items[0].ID != "purged.ab12" {
		t.Errorf("the pending trace reads %+v, %v; want it redacted", got.Items, err)
	}

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { rec.Run(runCtx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	wait.Until(t, 10*time.Second, "the recorder to write what it holds", func() bool { return rec.Pending() == 0 })
	got, err := store.Trace(ctx, "acme", quoting.ID)
	if err != nil || got.Items[0].Snippet != "" || !got.Items[0].Purged || !got.RawHits[0].Purged {
		t.Errorf("written trace = %+v, %v; want it written redacted", got, err)
	}
	if _, err := store.Trace(ctx, "acme", inSession.ID); err == nil {
		t.Error("the trace of the deleted session was written")
	}
}
