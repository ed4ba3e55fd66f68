package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"engram/ports"
	"engram/test/fakellm"
)

// sleeps records the waits the retrier asked for instead of sleeping.
type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// newTestClient is a real langchaingo-backed client pointed at srv, with a
// recorded sleep so retries cost no time.
func newTestClient(t *testing.T, srv *fakellm.Server, opts Options) (*Client, *sleeps) {
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
		opts.Model = "test-model"
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	switch opts.MaxRetries {
	case 0:
		opts.MaxRetries = DefaultMaxRetries
	case -1:
		opts.MaxRetries = 0 // a test that wants no retries says -1
	}
	c, err := NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := &sleeps{}
	c.retry.sleep = s.sleep
	return c, s
}

var hello = ChatRequest{JSON: true, Messages: []ChatMessage{
	{Role: RoleSystem, Content: "Answer in JSON."},
	{Role: RoleUser, Content: "hello"},
}}

func TestChat_sendsModelTemperatureJSONModeAndKey(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.WithAPIKey("sk-test"))
	srv.EnqueueChat(fakellm.Answer(`{"ok":true}`).WithUsage(12, 5))
	c, _ := newTestClient(t, srv, Options{APIKey: "sk-test", MaxTokens: 256})

	reply, err := c.Chat(context.Background(), hello)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != `{"ok":true}` || reply.Usage != (ports.LLMUsage{Calls: 1, PromptTokens: 12, CompletionTokens: 5}) {
		t.Fatalf("reply = %+v", reply)
	}
	r := srv.ChatRequests()[0]
	if r.Model != "test-model" || r.Temperature == nil || *r.Temperature != 0 || r.ResponseFormat != "json_object" ||
		r.MaxTokens != 256 || r.Header.Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("request = model %q temperature %v format %q max %d auth %q",
			r.Model, r.Temperature, r.ResponseFormat, r.MaxTokens, r.Header.Get("Authorization"))
	}
	if r.Text("system") != "Answer in JSON." || r.Text("user") != "hello" {
		t.Fatalf("messages = %+v", r.Messages)
	}
	if c.Model() != "openai/test-model" {
		t.Fatalf("Model() = %q", c.Model())
	}
}

func TestChat_withoutKeySendsNoAuthorizationAndJSONModeCanBeOff(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Answer("plain"))
	c, _ := newTestClient(t, srv, Options{DisableJSONMode: true})
	if _, err := c.Chat(context.Background(), hello); err != nil {
		t.Fatal(err)
	}
	r := srv.ChatRequests()[0]
	if r.Header.Get("Authorization") != "" || r.ResponseFormat != "" {
		t.Fatalf("auth %q, response_format %q; want neither", r.Header.Get("Authorization"), r.ResponseFormat)
	}
}

func TestChat_retriesRateLimitHonouringRetryAfter(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.RateLimited("3"), fakellm.Answer("ok").WithUsage(10, 2))
	c, s := newTestClient(t, srv, Options{RetryBaseDelay: time.Millisecond})

	reply, err := c.Chat(context.Background(), hello)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != "ok" || reply.Usage.Calls != 2 || reply.Usage.PromptTokens != 10 {
		t.Fatalf("reply = %+v", reply)
	}
	if n := len(srv.ChatRequests()); n != 2 {
		t.Fatalf("server saw %d requests, want 2", n)
	}
	if w := s.all(); len(w) != 1 || w[0] < 3*time.Second {
		t.Fatalf("waits = %v, want one wait of at least the Retry-After of 3s", w)
	}
}

func TestChat_retryAfterBeyondMaxDelayIsRateLimitedAtOnce(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.RateLimited("120"))
	c, s := newTestClient(t, srv, Options{RetryMaxDelay: 10 * time.Second})
	_, err := c.Chat(context.Background(), hello)
	rl, ok := ports.AsRateLimited(err)
	if !ok || rl.RetryAfter != 2*time.Minute || !errors.Is(err, ports.ErrUnavailable) || !strings.Contains(err.Error(), "retry after 2m0s") {
		t.Fatalf("err = %v, want rate limited for the Retry-After of 2m", err)
	}
	if len(s.all()) != 0 || len(srv.ChatRequests()) != 1 {
		t.Fatalf("waited %v and sent %d requests; want no wait, one request", s.all(), len(srv.ChatRequests()))
	}
}

func TestChat_rateLimitOutlastingTheRetriesSaysHowLongToWait(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.RateLimited("2"), fakellm.RateLimited("7"))
	c, _ := newTestClient(t, srv, Options{MaxRetries: 1, RetryBaseDelay: time.Millisecond})
	reply, err := c.Chat(context.Background(), hello)
	rl, ok := ports.AsRateLimited(err)
	if !ok || rl.RetryAfter != 7*time.Second {
		t.Fatalf("err = %v, want rate limited for the last Retry-After of 7s", err)
	}
	if reply.Usage.Calls != 2 {
		t.Errorf("usage %+v, want both attempts counted", reply.Usage)
	}
}

func TestChat_otherFailuresAreNotRateLimits(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Fail(503, "overloaded"))
	c, _ := newTestClient(t, srv, Options{MaxRetries: -1})
	if _, err := c.Chat(context.Background(), hello); !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	} else if _, limited := ports.AsRateLimited(err); limited {
		t.Errorf("a 503 reported as a rate limit: %v", err)
	}
}

