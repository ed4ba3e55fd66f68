package llm

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"engram/configs/prompts"
	"engram/domain/conversation"
	"engram/ports"
)

// DefaultSummaryMaxChars is the summary length the prompt asks for.
const DefaultSummaryMaxChars = 600

// SummarizerOptions configures the recursive session summary.
type SummarizerOptions struct {
	Prompts  *prompts.Set // nil: the embedded prompts
	MaxChars int          // asked of the model; answers are cut at twice this. 0: DefaultSummaryMaxChars
}

// Summarizer folds a slice of messages into the previous summary of a session
// (seed 001's recursive summary: previous summary + new slice → new summary).
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

// Summarize returns the new summary. With no messages it returns previous unchanged
// and makes no call.
func (s *Summarizer) Summarize(ctx context.Context, previous string, messages []conversation.Message) (string, ports.LLMUsage, error) {
	if len(messages) == 0 {
		return previous, ports.LLMUsage{}, nil
	}
	data := prompts.SummarizeData{Previous: strings.TrimSpace(previous), MaxChars: s.maxChars}
	for i, m := range messages {
		data.Messages = append(data.Messages, prompts.Line{N: i + 1, Role: string(m.Role), Name: m.Name, Text: m.Content})
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
	if limit := 2 * s.maxChars; utf8.RuneCountInString(summary) > limit {
		summary = string([]rune(summary)[:limit-1]) + "…"
	}
	return summary, reply.Usage, nil
}
