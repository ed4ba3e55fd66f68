package contract

import (
	"context"
	"testing"
	"time"

	"engram/ports"
)

// LexicalCursors is a backend's cursors with the read of a position the suite
// checks them by.
type LexicalCursors interface {
	ports.LexicalCursors
	Position(ctx context.Context, name string) (string, error)
}

// RunLexicalCursors is the contract every ports.LexicalCursors adapter must pass:
// a set position reads back; one holder has a cursor's lease at a time, renewed by
// claiming again, free once it lapses or its holder releases it. open returns
// empty cursors; each case opens its own.
func RunLexicalCursors(t *testing.T, open func(t *testing.T) LexicalCursors) {
	t.Helper()
	t.Run("cursors", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		if pos, err := x.Position(ctx, "messages"); err != nil || pos != "" {
			t.Fatalf("unset cursor = %q, %v", pos, err)
		}
		for _, want := range []string{"01A", "01B"} {
			if err := x.Set(ctx, "messages", want); err != nil {
				t.Fatal(err)
			}
			if pos, err := x.Position(ctx, "messages"); err != nil || pos != want {
				t.Fatalf("cursor = %q, %v; want %q", pos, err, want)
			}
		}
	})

	t.Run("one holder of a cursor's lease at a time", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		pos, ok, err := x.Claim(ctx, "messages", "a", now, time.Minute)
		if err != nil || !ok || pos != "" {
			t.Fatalf("first claim: %q %v %v; want the empty position, granted", pos, ok, err)
		}
		if err := x.Set(ctx, "messages", "01X"); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := x.Claim(ctx, "messages", "b", now.Add(30*time.Second), time.Minute); err != nil || ok {
			t.Fatalf("b while a holds it: %v %v; want refused", ok, err)
		}
		if pos, ok, err := x.Claim(ctx, "messages", "a", now.Add(50*time.Second), time.Minute); err != nil || !ok || pos != "01X" {
			t.Fatalf("a renews: %q %v %v; want 01X, granted", pos, ok, err)
		}
		if _, ok, _ := x.Claim(ctx, "messages", "b", now.Add(100*time.Second), time.Minute); ok {
			t.Fatal("b got the lease a renewed until 110 s")
		}
		if pos, ok, err := x.Claim(ctx, "messages", "b", now.Add(111*time.Second), time.Minute); err != nil || !ok || pos != "01X" {
			t.Fatalf("b after the lease lapsed: %q %v %v; want 01X, granted", pos, ok, err)
		}
		if _, ok, _ := x.Claim(ctx, "other", "a", now, time.Minute); !ok {
			t.Fatal("another cursor is another lease")
		}
	})

	t.Run("a released lease can be claimed at once; only its holder releases it", func(t *testing.T) {
		t.Parallel()
		x, ctx := open(t), lexContext(t)
		now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		if _, ok, err := x.Claim(ctx, "messages", "a", now, time.Minute); err != nil || !ok {
			t.Fatalf("a claims: %v %v", ok, err)
		}
		if err := x.Set(ctx, "messages", "01Y"); err != nil {
			t.Fatal(err)
		}
		if err := x.Release(ctx, "messages", "b"); err != nil {
			t.Fatalf("b releases a lease it does not hold: %v", err)
		}
		if _, ok, _ := x.Claim(ctx, "messages", "b", now.Add(time.Second), time.Minute); ok {
			t.Fatal("b's release ended a's lease")
		}
		if err := x.Release(ctx, "messages", "a"); err != nil {
			t.Fatal(err)
		}
		pos, ok, err := x.Claim(ctx, "messages", "b", now.Add(2*time.Second), time.Minute)
		if err != nil || !ok || pos != "01Y" {
			t.Fatalf("b right after a released: %q %v %v; want 01Y, granted", pos, ok, err)
		}
		if err := x.Release(ctx, "never-claimed", "a"); err != nil {
			t.Errorf("releasing a cursor nobody claimed: %v", err)
		}
	})
}
