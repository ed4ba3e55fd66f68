// Package fakellm is an in-process LLM endpoint for tests. It speaks enough of the
// OpenAI chat-completions and embeddings protocol, and of Ollama's /api/chat and
// /api/embed, for the real langchaingo clients to talk to it, so adapter and
// end-to-end tests exercise the same code paths as production without a network.
//
// Answers are scripted: a queue per kind (chat, embeddings) that is consumed in
// order, then an optional handler function. A scripted reply can be an answer with
// token usage, a call of the functions the request offered (OpenAI tool_calls), an
// HTTP error with headers (429 with Retry-After), a body that is not JSON, a delay,
// or a hang until the client gives up. Every request is recorded
// (path, headers, model, messages, response format, inputs) for assertions.
//
// A chat request with nothing scripted fails the test: a test that does not say
// what the model answers has not decided what it is testing. Embedding requests
// with nothing scripted get deterministic vectors (see Vector).
//
// It imports only the standard library and is meant for _test.go files of any
// package.
package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// API is the wire protocol a request used.
type API string

const (
	APIOpenAI API = "openai" // /v1/chat/completions, /v1/embeddings
	APIOllama API = "ollama" // /api/chat, /api/embed
)

// Kind is what a request asked for.
type Kind string

const (
	KindChat  Kind = "chat"
	KindEmbed Kind = "embed"
)

// DefaultEmbeddingDim is the length of unscripted vectors unless WithEmbeddingDim
// or the request's "dimensions" says otherwise.
const DefaultEmbeddingDim = 8

// Message is one chat message as the client sent it. Multi-part contents are
// flattened to their text parts.
type Message struct {
	Role    string
	Content string
}

// Request is one recorded request.
type Request struct {
	Seq      int // 1-based order of arrival over all kinds
	API      API
	Kind     Kind
	Method   string
	Path     string
	Header   http.Header
	Body     []byte
	Model    string
	Messages []Message
	// ResponseFormat is OpenAI's response_format.type ("json_object", "json_schema",
	// "text") or Ollama's "format" ("json"); empty when not sent.
	ResponseFormat string
	Temperature    *float64
	MaxTokens      int // max_tokens, max_completion_tokens or Ollama's num_predict
	Stream         bool
	Input          []string // embedding inputs
	Dimensions     int      // OpenAI embeddings "dimensions", 0 when not sent
	Tools          []string // names of the functions the request offered (OpenAI "tools")
}

