package promptctx

import (
	"cmp"
	"slices"
	"time"

	"engram/domain/memory"
)

// Trace explains one context call ("why was this
// injected?"): what was asked, what was found, what went into the block and
// why everything else did not.
type Trace struct {
	ID    string
	Scope memory.Scope
	At    time.Time
	Query string // what was retrieved for: the end of a query longer than the limit
	// QueryChars is the length of the query as asked, in characters;
	// QueryTruncated says Query is its end only.
	QueryChars     int
	QueryTruncated bool
	SessionID      string // "" when the call named no session
	FlowID         string
	ModeUsed       string // the memory search's mode
	FallbackReason string // why the memory search answered lexically
	Budget         int    // the budget in characters
	InjectedChars  int    // characters of the block
	// SourceCount counts the injected items by section.
	SourceCount map[Section]int
	// Items are the injected items, in the block's order.
	Items []TraceItem
	// RawHits are every candidate considered, injected or not, each dropped one
	// with its reason.
	RawHits []RawHit
	// Omitted counts, by reason, the candidates the searches never read (their
	// relevance alone ruled them out), which RawHits does not list.
	Omitted map[string]int
	// StandingOverShare counts the standing memories the standing share could
	// not hold (each a raw hit with reason standing_share).
	StandingOverShare int
	// Timings are the stages' wall times.
	Timings map[string]time.Duration
}

// TraceItem is one injected item.
type TraceItem struct {
	ID        string
	Kind      string
	Section   Section
	Source    string
	Score     float64
	Snippet   string
	Truncated bool
	// Purged: what the item quoted was erased since (a purged memory, a deleted
	// message); the snippet is blank and the id says what it was.
	Purged bool
}

// RawHit is one candidate and what became of it.
type RawHit struct {
	ID      string
	Kind    string
	Section Section
	Source  string
	Score   float64
	Kept    bool
	Reason  string // why it was dropped: budget, below_min_score, duplicate, instruction_like…
	Purged  bool   // the candidate was erased since
}

// Why the context call dropped a candidate before packing (the searches' own
// reasons — below_min_score, limit, expired, noise… — pass through as they are).
const (
	ReasonDuplicate       = "duplicate"        // the same text is already a candidate of a section before it
	ReasonInstructionLike = "instruction_like" // reads as an instruction to the assistant, and the call leaves such text out
	ReasonSecret          = "secret"           // holds a secret or an identity number (domain/secret), which never reaches a prompt
	ReasonCurrentSession  = "current_session"  // a past message of this very session: its summary and recent messages stand for it
	ReasonBelowMinScore   = "below_min_score"  // an external item scoring below min_score
)

// OverShare counts the decisions left out for the standing share.
func (p Plan) OverShare() int {
	n := 0
	for _, d := range p.Decisions {
		if d.Reason == ReasonStandingShare {
			n++
		}
	}
	return n
}

// Explain turns a packed plan and the candidates dropped before packing into the
// trace's items, raw hits and source counts: every kept decision is an item and a
// kept raw hit; every other decision is a raw hit with Pack's reason; the early
// drops follow as they are.
func Explain(p Plan, early []RawHit) (items []TraceItem, hits []RawHit, counts map[Section]int) {
	counts = map[Section]int{}
	for _, s := range Order {
		counts[s] = 0
	}
	for _, d := range p.Kept() {
		items = append(items, TraceItem{ID: d.ID, Kind: d.Kind, Section: d.Section, Source: d.Source, Score: d.Score,
			Snippet: Snippet(d.text), Truncated: d.Truncated})
		counts[d.Section]++
	}
	for _, d := range p.Decisions {
		hits = append(hits, RawHit{ID: d.ID, Kind: d.Kind, Section: d.Section, Source: d.Source, Score: d.Score, Kept: d.Kept, Reason: d.Reason})
	}
	return items, append(hits, early...), counts
}

// Redact blanks the snippets of the items whose id is a key of erased and marks
// them, and the raw hits with those ids, purged: the trace no longer quotes what
// was erased but still says that something was there. An id that would itself
// tell what was erased (a memory key is made from its content) is replaced by
// the one erased maps it to, when not empty. It reports whether anything
// changed. The slices are copied before they change, so a trace shared with a
// reader is not written under it.
func (t *Trace) Redact(erased map[string]string) bool {
	changed := false
	clone := func() {
		if !changed {
			t.Items, t.RawHits, changed = slices.Clone(t.Items), slices.Clone(t.RawHits), true
		}
	}
	for i, it := range t.Items {
		id, ok := erased[it.ID]
		if ok && (cmp.Or(id, it.ID) != it.ID || it.Snippet != "" || it.Truncated || !it.Purged) {
			clone()
			t.Items[i].ID = cmp.Or(id, it.ID)
			t.Items[i].Snippet, t.Items[i].Truncated, t.Items[i].Purged = "", false, true
		}
	}
	for i, h := range t.RawHits {
		id, ok := erased[h.ID]
		if ok && (cmp.Or(id, h.ID) != h.ID || !h.Purged) {
			clone()
			t.RawHits[i].ID, t.RawHits[i].Purged = cmp.Or(id, h.ID), true
		}
	}
	return changed
}

// OfSession says whether the trace is of a call that named the session: of
// flowID, or of any flow when flowID is empty.
func (t Trace) OfSession(sessionID, flowID string) bool {
	return t.SessionID == sessionID && (flowID == "" || t.FlowID == flowID)
}