func TestChat_serverErrorsExhaustRetriesIntoUnavailable(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Fail(500, "boom"), fakellm.Fail(502, "bad gateway"), fakellm.Fail(503, "overloaded"))
	c, s := newTestClient(t, srv, Options{MaxRetries: 2, RetryBaseDelay: 100 * time.Millisecond, RetryMaxDelay: time.Second})

	reply, err := c.Chat(context.Background(), hello)
	if !errors.Is(err, ports.ErrUnavailable) || errors.Is(err, ErrRejected) {
		t.Fatalf("err = %v, want unavailable and not rejected", err)
	}
	if !strings.Contains(err.Error(), "after 3 attempts") || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("err = %v, want the attempts and the last status", err)
	}
	if reply.Usage.Calls != 3 || len(srv.ChatRequests()) != 3 {
		t.Fatalf("calls %d, requests %d; want 3", reply.Usage.Calls, len(srv.ChatRequests()))
	}
	// Exponential: the second wait's range [100ms, 200ms] lies above the first's [50ms, 100ms].
	w := s.all()
	if len(w) != 2 || w[0] < 50*time.Millisecond || w[0] > 100*time.Millisecond || w[1] < 100*time.Millisecond || w[1] > 200*time.Millisecond {
		t.Fatalf("waits = %v", w)
	}
}

func TestChat_validationErrorIsNotRetried(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound, http.StatusUnprocessableEntity} {
		srv := fakellm.New(t)
		srv.EnqueueChat(fakellm.Fail(status, "This model's maximum context length is 8192 tokens"))
		c, _ := newTestClient(t, srv, Options{})
		_, err := c.Chat(context.Background(), hello)
		if !errors.Is(err, ErrRejected) || !errors.Is(err, ports.ErrUnavailable) {
			t.Fatalf("HTTP %d: err = %v, want rejected and unavailable", status, err)
		}
		if n := len(srv.ChatRequests()); n != 1 {
			t.Fatalf("HTTP %d: %d requests, want no retry", status, n)
		}
	}
}

func TestChat_callerDeadlineEndsAHangingCall(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Hang())
	c, s := newTestClient(t, srv, Options{Timeout: time.Minute})

	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	reply, err := c.Chat(ctx, hello)
	if !errors.Is(err, ports.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want unavailable and deadline exceeded", err)
	}
	if reply.Usage.Calls != 1 || len(s.all()) != 0 {
		t.Fatalf("calls %d waits %v; want one attempt, no retry", reply.Usage.Calls, s.all())
	}
}

func TestChat_attemptTimeoutIsRetried(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Hang(), fakellm.Answer("second try"))
	c, _ := newTestClient(t, srv, Options{Timeout: 100 * time.Millisecond})
	reply, err := c.Chat(context.Background(), hello)
	if err != nil || reply.Content != "second try" || reply.Usage.Calls != 2 {
		t.Fatalf("reply %+v err %v; want the second attempt's answer", reply, err)
	}
}

func TestChat_brokenResponseBodyIsRetried(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Malformed(), fakellm.Answer("fine"))
	c, _ := newTestClient(t, srv, Options{})
	reply, err := c.Chat(context.Background(), hello)
	if err != nil || reply.Content != "fine" {
		t.Fatalf("reply %+v err %v", reply, err)
	}
}

func TestChat_ollama(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.RateLimited(""), fakellm.Answer(`{"candidates":[]}`).WithUsage(30, 4))
	c, _ := newTestClient(t, srv, Options{Provider: ProviderOllama, APIKey: "proxy-key", Model: "qwen2.5:7b"})
	reply, err := c.Chat(context.Background(), hello)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != `{"candidates":[]}` || reply.Usage != (ports.LLMUsage{Calls: 2, PromptTokens: 30, CompletionTokens: 4}) {
		t.Fatalf("reply = %+v", reply)
	}
	r := srv.ChatRequests()[1]
	if r.API != fakellm.APIOllama || r.Model != "qwen2.5:7b" || r.ResponseFormat != "json" ||
		r.Header.Get("Authorization") != "Bearer proxy-key" {
		t.Fatalf("request = %+v", r)
	}
	if c.Model() != "ollama/qwen2.5:7b" {
		t.Fatalf("Model() = %q", c.Model())
	}
}

func TestNewClient_refusesBadOptions(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{
		{Provider: ProviderOpenAI},                           // no model
		{Provider: "anthropic", Model: "m"},                  // unknown provider
		{Provider: ProviderOpenAI, Model: "m", BaseURL: ":"}, // not a URL
		{Provider: ProviderOllama, Model: "m", BaseURL: "localhost:11434"},
	} {
		if _, err := NewClient(opts); err == nil {
			t.Errorf("NewClient(%+v) succeeded", opts)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
	}
	for _, tc := range cases {
		got, ok := parseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestChat_zeroMaxRetriesMeansOneAttempt(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.EnqueueChat(fakellm.Fail(503, "overloaded"))
	c, s := newTestClient(t, srv, Options{MaxRetries: -1})
	if c.retry.maxRetries != 0 {
		t.Fatalf("maxRetries = %d", c.retry.maxRetries)
	}
	_, err := c.Chat(context.Background(), hello)
	if !errors.Is(err, ports.ErrUnavailable) || len(srv.ChatRequests()) != 1 || len(s.all()) != 0 {
		t.Fatalf("err %v after %d requests", err, len(srv.ChatRequests()))
	}
}

// A refusal is recognisable without importing this package: search's breaker must
// not count it as the endpoint being down.
func TestErrRejected_isRecognisableByItsMethod(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("llm: embed: %w: %w: HTTP 401: bad key", ports.ErrUnavailable, ErrRejected)
	var rejected interface{ Rejected() bool }
	if !errors.As(err, &rejected) || !rejected.Rejected() || !errors.Is(err, ErrRejected) || !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("%v: not recognised as a refusal", err)
	}
	var none interface{ Rejected() bool }
	if errors.As(fmt.Errorf("llm: embed: %w: HTTP 503", ports.ErrUnavailable), &none) {
		t.Error("a 5xx is recognised as a refusal")
	}
}
