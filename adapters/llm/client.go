package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"

	"engram/ports"
)

// Provider is the protocol of the LLM endpoint.
type Provider string

const (
	ProviderOpenAI Provider = "openai" // any OpenAI-compatible /v1 endpoint
	ProviderOllama Provider = "ollama" // Ollama's native /api
)

// Defaults applied when an Options field is zero.
const (
	DefaultOpenAIBaseURL  = "https://api.openai.com/v1"
	DefaultOllamaBaseURL  = "http://127.0.0.1:11434"
	DefaultTimeout        = 90 * time.Second // LONG_TERM_MEMORY_EXTRACT_TIMEOUT_SEC's default
	DefaultMaxRetries     = 3                // what configs/engram.yaml sets; the zero value means no retries
	DefaultRetryBaseDelay = 500 * time.Millisecond
	DefaultRetryMaxDelay  = 20 * time.Second
)

// Options configures a chat Client.
type Options struct {
	Provider Provider // ENGRAM_LLM_PROVIDER: openai or ollama
	BaseURL  string   // LLM_API_BASE; empty: the provider's public default
	APIKey   string   // LLM_API_KEY; empty: no Authorization header
	Model    string   // LLM_MODEL; required

	// Timeout bounds each attempt; the caller's context bounds the whole call,
	// retries included. 0: DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how many times a transient failure (HTTP 429, 5xx, 408, a
	// timeout, a dropped connection) is retried after the first attempt
	// (LLM_MAX_RETRIES). 0 or negative: never; DefaultMaxRetries is the usual value.
	MaxRetries int
	// RetryBaseDelay and RetryMaxDelay shape the exponential backoff with jitter.
	// A Retry-After longer than RetryMaxDelay ends the call at once instead of
	// holding a worker; a 429 (however long it asks to wait) that outlasts the
	// retries ends it with a *ports.RateLimitedError saying how long to hold back,
	// so the caller defers the work instead of failing it. 0: the defaults.
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration

	Temperature float64 // 0 for extraction: the same message should give the same memories
	MaxTokens   int     // answer length limit; 0: the endpoint's default
	// LegacyMaxTokens sends max_tokens instead of max_completion_tokens, for
	// OpenAI-compatible servers that only know the old field.
	LegacyMaxTokens bool
	// DisableJSONMode stops asking for JSON output (response_format json_object,
	// Ollama format "json"), for endpoints that refuse the option. The parsers
	// tolerate prose around the JSON either way.
	DisableJSONMode bool
}

// Role is who says a chat message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// ChatMessage is one message sent to the model.
type ChatMessage struct {
	Role    Role
	Content string
}

// ChatRequest is one chat completion.
type ChatRequest struct {
	Messages []ChatMessage
	JSON     bool // ask for a JSON object (unless the client disables JSON mode)
}

// ChatReply is the model's answer. Usage counts every attempt in Calls, and the
// tokens the endpoint reported for the successful one.
type ChatReply struct {
	Content string
	Usage   ports.LLMUsage
}

// Chatter is what the extractor, refiner and summarizer need from a client.
type Chatter interface {
	Chat(ctx context.Context, req ChatRequest) (ChatReply, error)
}

var _ Chatter = (*Client)(nil)

// Client is a chat client over langchaingo with retries. It is safe for concurrent use.
type Client struct {
	provider Provider
	model    string
	llm      llms.Model
	retry    retrier
	callOpts []llms.CallOption
	jsonMode bool
}

// NewClient builds a client; it does not contact the endpoint.
func NewClient(opts Options) (*Client, error) {
	if strings.TrimSpace(opts.Model) == "" {
		return nil, errors.New("llm: a model is required (LLM_MODEL)")
	}
	ep, err := newEndpoint(opts.Provider, opts.BaseURL, opts.APIKey)
	if err != nil {
		return nil, err
	}
	var model llms.Model
	switch ep.provider {
	case ProviderOpenAI:
		model, err = openai.New(append(ep.openAIOptions(), openai.WithModel(opts.Model))...)
	case ProviderOllama:
		model, err = ollama.New(append(ep.ollamaOptions(), ollama.WithModel(opts.Model))...)
	}
	if err != nil {
		return nil, fmt.Errorf("llm: %s client: %w", ep.provider, err)
	}
	c := &Client{
		provider: ep.provider,
		model:    opts.Model,
		llm:      model,
		retry:    newRetrier(opts.Timeout, opts.MaxRetries, opts.RetryBaseDelay, opts.RetryMaxDelay),
		callOpts: []llms.CallOption{llms.WithTemperature(opts.Temperature)},
		jsonMode: !opts.DisableJSONMode,
	}
	if opts.MaxTokens > 0 {
		c.callOpts = append(c.callOpts, llms.WithMaxTokens(opts.MaxTokens))
		if opts.LegacyMaxTokens && ep.provider == ProviderOpenAI {
			c.callOpts = append(c.callOpts, openai.WithLegacyMaxTokensField())
		}
	}
	return c, nil
}

