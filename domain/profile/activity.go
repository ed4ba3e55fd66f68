package profile

import (
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"engram/domain/invalid"
	"engram/domain/memory"
)

// ActivityKind is what happened (it feeds the task and workflow statistics).
type ActivityKind string

const (
	ActivityTaskAssigned  ActivityKind = "task_assigned"  // a task was assigned to the user
	ActivityTaskCreated   ActivityKind = "task_created"   // the user created a task
	ActivityTaskCompleted ActivityKind = "task_completed" // the user completed a task
	ActivityWorkflowUsed  ActivityKind = "workflow_used"  // the user ran a workflow
)

// Limits of activity events.
const (
	MaxEventIDLen    = 128
	MaxFlowIDLen     = 128
	MaxFlowNameLen   = 100
	MaxDurationHours = 24 * 365
	// MaxFutureSkew is how far ahead of the server's clock an event may be dated.
	MaxFutureSkew = 24 * time.Hour
)

// ActivityInput is an event as a client posts it.
type ActivityInput struct {
	EventID   string
	Kind      string
	At        time.Time
	FlowID    string
	FlowName  string
	DurationH *float64
}

// Activity is one stored activity event of a user.
type Activity struct {
	Scope       memory.Scope
	EventID     string
	Kind        ActivityKind
	At          time.Time
	FlowID      string
	FlowName    string
	DurationH   float64
	HasDuration bool
	ReceivedAt  time.Time
}

// NewActivity validates a posted event. A workflow_used event names its flow; only
// task_completed carries a duration (hours from assignment to completion).
func NewActivity(scope memory.Scope, in ActivityInput, now time.Time) (Activity, error) {
	a := Activity{
		Scope:      scope,
		EventID:    strings.TrimSpace(in.EventID),
		Kind:       ActivityKind(strings.TrimSpace(in.Kind)),
		At:         in.At,
		FlowID:     strings.TrimSpace(in.FlowID),
		FlowName:   strings.TrimSpace(in.FlowName),
		ReceivedAt: now,
	}
	errs := []error{
		checkEventID(a.EventID),
		checkKind(a.Kind, in.Kind),
		checkAt(a.At, now),
		checkMaxLen("flow_id", a.FlowID, MaxFlowIDLen),
		checkMaxLen("flow_name", a.FlowName, MaxFlowNameLen),
		checkFlowNamed(a),
	}
	if in.DurationH != nil {
		err := checkDuration(a.Kind, *in.DurationH)
		errs = append(errs, err)
		if err == nil {
			a.DurationH, a.HasDuration = *in.DurationH, true
		}
	}
	if err := invalid.Join(errs...); err != nil {
		return Activity{}, err
	}
	a.At = a.At.UTC()
	return a, nil
}

// The checks of NewActivity, one per rule; each returns nil when the event obeys it,
// so that NewActivity reports every broken rule at once.

func checkEventID(id string) error {
	if n := utf8.RuneCountInString(id); n == 0 || n > MaxEventIDLen {
		return invalid.Field("event_id", "must be 1 to %d characters (not only spaces), got %d", MaxEventIDLen, n)
	}
	return nil
}

// checkKind reports the kind as the client wrote it, untrimmed.
func checkKind(kind ActivityKind, raw string) error {
	switch kind {
	case ActivityTaskAssigned, ActivityTaskCreated, ActivityTaskCompleted, ActivityWorkflowUsed:
		return nil
	}
	return invalid.FieldValue("kind", raw, "must be one of task_assigned, task_created, task_completed, workflow_used")
}

// checkAt allows a day of clock skew into the future: clients' clocks drift.
func checkAt(at, now time.Time) error {
	switch {
	case at.IsZero():
		return invalid.Field("at", "is required: when it happened (RFC 3339)")
	case at.Before(time.Unix(0, 0)):
		return invalid.FieldValue("at", at.UTC().Format(time.RFC3339), "must not be before 1970")
	case at.After(now.Add(MaxFutureSkew)):
		return invalid.FieldValue("at", at.UTC().Format(time.RFC3339), "must not be more than a day in the future")
	}
	return nil
}

func checkMaxLen(field, value string, limit int) error {
	if n := utf8.RuneCountInString(value); n > limit {
		return invalid.Field(field, "must be at most %d characters, got %d", limit, n)
	}
	return nil
}

// checkFlowNamed: a workflow run without its flow cannot count towards favourites.
func checkFlowNamed(a Activity) error {
	if a.Kind == ActivityWorkflowUsed && a.FlowID == "" {
		return invalid.Field("flow_id", "is required for workflow_used: which workflow was run")
	}
	return nil
}

// checkDuration: only a completion has a duration (hours from assignment to
// completion).
func checkDuration(kind ActivityKind, hours float64) error {
	switch {
	case kind != ActivityTaskCompleted:
		return invalid.Field("duration_h", "is only for task_completed events (hours the task took)")
	case math.IsNaN(hours) || hours < 0 || hours > MaxDurationHours:
		return invalid.FieldValue("duration_h", hours, "must be between 0 and %d hours", MaxDurationHours)
	}
	return nil
}

// SameAs reports whether two events with one id say the same thing (arrival aside):
// a repeat is a retry, a difference is a client bug.
func (a Activity) SameAs(b Activity) bool {
	return a.Scope == b.Scope && a.EventID == b.EventID && a.Kind == b.Kind && a.At.Equal(b.At) &&
		a.FlowID == b.FlowID && a.FlowName == b.FlowName && a.HasDuration == b.HasDuration &&
		(!a.HasDuration || a.DurationH == b.DurationH)
}

// ActivityTally sums a user's events of one kind and flow (FlowID "" for events
// without a flow): what the task statistics and favourite workflows are derived
// from, so a user with years of events costs one aggregate row per flow.
type ActivityTally struct {
	Kind          ActivityKind
	FlowID        string
	FlowName      string // the name of the flow's latest event that had one
	Count         int
	DurationSum   float64 // over the events with a duration
	DurationCount int
	LastAt        time.Time
}
