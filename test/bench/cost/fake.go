package main

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"engram/adapters/rules"
	"engram/test/fakellm"
)

// model is the scripted OpenAI-compatible endpoint: every chat call takes latency
// and is answered from the prompt's own text. Stage 1 answers with what the
// offline rule extractor finds in the prompt's numbered user messages (so the
// answers are realistic in kind and number, and the same message always gets the
// same answer); stage 2 keeps every candidate it is shown. Embeddings are the
// fake's deterministic vectors (equal texts, equal vectors). It counts calls by
// stage, prompt bytes, embedding inputs by kind and the calls in flight.
type model struct {
	srv     *fakellm.Server
	latency time.Duration
	rules   *rules.Extractor

	mu        sync.Mutex
	stats     modelStats
	inFlight  int
	busySince time.Time // while inFlight > 0
}

type modelStats struct {
	Extract, Refine, Other int
	PromptBytes            int
	MaxInFlight            int
	Busy                   time.Duration // time with at least one call in flight
	CallTime               time.Duration // sum of the calls' durations
	First, Last            time.Time
	EmbedRequests          int
	EmbedMemoryInputs      int // "[type] key: content": a memory's or a candidate's index text
	EmbedOtherInputs       int // messages and queries
	MemoryTexts            map[string]int
}

func startModel(latency time.Duration, dim int, errorf func(string, ...any)) *model {
	m := &model{latency: latency, rules: rules.NewExtractor(rules.ExtractorOptions{})}
	m.srv = fakellm.Start(errorf, fakellm.WithEmbeddingDim(dim))
	m.srv.HandleChat(m.chat)
	m.srv.HandleEmbed(m.embed)
	m.reset()
	return m
}

func (m *model) close() { m.srv.Close() }

func (m *model) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats = modelStats{MemoryTexts: map[string]int{}}
}

func (m *model) snapshot() modelStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stats
	s.MemoryTexts = make(map[string]int, len(m.stats.MemoryTexts))
	for k, v := range m.stats.MemoryTexts {
		s.MemoryTexts[k] = v
	}
	return s
}

var (
	promptLine = regexp.MustCompile(`(?m)^\[M(\d+)\] user: (".*")$`)
	refineItem = regexp.MustCompile(`(?m)^\{"index":(\d+),`)
	indexText  = regexp.MustCompile(`^\[(preference|fact|goal|project|constraint)\] \S+: `)
)

func (m *model) chat(r fakellm.Request) fakellm.Reply {
	start := m.enter(r)
	defer m.leave(start)
	time.Sleep(m.latency) // the model thinking; what the benchmark is about
	user := r.Text("user")
	if strings.Contains(user, "CANDIDATES") {
		var decisions []map[string]any
		for _, g := range refineItem.FindAllStringSubmatch(user, -1) {
			n, _ := strconv.Atoi(g[1])
			decisions = append(decisions, map[string]any{"index": n, "verdict": "keep", "reason": "scripted: keep"})
		}
		return fakellm.AnswerJSON(map[string]any{"decisions": decisions})
	}
	type item struct {
		Op         string  `json:"op"`
		Type       string  `json:"memory_type"`
		Key        string  `json:"key"`
		Content    string  `json:"content"`
		Importance int     `json:"importance"`
		Confidence float64 `json:"confidence"`
		TTLDays    int     `json:"ttl_days"`
		Source     int     `json:"source_message"`
	}
	items := []item{}
	for _, g := range promptLine.FindAllStringSubmatch(user, -1) {
		n, _ := strconv.Atoi(g[1])
		var text string
		if json.Unmarshal([]byte(g[2]), &text) != nil {
			continue
		}
		for _, c := range m.rules.ExtractMessage("x", text) {
			items = append(items, item{string(c.Op), string(c.Type), c.Key, c.Content, c.Importance, c.Confidence, c.TTLDays, n})
		}
	}
	return fakellm.AnswerJSON(map[string]any{"candidates": items})
}

func (m *model) enter(r fakellm.Request) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	switch user := r.Text("user"); {
	case strings.Contains(user, "CANDIDATES"):
		m.stats.Refine++
	case strings.Contains(user, "[M1] user:"):
		m.stats.Extract++
	default:
		m.stats.Other++
	}
	m.stats.PromptBytes += len(r.Text())
	if m.inFlight == 0 {
		m.busySince = now
	}
	m.inFlight++
	m.stats.MaxInFlight = max(m.stats.MaxInFlight, m.inFlight)
	if m.stats.First.IsZero() {
		m.stats.First = now
	}
	return now
}

func (m *model) leave(start time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.inFlight--
	m.stats.CallTime += now.Sub(start)
	if m.inFlight == 0 {
		m.stats.Busy += now.Sub(m.busySince)
	}
	m.stats.Last = now
}

func (m *model) embed(r fakellm.Request) fakellm.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.EmbedRequests++
	for _, in := range r.Input {
		if indexText.MatchString(in) {
			m.stats.EmbedMemoryInputs++
			m.stats.MemoryTexts[in]++
		} else {
			m.stats.EmbedOtherInputs++
		}
	}
	return fakellm.Reply{} // the fake's deterministic vectors
}

// calls is every chat call.
func (s modelStats) calls() int { return s.Extract + s.Refine + s.Other }

// reembedded counts memory texts embedded more than once.
func (s modelStats) reembedded() int {
	n := 0
	for _, c := range s.MemoryTexts {
		if c > 1 {
			n += c - 1
		}
	}
	return n
}