// Model names the provider and model, e.g. "openai/gpt-4o-mini".
func (c *Client) Model() string { return string(c.provider) + "/" + c.model }

// Chat sends the messages and returns the first choice's text. Errors wrap
// ports.ErrUnavailable (with ErrRejected for 4xx refusals, and the context's error
// when the caller's deadline ended the call).
func (c *Client) Chat(ctx context.Context, req ChatRequest) (ChatReply, error) {
	msgs := make([]llms.MessageContent, 0, len(req.Messages))
	for _, m := range req.Messages {
		var typ llms.ChatMessageType
		switch m.Role {
		case RoleSystem:
			typ = llms.ChatMessageTypeSystem
		case RoleUser:
			typ = llms.ChatMessageTypeHuman
		case RoleAssistant:
			typ = llms.ChatMessageTypeAI
		default:
			return ChatReply{}, fmt.Errorf("llm: chat: unknown role %q", m.Role)
		}
		msgs = append(msgs, llms.TextParts(typ, m.Content))
	}
	opts := c.callOpts
	if req.JSON && c.jsonMode {
		opts = append(opts[:len(opts):len(opts)], llms.WithJSONMode())
	}

	var reply ChatReply
	attempts, err := c.retry.do(ctx, "chat "+c.Model(), func(actx context.Context) error {
		resp, err := c.llm.GenerateContent(actx, msgs, opts...)
		if err != nil {
			return err
		}
		if len(resp.Choices) == 0 || resp.Choices[0] == nil {
			return errors.New("the endpoint answered without a choice")
		}
		choice := resp.Choices[0]
		reply.Content = choice.Content
		reply.Usage.PromptTokens += intInfo(choice.GenerationInfo, "PromptTokens")
		reply.Usage.CompletionTokens += intInfo(choice.GenerationInfo, "CompletionTokens")
		return nil
	})
	reply.Usage.Calls = attempts
	return reply, err
}

func intInfo(info map[string]any, key string) int {
	switch v := info[key].(type) {
	case int:
		return v
	case int32:
		return int(v)
	case int64:
		return int(v)
	case float64:
		return int(v)
	}
	return 0
}

// endpoint is the connection part shared by chat and embeddings clients.
type endpoint struct {
	provider Provider
	baseURL  string
	apiKey   string
	http     *http.Client
}

