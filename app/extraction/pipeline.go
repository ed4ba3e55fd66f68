// Package extraction is the asynchronous extraction pipeline: it turns the user messages
// of a conversation into long-term memories. Per conversation, after the debounce:
//
//	prefilter  cheap, no model: greetings, thanks, plain questions → SKIPPED
//	gate       no model: a message that states nothing about the user's life
//	           (no first-person fact, preference, plan or rule) → SKIPPED
//	extract    stage 1, one extractor call for all remaining messages together
//	screen     instruction-like text (domain/instruction) dropped, the memory
//	           boundaries, minimum confidence, grounding in what the user said
//	           (assistant text is never a source of facts)
//	route      identity slots (nickname, AI name, emoji, language, tone) applied
//	           to the profile, never to long-term memory
//	similar    the user's memories near the candidates, and how alike, from the
//	           stored vectors (only the candidates are embedded)
//	refine     stage 2, only for candidates that collide with an existing memory
//	           (same key, or duplicate alike): keep, merge, reuse a key or drop
//	upsert     stage 3 in domain code: key match, duplicates, merges, the write
//	           limit per user message, most important first (what is over it
//	           waits for the next run, the message PENDING as deferred); every
//	           write an event with channel extraction and the message id
//
// At most two model calls per conversation run, whatever the number of messages,
// and one when nothing collides. Model calls are bounded in flight across runs,
// paused for everyone after a 429 and kept within each tenant's budget; a run
// that may not call waits (its messages stay PENDING, attempts untouched). The
// Runner claims due conversations from the message store, runs the pipeline and
// stores each message's outcome (PROCESSED, SKIPPED, FAILED with backoff, or
// PENDING again when it waits). A message without memory events always says
// why, in the skip-reason vocabulary of domain/conversation (skip.go).
//
// It depends on domain and ports only; metrics observe it through Observer.
package extraction

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/retry"
	"engram/ports"
)

// Defaults of Options (the LONG_TERM_MEMORY_* defaults where the setting has one).
const (
	DefaultMaxWriteItems       = 6
	DefaultDuplicateSimilarity = 0.82
	DefaultMergeSimilarity     = 0.90
	DefaultContextMaxChars     = 8000
	DefaultContextMessages     = 50
	DefaultExtractTimeout      = 90 * time.Second
	DefaultUpsertTimeout       = 90 * time.Second
)

// Options are the pipeline's bounds. Zero values take the defaults.
type Options struct {
	Boundaries          candidate.Boundaries // MinConfidence: LONG_TERM_MEMORY_MIN_CONFIDENCE
	MaxWriteItems       int                  // LONG_TERM_MEMORY_MAX_WRITE_ITEMS
	DuplicateSimilarity float64              // reuse an existing memory at or above
	MergeSimilarity     float64              // fold redundant copies at or above, after the write
	ContextMaxChars     int                  // earlier messages shown to the extractor
	ContextMessages     int                  // and at most this many of them
	ExtractTimeout      time.Duration        // extract + refine
	UpsertTimeout       time.Duration        // the writes
	Retry               retry.Policy
	Policy              memory.Policy // default TTL of new memories
	// MaxCallsInFlight bounds the model calls of all runs at once
	// (LONG_TERM_MEMORY_WORKER_CONCURRENCY); 0: unbounded.
	MaxCallsInFlight int
}

func (o Options) withDefaults() Options {
	if o.MaxWriteItems <= 0 {
		o.MaxWriteItems = DefaultMaxWriteItems
	}
	if o.DuplicateSimilarity <= 0 || o.DuplicateSimilarity > 1 {
		o.DuplicateSimilarity = DefaultDuplicateSimilarity
	}
	if o.MergeSimilarity <= 0 || o.MergeSimilarity > 1 {
		o.MergeSimilarity = DefaultMergeSimilarity
	}
	if o.ContextMaxChars <= 0 {
		o.ContextMaxChars = DefaultContextMaxChars
	}
	if o.ContextMessages <= 0 {
		o.ContextMessages = DefaultContextMessages
	}
	if o.ExtractTimeout <= 0 {
		o.ExtractTimeout = DefaultExtractTimeout
	}
	if o.UpsertTimeout <= 0 {
		o.UpsertTimeout = DefaultUpsertTimeout
	}
	return o
}

// ContextReader is what the pipeline reads of a conversation.
type ContextReader interface {
	// ConversationBefore returns up to limit messages of the conversation that
	// come before m (by CreatedAt, then Seq), the most recent ones, oldest first.
	ConversationBefore(ctx context.Context, m conversation.Message, limit int) ([]conversation.Message, error)
}

// Deps are the ports the pipeline works through.
type Deps struct {
	Extractor ports.Extractor
	Refiner   ports.Refiner
	// FallbackRefiner decides without a model: it is used when there are no
	// existing memories to refine against (no call is worth it) and when Refiner
	// fails, so a refine outage does not cost a retry of the extraction. nil: none.
	FallbackRefiner ports.Refiner
	Memories        ports.MemoryStore
	Messages        ContextReader
	// Similar finds the existing memories stage 2 and 3 compare with, and how
	// alike they are; nil: a LexicalSimilar over Memories.
	Similar SimilarMemories
	// Gate skips messages that state nothing worth a model call; nil: none (the
	// offline rules cost no call).
	Gate Gate
	// Profiles receives the identity slots users say ("call me Captain"); nil:
	// slot candidates are dropped as profile_slot.
	Profiles ProfileSlots
	// Budget is each tenant's allowance of model calls; nil: unlimited (and the
	// stages are not metered: the offline rules).
	Budget ports.LLMBudget
	Clock  ports.Clock
	IDs    ports.IDs
	// Summaries (optional) gives the conversation's summary when the
	// conversation is a short-term session (record_exchange).
	Summaries Summaries
}

