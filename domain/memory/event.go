package memory

import "time"

// Op is the kind of change an event records.
type Op string

const (
	OpAdd    Op = "ADD"    // a new memory, or a deleted one written again
	OpUpdate Op = "UPDATE" // content replaced
	OpAppend Op = "APPEND" // content appended
	OpDelete Op = "DELETE" // deactivated by a user or an agent
	OpRevert Op = "REVERT" // restored to what an earlier event left
	OpMerge  Op = "MERGE"  // a duplicate folded into this memory
	OpExpire Op = "EXPIRE" // deactivated because its TTL passed
	// OpPurge records that the memory and the content of its history were erased
	// (memory_delete with purge, or a cascade from a deleted message). It is the
	// only event left of the key, and it holds no content.
	OpPurge Op = "PURGE"
)

// Event records one change with the memory before and after it, so that what the
// system remembered can be shown and undone. Before is nil for the first ADD.
type Event struct {
	ID       string
	Scope    Scope
	Key      Key
	MemoryID string
	Op       Op
	Before   *State
	After    State
	Source   Source
	At       time.Time
}

// NewEvent records the change from before (nil if the memory is new) to after.
func NewEvent(id string, op Op, before *Memory, after Memory) Event {
	e := Event{
		ID:       id,
		Scope:    after.s.Scope,
		Key:      after.s.Key,
		MemoryID: after.s.ID,
		Op:       op,
		After:    after.s,
		Source:   after.s.Source,
		At:       after.s.UpdatedAt,
	}
	if before != nil {
		b := before.s
		e.Before = &b
	}
	return e
}

// NewPurgeEvent is the one event that stays of a purged memory: PURGE, no before,
// and an after without content (Memory.Purged).
func NewPurgeEvent(id string, m Memory, channel Channel, now time.Time) Event {
	return NewEvent(id, OpPurge, nil, m.Purged(channel, now))
}

// Change is what a write produces: the memory as it now is and the event that says
// how it got there. Storage writes both or neither.
type Change struct {
	Memory Memory
	Event  Event
}
