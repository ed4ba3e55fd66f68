package extraction

import (
	"errors"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// Report says what one pipeline run over a conversation did, for metrics and logs.
type Report struct {
	Scope          memory.Scope
	ConversationID string
	Messages       []conversation.Message // with their outcomes
	Skipped        map[string]int         // messages skipped, by reason
	Dropped        map[string]int         // candidates not written, by reason
	Calls          []Call                 // extractor and refiner calls, in order
	Candidates     int                    // proposed by the extractor
	Colliding      int                    // kept candidates that collide with an existing memory (stage 2's work)
	Written        int                    // memories added, updated, appended or deleted
	Unchanged      int                    // decisions the store already reflected
	Reused         int                    // written under a similar memory's key
	// Deferred counts the candidates over their message's write limit: the message
	// stays PENDING and they are written by the next run.
	Deferred int
	Merged   int // redundant copies folded after the write
	// RoutedToProfile counts the identity-slot candidates applied to the profile
	// (never to long-term memory).
	RoutedToProfile int
	Err             error         // why the run failed; nil on success
	Wait            *Wait         // the run waits for the model (budget, 429); nil otherwise
	Duration        time.Duration // set by the Runner
	// InstructionLike counts the trigger messages found instruction-like (in a part
	// or in what was extracted from them), by reason "instruction_like:<rule>".
	InstructionLike map[string]int

	screened   map[string]string // message id → the instruction_like reason it gets
	keptFrom   map[string]bool   // message ids a candidate passed the screen from
	routedFrom map[string]bool   // message ids an identity slot was applied from
	outcomes   map[string]*messageOutcome
}

// messageOutcome is what became of one trigger's candidates in stage 3.
type messageOutcome struct {
	learned  int // writes that changed a memory (an event with this message as source)
	known    int // candidates the memories already said (unchanged writes, refined away)
	deferred int // over the message's write limit: for the next run
}

func (r *Report) outcomeOf(messageID string) *messageOutcome {
	o := r.outcomes[messageID]
	if o == nil {
		o = &messageOutcome{}
		r.outcomes[messageID] = o
	}
	return o
}

// Call is one stage's extractor or refiner call. Fallback marks the deterministic
// refiner standing in (no model call).
type Call struct {
	Stage    string
	Usage    ports.LLMUsage
	Err      error
	Fallback bool
}

// Observer receives one report per processed conversation (metrics).
type Observer interface {
	Processed(Report)
}

func newReport(msgs []conversation.Message) Report {
	r := Report{Skipped: map[string]int{}, Dropped: map[string]int{}, InstructionLike: map[string]int{},
		screened: map[string]string{}, keptFrom: map[string]bool{}, routedFrom: map[string]bool{}, outcomes: map[string]*messageOutcome{}}
	if len(msgs) > 0 {
		r.Scope, r.ConversationID = msgs[0].Scope, msgs[0].ConversationID
	}
	return r
}

func (r *Report) skip(reason string) { r.Skipped[reason]++ }

// screen records that a message was found instruction-like; the first reason stays.
func (r *Report) screen(messageID, reason string) {
	if _, seen := r.screened[messageID]; !seen {
		r.screened[messageID] = reason
		r.InstructionLike[reason]++
	}
}
func (r *Report) drop(reason string) { r.Dropped[reason]++ }

func (r *Report) call(stage string, usage ports.LLMUsage, err error, fallback bool) {
	r.Calls = append(r.Calls, Call{Stage: stage, Usage: usage, Err: err, Fallback: fallback})
}

// ModelCalls counts the requests sent to a model (retries included), the cost
// the "at most two calls per message" rule bounds.
func (r Report) ModelCalls() int {
	n := 0
	for _, c := range r.Calls {
		n += c.Usage.Calls
	}
	return n
}

// badOutput is how an adapter marks an answer that could not be used (the LLM
// adapter's BadOutputError), without this package importing the adapter.
type badOutput interface{ BadOutput() bool }

// IsBadOutput reports whether err says a model answered something unusable.
func IsBadOutput(err error) bool {
	var b badOutput
	return errors.As(err, &b) && b.BadOutput()
}

func isNotFound(err error) bool { return errors.Is(err, ports.ErrNotFound) }
