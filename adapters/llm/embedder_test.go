package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"engram/ports"
	"engram/test/fakellm"
)

func newTestEmbedder(t *testing.T, srv *fakellm.Server, opts EmbedderOptions) *Embedder {
	t.Helper()
	if opts.Provider == "" {
		opts.Provider = ProviderOpenAI
	}
	if opts.BaseURL == "" {
		opts.BaseURL = srv.OpenAIBaseURL()
		if opts.Provider == ProviderOllama {
			opts.BaseURL = srv.OllamaBaseURL()
		}
	}
	if opts.Model == "" {
		opts.Model = "emb-model"
	}
	if opts.Dimension == 0 {
		opts.Dimension = 8
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = DefaultMaxRetries
	}
	e, err := NewEmbedder(opts)
	if err != nil {
		t.Fatal(err)
	}
	e.retry.sleep = (&sleeps{}).sleep
	return e
}

func sameVector(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEmbed_batchesAndKeepsOrder(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.WithEmbeddingDim(8))
	e := newTestEmbedder(t, srv, EmbedderOptions{BatchSize: 2, APIKey: "sk-emb"})
	texts := []string{"[fact] home.city: 用户常住武汉", "[preference] food: likes\ndumplings", "c", "d", "e"}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(got), len(texts))
	}
	for i, text := range texts {
		if !sameVector(got[i], fakellm.Vector(text, 8)) {
			t.Errorf("vector %d is not the one for %q", i, text)
		}
	}
	reqs := srv.EmbedRequests()
	if len(reqs) != 3 || len(reqs[0].Input) != 2 || len(reqs[2].Input) != 1 {
		t.Fatalf("requests: %d", len(reqs))
	}
	if reqs[0].Model != "emb-model" || reqs[0].Dimensions != 0 || reqs[0].Header.Get("Authorization") != "Bearer sk-emb" ||
		reqs[0].Input[1] != texts[1] {
		t.Errorf("request = %+v", reqs[0])
	}
	if e.Model() != "openai/emb-model/8" || e.Dimension() != 8 {
		t.Errorf("Model %q Dimension %d", e.Model(), e.Dimension())
	}
}

func TestEmbed_wrongDimensionIsAnErrorNotAVector(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueEmbed(fakellm.VectorsOfDim(3))
	e := newTestEmbedder(t, srv, EmbedderOptions{Dimension: 8})
	got, err := e.Embed(context.Background(), []string{"a", "b"})
	if !errors.Is(err, ErrBadOutput) || got != nil {
		t.Fatalf("got %v err %v; want a bad-output error", got, err)
	}
	if !strings.Contains(err.Error(), "3 values") || !strings.Contains(err.Error(), "MEMORY_EMBEDDING_DIM") {
		t.Errorf("err %v does not say what is wrong", err)
	}
	if n := len(srv.EmbedRequests()); n != 1 {
		t.Errorf("%d requests; a wrong dimension must not be retried", n)
	}
}

func TestEmbed_missingVectorsAreBadOutput(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueEmbed(fakellm.Vectors(fakellm.Vector("a", 8)))
	_, err := newTestEmbedder(t, srv, EmbedderOptions{}).Embed(context.Background(), []string{"a", "b"})
	if !errors.Is(err, ErrBadOutput) || len(srv.EmbedRequests()) != 1 {
		t.Fatalf("err %v after %d requests", err, len(srv.EmbedRequests()))
	}
}

func TestEmbed_retriesRateLimit(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueEmbed(fakellm.RateLimited("1"))
	got, err := newTestEmbedder(t, srv, EmbedderOptions{}).Embed(context.Background(), []string{"a"})
	if err != nil || len(got) != 1 || len(srv.EmbedRequests()) != 2 {
		t.Fatalf("got %v err %v requests %d", got, err, len(srv.EmbedRequests()))
	}
}

func TestEmbed_hangingEndpointIsUnavailable(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueEmbed(fakellm.Hang())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := newTestEmbedder(t, srv, EmbedderOptions{}).Embed(ctx, []string{"a"})
	if !errors.Is(err, ports.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
}

func TestEmbed_requestsDimensionsWhenAsked(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	e := newTestEmbedder(t, srv, EmbedderOptions{Dimension: 12, RequestDimensions: true})
	got, err := e.Embed(context.Background(), []string{"a"})
	if err != nil || len(got[0]) != 12 || srv.EmbedRequests()[0].Dimensions != 12 {
		t.Fatalf("got %v err %v", got, err)
	}
}

func TestEmbed_ollama(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.WithEmbeddingDim(4))
	e := newTestEmbedder(t, srv, EmbedderOptions{Provider: ProviderOllama, Model: "nomic-embed-text", Dimension: 4})
	texts := []string{"一", "二", "三"}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if !sameVector(got[i], fakellm.Vector(text, 4)) {
			t.Errorf("vector %d is not the one for %q", i, text)
		}
	}
	reqs := srv.EmbedRequests()
	if len(reqs) != 3 || reqs[0].API != fakellm.APIOllama || reqs[0].Model != "nomic-embed-text" {
		t.Fatalf("requests %+v", reqs)
	}
	if e.Model() != "ollama/nomic-embed-text/4" {
		t.Errorf("Model %q", e.Model())
	}
}

func TestEmbed_refusesEmptyTextsWithoutACall(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	e := newTestEmbedder(t, srv, EmbedderOptions{})
	if _, err := e.Embed(context.Background(), []string{"a", " "}); err == nil {
		t.Error("an empty text was accepted")
	}
	got, err := e.Embed(context.Background(), nil)
	if err != nil || len(got) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("got %v err %v requests %d", got, err, len(srv.Requests()))
	}
}

func TestNewEmbedder_needsModelAndDimension(t *testing.T) {
	t.Parallel()
	for _, opts := range []EmbedderOptions{
		{Provider: ProviderOpenAI, Dimension: 8},
		{Provider: ProviderOpenAI, Model: "m"},
		{Provider: "local", Model: "m", Dimension: 8},
	} {
		if _, err := NewEmbedder(opts); err == nil {
			t.Errorf("NewEmbedder(%+v) succeeded", opts)
		}
	}
}
