package memory

import "time"

// Intent is one draft to write under one key, as every write path (memory_save,
// extraction) asks for it.
type Intent struct {
	Scope Scope
	Key   Key
	Draft Draft
	// Restates reports whether the draft says again what the live memory under
	// the key says: then the write only renews it (Renewed). Nil: never.
	Restates func(live Memory) bool
	// Append adds the draft's content to the live memory instead of replacing
	// it; when the result would be too long, the draft replaces it.
	Append bool
}

// Write is the change writing in over current (nil: the key holds nothing) makes
// at now: a new memory (ADD); a live one restated (UPDATE, its expiry restarted),
// appended to (APPEND) or replaced (UPDATE); a deleted or expired one written
// again (ADD: it is new to the user). ok is false when nothing changes: the
// draft restates a memory whose expiry cannot restart. ids names the new memory
// and the event.
func Write(current *Memory, in Intent, p Policy, ids func() string, now time.Time) (c Change, ok bool, err error) {
	if current == nil {
		next, err := New(ids(), in.Scope, in.Key, in.Draft, p, now)
		if err != nil {
			return Change{}, false, err
		}
		return Change{Memory: next, Event: NewEvent(ids(), OpAdd, nil, next)}, true, nil
	}
	live := current.IsLive(now)
	if live && in.Restates != nil && in.Restates(*current) {
		next, renewed := current.Renewed(in.Draft.Source, now)
		if !renewed {
			return Change{}, false, nil
		}
		return Change{Memory: next, Event: NewEvent(ids(), OpUpdate, current, next)}, true, nil
	}
	if live && in.Append {
		if next, err := current.Append(in.Draft.Content, in.Draft.Source, now); err == nil {
			return Change{Memory: next, Event: NewEvent(ids(), OpAppend, current, next)}, true, nil
		}
	}
	next, err := current.Replace(in.Draft, p, now)
	if err != nil {
		return Change{}, false, err
	}
	op := OpUpdate
	if !live {
		op = OpAdd
	}
	return Change{Memory: next, Event: NewEvent(ids(), op, current, next)}, true, nil
}