func newEndpoint(provider Provider, baseURL, apiKey string) (endpoint, error) {
	p := Provider(strings.ToLower(strings.TrimSpace(string(provider))))
	switch p {
	case ProviderOpenAI:
		if baseURL == "" {
			baseURL = DefaultOpenAIBaseURL
		}
	case ProviderOllama:
		if baseURL == "" {
			baseURL = DefaultOllamaBaseURL
		}
	default:
		return endpoint{}, fmt.Errorf("llm: provider %q: must be %s or %s", provider, ProviderOpenAI, ProviderOllama)
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return endpoint{}, fmt.Errorf("llm: base URL %q: must be an http(s) URL", baseURL)
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	return endpoint{
		provider: p,
		baseURL:  strings.TrimRight(baseURL, "/"),
		apiKey:   apiKey,
		http:     &http.Client{Transport: &observingTransport{base: base, provider: p, apiKey: apiKey}},
	}, nil
}

func (ep endpoint) openAIOptions() []openai.Option {
	token := ep.apiKey
	if token == "" {
		// langchaingo insists on a token; the transport removes the header again.
		token = "unused"
	}
	return []openai.Option{
		openai.WithToken(token),
		openai.WithBaseURL(ep.baseURL),
		openai.WithOrganization(""), // never taken from OPENAI_ORGANIZATION
		openai.WithHTTPClient(ep.http),
	}
}

func (ep endpoint) ollamaOptions() []ollama.Option {
	return []ollama.Option{ollama.WithServerURL(ep.baseURL), ollama.WithHTTPClient(ep.http)}
}

// observingTransport lets the retrier see what langchaingo hides in error strings:
// the HTTP status and Retry-After of each attempt. It also owns the Authorization
// header, so that an empty key sends none and Ollama behind a proxy gets one.
type observingTransport struct {
	base     http.RoundTripper
	provider Provider
	apiKey   string
}

type attemptKey struct{}

// attempt is what the transport saw during one attempt.
type attempt struct {
	mu         sync.Mutex
	sent       bool
	status     int
	retryAfter string
}

func (a *attempt) snapshot() (sent bool, status int, retryAfter string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sent, a.status, a.retryAfter
}

func (t *observingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	switch {
	case t.apiKey == "":
		req.Header.Del("Authorization")
	case t.provider == ProviderOllama:
		req.Header.Set("Authorization", "Bearer "+t.apiKey)
	}
	at, _ := req.Context().Value(attemptKey{}).(*attempt)
	if at != nil {
		at.mu.Lock()
		at.sent = true
		at.mu.Unlock()
	}
	resp, err := t.base.RoundTrip(req)
	if at != nil && resp != nil {
		at.mu.Lock()
		at.status = resp.StatusCode
		at.retryAfter = resp.Header.Get("Retry-After")
		at.mu.Unlock()
	}
	return resp, err
}

// retrier runs an operation with a per-attempt timeout and retries transient
// failures with exponential backoff and jitter.
type retrier struct {
	timeout    time.Duration
	maxRetries int
	baseDelay  time.Duration
	maxDelay   time.Duration
	sleep      func(ctx context.Context, d time.Duration) error // replaced in tests
}

func newRetrier(timeout time.Duration, maxRetries int, base, maxDelay time.Duration) retrier {
	r := retrier{timeout: timeout, maxRetries: maxRetries, baseDelay: base, maxDelay: maxDelay, sleep: sleepCtx}
	if r.timeout <= 0 {
		r.timeout = DefaultTimeout
	}
	r.maxRetries = max(r.maxRetries, 0)
	if r.baseDelay <= 0 {
		r.baseDelay = DefaultRetryBaseDelay
	}
	if r.maxDelay <= 0 {
		r.maxDelay = DefaultRetryMaxDelay
	}
	return r
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// permanentError stops the retries: the operation failed in a way a retry cannot fix.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return permanentError{err: err} }

// do runs op until it succeeds, fails for good, runs out of retries or the
// caller's context ends. It returns how many attempts it made.
func (r retrier) do(ctx context.Context, what string, op func(ctx context.Context) error) (int, error) {
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return n - 1, fmt.Errorf("llm: %s: %w: %w", what, ports.ErrUnavailable, err)
		}
		f := r.try(ctx, op)
		if f.err == nil {
			return n, nil
		}
		f.what, f.n = what, n
		if err := f.final(ctx); err != nil {
			return n, err
		}
		cause := describe(f.err, f.status, f.timedOut, r.timeout)
		wait, retryAfter, hasRetryAfter := r.wait(n, f.retryAfter)
		if stop := r.whyNotRetry(ctx, n, wait, retryAfter, hasRetryAfter); stop != retryGoesOn {
			return n, f.stopError(stop, cause, wait, retryAfter)
		}
		if err := r.sleep(ctx, wait); err != nil {
			return n, fmt.Errorf("llm: %s: %w: %w (waiting to retry after: %s)", what, ports.ErrUnavailable, err, cause)
		}
	}
}

// failure is one attempt as the retry rules read it: its error and what the
// transport saw of it.
type failure struct {
	what       string // the operation, for messages
	n          int    // the attempt, from 1
	err        error  // nil when the attempt succeeded
	sent       bool   // the request reached the transport
	status     int    // the HTTP status; 0 when none came back
	retryAfter string // the Retry-After header
	timedOut   bool   // the attempt's own timeout ended it
}

// try runs one attempt of op under the attempt timeout.
func (r retrier) try(ctx context.Context, op func(ctx context.Context) error) failure {
	at := &attempt{}
	actx, cancel := context.WithTimeout(context.WithValue(ctx, attemptKey{}, at), r.timeout)
	err := op(actx)
	timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
	cancel()
	sent, status, retryAfter := at.snapshot()
	return failure{err: err, sent: sent, status: status, retryAfter: retryAfter, timedOut: timedOut}
}

