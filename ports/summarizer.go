package ports

import (
	"context"

	"engram/domain/session"
)

// SummaryInput is one fold of a session's recursive summary: the
// previous summary and the slice of messages that leaves the session.
type SummaryInput struct {
	Previous string
	Messages []session.Message // oldest first
}

// Summarizer writes the new summary: facts, preferences, conclusions, to-dos and
// constraints of both, in the conversation's language, compact. What it leaves
// out is forgotten by the session.
type Summarizer interface {
	Summarize(ctx context.Context, in SummaryInput) (string, LLMUsage, error)
}
