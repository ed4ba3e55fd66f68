package e2e

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/milvus-io/milvus/pkg/v2/util/merr"

	"engram/test/fakemilvus"
	"engram/test/testenv"
	"engram/test/wait"
)

func (a searchAnswer) ids() []string {
	out := make([]string, 0, len(a.Items))
	for _, it := range a.Items {
		if it.Memory != nil {
			out = append(out, it.Memory.Key)
		} else {
			out = append(out, it.Message.MessageID)
		}
	}
	return out
}

func (a searchAnswer) topScore() float64 {
	if len(a.Items) == 0 {
		return 0
	}
	return a.Items[0].Score
}

var everydayMemories = [][2]string{
	{"coffee", "Drinks oat milk flat whites every morning"},
	{"diet", "Vegetarian, no fish"},
	{"food", "Loves spicy Sichuan food, hates coriander"},
	{"pet", "Has a golden retriever called Biscuit"},
	{"cat", "Has a cat named Mochi who sleeps on the keyboard"},
	{"hobby", "喜欢绘画和户外活动"},
	{"sport", "Plays tennis on Saturday mornings"},
	{"music", "Learning the guitar, practises every evening"},
}

type relevanceClient struct {
	t   *testing.T
	srv *Server
}

// in is the client for a subtest: failures end the subtest, not its parent.
func (c relevanceClient) in(t *testing.T) relevanceClient { return relevanceClient{t: t, srv: c.srv} }

func (c relevanceClient) save(user, key, content string, importance int) {
	c.t.Helper()
	body := map[string]any{"type": "fact", "content": content}
	if importance > 0 {
		body["importance"] = importance
	}
	if code := c.srv.Do(http.MethodPut, "/v1/users/"+user+"/memories/"+key, body, nil); code != http.StatusCreated {
		c.t.Fatalf("save %s/%s = %d", user, key, code)
	}
}

func (c relevanceClient) search(user string, body map[string]any) searchAnswer {
	c.t.Helper()
	var a searchAnswer
	if code := c.srv.Do(http.MethodPost, "/v1/users/"+user+"/search", body, &a); code != http.StatusOK {
		c.t.Fatalf("search %v = %d", body, code)
	}
	return a
}

// waitSynced waits until the indexer role has embedded the memory (its vector is
// SYNCED), so that dense evidence is part of the answer; it fails on timeout.
func (c relevanceClient) waitSynced(user, key string) {
	c.t.Helper()
	var status string
	synced := wait.For(60*time.Second, func() bool {
		var m struct {
			Vector struct {
				Status string `json:"status"`
			} `json:"vector"`
		}
		c.srv.Do(http.MethodGet, "/v1/users/"+user+"/memories/"+key, nil, &m)
		status = m.Vector.Status
		return status == "SYNCED"
	})
	if !synced {
		c.t.Fatalf("%s/%s: vector %q after 60 s, want SYNCED", user, key, status)
	}
}

// relevanceEnv is what every server of these tests runs with: a generous vector
// deadline, so that a busy machine measures relevance, not timeouts.
func relevanceEnv(t *testing.T, extra ...string) []string {
	return append([]string{"ENGRAM_DATA_DIR=" + t.TempDir(), "LONG_TERM_MEMORY_DEBOUNCE_SEC=3600", "ENGRAM_VECTOR_SEARCH_TIMEOUT_MS=5000"}, extra...)
}

func TestSearch_calibratedRelevance_SQLite(t *testing.T) {
	calibratedRelevance(t, Start(t, relevanceEnv(t)...))
}

func TestSearch_calibratedRelevance_Postgres(t *testing.T) {
	calibratedRelevance(t, Start(t, relevanceEnv(t, "ENGRAM_DATABASE_URL="+testenv.NewPostgresDatabase(t))...))
}

