package e2e

import (
	"net/http"
	"testing"
	"time"

	"engram/test/wait"
)

type searchAnswer struct {
	Items []struct {
		Kind   string `json:"kind"`
		Memory *struct {
			Key string `json:"key"`
		} `json:"memory"`
		Message *struct {
			MessageID string `json:"message_id"`
			Name      string `json:"name"`
		} `json:"message"`
		Score     float64 `json:"score"`
		Breakdown struct {
			Retrieval  float64 `json:"retrieval"`
			Context    float64 `json:"context"`
			Importance float64 `json:"importance"`
			Confidence float64 `json:"confidence"`
			Recency    float64 `json:"recency"`
			ExactKey   float64 `json:"exact_key"`
		} `json:"breakdown"`
	} `json:"items"`
	ModeUsed       string `json:"mode_used"`
	FallbackReason string `json:"fallback_reason"`
}

func (a searchAnswer) first() string {
	if len(a.Items) == 0 {
		return ""
	}
	if a.Items[0].Memory != nil {
		return a.Items[0].Memory.Key
	}
	return a.Items[0].Message.MessageID
}

// TestSearch_embeddedDefaultInEveryMode saves memories and posts messages to the
// embedded default binary, then searches in every mode: memories are found at
// once (read-your-writes), messages once the indexer role has indexed them, a
// deleted memory never again.
func TestSearch_embeddedDefaultInEveryMode(t *testing.T) {
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(), "LONG_TERM_MEMORY_DEBOUNCE_SEC=3600")
	for key, content := range map[string]string{
		"coffee": "Drinks oat milk flat whites every morning",
		"hobby":  "喜欢绘画和户外活动",
		"pet":    "Has a golden retriever called Biscuit",
	} {
		if code := srv.Do(http.MethodPut, "/v1/users/alice/memories/"+key, map[string]any{"type": "preference", "content": content}, nil); code != http.StatusCreated {
			t.Fatalf("save %s = %d", key, code)
		}
	}
	search := func(body map[string]any) searchAnswer {
		t.Helper()
		var a searchAnswer
		if code := srv.Do(http.MethodPost, "/v1/users/alice/search", body, &a); code != http.StatusOK {
			t.Fatalf("search %v = %d", body, code)
		}
		return a
	}

	// Read-your-writes: no indexer pass needed.
	for _, mode := range []string{"lexical", "auto"} {
		if a := search(map[string]any{"query": "what milk does she drink", "mode": mode}); a.first() != "coffee" {
			t.Errorf("%s right after the save: first %q (%+v), want coffee", mode, a.first(), a)
		}
	}
	if a := search(map[string]any{"query": "他喜欢户外活动吗", "mode": "lexical"}); a.first() != "hobby" {
		t.Errorf("Chinese: first %q, want hobby", a.first())
	}
	// A partial match (户外 of 户外运动, "outdoor" of "outdoor sports") is found, with a
	// score below the default min_score (docs/BENCHMARKS.md "min_score").
	if a := search(map[string]any{"query": "他平时有什么户外运动", "mode": "lexical", "min_score": 0}); a.first() != "hobby" {
		t.Errorf("Chinese, partial: first %q, want hobby", a.first())
	}
	if a := search(map[string]any{"mode": "full_inject"}); len(a.Items) != 3 || a.ModeUsed != "full_inject" {
		t.Errorf("full_inject: %d items in %q, want 3", len(a.Items), a.ModeUsed)
	}

	msgs := []map[string]any{
		{"conversation_id": "s1", "message_id": "q1", "role": "user", "name": "Caroline", "content": "Have you ever been to Paris?", "created_at": "2023-05-08T13:00:00Z"},
		{"conversation_id": "s1", "message_id": "a1", "role": "assistant", "name": "Melanie", "content": "Yes, twice last year!", "created_at": "2023-05-08T13:01:00Z"},
		{"conversation_id": "s2", "message_id": "q2", "role": "user", "name": "Caroline", "content": "I adopted a kitten in June.", "created_at": "2023-06-20T10:00:00Z"},
	}
	if code := srv.Do(http.MethodPost, "/v1/users/alice/messages:batch", map[string]any{"messages": msgs}, nil); code != http.StatusAccepted {
		t.Fatalf("post messages = %d", code)
	}
	// Messages are indexed off the ingest path: poll.
	var a searchAnswer
	wait.For(40*time.Second, func() bool {
		a = search(map[string]any{"query": "has Melanie been to Paris", "scope": "messages", "mode": "lexical"})
		return len(a.Items) > 0
	})
	if a.first() != "a1" {
		t.Fatalf("messages: first %q (%+v), want a1, the answer found through its question", a.first(), a)
	}
	if a := search(map[string]any{"query": "kitten", "scope": "all", "mode": "auto", "since": "2023-06-01T00:00:00Z"}); a.first() != "q2" {
		t.Errorf("scope all with since: first %q, want q2", a.first())
	}
	// Dense finds the memory once the indexer role has embedded it (vector status
	// SYNCED); until then dense answers from the vector index as it is.
	wait.Until(t, 40*time.Second, "the vector of memory pet SYNCED", func() bool {
		var m struct {
			Vector struct {
				Status string `json:"status"`
			} `json:"vector"`
		}
		srv.Do(http.MethodGet, "/v1/users/alice/memories/pet", nil, &m)
		return m.Vector.Status == "SYNCED"
	})
	a = search(map[string]any{"query": "golden retriever Biscuit", "mode": "dense"})
	if a.ModeUsed != "dense" || a.FallbackReason != "" {
		t.Errorf("dense: mode_used %q reason %q, want dense with vectors up", a.ModeUsed, a.FallbackReason)
	} else if a.first() != "pet" {
		t.Errorf("dense after the vector sync: first %q, want pet", a.first())
	}

	if code := srv.Do(http.MethodDelete, "/v1/users/alice/memories/coffee", nil, nil); code != http.StatusNoContent {
		t.Fatalf("delete = %d", code)
	}
	for _, mode := range []string{"lexical", "dense", "auto", "full_inject"} {
		for _, it := range search(map[string]any{"query": "oat milk flat whites", "mode": mode}).Items {
			if it.Memory != nil && it.Memory.Key == "coffee" {
				t.Errorf("%s returned the deleted memory", mode)
			}
		}
	}
	if code := srv.Do(http.MethodPost, "/v1/users/alice/search", map[string]any{"query": "x", "limit": 101}, nil); code != http.StatusUnprocessableEntity {
		t.Errorf("limit 101 = %d, want 422", code)
	}
}
