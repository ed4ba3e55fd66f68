package retrieval_test

import (
	"context"
	"testing"
	"time"

	"engram/app/retrieval"
)

// With Explain, every candidate the retrievers found is either returned, listed
// in Dropped with its reason, or counted in Unread; without it, neither is filled.
func TestSearch_explainSaysWhyEachCandidateWasLeftOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	e.save(alice, "tea", "preference", "Likes jasmine tea")
	e.save(alice, "green-tea", "preference", "Likes green jasmine tea in the morning")
	e.save(alice, "black-tea", "preference", "Drinks black tea with jasmine on Sundays")
	short := 1
	soon, err := e.memories.Save(context.Background(), memoriesSaveTTL(alice, "soon", "Likes jasmine tea until tomorrow", &short))
	if err != nil {
		t.Fatal(err)
	}
	e.upsertVectorOf(soon.Memory)
	e.clock.Advance(36 * time.Hour)

	plain := e.search(retrieval.Search{Query: "jasmine tea", Mode: "lexical", Limit: 1})
	if plain.Dropped != nil || plain.Unread != nil {
		t.Errorf("a search that did not ask explained itself: %+v %+v", plain.Dropped, plain.Unread)
	}
	res := e.search(retrieval.Search{Query: "jasmine tea", Mode: "lexical", Limit: 1, Explain: true})
	if got := keysOf(res); len(got) != 1 || got[0] != "tea" {
		t.Fatalf("items %v, want tea", got)
	}
	reasons := map[string]string{}
	for _, d := range res.Dropped {
		if d.Memory == nil {
			t.Fatalf("a dropped memory without its memory: %+v", d)
		}
		reasons[d.Memory.Key().String()] = d.Reason
		if d.Score <= 0 || d.Score > 1 {
			t.Errorf("%s dropped with score %v", d.Memory.Key(), d.Score)
		}
	}
	unread := 0
	for _, n := range res.Unread {
		unread += n
	}
	for _, key := range []string{"green-tea", "black-tea"} {
		if reasons[key] != retrieval.DropLimit && res.Unread[retrieval.DropLimit] == 0 {
			t.Errorf("%s is neither dropped for the limit nor counted unread: %v %v", key, reasons, res.Unread)
		}
	}
	// Lexical search never offers an expired memory; the vectors do, and the
	// truth read drops it.
	if len(res.Items)+len(res.Dropped)+unread != 3 {
		t.Errorf("%d returned + %d dropped + %d unread, want the 3 live candidates", len(res.Items), len(res.Dropped), unread)
	}
	dense := e.search(retrieval.Search{Query: "jasmine tea", Mode: "dense", Limit: 5, Explain: true})
	expired := false
	for _, d := range dense.Dropped {
		expired = expired || (d.Memory.Key().String() == "soon" && d.Reason == retrieval.DropExpired)
	}
	if !expired || len(dense.Items) != 3 {
		t.Errorf("dense: items %v, dropped %+v; want the expired memory dropped as expired", keysOf(dense), dense.Dropped)
	}

	strict := 0.99
	res = e.search(retrieval.Search{Query: "jasmine tea", Mode: "lexical", MinScore: &strict, Explain: true})
	if len(res.Items) != 0 || res.Unread[retrieval.DropBelowMinScore]+len(res.Dropped) < 3 {
		t.Errorf("min_score 0.99: items %v, dropped %+v, unread %v", keysOf(res), res.Dropped, res.Unread)
	}
	for _, d := range res.Dropped {
		if d.Reason != retrieval.DropBelowMinScore && d.Reason != retrieval.DropExpired {
			t.Errorf("min_score 0.99 dropped %s for %q", d.Memory.Key(), d.Reason)
		}
	}

	full := e.search(retrieval.Search{Query: "jasmine tea", Mode: "full_inject", Limit: 2, Explain: true})
	if len(full.Items) != 2 || len(full.Dropped) != 1 || full.Dropped[0].Reason != retrieval.DropLimit {
		t.Errorf("full_inject limit 2: items %v, dropped %+v", keysOf(full), full.Dropped)
	}
}
