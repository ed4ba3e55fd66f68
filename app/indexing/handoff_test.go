package indexing_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"engram/app/indexing"
	"engram/test/fakeclock"
)

func TestHandoff_theIndexerReusesWhatExtractionEmbedded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	emb := newEmbedder(t, "model")
	clock := fakeclock.New(start)
	h := indexing.NewHandoff(emb, 2, time.Minute, clock)

	produced, err := h.Producer().Embed(ctx, []string{"[fact] a: one", "[fact] b: two"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.Consumer().Embed(ctx, []string{"[fact] c: three", "[fact] a: one"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[1], produced[0]) || len(got[0]) != testDim {
		t.Fatalf("consumer vectors %v", got)
	}
	if texts := emb.Texts(); !slices.Equal(texts, []string{"[fact] a: one", "[fact] b: two", "[fact] c: three"}) {
		t.Errorf("embedded %q, want each text once", texts)
	}
	if h.Reused() != 1 {
		t.Errorf("reused %d, want 1", h.Reused())
	}

	// A kept vector is taken once; an old one is not served.
	if _, err := h.Consumer().Embed(ctx, []string{"[fact] a: one"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Minute)
	if _, err := h.Consumer().Embed(ctx, []string{"[fact] b: two"}); err != nil {
		t.Fatal(err)
	}
	if n := len(emb.Texts()); n != 5 || h.Reused() != 1 {
		t.Errorf("%d texts embedded and %d reused after a second take and the TTL, want 5 and 1", n, h.Reused())
	}

	// At most size vectors are kept, the newest.
	if _, err := h.Producer().Embed(ctx, []string{"x", "y", "z"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Consumer().Embed(ctx, []string{"x", "y", "z"}); err != nil {
		t.Fatal(err)
	}
	if h.Reused() != 3 {
		t.Errorf("reused %d, want the two newest of three kept (3 in all)", h.Reused())
	}
}
