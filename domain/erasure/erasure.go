// Package erasure holds the rules of forgetting: in which order a
// user's data is purged, which memories go with a deleted message, how the counts
// of a purge add up, and who may be named as having asked for it.
//
// It is pure Go: it imports only the standard library and domain packages, and
// does no I/O. The use cases that apply these rules live in app/erasure.
package erasure

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"engram/domain/memory"
)

// Phase orders the steps of a user's purge. Every truth step runs before any
// derived step: a vector or a lexical document is rebuilt from the truth store, so
// deleting it while its source row still exists would let the indexer bring it back.
type Phase int

const (
	// PhaseTruth deletes the rows other data is derived from: memories, their
	// history, messages, jobs, and later sessions, summaries, traces, profiles.
	PhaseTruth Phase = iota
	// PhaseDerived deletes what was built from them: vectors, lexical documents,
	// caches.
	PhaseDerived
)

func (p Phase) String() string {
	switch p {
	case PhaseTruth:
		return "truth"
	case PhaseDerived:
		return "derived"
	}
	return fmt.Sprintf("phase(%d)", int(p))
}

// Step is one registered part of a purge: a store or an index that removes
// everything of a user it holds.
type Step struct {
	Name  string // what it purges, e.g. "sql", "vectors", "lexical", "sessions"
	Phase Phase
}

// Plan is the order in which a purge runs its steps.
type Plan struct {
	Steps []Step
}

// NewPlan orders the steps: truth before derived, and within a phase in the order
// they were registered. Names must be unique and not empty.
func NewPlan(steps []Step) (Plan, error) {
	seen := make(map[string]bool, len(steps))
	for _, s := range steps {
		switch {
		case strings.TrimSpace(s.Name) == "":
			return Plan{}, fmt.Errorf("erasure: a purge step has no name")
		case seen[s.Name]:
			return Plan{}, fmt.Errorf("erasure: two purge steps are named %q", s.Name)
		case s.Phase != PhaseTruth && s.Phase != PhaseDerived:
			return Plan{}, fmt.Errorf("erasure: purge step %q has an unknown phase %d", s.Name, s.Phase)
		}
		seen[s.Name] = true
	}
	ordered := slices.Clone(steps)
	slices.SortStableFunc(ordered, func(a, b Step) int { return cmp.Compare(a.Phase, b.Phase) })
	return Plan{Steps: ordered}, nil
}

// Tally adds what one step removed to the counts of the whole purge. Kinds with
// nothing removed are still recorded (0), so the job says what it looked at.
func Tally(total map[string]int, removed map[string]int64) map[string]int {
	if total == nil {
		total = map[string]int{}
	}
	for kind, n := range removed {
		total[kind] += int(n)
	}
	return total
}

// CascadeKeys is the memories that go with a deleted message: every key with an
// event whose source is the message (it was created, updated or appended from it,
// so its content or its history holds what the message said), each once, in the
// order of their first event.
func CascadeKeys(events []memory.Event) []memory.Key {
	var keys []memory.Key
	seen := map[memory.Key]bool{}
	for _, e := range events {
		if !seen[e.Key] {
			seen[e.Key] = true
			keys = append(keys, e.Key)
		}
	}
	return keys
}

// BusyBackoff is how long a purge waits before trying a step again that found
// rows claimed by a worker (an extraction or an indexer batch in flight): 50 ms
// doubling to at most 2 s.
func BusyBackoff(attempt int) time.Duration {
	d := 50 * time.Millisecond << min(max(attempt, 0), 6)
	return min(d, 2*time.Second)
}

// RetryDelay is how long an erasure whose run failed (a store down, a step that
// kept finding its rows claimed) waits before its next run: 5 s after the first
// failure, doubling, at most 5 min. An erasure is never given up: until it is done
// the user's data is hidden and cannot change.
func RetryDelay(attempts int) time.Duration {
	d := 5 * time.Second << min(max(attempts-1, 0), 10)
	return min(d, 5*time.Minute)
}

// DefaultActor names who asked for an erasure when the request names nobody: the
// holder of the tenant's API key.
const DefaultActor = "api-key"

// ParseActor validates who asked (the X-Acting-User of the request), kept in the
// audit record; empty means DefaultActor.
func ParseActor(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return DefaultActor, nil
	}
	if err := memory.ValidateUserID("X-Acting-User", raw); err != nil {
		return "", err
	}
	return raw, nil
}

// LearnedOnlyFrom says whether a memory goes with a deleted chat: every event of
// its history that brought content (ADD, UPDATE, APPEND, MERGE) came from that
// conversation. A memory another conversation, a tool or a person also wrote is
// kept: it is theirs as much as the chat's (a message deleted with its cascade is
// the way to purge it too).
func LearnedOnlyFrom(conversationID string, history []memory.Event) bool {
	taught := false
	for _, e := range history {
		switch e.Op {
		case memory.OpAdd, memory.OpUpdate, memory.OpAppend, memory.OpMerge:
			if e.Source.ConversationID != conversationID {
				return false
			}
			taught = true
		}
	}
	return taught
}
