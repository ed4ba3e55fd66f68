package retrieval_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"engram/app/retrieval"
	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
)

func TestSearch_readsItsWritesWithNoIndexerRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	e.save(alice, "diet", "preference", "Vegetarian, no fish")
	// The vector of this one is never written: lexical search must still find it.
	if _, err := e.memories.Save(context.Background(), memoriesSave(alice, "coffee", "preference", "Drinks oat milk flat whites")); err != nil {
		t.Fatal(err)
	}
	res := e.search(retrieval.Search{Query: "what milk does she drink", Mode: "lexical"})
	if got := keysOf(res); len(got) == 0 || got[0] != "coffee" {
		t.Fatalf("lexical search after save = %v, want coffee first", got)
	}
	res = e.search(retrieval.Search{Query: "what milk does she drink", Mode: "auto"})
	if got := keysOf(res); len(got) == 0 || got[0] != "coffee" || res.ModeUsed != retrieval.ModeAuto {
		t.Fatalf("auto search after save = %v (%s), want coffee first in auto", got, res.ModeUsed)
	}
}

func TestSearch_neverReturnsDeletedExpiredOrOtherUsersMemories(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	bob := memory.Scope{Tenant: "t1", User: "bob"}
	otherTenant := memory.Scope{Tenant: "t2", User: "alice"}
	e.save(alice, "tea", "preference", "Likes jasmine tea")
	e.save(alice, "gone", "preference", "Likes jasmine tea with honey")
	e.save(bob, "tea", "preference", "Likes jasmine tea very much")
	e.save(otherTenant, "tea", "preference", "Likes jasmine tea a lot")
	short := 1
	if _, err := e.memories.Save(context.Background(), memoriesSaveTTL(alice, "soon", "Likes jasmine tea until tomorrow", &short)); err != nil {
		t.Fatal(err)
	}
	if err := e.memories.Delete(context.Background(), memoriesDelete(alice, "gone")); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(36 * time.Hour)
	for _, mode := range []string{"lexical", "dense", "auto", "full_inject"} {
		res := e.search(retrieval.Search{Query: "jasmine tea", Mode: mode, Limit: 100})
		if got := keysOf(res); !slices.Equal(got, []string{"tea"}) {
			t.Errorf("%s: got %v, want only alice's live memory tea", mode, got)
		}
		for _, it := range res.Items {
			if it.Memory.Scope() != alice {
				t.Errorf("%s: returned a memory of %v", mode, it.Memory.Scope())
			}
		}
	}
}

func TestSearch_messagesByContentSpeakerAndTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	may := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	june := time.Date(2023, 6, 20, 10, 0, 0, 0, time.UTC)
	e.post(alice, "s1",
		conversation.Input{MessageID: "c1", Name: "Caroline", Content: "I went to a support group yesterday.", CreatedAt: may},
		conversation.Input{MessageID: "m1", Name: "Melanie", Content: "That sounds lovely, I painted a lake.", CreatedAt: may.Add(time.Minute)},
	)
	e.post(alice, "s2",
		conversation.Input{MessageID: "c2", Name: "Caroline", Content: "I painted too, a sunrise.", CreatedAt: june},
		conversation.Input{MessageID: "m2", Name: "Melanie", Content: "We went camping with the kids.", CreatedAt: june.Add(time.Minute)},
	)
	tests := []struct {
		name string
		q    retrieval.Search
		want string // first result
		not  []string
	}{
		{"content", retrieval.Search{Query: "support group", Within: "messages"}, "c1", nil},
		{"the named speaker is preferred", retrieval.Search{Query: "What did Melanie paint?", Within: "messages"}, "m1", nil},
		{"the date is searchable", retrieval.Search{Query: "what happened in June", Within: "messages"}, "c2", nil},
		{"time range", retrieval.Search{Query: "painted", Within: "messages", Since: june}, "c2", []string{"m1"}},
		{"conversation", retrieval.Search{Query: "painted", Within: "messages", ConversationID: "s1"}, "m1", []string{"c2"}},
	}
	for _, tt := range tests {
		for _, mode := range []string{"lexical", "auto"} {
			q := tt.q
			q.Mode = mode
			got := keysOf(e.search(q))
			if tt.want != "" && (len(got) == 0 || got[0] != tt.want) {
				t.Errorf("%s (%s): got %v, want %s first", tt.name, mode, got, tt.want)
			}
			if len(got) == 0 {
				t.Errorf("%s (%s): nothing found", tt.name, mode)
			}
			for _, n := range tt.not {
				if slices.Contains(got, n) {
					t.Errorf("%s (%s): got %v, must not contain %s", tt.name, mode, got, n)
				}
			}
		}
	}
}

