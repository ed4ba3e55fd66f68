package retrieval_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/app/memories"
	"engram/app/retrieval"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// everyday is a user's memories about food, pets and hobbies.
var everyday = []struct{ key, typ, content string }{
	{"coffee", "preference", "Drinks oat milk flat whites every morning"},
	{"diet", "preference", "Vegetarian, no fish"},
	{"food", "preference", "Loves spicy Sichuan food, hates coriander"},
	{"pet", "fact", "Has a golden retriever called Biscuit"},
	{"cat", "fact", "Has a cat named Mochi who sleeps on the keyboard"},
	{"hobby", "preference", "喜欢绘画和户外活动"},
	{"sport", "fact", "Plays tennis on Saturday mornings"},
	{"music", "fact", "Learning the guitar, practises every evening"},
}

func saveEveryday(e *env, scope memory.Scope) {
	for _, m := range everyday {
		e.save(scope, m.key, m.typ, m.content)
	}
}

func TestSearch_unrelatedQueryReturnsNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{}) // min_score 0: only the evidence rule holds
	saveEveryday(e, alice)
	for _, q := range []string{"quantum chromodynamics lecture schedule", "stock market quarterly earnings report"} {
		for _, mode := range []string{"auto", "dense", "lexical"} {
			res := e.search(retrieval.Search{Query: q, Mode: mode, Within: "all", Limit: 100})
			if len(res.Items) != 0 {
				t.Errorf("%s %q: %d items (%v, first score %v), want none", mode, q, len(res.Items), keysOf(res), res.Items[0].Score)
			}
			if res.FallbackReason != "" {
				t.Errorf("%s %q: fallback %q, want vectors to answer (with nothing)", mode, q, res.FallbackReason)
			}
		}
	}
}

func TestSearch_minScoreDropsWeakerItems(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	saveEveryday(e, alice)
	q := retrieval.Search{Query: "does she drink coffee with oat milk in the morning", Mode: "auto", Limit: 100}
	all := e.search(q)
	if len(all.Items) < 2 {
		t.Fatalf("want a strong and some weaker items, got %v", keysOf(all))
	}
	cut := (all.Items[0].Score + all.Items[len(all.Items)-1].Score) / 2
	q.MinScore = &cut
	kept := e.search(q)
	if len(kept.Items) == 0 || len(kept.Items) >= len(all.Items) {
		t.Fatalf("min_score %v kept %d of %d items", cut, len(kept.Items), len(all.Items))
	}
	for i, it := range kept.Items {
		if it.Score < cut || it.Memory.ID() != all.Items[i].Memory.ID() || it.Score != all.Items[i].Score {
			t.Errorf("item %d: %s %v; want the same items as without min_score, cut at %v", i, it.Memory.Key(), it.Score, cut)
		}
	}
	high := 1.0
	q.MinScore = &high
	if res := e.search(q); len(res.Items) != 0 {
		t.Errorf("min_score 1: %v", keysOf(res))
	}
	// The configured default applies when the request names none.
	def := newEnv(t, retrieval.Options{MinScore: cut})
	saveEveryday(def, alice)
	if got := keysOf(def.search(retrieval.Search{Query: q.Query, Mode: "auto", Limit: 100})); !slices.Equal(got, keysOf(kept)) {
		t.Errorf("LONG_TERM_MEMORY_MIN_SCORE %v: %v, want %v", cut, got, keysOf(kept))
	}
}

