package retrieval

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"engram/domain/clip"
	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
)

// What a search looks through (the request's "scope").
const (
	WithinMemories = "memories"
	WithinMessages = "messages"
	WithinAll      = "all"
)

// Search is POST /v1/users/{user}/search.
type Search struct {
	Scope memory.Scope
	Query string
	// Summary is the session summary; it joins the question in the text embedded
	// for dense retrieval (query = question + session summary).
	Summary string
	// Within is memories (default), messages or all.
	Within string
	// Mode is auto, dense, lexical or full_inject; empty: the configured default.
	Mode string
	// Limit is 1..100; 0: the configured default (full_inject: every live memory up
	// to the scan limit).
	Limit int
	// Types keeps memories of these types (memories only).
	Types []string
	// ConversationID keeps messages of this conversation (messages only).
	ConversationID string
	// AgentID, AppID and RunID keep the memories whose id of that kind is the one
	// given (memories only): a memory of another agent, or of none, is left out.
	AgentID, AppID, RunID string
	// Since (inclusive) and Until (exclusive) bound when a message was said or a
	// memory last changed; zero: unbounded.
	Since, Until time.Time
	// MinScore is the least score an item needs; nil: the configured
	// LONG_TERM_MEMORY_MIN_SCORE. full_inject ignores it.
	MinScore *float64
	// IncludeSecrets returns memories flagged secret and messages that hold a
	// secret, which a search otherwise leaves out (unless ENGRAM_SECRETS is off).
	IncludeSecrets bool
	// Explain reports the candidates the search left out and why
	// (Result.Dropped, Result.Unread), for a caller that traces its decisions
	// (the context call).
	Explain bool
}

// Item is one result: a memory or a message with its score and breakdown.
type Item struct {
	Kind      memory.Kind
	Memory    *memory.Memory
	Message   *conversation.Message
	Score     float64
	Breakdown ranking.Breakdown
}

// Result is a search's answer. FallbackReason says why a search that asked for
// vectors answered from lexical search (ModeUsed is then lexical).
type Result struct {
	Items          []Item
	ModeUsed       Mode
	FallbackReason string
	// Dropped (with Search.Explain) are the candidates the search read and left
	// out, each with its reason (Drop*), best first within a reason.
	Dropped []Dropped
	// Unread (with Search.Explain) counts, by reason, the candidates the
	// retrievers found that were never read: their relevance alone ruled them
	// out (below_min_score, limit), or the truth store no longer has them
	// (missing).
	Unread map[string]int
	// QueryTruncated: the query was longer than QueryMaxChars and its end was
	// searched for.
	QueryTruncated bool
}

// Why a search left a candidate out (Search.Explain).
const (
	DropBelowMinScore = "below_min_score" // its score (or relevance) is below min_score
	DropLimit         = "limit"           // it scored below the best limit items
	DropExpired       = "expired"         // a memory past its expires_at
	DropInactive      = "inactive"        // a deleted memory
	DropNoise         = "noise"           // a memory under a noise key (weather-date_*, tool-*…)
	DropFiltered      = "filtered"        // outside the search's types, conversation or time range
	DropMissing       = "missing"         // the index knows it, the truth store no longer does
	DropSecret        = "secret"          // holds a secret, and the search did not ask for secrets
)

// Dropped is a candidate a search read and left out.
type Dropped struct {
	Kind    memory.Kind
	Memory  *memory.Memory
	Message *conversation.Message
	// Score is the score it had; for one dropped before it was scored, its
	// relevance (the most it could have scored).
	Score  float64
	Reason string
}

// plan is a validated search.
type plan struct {
	Search
	mode     Mode
	kinds    []memory.Kind
	types    []memory.Type
	limit    int
	minScore float64
	now      time.Time
	queryCut bool     // Query is the end of a longer one
	terms    []string // the analysed query
	// memoryTerms and related are the query memories are searched with (the
	// Expander's, when there is one; see lexicalQuery).
	memoryTerms []string
	related     []ports.RelatedTerm
	explain     *explanation // nil unless Search.Explain
}

// explanation collects what a search left out (Search.Explain).
type explanation struct {
	dropped []Dropped
	unread  map[string]int
}

// unreadN counts n candidates left out unread for reason; no-op without Explain.
func (x *explanation) unreadN(reason string, n int) {
	if x != nil && n > 0 {
		x.unread[reason] += n
	}
}

// drop records a candidate read and left out; no-op without Explain.
func (x *explanation) drop(it Item, score float64, reason string) {
	if x != nil {
		x.dropped = append(x.dropped, Dropped{Kind: it.Kind, Memory: it.Memory, Message: it.Message, Score: score, Reason: reason})
	}
}

// deadReason says why a memory that is not live is left out.
func deadReason(m memory.Memory, now time.Time) string {
	switch {
	case !m.Active():
		return DropInactive
	case m.IsExpired(now):
		return DropExpired
	}
	return DropNoise
}