func TestSearch_aLaterNeighbourGivesAMessageItsContext(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	at := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	e.post(alice, "s1", conversation.Input{MessageID: "a", Name: "Melanie", Content: "Yes, twice last year!", CreatedAt: at.Add(time.Minute)})
	if got := keysOf(e.search(retrieval.Search{Query: "has she been to Paris", Within: "messages", Mode: "lexical"})); len(got) != 0 {
		t.Fatalf("before its neighbour arrived: %v, want nothing", got)
	}
	// The question it answers arrives later but was said earlier.
	e.post(alice, "s1", conversation.Input{MessageID: "q", Name: "Caroline", Content: "Have you ever been to Paris?", CreatedAt: at})
	got := keysOf(e.search(retrieval.Search{Query: "has she been to Paris", Within: "messages", Mode: "lexical"}))
	if !slices.Equal(got, []string{"q", "a"}) {
		t.Fatalf("after: %v, want the question, then the answer found through its neighbour", got)
	}
}

func TestSearch_chinese(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	e.save(alice, "hobby", "preference", "喜欢绘画和户外活动")
	e.save(alice, "food", "preference", "不吃辣，喜欢清淡的粤菜")
	for _, mode := range []string{"lexical", "auto"} {
		if got := keysOf(e.search(retrieval.Search{Query: "他平时有什么户外运动", Mode: mode})); len(got) == 0 || got[0] != "hobby" {
			t.Errorf("%s: got %v, want hobby first", mode, got)
		}
		if got := keysOf(e.search(retrieval.Search{Query: "吃辣吗", Mode: mode})); len(got) == 0 || got[0] != "food" {
			t.Errorf("%s: got %v, want food first", mode, got)
		}
	}
}

func TestSearch_fallsBackToLexicalWhenVectorsFailOrHang(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mode   int32
		reason string
	}{
		{"the index errors", indexFails, retrieval.FallbackVectorError},
		{"the index hangs until the deadline", indexHangs, retrieval.FallbackVectorTimeout},
		{"the index ignores the deadline", indexIgnoresDeadline, retrieval.FallbackVectorTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newGuardedEnv(t, retrieval.Options{}, retrieval.GuardOptions{Timeout: 50 * time.Millisecond, Breaker: retrieval.BreakerOptions{Failures: 100}})
			e.save(alice, "coffee", "preference", "Drinks oat milk flat whites")
			e.vectors.mode.Store(tt.mode)
			for _, mode := range []string{"auto", "dense"} {
				began := time.Now()
				res := e.search(retrieval.Search{Query: "oat milk", Mode: mode})
				if res.ModeUsed != retrieval.ModeLexical || res.FallbackReason != tt.reason {
					t.Errorf("%s: mode_used %s, reason %q; want lexical, %q", mode, res.ModeUsed, res.FallbackReason, tt.reason)
				}
				if got := keysOf(res); !slices.Equal(got, []string{"coffee"}) {
					t.Errorf("%s: got %v, want the lexical answer", mode, got)
				}
				if took := time.Since(began); took > 5*time.Second {
					t.Errorf("%s: took %s; the deadline is 50 ms", mode, took)
				}
			}
		})
	}
}

func TestSearch_breakerOpensSkipsAndProbesBack(t *testing.T) {
	t.Parallel()
	e := newGuardedEnv(t, retrieval.Options{}, retrieval.GuardOptions{Timeout: time.Second, Breaker: retrieval.BreakerOptions{Failures: 3, Cooldown: 10 * time.Second}})
	e.save(alice, "coffee", "preference", "Drinks oat milk flat whites")
	e.vectors.mode.Store(indexFails)
	for i := range 3 {
		res := e.search(retrieval.Search{Query: "oat milk", Mode: "auto"})
		if res.FallbackReason != retrieval.FallbackVectorError {
			t.Fatalf("failure %d: reason %q", i+1, res.FallbackReason)
		}
	}
	if got := e.guard.State(); got != retrieval.BreakerOpen {
		t.Fatalf("after 3 failures the breaker is %s, want open", got)
	}
	calls := e.vectors.calls.Load()
	res := e.search(retrieval.Search{Query: "oat milk", Mode: "auto"})
	if res.FallbackReason != retrieval.FallbackBreakerOpen || e.vectors.calls.Load() != calls {
		t.Fatalf("open: reason %q, %d new calls; want breaker_open and no call", res.FallbackReason, e.vectors.calls.Load()-calls)
	}
	e.clock.Advance(10 * time.Second)
	if got := e.guard.State(); got != retrieval.BreakerHalfOpen {
		t.Fatalf("after the cooldown the breaker is %s, want half_open", got)
	}
	// The probe fails: open again for another cooldown.
	res = e.search(retrieval.Search{Query: "oat milk", Mode: "auto"})
	if res.FallbackReason != retrieval.FallbackVectorError || e.guard.State() != retrieval.BreakerOpen {
		t.Fatalf("failed probe: reason %q, state %s; want vector_error and open", res.FallbackReason, e.guard.State())
	}
	e.vectors.mode.Store(indexOK)
	e.clock.Advance(10 * time.Second)
	res = e.search(retrieval.Search{Query: "oat milk", Mode: "auto"})
	if res.ModeUsed != retrieval.ModeAuto || res.FallbackReason != "" || e.guard.State() != retrieval.BreakerClosed {
		t.Fatalf("good probe: mode %s reason %q state %s; want auto, none, closed", res.ModeUsed, res.FallbackReason, e.guard.State())
	}
}