// A strong hit scores high and a weak one low, for a user with a few memories and
// for one with many, whatever else the user has.
func TestSearch_scoresAreComparableAcrossUsersAndQueries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	small := memory.Scope{Tenant: "t1", User: "small"}
	big := memory.Scope{Tenant: "t1", User: "big"}
	saveEveryday(e, small)
	saveEveryday(e, big)
	topics := []string{"garden", "piano", "chess", "travel", "baking", "running", "museums", "poetry", "cycling", "films"}
	for i := range 80 {
		e.save(big, fmt.Sprintf("note-%02d", i), "fact", fmt.Sprintf("Talked about %s and %s with a friend", topics[i%10], topics[(i*3+1)%10]))
	}
	for _, sc := range []memory.Scope{small, big} {
		for _, tt := range []struct {
			query, key string
			strong     bool
		}{
			{"golden retriever Biscuit", "pet", true},
			{"does she play tennis on saturday mornings", "sport", true},
			{"quantum tennis lecture schedule for the conference", "sport", false},
			{"which dog food brand is cheapest at the supermarket this week", "", false},
		} {
			res := e.search(retrieval.Search{Scope: sc, Query: tt.query, Mode: "auto"})
			t.Logf("%s %q: %v first %.3f", sc.User, tt.query, keysOf(res), firstScore(res))
			if tt.strong {
				if len(res.Items) == 0 || res.Items[0].Memory.Key() != memory.MustParseKey(tt.key) || res.Items[0].Score < 0.45 {
					t.Errorf("%s %q: %v (first %v), want %s first with a high score", sc.User, tt.query, keysOf(res), firstScore(res), tt.key)
				}
				continue
			}
			if s := firstScore(res); s > 0.3 {
				t.Errorf("%s %q: the best item %v scores %v, want a low score for a weak match", sc.User, tt.query, keysOf(res), s)
			}
		}
	}
}

func firstScore(res retrieval.Result) float64 {
	if len(res.Items) == 0 {
		return 0
	}
	return res.Items[0].Score
}

func TestSearch_nothingToEmbedNeverTripsTheBreaker(t *testing.T) {
	t.Parallel()
	e := newGuardedEnv(t, retrieval.Options{}, retrieval.GuardOptions{Breaker: retrieval.BreakerOptions{Failures: 2}})
	saveEveryday(e, alice)
	for _, q := range []string{"🍕🍕", "???", "a", "🍕🍕", "!!", "🍕🍕", "the of", "🍕🍕", "🍕🍕"} {
		for _, mode := range []string{"auto", "dense"} {
			res := e.search(retrieval.Search{Query: q, Mode: mode, Within: "all"})
			if res.ModeUsed != retrieval.ModeLexical || res.FallbackReason != retrieval.FallbackNoEmbeddableText || len(res.Items) != 0 {
				t.Fatalf("%s %q: mode %s reason %q items %v; want lexical, no_embeddable_text, nothing", mode, q, res.ModeUsed, res.FallbackReason, keysOf(res))
			}
		}
	}
	if got := e.guard.State(); got != retrieval.BreakerClosed {
		t.Fatalf("after queries with nothing to embed the breaker is %s, want closed", got)
	}
	if n := e.vectors.calls.Load(); n != 0 {
		t.Errorf("the vector index was asked %d times for queries with nothing to embed", n)
	}
	if res := e.search(retrieval.Search{Query: "golden retriever", Mode: "auto"}); res.ModeUsed != retrieval.ModeAuto || res.FallbackReason != "" {
		t.Errorf("another tenant's next search: mode %s reason %q, want vectors", res.ModeUsed, res.FallbackReason)
	}
}

func TestSearch_requestsTheIndexRefusesDoNotTripTheBreaker(t *testing.T) {
	t.Parallel()
	e := newGuardedEnv(t, retrieval.Options{}, retrieval.GuardOptions{Breaker: retrieval.BreakerOptions{Failures: 2}})
	e.save(alice, "coffee", "preference", "Drinks oat milk flat whites")
	e.vectors.mode.Store(indexRefuses)
	for range 5 {
		res := e.search(retrieval.Search{Query: "oat milk", Mode: "auto"})
		if res.FallbackReason != retrieval.FallbackVectorError || !slices.Equal(keysOf(res), []string{"coffee"}) {
			t.Fatalf("refused: reason %q items %v; want vector_error and the lexical answer", res.FallbackReason, keysOf(res))
		}
	}
	if got := e.guard.State(); got != retrieval.BreakerClosed {
		t.Errorf("after refusals (invalid requests) the breaker is %s, want closed: they are no dependency failures", got)
	}
}

