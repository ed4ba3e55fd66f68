// Package contextbuild is the context call (what an agent asks before it runs):
// it gathers what the agent should know for one question — the user's profile,
// the session's summary and recent messages, the long-term memories and past
// messages (episodes) that have evidence for the question, and the external items
// the caller passes — packs them into the character budget as a block of quoted
// data (domain/promptctx), and stores a trace that explains every item injected
// and every candidate left out. It also reads traces back, records them off the
// request path (TraceRecorder) and sweeps them once past their retention.
//
// One file per use case or step; it depends on domain and ports only. The search
// it calls, the session store and the profile section come through the narrow
// interfaces below, which bootstrap satisfies.
package contextbuild

import (
	"context"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/domain/ranking"
	"engram/domain/secret"
	"engram/domain/session"
	"engram/ports"
)

// Within is what a retrieval looks through.
type Within string

// What the context call retrieves.
const (
	WithinMemories Within = "memories"
	WithinMessages Within = "messages"
)

// Query is one retrieval the context call makes (the search use case's input).
type Query struct {
	Scope   memory.Scope
	Text    string // the question
	Summary string // the session summary: it joins the question on the dense side
	Within  Within
	Limit   int
}

// Hit is one retrieved memory or message with its calibrated score; in
// Found.Dropped, with the reason the search left it out.
type Hit struct {
	Memory  *memory.Memory
	Message *conversation.Message
	Score   float64
	Reason  string
}

// Found is a retrieval's answer, explained: what it returned, what it read and
// left out, and how many candidates it never read, by reason.
type Found struct {
	Hits           []Hit
	Dropped        []Hit
	Unread         map[string]int
	ModeUsed       string
	FallbackReason string
}

// Retriever runs the search use case in the configured mode, with its min_score.
type Retriever interface {
	Retrieve(ctx context.Context, q Query) (Found, error)
}

// SessionReader reads short-term sessions (ports.SessionStore satisfies it).
type SessionReader interface {
	Session(ctx context.Context, ref session.Ref, limit int) (session.View, error)
	Sessions(ctx context.Context, scope memory.Scope, q ports.SessionQuery) ([]session.Meta, error)
}

// ProfileSection writes the user's profile block (profiles.Service satisfies it):
// the format of docs/CONTEXT.md, "" when nothing is known. It need not ask the erasure guard:
// Build does, after every read.
type ProfileSection interface {
	Section(ctx context.Context, scope memory.Scope) (string, error)
}

// StandingReader reads the user's standing memories (the SQL memory store
// satisfies it): live, a constraint, of at least minImportance, or pinned, in
// memory.CompareStanding's order, at most limit of them.
type StandingReader interface {
	StandingMemories(ctx context.Context, scope memory.Scope, minImportance int, now time.Time, limit int) ([]memory.Memory, error)
}

// TraceWriter records a trace (TraceRecorder, or a ports.TraceStore written
// directly).
type TraceWriter interface {
	Record(ctx context.Context, t promptctx.Trace) error
}

// TraceReader reads traces back (TraceRecorder, or a ports.TraceStore).
type TraceReader interface {
	Trace(ctx context.Context, tenant, id string) (promptctx.Trace, error)
	LatestTrace(ctx context.Context, scope memory.Scope) (promptctx.Trace, error)
	ListTraces(ctx context.Context, scope memory.Scope, before string, limit int) ([]promptctx.Trace, error)
}

// Deps are what the context call works through. Profiles, Standing and
// Erasures may be nil.
type Deps struct {
	Retriever Retriever
	Standing  StandingReader
	Sessions  SessionReader
	Profiles  ProfileSection
	Analyzer  ports.TextAnalyzer // terms of external items, for their lexical evidence
	Traces    TraceWriter
	Reader    TraceReader
	Erasures  ports.ErasureGuard
	Clock     ports.Clock
	IDs       ports.IDs
}

