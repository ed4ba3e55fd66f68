package e2e

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"engram/test/fakellm"
	"engram/test/wait"
)

type readiness struct {
	Status   string            `json:"status"`
	SQL      string            `json:"sql"`
	LLM      string            `json:"llm"`
	Embedder string            `json:"embedder"`
	Details  map[string]string `json:"details"`
}

func (s *Server) readiness() readiness {
	s.t.Helper()
	var r readiness
	s.Do(http.MethodGet, "/readyz", nil, &r)
	return r
}

// TestReadyz_remoteEmbedderAndLLMFailuresShowAndRecover: with a remote embedder
// and LLM (the in-process fake), failed real calls make /readyz say degraded
// with the error, and it flips back within seconds once they work again.
func TestReadyz_remoteEmbedderAndLLMFailuresShowAndRecover(t *testing.T) {
	fake := fakellm.New(t)
	var embedFails, chatFails atomic.Bool
	fake.HandleEmbed(func(fakellm.Request) fakellm.Reply {
		if embedFails.Load() {
			return fakellm.Fail(http.StatusInternalServerError, "embedding backend overloaded")
		}
		return fakellm.VectorsOfDim(8)
	})
	fake.HandleChat(func(fakellm.Request) fakellm.Reply {
		if chatFails.Load() {
			return fakellm.Fail(http.StatusInternalServerError, "model overloaded")
		}
		return fakellm.Answer(`{"candidates":[]}`)
	})
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(),
		"ENGRAM_EMBEDDER=openai", "MEMORY_EMBEDDING_API_BASE="+fake.OpenAIBaseURL(),
		"MEMORY_EMBEDDING_MODEL=fake-embed", "MEMORY_EMBEDDING_DIM=8",
		"ENGRAM_LLM_PROVIDER=openai", "LLM_API_BASE="+fake.OpenAIBaseURL(), "LLM_MODEL=fake-chat",
		"LLM_MAX_RETRIES=0", "LONG_TERM_MEMORY_DEBOUNCE_SEC=0")
	if r := srv.readiness(); r.Status != "ready" || r.Embedder != "up" || r.LLM != "up" {
		t.Fatalf("at start: %+v", r)
	}

	// The embedder fails: the indexer's real call for a saved memory says so.
	embedFails.Store(true)
	if code := srv.Do(http.MethodPut, "/v1/users/alice/memories/pet", map[string]any{"type": "fact", "content": "Has a cat named Miso"}, nil); code != http.StatusCreated {
		t.Fatalf("save = %d", code)
	}
	var r readiness
	wait.Until(t, 20*time.Second, "readyz reports the failing embedder", func() bool {
		r = srv.readiness()
		return r.Embedder != "up"
	})
	if r.Status != "degraded" || (r.Embedder != "degraded" && r.Embedder != "down") || !strings.Contains(r.Details["embedder"], "overloaded") || r.SQL != "up" {
		t.Errorf("with the embedder failing: %+v", r)
	}
	embedFails.Store(false)
	wait.Until(t, 15*time.Second, "readyz sees the embedder recover", func() bool { return srv.readiness().Embedder == "up" })

	// The LLM fails: an extraction's real call says so; the next success clears it.
	chatFails.Store(true)
	post := func(conv, id string) {
		t.Helper()
		body := map[string]any{"conversation_id": conv, "message_id": id, "role": "user", "content": "Please remember that I live in Lyon and work as a nurse."}
		if code := srv.Do(http.MethodPost, "/v1/users/alice/messages", body, nil); code != http.StatusAccepted {
			t.Fatalf("post %s = %d", id, code)
		}
	}
	post("c1", "m1")
	wait.Until(t, 20*time.Second, "readyz reports the failing LLM", func() bool {
		r = srv.readiness()
		return r.LLM != "up"
	})
	if r.Status != "degraded" || r.LLM != "degraded" || !strings.Contains(r.Details["llm"], "overloaded") {
		t.Errorf("with the LLM failing: %+v", r)
	}
	chatFails.Store(false)
	post("c2", "m2")
	wait.Until(t, 20*time.Second, "readyz sees the LLM recover", func() bool {
		r = srv.readiness()
		return r.LLM == "up" && r.Embedder == "up"
	})
	if r.Status != "ready" || len(r.Details) != 0 {
		t.Errorf("after recovery: %+v", r)
	}
	srv.Stop()
}