// Text returns the contents of the messages with the given role, joined by blank
// lines; with no role, of all messages.
func (r Request) Text(role ...string) string {
	var parts []string
	for _, m := range r.Messages {
		if len(role) == 0 || m.Role == role[0] {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Usage is the token usage a reply reports.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Reply is one scripted answer. The zero value with Content set is a normal answer.
type Reply struct {
	Status  int         // HTTP status; 0 means 200
	Header  http.Header // extra response headers (Retry-After, …)
	Content string      // the assistant's answer (chat)
	Usage   Usage       // zero: estimated from the text lengths (about 4 characters a token)
	Error   string      // message of an error body when Status is not 200

	Vectors [][]float32 // embedding answer, returned as is
	Dim     int         // embedding answer: deterministic vectors of this length

	ToolCalls []ToolCall // chat answer: the model calls these functions instead of answering in text

	RawBody string        // sent verbatim instead of a protocol answer ("malformed JSON")
	Delay   time.Duration // wait before answering (or until the client gives up)
	Hang    bool          // never answer; return only when the client gives up
}

// Answer is a chat answer with the given text.
func Answer(content string) Reply { return Reply{Content: content} }

// AnswerJSON is a chat answer whose text is v marshalled as JSON.
func AnswerJSON(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakellm: AnswerJSON: %v", err))
	}
	return Reply{Content: string(b)}
}

// ToolCall is one function call of a scripted chat answer (OpenAI's tool_calls).
type ToolCall struct {
	ID        string // "call_<n>" when empty
	Name      string
	Arguments string // JSON text, as OpenAI sends it
}

// CallTools is a chat answer that calls functions (finish_reason "tool_calls").
// Each must be one the request offered, as a real model's would.
func CallTools(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// Fail is an HTTP error with an OpenAI/Ollama-style error body.
func Fail(status int, message string) Reply { return Reply{Status: status, Error: message} }

// RateLimited is HTTP 429; retryAfter ("1", "0", an HTTP date) is sent as the
// Retry-After header when not empty.
func RateLimited(retryAfter string) Reply {
	r := Fail(http.StatusTooManyRequests, "Rate limit reached for requests")
	if retryAfter != "" {
		r = r.WithHeader("Retry-After", retryAfter)
	}
	return r
}

// Hang never answers; the handler returns when the client cancels or the server
// closes.
func Hang() Reply { return Reply{Hang: true} }

// Malformed is HTTP 200 whose body is not JSON at all (a broken proxy, a truncated
// response), as opposed to a well-formed response whose answer text is bad.
func Malformed() Reply { return Reply{RawBody: `{"choices": [ {"message": `} }

// Vectors is an embedding answer with exactly these vectors.
func Vectors(vs ...[]float32) Reply { return Reply{Vectors: vs} }

// VectorsOfDim is an embedding answer with one deterministic vector of length dim
// per input (a model of another dimension than configured).
func VectorsOfDim(dim int) Reply { return Reply{Dim: dim} }

// WithUsage returns r reporting the given token usage.
func (r Reply) WithUsage(prompt, completion int) Reply {
	r.Usage = Usage{PromptTokens: prompt, CompletionTokens: completion}
	return r
}

// WithHeader returns r with a response header added.
func (r Reply) WithHeader(key, value string) Reply {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Add(key, value)
	r.Header = h
	return r
}

// WithDelay returns r answered only after d (or never, if the client gives up first).
func (r Reply) WithDelay(d time.Duration) Reply {
	r.Delay = d
	return r
}

// Option configures a Server.
type Option func(*Server)

// WithEmbeddingDim sets the length of unscripted vectors.
func WithEmbeddingDim(dim int) Option { return func(s *Server) { s.embeddingDim = dim } }

// WithAPIKey makes the server refuse (401) requests without "Authorization: Bearer key".
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// Server is a running fake endpoint. Create it with New; it closes itself when the
// test ends.
type Server struct {
	errorf       func(format string, args ...any) // a request nothing was scripted for
	srv          *httptest.Server
	closing      chan struct{}
	closeOnce    sync.Once
	embeddingDim int
	apiKey       string

	mu          sync.Mutex
	chatQueue   []Reply
	embedQueue  []Reply
	chatHandler func(Request) Reply
	embedHand   func(Request) Reply
	requests    []Request
}

// New starts a server and registers its Close with t.Cleanup.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := Start(t.Errorf, opts...)
	t.Cleanup(s.Close)
	return s
}

// Start runs a server outside a test, for benchmark programs: a request nothing
// was scripted for is reported through errorf. The caller closes it.
func Start(errorf func(format string, args ...any), opts ...Option) *Server {
	s := &Server{errorf: errorf, closing: make(chan struct{}), embeddingDim: DefaultEmbeddingDim}
	for _, opt := range opts {
		opt(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the server's root, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return s.srv.URL }

// OpenAIBaseURL is what an OpenAI client takes as its base URL (LLM_API_BASE).
func (s *Server) OpenAIBaseURL() string { return s.srv.URL + "/v1" }

// OllamaBaseURL is what an Ollama client takes as its server URL.
func (s *Server) OllamaBaseURL() string { return s.srv.URL }

// Close stops the server, releasing hung handlers first. It is safe to call twice.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// EnqueueChat appends scripted chat answers, consumed one per chat request.
func (s *Server) EnqueueChat(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatQueue = append(s.chatQueue, replies...)
}

// EnqueueEmbed appends scripted embedding answers, consumed one per request.
func (s *Server) EnqueueEmbed(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedQueue = append(s.embedQueue, replies...)
}

// HandleChat answers chat requests once the queue is empty. fn may be called from
// several goroutines at once.
func (s *Server) HandleChat(fn func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatHandler = fn
}

// HandleEmbed answers embedding requests once the queue is empty.
func (s *Server) HandleEmbed(fn func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedHand = fn
}

// Requests returns every request so far, in order of arrival.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ChatRequests returns the chat requests so far.
func (s *Server) ChatRequests() []Request { return s.requestsOf(KindChat) }

// EmbedRequests returns the embedding requests so far.
func (s *Server) EmbedRequests() []Request { return s.requestsOf(KindEmbed) }

// Pending reports how many scripted replies have not been consumed yet.
func (s *Server) Pending() (chat, embed int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.chatQueue), len(s.embedQueue)
}

func (s *Server) requestsOf(k Kind) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == k {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	api, kind, ok := route(r.URL.Path)
	if !ok {
		writeError(w, APIOpenAI, http.StatusNotFound, "fakellm: no such endpoint "+r.Method+" "+r.URL.Path)
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, api, http.StatusMethodNotAllowed, "fakellm: use POST")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	req := Request{API: api, Kind: kind, Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	parseErr := decodeRequest(&req, body)

	s.mu.Lock()
	req.Seq = len(s.requests) + 1
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	if parseErr != nil {
		writeError(w, api, http.StatusBadRequest, "fakellm: cannot decode request: "+parseErr.Error())
		return
	}
	if s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey {
		writeError(w, api, http.StatusUnauthorized, "Incorrect API key provided")
		return
	}
	if msg := checkRequest(req); msg != "" {
		writeError(w, api, http.StatusBadRequest, msg)
		return
	}

	reply, ok := s.next(req)
	if !ok {
		s.errorf("fakellm: %s request #%d to %s has no scripted reply (last message: %q)",
			kind, req.Seq, req.Path, clip(lastContent(req), 200))
		writeError(w, api, http.StatusInternalServerError, "fakellm: no scripted reply")
		return
	}
	if reply.Hang {
		s.wait(r, -1)
		return
	}
	if reply.Delay > 0 && !s.wait(r, reply.Delay) {
		return
	}
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case reply.RawBody != "":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply.RawBody)
	case status != http.StatusOK:
		msg := reply.Error
		if msg == "" {
			msg = http.StatusText(status)
		}
		writeError(w, api, status, msg)
	case kind == KindChat:
		for _, call := range reply.ToolCalls {
			if !slices.Contains(req.Tools, call.Name) {
				s.errorf("fakellm: chat request #%d is scripted to call %s, which it did not offer (it offered %v)", req.Seq, call.Name, req.Tools)
			}
		}
		s.writeChat(w, req, reply)
	default:
		s.writeEmbed(w, req, reply)
	}
}

// next pops the queue of the request's kind, or asks the handler.
func (s *Server) next(req Request) (Reply, bool) {
	s.mu.Lock()
	queue, handler := &s.chatQueue, s.chatHandler
	if req.Kind == KindEmbed {
		queue, handler = &s.embedQueue, s.embedHand
	}
	if len(*queue) > 0 {
		reply := (*queue)[0]
		*queue = (*queue)[1:]
		s.mu.Unlock()
		return reply, true
	}
	s.mu.Unlock()
	if handler != nil {
		return handler(req), true
	}
	if req.Kind == KindEmbed {
		return Reply{}, true // deterministic vectors
	}
	return Reply{}, false
}

// wait blocks for d (forever when d < 0) and reports whether the handler should
// still answer: false when the client gave up or the server is closing.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	var timer <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-timer:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closing:
		return false
	}
}

func route(path string) (API, Kind, bool) {
	switch strings.TrimSuffix(path, "/") {
	case "/v1/chat/completions", "/chat/completions":
		return APIOpenAI, KindChat, true
	case "/v1/embeddings", "/embeddings":
		return APIOpenAI, KindEmbed, true
	case "/api/chat":
		return APIOllama, KindChat, true
	case "/api/embed", "/api/embeddings":
		return APIOllama, KindEmbed, true
	}
	return "", "", false
}

// wireRequest is the union of the request fields of both protocols.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Temperature         *float64        `json:"temperature"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	Stream              *bool           `json:"stream"`
	ResponseFormat      json.RawMessage `json:"response_format"`
	Format              json.RawMessage `json:"format"` // Ollama: "json" or a schema
	Options             struct {
		Temperature *float64 `json:"temperature"`
		NumPredict  int      `json:"num_predict"`
	} `json:"options"`
	Input json.RawMessage `json:"input"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Prompt     string `json:"prompt"` // Ollama's old /api/embeddings
	Dimensions int    `json:"dimensions"`
}

func decodeRequest(req *Request, body []byte) error {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return err
	}
	req.Model = w.Model
	for _, m := range w.Messages {
		req.Messages = append(req.Messages, Message{Role: m.Role, Content: flattenContent(m.Content)})
	}
	for _, tool := range w.Tools {
		req.Tools = append(req.Tools, tool.Function.Name)
	}
	if req.API == APIOpenAI {
		req.Temperature = w.Temperature
		req.MaxTokens = max(w.MaxTokens, w.MaxCompletionTokens)
		req.Stream = w.Stream != nil && *w.Stream
		if len(w.ResponseFormat) > 0 && string(w.ResponseFormat) != "null" {
			var rf struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(w.ResponseFormat, &rf); err != nil {
				return fmt.Errorf("response_format: %w", err)
			}
			req.ResponseFormat = rf.Type
		}
	} else {
		req.Temperature = w.Options.Temperature
		req.MaxTokens = w.Options.NumPredict
		// Ollama streams unless told not to; the fake always answers in one line,
		// which is a valid stream too.
		req.Stream = w.Stream == nil || *w.Stream
		var format string
		if json.Unmarshal(w.Format, &format) == nil {
			req.ResponseFormat = format
		} else if len(w.Format) > 0 && string(w.Format) != "null" {
			req.ResponseFormat = "json_schema"
		}
	}
	req.Dimensions = w.Dimensions
	if req.Kind == KindEmbed {
		in, err := decodeInput(w.Input)
		if err != nil {
			return fmt.Errorf("input: %w", err)
		}
		if in == nil && w.Prompt != "" {
			in = []string{w.Prompt}
		}
		req.Input = in
	}
	return nil
}

// flattenContent accepts a string or an array of content parts.
func flattenContent(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

func decodeInput(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, err
	}
	return many, nil
}

// checkRequest refuses what the real services refuse, so tests catch it here.
func checkRequest(req Request) string {
	switch req.Kind {
	case KindChat:
		if len(req.Messages) == 0 {
			return "'messages' must not be empty"
		}
		if req.API == APIOpenAI && req.Stream {
			return "fakellm: streaming is not supported; send stream=false"
		}
		switch req.ResponseFormat {
		case "", "text", "json_schema", "json":
		case "json_object":
			// OpenAI refuses JSON mode unless the prompt asks for JSON.
			if !strings.Contains(strings.ToLower(req.Text()), "json") {
				return "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."
			}
		default:
			return fmt.Sprintf("Invalid value for 'response_format.type': %q", req.ResponseFormat)
		}
	case KindEmbed:
		if len(req.Input) == 0 {
			return "'input' must not be empty"
		}
	}
	return ""
}

func (s *Server) writeChat(w http.ResponseWriter, req Request, reply Reply) {
	usage := reply.Usage
	if usage == (Usage{}) {
		usage = Usage{PromptTokens: estimateTokens(req.Text()), CompletionTokens: estimateTokens(reply.Content)}
	}
	model := req.Model
	if model == "" {
		model = "fakellm"
	}
	if req.API == APIOllama {
		w.Header().Set("Content-Type", "application/x-ndjson")
		writeJSON(w, map[string]any{
			"model":             model,
			"created_at":        time.Now().UTC().Format(time.RFC3339Nano),
			"message":           map[string]string{"role": "assistant", "content": reply.Content},
			"done":              true,
			"done_reason":       "stop",
			"prompt_eval_count": usage.PromptTokens,
			"eval_count":        usage.CompletionTokens,
		})
		return
	}
	message, finish := map[string]any{"role": "assistant", "content": reply.Content}, "stop"
	if len(reply.ToolCalls) > 0 {
		calls := make([]map[string]any, len(reply.ToolCalls))
		for i, c := range reply.ToolCalls {
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("call_%d_%d", req.Seq, i+1)
			}
			calls[i] = map[string]any{"id": id, "type": "function", "function": map[string]string{"name": c.Name, "arguments": c.Arguments}}
		}
		message, finish = map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}, "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	writeJSON(w, map[string]any{
		"id":      fmt.Sprintf("chatcmpl-fake-%d", req.Seq),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   model,
		"choices": []map[string]any{{
			"index":         0,
			"message":       message,
			"finish_reason": finish,
		}},
		"usage": map[string]int{
			"prompt_tokens":     usage.PromptTokens,
			"completion_tokens": usage.CompletionTokens,
			"total_tokens":      usage.PromptTokens + usage.CompletionTokens,
		},
		"system_fingerprint": "fakellm",
	})
}

func (s *Server) writeEmbed(w http.ResponseWriter, req Request, reply Reply) {
	vectors := reply.Vectors
	if vectors == nil {
		dim := s.embeddingDim
		if req.Dimensions > 0 {
			dim = req.Dimensions
		}
		if reply.Dim > 0 {
			dim = reply.Dim
		}
		for _, text := range req.Input {
			vectors = append(vectors, Vector(text, dim))
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if req.API == APIOllama {
		writeJSON(w, map[string]any{"model": req.Model, "embeddings": vectors})
		return
	}
	data := make([]map[string]any, len(vectors))
	tokens := 0
	for i, v := range vectors {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
	}
	for _, text := range req.Input {
		tokens += estimateTokens(text)
	}
	writeJSON(w, map[string]any{
		"object": "list",
		"data":   data,
		"model":  req.Model,
		"usage":  map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// Vector is the deterministic unit vector the server returns for text when no
// vectors are scripted: equal texts get equal vectors, different texts almost
// surely different ones. Tests of other packages can compute expected vectors with it.
func Vector(text string, dim int) []float32 {
	v := make([]float32, dim)
	var norm float64
	for i := range v {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d\x00%s", i, text)
		x := float64(h.Sum64()%2001)/1000 - 1 // in [-1, 1]
		v[i] = float32(x)
		norm += x * x
	}
	if norm == 0 {
		return v
	}
	scale := 1 / math.Sqrt(norm)
	for i := range v {
		v[i] = float32(float64(v[i]) * scale)
	}
	return v
}

func writeError(w http.ResponseWriter, api API, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if api == APIOllama {
		writeJSON(w, map[string]string{"error": msg})
		return
	}
	writeJSON(w, map[string]any{"error": map[string]any{"message": msg, "type": "fakellm_error", "code": status}})
}

func writeJSON(w io.Writer, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("fakellm: encode response: %v", err))
	}
	_, _ = w.Write(buf.Bytes())
}

func estimateTokens(text string) int {
	return utf8.RuneCountInString(text)/4 + 1
}

func lastContent(req Request) string {
	if n := len(req.Messages); n > 0 {
		return req.Messages[n-1].Content
	}
	return strings.Join(req.Input, " | ")
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