// Defaults and bounds of Options and requests.
const (
	DefaultBudgetChars    = 4000
	MaxBudgetChars        = 100_000
	DefaultMaxMemories    = 6  // LONG_TERM_MEMORY_RETRIEVE_LIMIT
	DefaultMaxEpisodes    = 20 // enough to fill 8,000 characters with chat messages
	DefaultRecentMessages = 20 // ten turns
	MaxExternal           = 50
	MaxExternalLen        = 8000 // characters of one external item
	MaxSourceLen          = 128
	DefaultRetention      = 7 * 24 * time.Hour
	DefaultQueryMaxChars  = 2000 // ENGRAM_QUERY_MAX_CHARS
	// MaxStanding is how many standing memories one call reads, most important
	// first: far more than a share of any budget holds.
	MaxStanding = 100
	MaxLimit    = 100
)

// Options shape the context call.
type Options struct {
	Layout      promptctx.Layout
	BudgetChars int // ENGRAM_CONTEXT_BUDGET_CHARS, when a request names none
	// Shares cap the sections (promptctx.Budget), the standing one
	// ENGRAM_CONTEXT_STANDING_SHARE; nil: promptctx.DefaultShares.
	Shares         map[promptctx.Section]float64
	MaxMemories    int // LONG_TERM_MEMORY_RETRIEVE_LIMIT, when a request names none
	MaxEpisodes    int // ENGRAM_CONTEXT_MAX_EPISODES
	RecentMessages int // ENGRAM_CONTEXT_RECENT_MESSAGES: the most recent session messages read
	// MinScore is LONG_TERM_MEMORY_MIN_SCORE, applied to external items as the
	// search applies it to memories and messages.
	MinScore float64
	// IncludeInstructionLike injects instruction-like items (quoted, marked)
	// instead of leaving them out, when a request does not say.
	IncludeInstructionLike bool
	// StandingMinImportance is ENGRAM_CONTEXT_STANDING_MIN_IMPORTANCE: memories
	// this important or more are standing, like constraints and pinned ones.
	StandingMinImportance int
	// QueryMaxChars is ENGRAM_QUERY_MAX_CHARS: a longer query is cut to its end
	// for retrieval.
	QueryMaxChars int
	// Secrets (ENGRAM_SECRETS): unless off, no text that holds a secret is
	// injected, whatever a request says; a memory flagged secret is left out.
	Secrets   secret.Mode
	Retention time.Duration // ENGRAM_TRACE_RETENTION_DAYS
	Recipe    ranking.Recipe
	Weights   ranking.Weights
}

func (o Options) withDefaults() Options {
	if o.Layout.Header == "" {
		o.Layout.Header = promptctx.DefaultHeader
	}
	if o.Layout.Language == "" {
		o.Layout.Language = promptctx.Chinese
	}
	if o.BudgetChars <= 0 {
		o.BudgetChars = DefaultBudgetChars
	}
	if o.MaxMemories <= 0 {
		o.MaxMemories = DefaultMaxMemories
	}
	if o.MaxEpisodes <= 0 {
		o.MaxEpisodes = DefaultMaxEpisodes
	}
	if o.RecentMessages <= 0 {
		o.RecentMessages = DefaultRecentMessages
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.StandingMinImportance <= 0 {
		o.StandingMinImportance = memory.DefaultStandingMinImportance
	}
	if o.QueryMaxChars <= 0 {
		o.QueryMaxChars = DefaultQueryMaxChars
	}

	if o.Recipe == (ranking.Recipe{}) {
		o.Recipe = ranking.DefaultRecipe
	}
	if o.Weights == (ranking.Weights{}) {
		o.Weights = ranking.DefaultWeights
	}
	return o
}

// Service runs the context call and the trace reads.
type Service struct {
	deps   Deps
	opts   Options
	screen *screen
}

// New builds the service.
func New(deps Deps, opts Options) *Service {
	return &Service{deps: deps, opts: opts.withDefaults(), screen: newScreen()}
}

// erasing reports whether the user is being erased.
func (s *Service) erasing(ctx context.Context, scope memory.Scope) (bool, error) {
	job, err := ports.ErasingJob(ctx, s.deps.Erasures, scope)
	return job != "", err
}
