// Package erasure holds the use cases of forgetting (README "Erasure"): erase a user (a job that purges every registered store and index), and
// the synchronous erasures of one message — with the memories learned from it, on
// request — and of one memory with the content of its history. The rules (order of
// the purge, which memories go with a message, counts) are in domain/erasure; this
// package applies them through ports. It depends on domain and ports only.
//
// Semantics, as the stores keep them: from the moment an erasure is requested the
// user's reads find nothing and every write is refused with a *ports.ErasingError
// (409), so nothing the purge has to delete can be added meanwhile; once the job is
// DONE the user's data is gone and a new write starts a clean slate. The job row
// stays as the audit record, naming the user by memory.Scope.Fingerprint.
package erasure

import (
	"context"
	"errors"
	"fmt"
	"time"

	"engram/domain/conversation"
	"engram/domain/erasure"
	"engram/domain/memory"
	"engram/ports"
)

// Purger is one registered step of a user's purge: a store or an index with the
// name and phase it runs under (bootstrap collects them; later steps add theirs).
type Purger struct {
	Step  erasure.Step
	Purge ports.UserPurger
}

// MessageEraser is what the erasure of a message needs of the message store: the
// deletion, and the memory events the message caused (the cascade).
type MessageEraser interface {
	ports.MessageDeleter
	CausedEvents(ctx context.Context, scope memory.Scope, messageID string) ([]memory.Event, error)
}

// Sessions removes a session from the short-term session store: its recent
// messages, meta, summary and index entry. ErrNotFound when it holds none.
type Sessions interface {
	DeleteSession(ctx context.Context, scope memory.Scope, sessionID, flowID string) error
}

// Histories reads a memory key's history: a session's cascade purges the
// memories whose history says they were learned only from it.
type Histories interface {
	History(ctx context.Context, scope memory.Scope, key memory.Key) ([]memory.Event, error)
}

// LexicalDocs removes the lexical documents of erased messages (the index's
// ports.LexicalDocs, of which erasure needs the deletion only).
type LexicalDocs interface {
	Delete(ctx context.Context, scope memory.Scope, refs []ports.LexicalRef) error
}

// Deps are the ports erasure works through. Vectors and Lexical may be nil (none
// configured): there is then nothing derived to remove. Sessions, Conversations
// and Histories are needed by DeleteSession only; Traces and Scrubber are
// optional (no trace store; a store without files to scrub).
type Deps struct {
	Erasures      ports.ErasureStore
	Jobs          ports.JobStore
	Purgers       []Purger
	Memories      ports.MemoryPurger
	Messages      MessageEraser
	Conversations ports.ConversationDeleter
	Histories     Histories
	Sessions      Sessions
	Traces        ports.TraceEraser
	Scrubber      ports.Scrubber
	Vectors       ports.VectorIndex
	Lexical       LexicalDocs
	Clock         ports.Clock
	IDs           ports.IDs
}

// Defaults of Options.
const (
	DefaultNeighbours  = 2
	DefaultBusyTimeout = 30 * time.Second
)

// Options shape erasure.
type Options struct {
	// Neighbours is how many messages on each side of a deleted one have its
	// embedding mixed into their vectors (the indexer's NeighbourWindow); they are
	// requeued so their vectors are rebuilt without it.
	Neighbours int
	// BusyTimeout bounds how long a synchronous erasure (a message, a memory)
	// waits for a worker's claim on it to be released before it answers 409.
	BusyTimeout time.Duration
}

// Service runs the erasure use cases.
type Service struct {
	deps Deps
	plan erasure.Plan
	opts Options
}

// New builds the service; the purgers' steps must form a valid plan (unique names).
func New(deps Deps, opts Options) (*Service, error) {
	steps := make([]erasure.Step, len(deps.Purgers))
	for i, p := range deps.Purgers {
		steps[i] = p.Step
	}
	plan, err := erasure.NewPlan(steps)
	if err != nil {
		return nil, err
	}
	if opts.Neighbours == 0 {
		opts.Neighbours = DefaultNeighbours
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	return &Service{deps: deps, plan: plan, opts: opts}, nil
}

// Plan is the order the purge runs its steps in.
func (s *Service) Plan() erasure.Plan { return s.plan }

func (s *Service) purger(name string) ports.UserPurger {
	for _, p := range s.deps.Purgers {
		if p.Step.Name == name {
			return p.Purge
		}
	}
	return nil
}

// whileBusy runs fn until it stops answering ErrConflict (a worker's claim on
// what it must delete), waiting erasure.BusyBackoff between tries, or until ctx
// ends; it returns fn's last answer. An *ports.ErasingError is a conflict that
// waiting does not solve: it is returned at once.
func whileBusy[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	for attempt := 0; ; attempt++ {
		v, err := fn()
		var erasing *ports.ErasingError
		if err == nil || !errors.Is(err, ports.ErrConflict) || errors.As(err, &erasing) {
			return v, err
		}
		t := time.NewTimer(erasure.BusyBackoff(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return v, err
		case <-t.C:
		}
	}
}

// forget removes the derived copies (vectors, lexical documents) of memories and
// messages whose truth was just deleted. Search never returns them anyway (hits
// are read back from the truth store); a copy left by a crash here goes with the
// user's erasure, which purges indexes by user.
func (s *Service) forget(ctx context.Context, scope memory.Scope, memoryIDs []string, messages []conversation.Message) error {
	var ids []string
	var refs []ports.LexicalRef
	for _, id := range memoryIDs {
		ids = append(ids, id)
		refs = append(refs, ports.LexicalRef{Kind: memory.KindMemory, ID: id})
	}
	for _, m := range messages {
		ids = append(ids, m.Seq)
		refs = append(refs, ports.LexicalRef{Kind: memory.KindMessage, ID: m.Seq})
	}
	if len(ids) == 0 {
		return nil
	}
	if s.deps.Vectors != nil {
		if err := s.deps.Vectors.Delete(ctx, scope.Tenant, ids); err != nil {
			return fmt.Errorf("delete vectors: %w", err)
		}
	}
	if s.deps.Lexical != nil {
		if err := s.deps.Lexical.Delete(ctx, scope, refs); err != nil {
			return fmt.Errorf("delete lexical documents: %w", err)
		}
	}
	return nil
}

// redact removes the erased items' text from the user's stored traces (see
// ports.TraceEraser for what erased maps).
func (s *Service) redact(ctx context.Context, scope memory.Scope, erased map[string]string) error {
	if s.deps.Traces == nil || len(erased) == 0 {
		return nil
	}
	if _, err := s.deps.Traces.RedactTraces(ctx, scope, erased); err != nil {
		return fmt.Errorf("redact traces: %w", err)
	}
	return nil
}

// scrub ends every erasure: what it deleted leaves the database's files.
func (s *Service) scrub(ctx context.Context) error {
	if s.deps.Scrubber == nil {
		return nil
	}
	if err := s.deps.Scrubber.Scrub(ctx); err != nil {
		return fmt.Errorf("scrub the database files: %w", err)
	}
	return nil
}
