package session

import (
	"fmt"
	"time"
)

// Policy says when a session's older messages are folded into its summary and
// which ones (past a threshold, everything but the most recent messages;
// the summary is recursive, previous summary + slice → new summary).
type Policy struct {
	// Threshold: a session holding at least this many messages is folded
	// (default 30: fifteen turns).
	Threshold int
	// Keep: the most recent messages the fold leaves as they are.
	Keep int
	// RetryDelay: a fold that failed is tried again after this.
	RetryDelay time.Duration
}

// Defaults of Policy.
const (
	DefaultThreshold  = 30
	DefaultKeep       = 10
	DefaultRetryDelay = 30 * time.Second
)

// WithDefaults fills the zero fields.
func (p Policy) WithDefaults() Policy {
	if p.Threshold <= 0 {
		p.Threshold = DefaultThreshold
	}
	if p.Keep <= 0 {
		p.Keep = DefaultKeep
	}
	if p.RetryDelay <= 0 {
		p.RetryDelay = DefaultRetryDelay
	}
	return p
}

// Check says what is wrong with the policy for a store keeping maxHistory
// messages: the fold must come before the trim, or messages are trimmed without
// ever reaching the summary, and it must fold something.
func (p Policy) Check(maxHistory int) error {
	switch {
	case p.Keep < 0 || p.Keep >= p.Threshold:
		return fmt.Errorf("the messages kept (%d) must be fewer than the fold threshold (%d)", p.Keep, p.Threshold)
	case p.Threshold > maxHistory:
		return fmt.Errorf("the fold threshold (%d) must not exceed the maximum history (%d): older messages would be trimmed before they are folded", p.Threshold, maxHistory)
	}
	return nil
}

// Due reports whether a session holding held messages is to be folded.
func (p Policy) Due(held int) bool { return held >= p.Threshold }

// RetryAt is when a fold that failed at now is tried again.
func (p Policy) RetryAt(now time.Time) time.Time { return now.Add(p.RetryDelay) }

// FoldPlan is what one fold does: Previous and Slice become the new summary,
// written onto BaseVersion, and the Slice's messages leave the session.
type FoldPlan struct {
	Ref         Ref
	BaseVersion int64
	Previous    string
	Slice       []Message
}

// Plan decides the fold of a session read whole (every held message, oldest
// first). It folds all but the Keep most recent messages, and moves the cut back
// to an exchange boundary so a turn is never split between summary and messages.
// ok is false when the session is not due or nothing can be folded.
func (p Policy) Plan(v View) (FoldPlan, bool) {
	if !p.Due(len(v.Messages)) {
		return FoldPlan{}, false
	}
	cut := len(v.Messages) - p.Keep
	for cut > 0 && cut < len(v.Messages) && v.Messages[cut].ExchangeID == v.Messages[cut-1].ExchangeID {
		cut--
	}
	if cut <= 0 {
		return FoldPlan{}, false
	}
	return FoldPlan{
		Ref:         v.Meta.Ref,
		BaseVersion: v.Summary.Version,
		Previous:    v.Summary.Text,
		Slice:       append([]Message(nil), v.Messages[:cut]...),
	}, true
}

// Fold is a fold ready to be applied: the new summary, the ids of the messages it
// replaces, and the claim it was made under.
type Fold struct {
	Ref         Ref
	Holder      string
	BaseVersion int64
	MessageIDs  []string
	Summary     string
	At          time.Time
	// FoldAt is the policy's threshold: a session still holding this many
	// messages after the fold stays queued.
	FoldAt int
}

// Fold turns the plan into the fold to apply, with the summary made of it.
func (fp FoldPlan) Fold(summary, holder string, foldAt int, now time.Time) Fold {
	ids := make([]string, len(fp.Slice))
	for i, m := range fp.Slice {
		ids[i] = m.ID
	}
	return Fold{Ref: fp.Ref, Holder: holder, BaseVersion: fp.BaseVersion, MessageIDs: ids,
		Summary: summary, At: now.UTC().Truncate(time.Microsecond), FoldAt: foldAt}
}
