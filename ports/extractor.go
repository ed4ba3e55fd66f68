package ports

import (
	"context"
	"time"

	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
)

// LLMUsage counts what a stage cost, for metrics and cost control.
type LLMUsage struct {
	Calls            int
	PromptTokens     int
	CompletionTokens int
}

// ExtractionInput is stage 1's input: the new user messages of one conversation
// (the triggers, oldest first) and what came before them. Context and Summary are
// for judging stability only; facts come from Messages alone.
type ExtractionInput struct {
	Scope          memory.Scope
	ConversationID string
	Messages       []conversation.Message
	Context        []conversation.Message
	Summary        string
	Now            time.Time
}

// Extractor proposes candidate memories (stage 1).
type Extractor interface {
	Extract(ctx context.Context, in ExtractionInput) ([]candidate.Candidate, LLMUsage, error)
}

// RefineInput is stage 2's input: the candidates and the user's existing memories
// most similar to them.
type RefineInput struct {
	Scope      memory.Scope
	Candidates []candidate.Candidate
	Existing   []memory.Memory
	Now        time.Time
}

// Refiner decides, candidate by candidate, to keep, merge, reuse a key or drop
// (stage 2). It returns one decision per candidate.
type Refiner interface {
	Refine(ctx context.Context, in RefineInput) ([]candidate.Decision, LLMUsage, error)
}
