package session

import (
	"engram/domain/invalid"
	"engram/domain/memory"
)

// Ref names one session: the smallest unit of isolation (user, flow, session),
// inside a tenant.
type Ref struct {
	Scope     memory.Scope
	FlowID    string
	SessionID string
}

// ParseRef validates the ids a client sent: flow_id and the session id are 1–128
// characters without control characters or invalid UTF-8 (the rule of user and
// conversation ids). Both failures are reported together.
func ParseRef(scope memory.Scope, flowID, sessionID string) (Ref, error) {
	if err := invalid.Join(ValidateSessionID(sessionID), ValidateFlowID(flowID)); err != nil {
		return Ref{}, err
	}
	return Ref{Scope: scope, FlowID: flowID, SessionID: sessionID}, nil
}

// ValidateSessionID checks a session id; the field is "session" (the path
// parameter).
func ValidateSessionID(id string) error { return memory.ValidateUserID("session", id) }

// ValidateFlowID checks a flow id; the field is "flow_id".
func ValidateFlowID(id string) error { return memory.ValidateUserID("flow_id", id) }

// String names the session in messages ("session \"s1\" of flow \"f1\"").
func (r Ref) String() string {
	return "session " + quote(r.SessionID) + " of flow " + quote(r.FlowID)
}

func quote(s string) string {
	const max = 200 // an error quotes at most 200 characters of a value
	r := []rune(s)
	if len(r) > max {
		s = string(r[:max]) + "…"
	}
	return `"` + s + `"`
}