// Summaries reads the summary of a conversation that is a session.
type Summaries interface {
	ConversationSummary(ctx context.Context, scope memory.Scope, conversationID string) (string, error)
}

// Gate is the LLM-free judgement after the prefilter: the reason a user message
// carries no first-person statement, preference, plan, rule or fact about the
// user's life, so no model call is spent on it, or "" when it may carry one.
type Gate interface {
	Reason(text string) string
}

// Pipeline runs the stages for one conversation at a time. It is safe for
// concurrent use on different conversations.
type Pipeline struct {
	deps  Deps
	opts  Options
	calls *calls
}

// New builds a pipeline.
func New(deps Deps, opts Options) *Pipeline {
	if deps.Similar == nil {
		deps.Similar = &LexicalSimilar{Store: deps.Memories}
	}
	opts = opts.withDefaults()
	return &Pipeline{deps: deps, opts: opts, calls: newCalls(opts.MaxCallsInFlight, deps.Budget)}
}

// Process runs the pipeline over the claimed messages of one conversation (in
// conversation order) and returns them with their outcomes, ready to be stored,
// and a report. It never writes the messages itself. When ctx ends before the
// pipeline does, the report's Err says so and the messages come back FAILED;
// a runner that is shutting down releases them instead of storing that.
func (p *Pipeline) Process(ctx context.Context, msgs []conversation.Message) ([]conversation.Message, Report) {
	out := make([]conversation.Message, len(msgs))
	copy(out, msgs)
	rep := newReport(msgs)
	var triggers []int // indexes into out of the messages worth an extraction
	now := p.deps.Clock.Now()
	for i, m := range out {
		if !m.IsUser() {
			out[i] = m.Skipped(conversation.SkipNotFromUser, now)
			rep.skip(conversation.SkipNotFromUser)
			continue
		}
		if r := prefilter(m); r != "" {
			out[i] = m.Skipped(r, now)
			rep.skip(r)
			continue
		}
		if p.deps.Gate != nil {
			if r := p.deps.Gate.Reason(m.Content); r != "" {
				out[i] = m.Skipped(r, now)
				rep.skip(r)
				continue
			}
		}
		triggers = append(triggers, i)
	}
	if len(triggers) == 0 {
		rep.Messages = out
		return out, rep
	}
	trig := make([]conversation.Message, len(triggers))
	for j, i := range triggers {
		trig[j] = out[i]
	}
	err := p.run(ctx, trig, &rep)
	now = p.deps.Clock.Now()
	wait, waits := asWait(err)
	for _, i := range triggers {
		switch {
		case waits:
			out[i] = out[i].Deferred(wait.Until, wait.note)
		case err != nil:
			out[i] = out[i].Failed(describe(err, p.opts), now, p.opts.Retry)
		default:
			out[i] = outcome(out[i], &rep, now, p.opts.MaxWriteItems)
		}
	}
	if waits {
		rep.Wait, err = &wait.Wait, nil
	}
	rep.Err = err
	rep.Messages = out
	return out, rep
}

// run is stages 1 to 3 for the trigger messages.
func (p *Pipeline) run(ctx context.Context, triggers []conversation.Message, rep *Report) error {
	xctx, cancel := context.WithTimeout(ctx, p.opts.ExtractTimeout)
	defer cancel()
	earlier, err := p.context(xctx, triggers)
	if err != nil {
		return fmt.Errorf("read conversation context: %w", err)
	}
	cands, err := p.extract(xctx, triggers, earlier, rep)
	if err != nil {
		return err
	}
	kept := p.screen(cands, triggers, earlier, rep)
	// route: identity-slot candidates go to the profile, the rest on
	// to the memory stages.
	if kept, err = p.route(xctx, kept, triggers, rep); err != nil {
		return err
	}
	if len(kept) == 0 {
		return nil
	}
	scope := triggers[0].Scope
	near, err := p.deps.Similar.Similar(xctx, scope, kept, p.deps.Clock.Now())
	if err != nil {
		return fmt.Errorf("find similar memories: %w", err)
	}
	decisions, err := p.refine(xctx, scope, kept, near, rep)
	if err != nil {
		return err
	}
	cancel()

	uctx, ucancel := context.WithTimeout(ctx, p.opts.UpsertTimeout)
	defer ucancel()
	if err := p.upsert(uctx, triggers, kept, decisions, near, rep); err != nil {
		return fmt.Errorf("upsert: %w", err)
	}
	return nil
}

// describe is the error a FAILED message keeps: what failed, in words an operator
// can act on.
func describe(err error, o Options) string {
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) && !strings.Contains(msg, "timed out") {
		msg = fmt.Sprintf("timed out (extract limit %s, upsert limit %s): %s", o.ExtractTimeout, o.UpsertTimeout, msg)
	}
	if utf8.RuneCountInString(msg) > conversation.MaxErrorLen {
		msg = string([]rune(msg)[:conversation.MaxErrorLen-1]) + "…"
	}
	return msg
}