func TestSearch_breakerTransitionsAreLoggedWithTheirCause(t *testing.T) {
	t.Parallel()
	e := newGuardedEnv(t, retrieval.Options{}, retrieval.GuardOptions{Breaker: retrieval.BreakerOptions{Failures: 2, Cooldown: 10 * time.Second}})
	e.save(alice, "coffee", "preference", "Drinks oat milk flat whites")
	e.vectors.mode.Store(indexFails)
	for range 2 {
		e.search(retrieval.Search{Query: "oat milk", Mode: "auto"})
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "vector breaker open") || !strings.Contains(logs, "connection refused") ||
		!strings.Contains(logs, "dependency=\"vector index\"") {
		t.Fatalf("opening: logs %q, want a WARN naming the dependency and the cause", logs)
	}
	e.vectors.mode.Store(indexOK)
	e.clock.Advance(10 * time.Second)
	e.search(retrieval.Search{Query: "oat milk", Mode: "auto"})
	logs = e.logs.String()
	for _, want := range []string{"vector breaker half-open", "cause=\"cooldown over\"", "vector breaker closed", "cause=\"probe succeeded\""} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs %q, want %q", logs, want)
		}
	}
	if got := e.guard.State(); got != retrieval.BreakerClosed {
		t.Errorf("after a good probe: %s", got)
	}
}

// One memory stuffed with the query's words takes one place; the relevant memory,
// older and less important than a crowd of unrelated ones, keeps its own.
func TestSearch_aKeywordStuffedMemoryDoesNotPushARelevantOneOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	low, high := 1, 5
	save := func(key, content string, importance int) {
		t.Helper()
		res, err := e.memories.Save(context.Background(), memories.Save{Scope: alice, Key: key,
			Draft: memory.DraftInput{Type: "fact", Content: content, Importance: &importance}})
		if err != nil {
			t.Fatal(err)
		}
		e.upsertVectorOf(res.Memory)
	}
	save("allergy", "Allergic to peanuts, carries an EpiPen", low)
	e.clock.Advance(120 * 24 * time.Hour) // older, within the default 180-day TTL
	save("stuffed", "peanut peanut peanuts peanut butter peanut sauce allergy allergic allergic peanuts nuts", high)
	for i, c := range []string{"Works as a nurse on night shifts", "Lives in Wuhan near the river", "Plays tennis on Saturday mornings",
		"Learning the guitar every evening", "Wants to visit Japan next spring", "Has a cat named Mochi", "Takes evening classes in pottery",
		"Reads science fiction novels", "Volunteers at the library on Sundays"} {
		save(fmt.Sprintf("other-%d", i), c, high)
	}
	res := e.search(retrieval.Search{Query: "is she allergic to peanuts?", Mode: "auto", Limit: 6})
	if got := keysOf(res); !slices.Contains(got, "allergy") {
		t.Fatalf("top 6 %v: the relevant memory was pushed out", got)
	}
	for _, it := range res.Items {
		if strings.HasPrefix(it.Memory.Key().String(), "other-") {
			t.Errorf("an unrelated memory %s (score %v) is in the top 6", it.Memory.Key(), it.Score)
		}
	}
}

