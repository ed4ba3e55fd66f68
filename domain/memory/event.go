package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

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
// and an after without content (Memory.Purged), filed under PurgedKey: keys that
// extraction makes name what was learned ("allergy.peanuts"), so the record that
// something was purged must not keep the key itself.
func NewPurgeEvent(id string, m Memory, channel Channel, now time.Time) Event {
	after := m.Purged(channel, now)
	after.s.Key = PurgedKey(m.s.Scope, m.s.Key)
	e := NewEvent(id, OpPurge, nil, after)
	return e
}

// PurgedKey is the key a purged memory's PURGE event is filed under: "purged."
// and the hex SHA-256 of the scope and the key. Whoever knows the key finds the
// event (the stores' History looks under both); the event alone does not tell the
// key.
func PurgedKey(scope Scope, key Key) Key {
	sum := sha256.Sum256([]byte(scope.Tenant + "\x00" + scope.User + "\x00" + key.String()))
	k, _ := ParseKey("purged." + hex.EncodeToString(sum[:]))
	return k
}

// Change is what a write produces: the memory as it now is and the event that says
// how it got there. Storage writes both or neither.
type Change struct {
	Memory Memory
	Event  Event
}
