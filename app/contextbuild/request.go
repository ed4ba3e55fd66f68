package contextbuild

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"engram/domain/clip"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/domain/session"
)

// Request is POST /v1/users/{user}/context (README "Context").
type Request struct {
	Scope     memory.Scope
	Query     string
	FlowID    string // optional; with SessionID and no FlowID, the session's most recently active flow
	SessionID string // optional: without it, no summary or recent messages, and every past message is an episode
	// MaxMemories is 1..100; 0: the configured LONG_TERM_MEMORY_RETRIEVE_LIMIT.
	MaxMemories int
	// BudgetChars is the hard cap on the block, 1..MaxBudgetChars; 0: the configured budget.
	BudgetChars int
	// Include names the sections wanted (profile, recent, summary, memories,
	// episodes); empty: all of them.
	Include  []string
	External []ExternalInput
	// IncludeInstructionLike injects instruction-like items, quoted and marked;
	// nil: the configured default (leave them out).
	IncludeInstructionLike *bool
}

// ExternalInput is an item the caller passes: a knowledge-base chunk, data an MCP
// tool returned.
type ExternalInput struct {
	Source string
	Text   string
	// Score, when given, is the caller's relevance in [0, 1], used as it is;
	// without it the text is scored against the query lexically, on the scale
	// of the search.
	Score *float64
}

// plan is a validated request.
type plan struct {
	Request
	include            map[promptctx.Section]bool
	budget             int
	maxMemories        int
	instructionLikeToo bool
	ref                *session.Ref // the session as the request names it; nil without one
	asked              string       // the query as asked (the search cuts it the same way, and searches its ask too)
	queryChars         int          // characters of the query as asked
	queryCut           bool         // Query is the end of a longer query
}

// parse validates a request; every invalid field is reported at once.
func (s *Service) parse(r Request) (plan, error) {
	p := plan{Request: r, budget: r.BudgetChars, maxMemories: r.MaxMemories, instructionLikeToo: s.opts.IncludeInstructionLike}
	p.Query = strings.TrimSpace(r.Query)
	var errs []error
	if p.Query == "" {
		errs = append(errs, invalid.Field("query", "must not be empty: the question the agent is about to answer"))
	}
	// A long query (a pasted log) is served, not refused: its end, where the
	// question usually is, is what is retrieved for.
	p.asked, p.queryChars = p.Query, utf8.RuneCountInString(p.Query)
	p.Query, p.queryCut = clip.Tail(p.Query, s.opts.QueryMaxChars)
	switch {
	case r.BudgetChars == 0:
		p.budget = s.opts.BudgetChars
	case r.BudgetChars < 0 || r.BudgetChars > MaxBudgetChars:
		errs = append(errs, invalid.FieldValue("budget_chars", r.BudgetChars, "must be between 1 and %d characters", MaxBudgetChars))
	}
	switch {
	case r.MaxMemories == 0:
		p.maxMemories = s.opts.MaxMemories
	case r.MaxMemories < 0 || r.MaxMemories > MaxLimit:
		errs = append(errs, invalid.FieldValue("max_memories", r.MaxMemories, "must be between 1 and %d", MaxLimit))
	}
	include, err := promptctx.ParseInclude(r.Include)
	p.include = include
	errs = append(errs, err, p.parseSession(), validateExternal(r.External))
	if r.IncludeInstructionLike != nil {
		p.instructionLikeToo = *r.IncludeInstructionLike
	}
	return p, invalid.Join(errs...)
}

// parseSession checks the session ids; a flow without a session is refused.
func (p *plan) parseSession() error {
	switch {
	case p.SessionID == "" && p.FlowID != "":
		return invalid.Field("session_id", "must be given with flow_id: flow_id names the flow of a session")
	case p.SessionID == "":
		return nil
	}
	errs := []error{memory.ValidateUserID("session_id", p.SessionID)}
	if p.FlowID != "" {
		errs = append(errs, session.ValidateFlowID(p.FlowID))
	}
	if err := invalid.Join(errs...); err != nil {
		return err
	}
	p.ref = &session.Ref{Scope: p.Scope, FlowID: p.FlowID, SessionID: p.SessionID}
	return nil
}

func validateExternal(items []ExternalInput) error {
	if len(items) > MaxExternal {
		return invalid.FieldValue("external", len(items), "must hold at most %d items, got %d", MaxExternal, len(items))
	}
	var errs []error
	for i, it := range items {
		field := func(name string) string { return fmt.Sprintf("external[%d].%s", i, name) }
		if n := utf8.RuneCountInString(strings.TrimSpace(it.Source)); n == 0 || n > MaxSourceLen {
			errs = append(errs, invalid.Field(field("source"), "must be 1 to %d characters (where the item comes from, e.g. kb:handbook or mcp:crm), got %d", MaxSourceLen, n))
		}
		if n := utf8.RuneCountInString(it.Text); strings.TrimSpace(it.Text) == "" || n > MaxExternalLen {
			errs = append(errs, invalid.Field(field("text"), "must be 1 to %d characters, got %d", MaxExternalLen, n))
		}
		if it.Score != nil && !(*it.Score >= 0 && *it.Score <= 1) {
			errs = append(errs, invalid.FieldValue(field("score"), *it.Score, "must be between 0 and 1 (relevance on the scale of search scores)"))
		}
	}
	return invalid.Join(errs...)
}

// wants reports whether the request asked for the section.
func (p plan) wants(s promptctx.Section) bool { return p.include[s] }
