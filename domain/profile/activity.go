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
	var errs []error
	if n := utf8.RuneCountInString(a.EventID); n == 0 || n > MaxEventIDLen {
		errs = append(errs, invalid.Field("event_id", "must be 1 to %d characters (not only spaces), got %d", MaxEventIDLen, n))
	}
	switch a.Kind {
	case ActivityTaskAssigned, ActivityTaskCreated, ActivityTaskCompleted, ActivityWorkflowUsed:
	default:
		errs = append(errs, invalid.FieldValue("kind", in.Kind, "must be one of task_assigned, task_created, task_completed, workflow_used"))
	}
	switch {
	case a.At.IsZero():
		errs = append(errs, invalid.Field("at", "is required: when it happened (RFC 3339)"))
	case a.At.Before(time.Unix(0, 0)):
		errs = append(errs, invalid.FieldValue("at", a.At.UTC().Format(time.RFC3339), "must not be before 1970"))
	case a.At.After(now.Add(MaxFutureSkew)):
		errs = append(errs, invalid.FieldValue("at", a.At.UTC().Format(time.RFC3339), "must not be more than a day in the future"))
	}
	if n := utf8.RuneCountInString(a.FlowID); n > MaxFlowIDLen {
		errs = append(errs, invalid.Field("flow_id", "must be at most %d characters, got %d", MaxFlowIDLen, n))
	}
	if n := utf8.RuneCountInString(a.FlowName); n > MaxFlowNameLen {
		errs = append(errs, invalid.Field("flow_name", "must be at most %d characters, got %d", MaxFlowNameLen, n))
	}
	if a.Kind == ActivityWorkflowUsed && a.FlowID == "" {
		errs = append(errs, invalid.Field("flow_id", "is required for workflow_used: which workflow was run"))
	}
	if in.DurationH != nil {
		d := *in.DurationH
		switch {
		case a.Kind != ActivityTaskCompleted:
			errs = append(errs, invalid.Field("duration_h", "is only for task_completed events (hours the task took)"))
		case math.IsNaN(d) || d < 0 || d > MaxDurationHours:
			errs = append(errs, invalid.FieldValue("duration_h", d, "must be between 0 and %d hours", MaxDurationHours))
		default:
			a.DurationH, a.HasDuration = d, true
		}
	}
	if err := invalid.Join(errs...); err != nil {
		return Activity{}, err
	}
	a.At = a.At.UTC()
	return a, nil
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