// final is the error that ends the call whatever the retries left, or nil when a
// retry may help.
func (f failure) final(ctx context.Context) error {
	if perr := (permanentError{}); errors.As(f.err, &perr) {
		return perr.err
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		// The caller's deadline or cancellation, not ours: stop and say so.
		return fmt.Errorf("llm: %s: %w: %w (attempt %d: %v)", f.what, ports.ErrUnavailable, ctxErr, f.n, f.err)
	}
	if f.status >= 400 && !isTransientStatus(f.status) {
		return fmt.Errorf("llm: %s: %w: %w: HTTP %d: %v", f.what, ports.ErrUnavailable, ErrRejected, f.status, f.err)
	}
	if !f.transient() {
		// Failed before anything was sent (bad options): retrying changes nothing.
		return fmt.Errorf("llm: %s: %w: %v", f.what, ports.ErrUnavailable, f.err)
	}
	return nil
}

// transient: a timeout, a transient status, a connection dropped after sending, or a
// 200 whose body could not be read (a broken proxy or stream).
func (f failure) transient() bool {
	return f.timedOut || isTransientStatus(f.status) || (f.sent && f.status == 0) || f.status == http.StatusOK
}

// wait is how long to wait before retry n: the backoff, or the endpoint's
// Retry-After when it asks for longer.
func (r retrier) wait(n int, header string) (wait, retryAfter time.Duration, hasRetryAfter bool) {
	wait = r.backoff(n)
	retryAfter, hasRetryAfter = parseRetryAfter(header, time.Now())
	if hasRetryAfter {
		wait = max(retryAfter, wait)
	}
	return wait, retryAfter, hasRetryAfter
}

// retryStop is why a failure that a retry could fix is not retried.
type retryStop int

const (
	retryGoesOn       retryStop = iota
	retriesUsedUp               // the attempts allowed are made
	retryAfterTooLong           // the endpoint asks for a longer wait than a call may hold a worker
	noTimeToWait                // the caller's deadline comes before the wait ends
)

func (r retrier) whyNotRetry(ctx context.Context, n int, wait, retryAfter time.Duration, hasRetryAfter bool) retryStop {
	switch deadline, ok := ctx.Deadline(); {
	case n > r.maxRetries:
		return retriesUsedUp
	case hasRetryAfter && retryAfter > r.maxDelay:
		return retryAfterTooLong
	case ok && time.Until(deadline) < wait:
		return noTimeToWait
	}
	return retryGoesOn
}

// stopError is the error of a call that stops retrying. A 429 is the endpoint's
// request to slow down, not a failure: the caller is told how long to hold back.
func (f failure) stopError(stop retryStop, cause string, wait, retryAfter time.Duration) error {
	if f.status == http.StatusTooManyRequests {
		return &ports.RateLimitedError{RetryAfter: max(wait, time.Second),
			Cause: fmt.Errorf("llm: %s: %s: %s: %w", f.what, rateLimitedWhy(stop, f.n, retryAfter), cause, f.err)}
	}
	switch stop {
	case retriesUsedUp:
		return fmt.Errorf("llm: %s: %w after %d attempts: %s: %w", f.what, ports.ErrUnavailable, f.n, cause, f.err)
	case retryAfterTooLong:
		return fmt.Errorf("llm: %s: %w: the endpoint asks to retry after %s: %s: %w", f.what, ports.ErrUnavailable, retryAfter, cause, f.err)
	}
	return fmt.Errorf("llm: %s: %w: no time left to retry after %d attempts: %s: %w", f.what, ports.ErrUnavailable, f.n, cause, f.err)
}

func rateLimitedWhy(stop retryStop, n int, retryAfter time.Duration) string {
	switch stop {
	case retriesUsedUp:
		return fmt.Sprintf("still rate limited after %d attempts", n)
	case retryAfterTooLong:
		return fmt.Sprintf("the endpoint asks to retry after %s", retryAfter)
	}
	return "no time left to wait for the retry"
}

// backoff is the wait before retry n (from 1): exponential, capped, with half of it
// random so that many workers do not retry in step.
func (r retrier) backoff(n int) time.Duration {
	d := r.baseDelay << min(n-1, 20)
	if d > r.maxDelay || d <= 0 {
		d = r.maxDelay
	}
	half := d / 2
	return half + rand.N(half+1)
}

func isTransientStatus(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	}
	return status >= 500
}

func describe(err error, status int, timedOut bool, timeout time.Duration) string {
	switch {
	case timedOut:
		return fmt.Sprintf("no answer within %s", timeout)
	case status != 0:
		return fmt.Sprintf("HTTP %d", status)
	}
	return "connection failed"
}

// parseRetryAfter reads delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
