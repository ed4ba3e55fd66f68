package llm

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"engram/configs/prompts"
	"engram/ports"
)

// DefaultSummaryMaxChars is the summary length the prompt asks for:
// 100–300 characters of Chinese, or words of another language.
const DefaultSummaryMaxChars = 300

// runawayFactor bounds an answer that ignores the length asked for: 300 English
// words are about 1,800 characters, well under 8 × 300.
const runawayFactor = 8

// SummarizerOptions configures the recursive session summary.
type SummarizerOptions struct {
	Prompts  *prompts.Set // nil: the embedded prompts
	MaxChars int          // asked of the model; a runaway answer is cut at 8 × this. 0: DefaultSummaryMaxChars
}

// Summarizer folds a slice of messages into the previous summary of a session
// (a recursive summary: previous summary + new slice → new summary).
type Summarizer struct {
	chat     Chatter
	prompts  *prompts.Set
	maxChars int
}

// NewSummarizer builds a summarizer over a chat client.
func NewSummarizer(chat Chatter, opts SummarizerOptions) *Summarizer {
	s := &Summarizer{chat: chat, prompts: opts.Prompts, maxChars: opts.MaxChars}
	if s.prompts == nil {
		s.prompts = prompts.Default()
	}
	if s.maxChars <= 0 {
		s.maxChars = DefaultSummaryMaxChars
	}
	return s
}

var _ ports.Summarizer = (*Summarizer)(nil)

// Summarize returns the new summary. With no messages it returns the previous one
// unchanged and makes no call.
func (s *Summarizer) Summarize(ctx context.Context, in ports.SummaryInput) (string, ports.LLMUsage, error) {
	if len(in.Messages) == 0 {
		return in.Previous, ports.LLMUsage{}, nil
	}
	data := prompts.SummarizeData{Previous: strings.TrimSpace(in.Previous), MaxChars: s.maxChars}
	for i, m := range in.Messages {
		data.Messages = append(data.Messages, prompts.Line{N: i + 1, Role: string(m.Role), Text: m.Content})
	}
	p, err := s.prompts.Render(prompts.Summarize, data)
	if err != nil {
		return "", ports.LLMUsage{}, fmt.Errorf("llm: summarize: %w", err)
	}
	reply, err := s.chat.Chat(ctx, ChatRequest{Messages: []ChatMessage{
		{Role: RoleSystem, Content: p.System},
		{Role: RoleUser, Content: p.User},
	}})
	if err != nil {
		return "", reply.Usage, err
	}
	summary := cleanAnswer(reply.Content)
	if m := codeFence.FindStringSubmatch(summary); m != nil && strings.TrimSpace(m[1]) != "" {
		summary = strings.TrimSpace(m[1])
	}
	if summary == "" {
		return "", reply.Usage, badOutput("summarize", reply.Content, "the summary is empty")
	}
	if limit := runawayFactor * s.maxChars; utf8.RuneCountInString(summary) > limit {
		summary = string([]rune(summary)[:limit-1]) + "…"
	}
	return summary, reply.Usage, nil
}
