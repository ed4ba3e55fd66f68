package profile

import "time"

// SessionFact is one of the user's short-term sessions as the
// derivations see it: its flow, how many messages it recorded and when it was
// last active. The session store keeps a session for its TTL (7 days by
// default), so sessions say what the user has done recently.
type SessionFact struct {
	FlowID       string
	FlowName     string
	Messages     int64 // recorded over the session's life, folded ones included
	LastActiveAt time.Time
}

// Turns is how many exchanges the session recorded: each is a user message and
// the assistant's answer.
func (s SessionFact) Turns() int { return int(s.Messages / 2) }

// Conversations joins the conversations the message store counts with the
// user's sessions. A session's turns are written to the message store as a
// conversation named by the session id, so the two overlap; the larger count is
// taken (a lower bound of their union), and the latest time of either.
func Conversations(stored int, last time.Time, sessions []SessionFact) (int, time.Time) {
	for _, s := range sessions {
		if s.LastActiveAt.After(last) {
			last = s.LastActiveAt
		}
	}
	return max(stored, len(sessions)), last
}
