package contextbuild

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/promptctx"
)

// Result is the context call's answer: the injected items by section (each
// with the text as injected, cut where the block cut it), the block, and the
// trace's id.
type Result struct {
	Profile       string       // the profile block with the lines injected; "" when none was
	Standing      []MemoryItem // the standing memories injected, in their order
	Recent        []RecentMessage
	Summary       string
	Memories      []MemoryItem
	Episodes      []EpisodeItem
	External      []ExternalItem
	Prompt        string
	InjectedChars int
	TraceID       string // "" for a user being erased: nothing of theirs is written
	// Trace is what was recorded, for metrics (counts by section, drops by reason).
	Trace promptctx.Trace
	// Timings are the stages' wall times, the trace's handoff and the total included.
	Timings map[string]time.Duration
}

// RecentMessage is an injected message of the session.
type RecentMessage struct {
	ID, ExchangeID string
	Role           conversation.Role
	Text           string
	At             time.Time
	Truncated      bool
}

// MemoryItem is an injected long-term memory.
type MemoryItem struct {
	Memory    memory.Memory
	Text      string
	Score     float64
	Truncated bool
}

// EpisodeItem is an injected past message.
type EpisodeItem struct {
	Message   conversation.Message
	Text      string
	Score     float64
	Truncated bool
}

// ExternalItem is an injected external item.
type ExternalItem struct {
	Source    string
	Text      string
	Score     float64
	Truncated bool
}

// Build is the context call: gather (session and profile, then memories and
// episodes, the summary joining the question), score the external items, offer
// every candidate, pack and screen, record the trace. A user being erased gets an
// empty context and no trace, as does a user the tenant does not know (with a
// trace: the call was made).
func (s *Service) Build(ctx context.Context, r Request) (Result, error) {
	start := time.Now()
	p, err := s.parse(r)
	if err != nil {
		return Result{}, err
	}
	now := s.deps.Clock.Now()
	g, err := s.gather(ctx, p, now)
	if err != nil {
		return Result{}, err
	}
	// Asked after the reads, so a read that began before an erasure was requested
	// cannot return after it.
	if erasing, err := s.erasing(ctx, p.Scope); err != nil || erasing {
		return Result{}, err
	}
	step := time.Now()
	external := s.scoreExternal(p)
	if len(p.External) > 0 {
		g.timings[StageExternal] = time.Since(step)
	}
	step = time.Now()
	c := s.candidates(p, g, external)
	pk := s.pack(p, c)
	g.timings[StagePack] = time.Since(step)
	g.timings[StageTotal] = time.Since(start)

	res := s.result(g, c, pk)
	res.Trace = s.trace(p, g, c, pk, now)
	step = time.Now()
	if err := s.deps.Traces.Record(ctx, res.Trace); err != nil {
		return Result{}, fmt.Errorf("record trace: %w", err)
	}
	res.TraceID = res.Trace.ID
	res.Timings = maps.Clone(g.timings)
	res.Timings[StageTrace] = time.Since(step)
	res.Timings[StageTotal] = time.Since(start)
	return res, nil
}

// result sorts the injected items into their sections, in the block's order.
func (s *Service) result(g gathered, c *candidates, pk packed) Result {
	res := Result{Prompt: pk.plan.Prompt, InjectedChars: pk.plan.Chars}
	index := make(map[string]int, len(pk.of)) // a decision's candidate, by section and id
	for j, d := range pk.plan.Decisions {
		index[string(d.Section)+"\x00"+d.ID] = pk.of[j]
	}
	var profile []string
	for _, d := range pk.plan.Kept() {
		o := c.origins[index[string(d.Section)+"\x00"+d.ID]]
		text := d.RenderedText()
		switch d.Section {
		case promptctx.Profile:
			profile = append(profile, text)
		case promptctx.Summary:
			res.Summary = text
		case promptctx.Recent:
			m := o.recent
			res.Recent = append(res.Recent, RecentMessage{ID: m.ID, ExchangeID: m.ExchangeID, Role: m.Role, Text: text, At: m.At, Truncated: d.Truncated})
		case promptctx.Standing:
			res.Standing = append(res.Standing, MemoryItem{Memory: *o.memory, Text: text, Score: d.Score, Truncated: d.Truncated})
		case promptctx.Memories:
			res.Memories = append(res.Memories, MemoryItem{Memory: *o.memory, Text: text, Score: d.Score, Truncated: d.Truncated})
		case promptctx.Episodes:
			res.Episodes = append(res.Episodes, EpisodeItem{Message: *o.message, Text: text, Score: d.Score, Truncated: d.Truncated})
		case promptctx.External:
			res.External = append(res.External, ExternalItem{Source: d.Source, Text: text, Score: d.Score, Truncated: d.Truncated})
		}
	}
	if len(profile) > 0 {
		if header, _, _ := strings.Cut(strings.TrimSpace(g.profile), "\n"); strings.HasPrefix(header, "[") {
			profile = append([]string{header}, profile...)
		}
		res.Profile = strings.Join(profile, "\n")
	}
	return res
}

// trace explains the call: every injected item, every candidate with what
// became of it, and the candidates the searches never read, by reason.
func (s *Service) trace(p plan, g gathered, c *candidates, pk packed, now time.Time) promptctx.Trace {
	items, hits, counts := promptctx.Explain(pk.plan, c.early)
	omitted := map[string]int{}
	for _, f := range []Found{g.memories, g.episodes} {
		for reason, n := range f.Unread {
			omitted[reason] += n
		}
	}
	mode, fallback := g.memories.ModeUsed, g.memories.FallbackReason
	if mode == "" {
		mode, fallback = g.episodes.ModeUsed, g.episodes.FallbackReason
	}
	t := promptctx.Trace{
		ID: s.deps.IDs.New(), Scope: p.Scope, At: now, Query: p.Query, QueryChars: p.queryChars, QueryTruncated: p.queryCut,
		StandingOverShare: pk.plan.OverShare(), SessionID: p.SessionID,
		FlowID: p.FlowID, ModeUsed: mode, FallbackReason: fallback, Budget: p.budget, InjectedChars: pk.plan.Chars,
		SourceCount: counts, Items: items, RawHits: hits, Omitted: omitted, Timings: maps.Clone(g.timings),
	}
	if t.FlowID == "" && g.view.Meta.Ref.FlowID != "" {
		t.FlowID = g.view.Meta.Ref.FlowID
	}
	return t
}