// calibratedRelevance is issue 7's item 2 through HTTP: scores are absolute, so an
// unrelated query finds nothing, min_score cuts, a strong hit scores high and a
// weak one low for any user, a stuffed memory takes one place only, and a message
// found through its neighbours says so.
func calibratedRelevance(t *testing.T, srv *Server) {
	c := relevanceClient{t: t, srv: srv}
	for _, m := range everydayMemories {
		c.save("alice", m[0], m[1], 0)
		c.save("bob", m[0], m[1], 0)
	}
	topics := []string{"garden", "piano", "chess", "travel", "baking", "running", "museums", "poetry", "cycling", "films"}
	for i := range 40 {
		c.save("bob", fmt.Sprintf("note-%02d", i), fmt.Sprintf("Talked about %s and %s with a friend", topics[i%10], topics[(i*3+1)%10]), 0)
	}
	for _, user := range []string{"alice", "bob"} {
		for _, m := range everydayMemories {
			c.waitSynced(user, m[0])
		}
	}

	t.Run("an unrelated query returns no items", func(t *testing.T) {
		c := c.in(t)
		for _, mode := range []string{"auto", "dense", "lexical"} {
			for _, scope := range []string{"memories", "all"} {
				a := c.search("alice", map[string]any{"query": "quantum chromodynamics lecture schedule", "mode": mode, "scope": scope, "limit": 100})
				if len(a.Items) != 0 || a.FallbackReason != "" {
					t.Errorf("%s %s: items %v (first score %v), fallback %q; want none, from vectors and BM25", mode, scope, a.ids(), a.topScore(), a.FallbackReason)
				}
			}
		}
	})

	t.Run("min_score drops weaker items", func(t *testing.T) {
		c := c.in(t)
		q := "does she drink coffee with oat milk in the morning"
		zero := c.search("alice", map[string]any{"query": q, "min_score": 0, "limit": 100})
		if len(zero.Items) < 2 || zero.Items[0].Memory.Key != "coffee" {
			t.Fatalf("min_score 0: %v, want coffee first and weaker items after it", zero.ids())
		}
		cut := (zero.Items[0].Score + zero.Items[len(zero.Items)-1].Score) / 2
		kept := c.search("alice", map[string]any{"query": q, "min_score": cut, "limit": 100})
		if len(kept.Items) == 0 || len(kept.Items) >= len(zero.Items) || !slices.Equal(kept.ids(), zero.ids()[:len(kept.Items)]) {
			t.Fatalf("min_score %.3f: %v, want a strict prefix of %v", cut, kept.ids(), zero.ids())
		}
		for _, it := range kept.Items {
			if it.Score < cut {
				t.Errorf("min_score %.3f kept a score of %v", cut, it.Score)
			}
		}
		def := c.search("alice", map[string]any{"query": q, "limit": 100})
		for _, it := range def.Items {
			if it.Score < 0.05 {
				t.Errorf("the default min_score kept a score of %v", it.Score)
			}
		}
	})

	t.Run("scores are comparable across users and queries", func(t *testing.T) {
		c := c.in(t)
		for _, user := range []string{"alice", "bob"} {
			for _, q := range []string{"golden retriever Biscuit", "does she play tennis on saturday mornings"} {
				a := c.search(user, map[string]any{"query": q})
				if a.topScore() < 0.45 {
					t.Errorf("%s %q: %v first scores %v, want a strong hit to score high", user, q, a.ids(), a.topScore())
				}
			}
			for _, q := range []string{"quantum tennis lecture schedule for the conference", "which dog food brand is cheapest at the supermarket this week"} {
				a := c.search(user, map[string]any{"query": q, "min_score": 0})
				if a.topScore() > 0.3 {
					t.Errorf("%s %q: %v first scores %v, want a weak hit to score low", user, q, a.ids(), a.topScore())
				}
			}
		}
	})

	t.Run("a keyword-stuffed memory does not push a relevant one out of the top 6", func(t *testing.T) {
		c := c.in(t)
		c.save("carol", "allergy", "Allergic to peanuts, carries an EpiPen", 1)
		c.save("carol", "stuffed", "peanut peanut peanuts peanut butter peanut sauce allergy allergic allergic peanuts nuts", 5)
		for i, content := range []string{"Works as a nurse on night shifts", "Lives in Wuhan near the river", "Plays tennis on Saturday mornings",
			"Learning the guitar every evening", "Wants to visit Japan next spring", "Has a cat named Mochi", "Takes evening classes in pottery",
			"Reads science fiction novels", "Volunteers at the library on Sundays"} {
			c.save("carol", fmt.Sprintf("other-%d", i), content, 5)
		}
		for _, key := range []string{"allergy", "stuffed", "other-0", "other-8"} {
			c.waitSynced("carol", key)
		}
		a := c.search("carol", map[string]any{"query": "is she allergic to peanuts?", "mode": "auto", "limit": 6, "min_score": 0})
		if !slices.Contains(a.ids(), "allergy") {
			t.Errorf("top 6 %v: the stuffed memory pushed the relevant one out", a.ids())
		}
	})

	t.Run("a message found through its neighbours shows context", func(t *testing.T) {
		c := c.in(t)
		msgs := []map[string]any{
			{"conversation_id": "s1", "message_id": "q", "role": "user", "name": "Caroline", "content": "Have you ever been to Lisbon?", "created_at": "2023-05-08T13:00:00Z"},
			{"conversation_id": "s1", "message_id": "a", "role": "assistant", "name": "Melanie", "content": "Yes, twice last year!", "created_at": "2023-05-08T13:01:00Z"},
			{"conversation_id": "s1", "message_id": "b", "role": "user", "name": "Caroline", "content": "Lisbon trams are lovely.", "created_at": "2023-05-08T13:02:00Z"},
			{"conversation_id": "s2", "message_id": "d", "role": "user", "name": "Ann", "content": "Lisbon again soon.", "created_at": "2023-06-08T13:00:00Z"},
		}
		if code := srv.Do(http.MethodPost, "/v1/users/dave/messages:batch", map[string]any{"messages": msgs}, nil); code != http.StatusAccepted {
			t.Fatalf("post messages = %d", code)
		}
		var a searchAnswer
		if !wait.For(60*time.Second, func() bool {
			a = c.search("dave", map[string]any{"query": "lisbon", "scope": "messages", "mode": "lexical"})
			return len(a.Items) == 4
		}) {
			t.Fatalf("messages not indexed within 60 s: %v", a.ids())
		}
		for _, mode := range []string{"lexical", "auto"} {
			a = c.search("dave", map[string]any{"query": "lisbon", "scope": "messages", "mode": mode})
			if ids := a.ids(); len(ids) != 4 || ids[3] != "a" {
				t.Errorf("%s: %v, want the three direct hits before the context-only one", mode, ids)
				continue
			}
			ctx := a.Items[3].Breakdown
			if ctx.Context <= 0 || (mode == "lexical" && ctx.Retrieval != 0) {
				t.Errorf("%s: the context-only hit's breakdown %+v, want its relevance shown as context", mode, ctx)
			}
			for _, it := range a.Items {
				b := it.Breakdown
				if b.Importance != 0 || b.Confidence != 0 || b.ExactKey != 0 {
					t.Errorf("%s: a message with importance, confidence or key terms: %+v", mode, b)
				}
				if sum := b.Retrieval + b.Context + b.Importance + b.Confidence + b.Recency + b.ExactKey; sum-it.Score > 1e-9 || it.Score-sum > 1e-9 {
					t.Errorf("%s: score %v, breakdown adds up to %v", mode, it.Score, sum)
				}
			}
		}
	})

	t.Run("queries with nothing to embed answer lexically and leave the breaker alone", func(t *testing.T) {
		c := c.in(t)
		for range 5 {
			for _, q := range []string{"🍕🍕", "???", "a"} {
				a := c.search("alice", map[string]any{"query": q, "mode": "auto"})
				if a.ModeUsed != "lexical" || a.FallbackReason != "no_embeddable_text" || len(a.Items) != 0 {
					t.Fatalf("%q: mode %q reason %q items %v; want lexical, no_embeddable_text, none", q, a.ModeUsed, a.FallbackReason, a.ids())
				}
			}
		}
		if a := c.search("bob", map[string]any{"query": "golden retriever", "mode": "auto"}); a.ModeUsed != "auto" || a.FallbackReason != "" {
			t.Errorf("another user's search after them: mode %q reason %q, want vectors", a.ModeUsed, a.FallbackReason)
		}
		if m := metricsText(t, srv); !strings.Contains(m, "\nengram_vector_breaker_state 0\n") {
			t.Errorf("the breaker is not closed:\n%s", m)
		}
	})
}