func TestSearch_aMessageFoundThroughItsNeighboursIsShownAsContext(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	at := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	e.post(alice, "s1",
		conversation.Input{MessageID: "q", Name: "Caroline", Content: "Have you ever been to Lisbon?", CreatedAt: at},
		conversation.Input{MessageID: "a", Name: "Melanie", Content: "Yes, twice last year!", CreatedAt: at.Add(time.Minute)},
		conversation.Input{MessageID: "b", Name: "Caroline", Content: "Lisbon trams are lovely.", CreatedAt: at.Add(2 * time.Minute)},
	)
	e.post(alice, "s2", conversation.Input{MessageID: "d", Name: "Ann", Content: "Lisbon again soon.", CreatedAt: at.AddDate(0, 1, 0)})
	for _, mode := range []string{"lexical", "auto"} {
		res := e.search(retrieval.Search{Query: "lisbon", Within: "messages", Mode: mode})
		byID := map[string]retrieval.Item{}
		for _, it := range res.Items {
			byID[it.Message.ID] = it
			b := it.Breakdown
			if b.Importance != 0 || b.Confidence != 0 || b.ExactKey != 0 {
				t.Errorf("%s: message %s has importance/confidence/key terms %+v", mode, it.Message.ID, b)
			}
		}
		a, ok := byID["a"]
		if !ok {
			t.Fatalf("%s: %v, want the answer found through its neighbours", mode, keysOf(res))
		}
		if a.Breakdown.Context <= 0 || (mode == "lexical" && a.Breakdown.Retrieval != 0) {
			t.Errorf("%s: context-only hit breakdown %+v, want it shown as context", mode, a.Breakdown)
		}
		if d := byID["d"]; d.Breakdown.Context != 0 || d.Breakdown.Retrieval <= 0 {
			t.Errorf("%s: direct hit breakdown %+v, want retrieval and no context", mode, d.Breakdown)
		}
		// "a" has "lisbon" twice in its neighbours at half weight, the strength of
		// one direct mention: every direct hit outranks it.
		last := slices.Index(keysOf(res), "a")
		for _, direct := range []string{"q", "b", "d"} {
			if i := slices.Index(keysOf(res), direct); i < 0 || i > last {
				t.Errorf("%s: %v, want the direct hit %s above the context-only one", mode, keysOf(res), direct)
			}
		}
	}
}

// refusingEmbedder answers like a remote embedder that refuses (a 4xx: bad key,
// text too long) or fails (a 5xx).
type refusingEmbedder struct{ err error }

func (r refusingEmbedder) Embed(context.Context, []string) ([][]float32, error) { return nil, r.err }

type refusal struct{}

func (refusal) Error() string  { return "HTTP 400: input too long" }
func (refusal) Rejected() bool { return true }

func TestSearch_onlyTheEmbeddersFailuresTripTheBreaker(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	e.save(alice, "coffee", "preference", "Drinks oat milk flat whites")
	for _, tt := range []struct {
		name  string
		err   error
		trips bool
	}{
		{"a 4xx refusal", fmt.Errorf("llm: embed: %w: %w", ports.ErrUnavailable, refusal{}), false},
		{"a 5xx", fmt.Errorf("llm: embed: %w: HTTP 503", ports.ErrUnavailable), true},
	} {
		guard := retrieval.NewVectorGuard(e.clock, retrieval.GuardOptions{Breaker: retrieval.BreakerOptions{Failures: 2}})
		svc := retrieval.New(retrieval.Deps{Analyzer: e.analyzer, Lexical: e.searcher, Memories: e.store, Clock: e.clock,
			Embedder: guard.Embedder(refusingEmbedder{tt.err}), Vectors: guard.Index(e.vectors)}, retrieval.Options{})
		for range 3 {
			res, err := svc.Search(context.Background(), retrieval.Search{Scope: alice, Query: "oat milk", Mode: "auto"})
			if err != nil || len(res.Items) != 1 || res.ModeUsed != retrieval.ModeLexical {
				t.Fatalf("%s: %+v, %v; want the lexical answer", tt.name, res, err)
			}
		}
		if open := guard.State() == retrieval.BreakerOpen; open != tt.trips {
			t.Errorf("%s: breaker %s after 3 searches, want open %v", tt.name, guard.State(), tt.trips)
		}
	}
}
