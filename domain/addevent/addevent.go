// Package addevent is the record of one add: a batch of messages a client posted
// to be learned from at once, where their extraction stands (PENDING →
// SUCCEEDED | FAILED) and which memories it changed, so a client that got the
// add's id can ask later what came of it. Pure Go, standard library and domain.
package addevent

import (
	"slices"
	"time"

	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
)

// Status is where an add stands.
type Status string

const (
	StatusPending   Status = "PENDING"   // some message waits for extraction (or a retry)
	StatusSucceeded Status = "SUCCEEDED" // every message was extracted or skipped
	StatusFailed    Status = "FAILED"    // a message failed with no retry left
)

// Change is what an add did to one memory.
type Change string

const (
	ChangeAdd    Change = "ADD"    // a memory new to the user (or deleted and written again)
	ChangeUpdate Change = "UPDATE" // content replaced, appended or merged into
	ChangeDelete Change = "DELETE" // deactivated (a correction, a merge's copy)
	ChangeNoop   Change = "NOOP"   // said again: renewed, the content unchanged
)

// Result is one memory the add changed, as it was after the add's last event
// on it.
type Result struct {
	MemoryID string
	Change   Change
	Memory   memory.State
}

// Record is one add.
type Record struct {
	ID             string
	Scope          memory.Scope
	ConversationID string   // the conversation the messages were posted in ("" when none)
	MessageIDs     []string // the client's message ids, in the add's order
	Status         Status
	Results        []Result
	Error          string // why it FAILED
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// MaxMessages bounds one add, as a posted batch is bounded.
const MaxMessages = 500

// New is a PENDING add of the messages just posted.
func New(id string, scope memory.Scope, conversationID string, messageIDs []string, now time.Time) (Record, error) {
	if id == "" || scope.Tenant == "" || scope.User == "" {
		return Record{}, invalid.Field("add", "needs an id, a tenant and a user")
	}
	if n := len(messageIDs); n == 0 || n > MaxMessages {
		return Record{}, invalid.Field("messages", "must hold 1 to %d messages, got %d", MaxMessages, n)
	}
	return Record{ID: id, Scope: scope, ConversationID: conversationID, MessageIDs: slices.Clone(messageIDs),
		Status: StatusPending, CreatedAt: now.UTC(), UpdatedAt: now.UTC()}, nil
}

// NewDone is an add that finished when it was made (memories written as given,
// no extraction): SUCCEEDED with its results.
func NewDone(id string, scope memory.Scope, results []Result, now time.Time) (Record, error) {
	if id == "" || scope.Tenant == "" || scope.User == "" {
		return Record{}, invalid.Field("add", "needs an id, a tenant and a user")
	}
	return Record{ID: id, Scope: scope, Status: StatusSucceeded, Results: slices.Clone(results),
		CreatedAt: now.UTC(), UpdatedAt: now.UTC()}, nil
}

// Done reports whether the add has finished (SUCCEEDED or FAILED).
func (r Record) Done() bool { return r.Status != StatusPending }

// Resolve is the add as its messages now stand, given the messages (any order)
// and the memory events they caused, oldest first. It stays PENDING while a
// message waits or will be retried; a message failed for good makes it FAILED,
// otherwise it SUCCEEDED. A finished add is returned as it is; changed says
// whether the record moved.
func (r Record) Resolve(msgs []conversation.Message, events []memory.Event, now time.Time) (next Record, changed bool) {
	if r.Done() {
		return r, false
	}
	status, reason := statusOf(r.MessageIDs, msgs)
	if status == StatusPending {
		return r, false
	}
	r.Status, r.Error = status, reason
	r.Results = ResultsOf(events)
	r.UpdatedAt = now.UTC()
	return r, true
}

// statusOf is the add's status from its messages; a message not among msgs
// (erased since) counts as done.
func statusOf(ids []string, msgs []conversation.Message) (Status, string) {
	byID := make(map[string]conversation.Message, len(msgs))
	for _, m := range msgs {
		byID[m.ID] = m
	}
	status, reason := StatusSucceeded, ""
	for _, id := range ids {
		m, ok := byID[id]
		switch {
		case !ok:
		case m.Status == conversation.StatusPending || m.WillRetry():
			return StatusPending, ""
		case m.Status == conversation.StatusFailed:
			status, reason = StatusFailed, m.Error
		}
	}
	return status, reason
}

// changes maps the ops of memory events onto what an add reports.
var changes = map[memory.Op]Change{
	memory.OpAdd: ChangeAdd, memory.OpUpdate: ChangeUpdate, memory.OpAppend: ChangeUpdate,
	memory.OpMerge: ChangeUpdate, memory.OpRevert: ChangeUpdate,
	memory.OpDelete: ChangeDelete, memory.OpExpire: ChangeDelete, memory.OpPurge: ChangeDelete,
}

// ResultsOf folds events (oldest first) into one result per memory, in the order
// the memories were first changed: ADD if the add created it, DELETE if its last
// event deactivated it, NOOP if every event left its content as it was (a
// renewal), UPDATE otherwise; the memory as the last event left it.
func ResultsOf(events []memory.Event) []Result {
	var out []Result
	at := map[string]int{}
	for _, e := range events {
		i, seen := at[e.MemoryID]
		if !seen {
			i = len(out)
			at[e.MemoryID] = i
			out = append(out, Result{MemoryID: e.MemoryID, Change: ChangeNoop})
		}
		out[i].Memory = e.After
		out[i].Change = fold(out[i].Change, e, seen)
	}
	return out
}

func fold(prev Change, e memory.Event, seen bool) Change {
	c, ok := changes[e.Op]
	switch {
	case !ok:
		return prev
	case c == ChangeDelete:
		return ChangeDelete
	case prev == ChangeAdd && seen:
		return ChangeAdd
	case c == ChangeUpdate && e.Before != nil && e.Before.Content == e.After.Content && e.Before.Type == e.After.Type && e.Before.Active:
		if prev == ChangeNoop || !seen {
			return ChangeNoop
		}
		return prev
	}
	return c
}
