package main

import (
	"regexp"
	"sync"
	"time"

	"engram/test/fakellm"
	"engram/test/scriptedllm"
)

// model is the scripted OpenAI-compatible endpoint: every chat call takes latency
// and is answered from the prompt's own text (test/scriptedllm): stage 1 with what
// the offline rule extractor finds in the prompt's numbered user messages (so the
// answers are realistic in kind and number, and the same message always gets the
// same answer); stage 2 keeps every candidate it is shown. Embeddings are the
// fake's deterministic vectors (equal texts, equal vectors). It counts calls by
// stage, prompt bytes, embedding inputs by kind and the calls in flight.
type model struct {
	srv     *fakellm.Server
	latency time.Duration

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
	m := &model{latency: latency}
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

var indexText = regexp.MustCompile(`^\[(preference|fact|goal|project|constraint)\] \S+: `)

func (m *model) chat(r fakellm.Request) fakellm.Reply {
	start := m.enter(r)
	defer m.leave(start)
	time.Sleep(m.latency) // the model thinking; what the benchmark is about
	return scriptedllm.Answer(r)
}

func (m *model) enter(r fakellm.Request) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	switch {
	case scriptedllm.IsRefine(r):
		m.stats.Refine++
	case scriptedllm.IsExtract(r):
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