// parse validates a search against the configured defaults; every invalid field
// is reported at once.
func (s *Service) parse(q Search) (plan, error) {
	p := plan{Search: q, now: s.deps.Clock.Now()}
	p.Query = strings.TrimSpace(q.Query)
	errs := []error{
		p.parseMode(q.Mode, s.opts.DefaultMode),
		p.parseWithin(q.Within, s.deps.Messages != nil),
		p.checkQuery(s.opts.QueryMaxChars),
		p.parseLimit(q.Limit, s.opts.DefaultLimit, s.opts.ScanLimit),
		p.parseTypes(q.Types),
		p.parseMinScore(q.MinScore, s.opts.MinScore),
	}
	if q.ConversationID != "" {
		errs = append(errs, conversation.ValidateID("conversation_id", q.ConversationID))
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Since.After(q.Until) {
		errs = append(errs, invalid.Field("since", "must not be after until"))
	}
	if err := invalid.Join(errs...); err != nil {
		return plan{}, err
	}
	s.analyse(&p)
	if q.Explain {
		p.explain = &explanation{unread: map[string]int{}}
	}
	return p, nil
}

// analyse sets the plan's terms from its query: its own, and the ones memories
// are searched with.
func (s *Service) analyse(p *plan) {
	p.terms = s.deps.Analyzer.Terms(p.Query)
	p.memoryTerms, p.related = p.terms, nil
	if s.deps.Expander != nil && slices.Contains(p.kinds, memory.KindMemory) {
		p.memoryTerms, p.related = s.deps.Expander.Expand(p.Query)
	}
}

func (p *plan) parseMode(mode string, fallback Mode) error {
	p.mode = fallback
	m := strings.ToLower(strings.TrimSpace(mode))
	if m == "" {
		return nil
	}
	p.mode = Mode(m)
	if !slices.Contains(Modes, p.mode) {
		return invalid.FieldValue("mode", mode, "must be one of auto, dense, lexical, full_inject")
	}
	return nil
}

// parseWithin reads the scope (after the mode: full_inject returns memories).
func (p *plan) parseWithin(within string, messages bool) error {
	switch strings.ToLower(strings.TrimSpace(within)) {
	case "", WithinMemories:
		p.kinds = []memory.Kind{memory.KindMemory}
	case WithinMessages:
		p.kinds = []memory.Kind{memory.KindMessage}
		if p.mode == ModeFullInject {
			return invalid.FieldValue("scope", within, "full_inject returns memories; use scope memories or all, or another mode")
		}
	case WithinAll:
		p.kinds = []memory.Kind{memory.KindMemory, memory.KindMessage}
		if p.mode == ModeFullInject {
			p.kinds = p.kinds[:1]
		}
	default:
		return invalid.FieldValue("scope", within, "must be one of memories, messages, all")
	}
	if !messages {
		p.kinds = slices.DeleteFunc(p.kinds, func(k memory.Kind) bool { return k == memory.KindMessage })
	}
	return nil
}

// checkQuery refuses an empty or invalid query, and cuts one longer than
// maxChars to its end (where the question usually is) instead of refusing it.
func (p *plan) checkQuery(maxChars int) error {
	var errs []error
	if p.Query == "" && p.mode != ModeFullInject {
		errs = append(errs, invalid.Field("query", "must not be empty (only full_inject works without a query)"))
	}
	if !utf8.ValidString(p.Query) {
		errs = append(errs, invalid.Field("query", "must be valid UTF-8"))
	}
	p.Query, p.queryCut = clip.Tail(p.Query, maxChars)
	return invalid.Join(errs...)
}

func (p *plan) parseLimit(limit, fallback, scanLimit int) error {
	switch {
	case limit < 0 || limit > MaxLimit:
		return invalid.FieldValue("limit", limit, "must be between 1 and %d", MaxLimit)
	case limit > 0:
		p.limit = limit
	case p.mode == ModeFullInject:
		p.limit = scanLimit
	default:
		p.limit = fallback
	}
	return nil
}

// parseTypes reads memory types, given as a list or comma-separated.
func (p *plan) parseTypes(types []string) error {
	var errs []error
	for _, t := range types {
		for part := range strings.SplitSeq(t, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			typ, err := memory.ParseType(part)
			if err != nil {
				errs = append(errs, invalid.FieldValue("types", part, "must be one of preference, fact, goal, project, constraint"))
				continue
			}
			p.types = append(p.types, typ)
		}
	}
	return invalid.Join(errs...)
}

func (p *plan) parseMinScore(minScore *float64, fallback float64) error {
	p.minScore = fallback
	if minScore == nil {
		return nil
	}
	if !(*minScore >= 0 && *minScore <= 1) {
		return invalid.FieldValue("min_score", *minScore, "must be between 0 and 1: scores are relevance in [0, 1]")
	}
	p.minScore = *minScore
	return nil
}