func TestSearch_withoutVectorsAnswersLexically(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	e.save(alice, "coffee", "preference", "Drinks oat milk flat whites")
	svc := retrieval.New(retrieval.Deps{Analyzer: e.analyzer, Lexical: e.searcher, Memories: e.store, Clock: e.clock}, retrieval.Options{})
	res, err := svc.Search(context.Background(), retrieval.Search{Scope: alice, Query: "oat milk", Mode: "dense"})
	if err != nil || res.ModeUsed != retrieval.ModeLexical || res.FallbackReason != retrieval.FallbackVectorsDisabled || len(res.Items) != 1 {
		t.Fatalf("got %+v, %v; want one lexical item with vectors_disabled", res, err)
	}
}

func TestSearch_breakdownAddsUpAndExactKeyCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	e.save(alice, "diet-preference", "preference", "Vegetarian")
	e.save(alice, "music", "preference", "Listens to jazz while cooking vegetarian food")
	res := e.search(retrieval.Search{Query: "diet preference", Mode: "auto", Limit: 2})
	if len(res.Items) == 0 || res.Items[0].Memory.Key().String() != "diet-preference" {
		t.Fatalf("got %v, want diet-preference first", keysOf(res))
	}
	for _, it := range res.Items {
		b := it.Breakdown
		if sum := b.Retrieval + b.Context + b.Importance + b.Confidence + b.Recency + b.ExactKey; sum-it.Score > 1e-9 || it.Score-sum > 1e-9 {
			t.Errorf("%s: score %v, breakdown sums to %v", it.Memory.Key(), it.Score, sum)
		}
	}
	if res.Items[0].Breakdown.ExactKey <= 0 {
		t.Errorf("the query spells the key; exact_key = %v", res.Items[0].Breakdown.ExactKey)
	}
}

func TestSearch_fullInjectReturnsEveryLiveMemory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{ScanLimit: 3})
	for i := range 5 {
		e.save(alice, fmt.Sprintf("k%d", i), "fact", fmt.Sprintf("Fact number %d", i))
	}
	res := e.search(retrieval.Search{Mode: "full_inject"})
	if len(res.Items) != 3 || res.ModeUsed != retrieval.ModeFullInject {
		t.Fatalf("got %d items in %s, want the scan limit 3 in full_inject", len(res.Items), res.ModeUsed)
	}
	res = e.search(retrieval.Search{Mode: "full_inject", Query: "number 2", Limit: 1})
	if len(res.Items) != 1 {
		t.Fatalf("got %d items, want the limit 1", len(res.Items))
	}
}

func TestSearch_validation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	tests := []struct {
		name  string
		q     retrieval.Search
		field string
	}{
		{"empty query", retrieval.Search{Query: "  ", Mode: "auto"}, "query"},
		{"limit over 100", retrieval.Search{Query: "x", Limit: 101}, "limit"},
		{"negative limit", retrieval.Search{Query: "x", Limit: -1}, "limit"},
		{"since after until", retrieval.Search{Query: "x", Since: start, Until: start.Add(-time.Hour)}, "since"},
		{"unknown scope", retrieval.Search{Query: "x", Within: "everything"}, "scope"},
		{"unknown mode", retrieval.Search{Query: "x", Mode: "magic"}, "mode"},
		{"unknown type", retrieval.Search{Query: "x", Types: []string{"fact", "gossip"}}, "types"},
		{"full_inject over messages", retrieval.Search{Mode: "full_inject", Within: "messages"}, "scope"},
	}
	for _, tt := range tests {
		tt.q.Scope = alice
		_, err := e.svc.Search(context.Background(), tt.q)
		var ve *invalid.Error
		if !errors.As(err, &ve) || len(ve.Fields) == 0 || ve.Fields[0].Field != tt.field {
			t.Errorf("%s: got %v, want a validation error on %s", tt.name, err, tt.field)
		}
	}
}