func TestSearch_onlyTheVectorStoreTripsTheBreaker_SQLite(t *testing.T) {
	breakerTrips(t)
}

func TestSearch_onlyTheVectorStoreTripsTheBreaker_Postgres(t *testing.T) {
	breakerTrips(t, "ENGRAM_DATABASE_URL="+testenv.NewPostgresDatabase(t))
}

// breakerTrips is issue 7's item 3 through HTTP, over a Milvus (the in-process
// fake) that goes down: client queries never trip the breaker, the store's
// failures do, every transition is logged at WARN with its cause, and a probe
// brings vectors back.
func breakerTrips(t *testing.T, extra ...string) {
	fake := fakemilvus.Start(t)
	srv := Start(t, relevanceEnv(t, append(extra, "ENGRAM_VECTOR_BACKEND=milvus", "MEMORY_MILVUS_URI=http://"+fake.Addr(),
		"ENGRAM_VECTOR_BREAKER_FAILURES=3", "ENGRAM_VECTOR_BREAKER_COOLDOWN_SEC=1")...)...)
	c := relevanceClient{t: t, srv: srv}
	c.save("alice", "pet", "Has a golden retriever called Biscuit", 0)
	c.waitSynced("alice", "pet")
	ask := func() searchAnswer {
		t.Helper()
		a := c.search("alice", map[string]any{"query": "golden retriever", "mode": "auto"})
		if len(a.Items) == 0 || a.Items[0].Memory.Key != "pet" {
			t.Fatalf("the answer was lost: %v (%s, %q)", a.ids(), a.ModeUsed, a.FallbackReason)
		}
		return a
	}
	if a := ask(); a.ModeUsed != "auto" || a.FallbackReason != "" {
		t.Fatalf("with the store up: mode %q reason %q", a.ModeUsed, a.FallbackReason)
	}
	for range 10 {
		if a := c.search("alice", map[string]any{"query": "🍕🍕", "mode": "auto"}); a.FallbackReason != "no_embeddable_text" {
			t.Fatalf("🍕🍕: reason %q", a.FallbackReason)
		}
	}
	if a := ask(); a.ModeUsed != "auto" {
		t.Fatalf("after ten queries with nothing to embed: mode %q reason %q, want vectors", a.ModeUsed, a.FallbackReason)
	}

	fake.Fail("Search", fakemilvus.Fault{Status: merr.Status(merr.WrapErrServiceInternal("milvus is restarting"))})
	reasons := []string{}
	for range 5 {
		reasons = append(reasons, ask().FallbackReason)
	}
	if !slices.Equal(reasons, []string{"vector_error", "vector_error", "vector_error", "breaker_open", "breaker_open"}) {
		t.Errorf("with the store failing: reasons %v, want three failures, then the breaker open", reasons)
	}
	if !waitForLog(srv, "level=WARN", "vector breaker open", "milvus is restarting") {
		t.Errorf("the breaker's opening is not logged at WARN with its cause:\n%s", srv.Logs())
	}

	fake.Heal()
	if !wait.For(30*time.Second, func() bool { return ask().ModeUsed == "auto" }) {
		t.Fatal("vectors did not come back after the store healed")
	}
	if !waitForLog(srv, "level=WARN", "vector breaker closed", "probe succeeded") {
		t.Errorf("the breaker's closing is not logged:\n%s", srv.Logs())
	}
}

// metricsText is GET /metrics.
func metricsText(t *testing.T, srv *Server) string {
	t.Helper()
	resp, err := http.Get(srv.Base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// waitForLog waits (10 s at most: the process's output reaches the test through a
// pipe) for a log line that contains every part.
func waitForLog(srv *Server, parts ...string) bool {
	return wait.For(10*time.Second, func() bool {
		for _, line := range strings.Split(srv.Logs(), "\n") {
			if containsAll(line, parts) {
				return true
			}
		}
		return false
	})
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