func TestSearch_recordsLastAccessOffThePath(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	m := e.save(alice, "coffee", "preference", "Drinks oat milk flat whites")
	ctx, cancel := context.WithCancel(context.Background())
	go e.access.Run(ctx)
	e.search(retrieval.Search{Query: "oat milk", Mode: "lexical"})
	cancel() // Run flushes what it gathered before it returns
	<-e.access.Done()
	got, err := e.store.Get(context.Background(), alice, m.Key())
	if err != nil {
		t.Fatal(err)
	}
	if !got.LastAccessedAt().Equal(start) || got.Version() != m.Version() {
		t.Fatalf("last_accessed_at %v version %d; want %v and an unchanged version %d", got.LastAccessedAt(), got.Version(), start, m.Version())
	}
}

func TestSearch_scopeAllRanksBothKindsOnOneScale(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	e.save(alice, "pet", "fact", "Has a golden retriever called Biscuit")
	e.post(alice, "s1", conversation.Input{MessageID: "k", Name: "Caroline", Content: "I adopted a kitten in June.",
		CreatedAt: time.Date(2023, 6, 20, 10, 0, 0, 0, time.UTC)})
	for _, mode := range []string{"lexical", "dense", "auto"} {
		res := e.search(retrieval.Search{Query: "kitten", Within: "all", Mode: mode})
		if got := keysOf(res); len(got) == 0 || got[0] != "k" {
			t.Errorf("%s: got %v, want the message about the kitten before any memory", mode, got)
		}
	}
	res := e.search(retrieval.Search{Query: "golden retriever", Within: "all", Mode: "auto"})
	if got := keysOf(res); len(got) == 0 || got[0] != "pet" {
		t.Errorf("got %v, want the pet memory first", got)
	}
}

// The truth is read only as far as a candidate could still make the cut: the top k
// must be the first k of a search that reads every candidate.
func TestSearch_boundedTruthReadsKeepTheExactTopK(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	words := []string{"tea", "coffee", "garden", "piano", "travel", "cooking", "chess", "running"}
	for i := range 120 {
		imp := 1 + i%5
		content := fmt.Sprintf("User likes %s and %s, note %d", words[i%len(words)], words[(i*3)%len(words)], i)
		if _, err := e.memories.Save(context.Background(), memoriesSaveImportance(alice, fmt.Sprintf("k%03d", i), content, imp)); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(time.Duration(i%7) * 24 * time.Hour)
	}
	var msgs []conversation.Input
	for i := range 150 {
		msgs = append(msgs, conversation.Input{MessageID: fmt.Sprintf("m%03d", i), Name: []string{"Ann", "Ben"}[i%2],
			Content:   fmt.Sprintf("We talked about %s and %s again", words[(i*5)%len(words)], words[(i*7)%len(words)]),
			CreatedAt: start.Add(-time.Duration(i*i) * time.Hour)})
	}
	e.post(alice, "s1", msgs...)
	for _, within := range []string{"memories", "messages", "all"} {
		for _, mode := range []string{"lexical", "auto"} {
			for _, q := range []string{"tea garden", "likes piano", "chess running travel", "what did Ann say about tea"} {
				all := keysOf(e.search(retrieval.Search{Query: q, Mode: mode, Within: within, Limit: 100}))
				for k := 1; k <= 12; k++ {
					got := keysOf(e.search(retrieval.Search{Query: q, Mode: mode, Within: within, Limit: k}))
					if !slices.Equal(got, all[:min(k, len(all))]) {
						t.Fatalf("%s %s %q limit %d: %v, want %v", within, mode, q, k, got, all[:min(k, len(all))])
					}
				}
			}
		}
	}
}

func TestSearch_anotherUsersOrTenantsMessagesNeverComeBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t, retrieval.Options{})
	at := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	for _, sc := range []memory.Scope{{Tenant: "t1", User: "bob"}, {Tenant: "t2", User: "alice"}} {
		e.post(sc, "s1", conversation.Input{MessageID: "theirs", Name: "Melanie", Content: "I painted a lake at sunrise.", CreatedAt: at})
	}
	e.post(alice, "s1", conversation.Input{MessageID: "mine", Name: "Melanie", Content: "We went camping.", CreatedAt: at})
	for _, mode := range []string{"lexical", "dense", "auto"} {
		for _, within := range []string{"messages", "all"} {
			res := e.search(retrieval.Search{Query: "what did Melanie paint at sunrise", Within: within, Mode: mode, Limit: 100})
			for _, it := range res.Items {
				if it.Message != nil && it.Message.Scope != alice {
					t.Errorf("%s %s: returned a message of %v", mode, within, it.Message.Scope)
				}
			}
		}
	}
}
