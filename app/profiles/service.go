// Package profiles holds the use cases of user profiles: read a profile (the
// user, or a manager above them — audited), declare fields (merge patch), apply
// identity slots said in conversations, record activity, request and read
// evaluation reports (managers only — audited), refresh the derived fields in the
// background from conversations, sessions, memories and activity (debounced per
// user, never on the request path), render the 用户画像
// section for prompts, and purge a user. It depends on domain and ports only.
package profiles

import (
	"context"
	"log/slog"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/org"
	"engram/domain/secret"
	"engram/domain/session"
	"engram/ports"
)

// Defaults of Options.
const (
	DefaultRefreshDebounce = time.Minute
	DefaultRefreshMaxWait  = 10 * time.Minute
	DefaultReportTimeout   = 60 * time.Second
	DefaultMessageSample   = 2000
	DefaultMemorySample    = 500
)

// Options shape the use cases. Zero values take the defaults.
type Options struct {
	// RefreshDebounce: a change waits this long for the next before the profile is
	// derived again (ENGRAM_PROFILE_REFRESH_DEBOUNCE_SEC).
	RefreshDebounce time.Duration
	// RefreshMaxWait: but never longer than this after the first change
	// (ENGRAM_PROFILE_REFRESH_MAX_WAIT_SEC).
	RefreshMaxWait time.Duration
	// ReportTimeout bounds the model's report (ENGRAM_PROFILE_REPORT_TIMEOUT_SEC);
	// past it the rule report is returned.
	ReportTimeout time.Duration
	// ReportMaxMemories bounds the work memories a report is given.
	ReportMaxMemories int
	// MessageSample and MemorySample bound what one refresh reads.
	MessageSample int
	MemorySample  int
	Logger        *slog.Logger
	// Secrets screens declared fields (ENGRAM_SECRETS). A profile has no flags and
	// goes into every context block, so a secret in a field is masked in flag mode
	// too; the zero value (off) stores it as given.
	Secrets secret.Mode
}

func (o Options) withDefaults() Options {
	if o.RefreshDebounce <= 0 {
		o.RefreshDebounce = DefaultRefreshDebounce
	}
	if o.RefreshMaxWait <= 0 {
		o.RefreshMaxWait = DefaultRefreshMaxWait
	}
	if o.ReportTimeout <= 0 {
		o.ReportTimeout = DefaultReportTimeout
	}
	if o.MessageSample <= 0 {
		o.MessageSample = DefaultMessageSample
	}
	if o.MemorySample <= 0 {
		o.MemorySample = DefaultMemorySample
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// OrgGraph is what the profile use cases need of the organisation graph.
type OrgGraph interface {
	Member(ctx context.Context, tenant, user string) (org.Member, error)
	ManagerChain(ctx context.Context, tenant, user string) ([]string, error)
	SetNameKeys(ctx context.Context, scope memory.Scope, source string, keys []org.NameKey) error
}

// MemoryLister lists a user's live memories (ports.MemoryStore's List).
type MemoryLister interface {
	List(ctx context.Context, scope memory.Scope, q ports.MemoryQuery) (ports.MemoryPage, error)
}

// ConversationHistory is what a refresh reads of the user's conversations.
type ConversationHistory interface {
	// ConversationSummary counts the user's conversations and says when they last spoke.
	ConversationSummary(ctx context.Context, scope memory.Scope) (conversations int, last time.Time, err error)
	// RecentUserMessages returns up to limit of the user's own messages said at or
	// after since, newest first.
	RecentUserMessages(ctx context.Context, scope memory.Scope, since time.Time, limit int) ([]conversation.Message, error)
}

// SessionHistory is what a refresh reads of the user's short-term sessions: the
// listing (ports.SessionStore's Sessions), whose flow, name, message count and
// last activity are a source of the favourite workflows and conversation counts.
type SessionHistory interface {
	Sessions(ctx context.Context, scope memory.Scope, q ports.SessionQuery) ([]session.Meta, error)
}

// UserPurger removes what one store holds of a user (erasure).
type UserPurger interface {
	PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error)
}

// Deps are the ports the use cases reach.
type Deps struct {
	Profiles  ports.ProfileStore
	Refreshes ports.ProfileRefreshQueue
	Activity  ports.ActivityStore
	Org       OrgGraph
	Reports   ports.ReportStore
	Audit     ports.AuditLog
	Memories  MemoryLister
	Messages  ConversationHistory
	Sessions  SessionHistory // nil: sessions are no source (a process without the session store)
	Analyzer  ports.TextAnalyzer
	Romanizer ports.NameRomanizer // nil: names are found without their pinyin
	Writer    ports.ReportWriter  // nil: reports are written by rules (ENGRAM_LLM_PROVIDER=rules)
	Clock     ports.Clock
	// Erasures hides a user being erased: from DELETE /v1/users/{user}
	// until the purge is done, their profile reads as absent. nil: no erasure.
	Erasures ports.ErasureGuard
	IDs      ports.IDs
	// Purgers are the stores erasure empties; PurgeUser runs them in order.
	Purgers []UserPurger
}

// Service runs the profile use cases.
type Service struct {
	deps Deps
	opts Options
}

// New builds the service.
func New(deps Deps, opts Options) *Service {
	return &Service{deps: deps, opts: opts.withDefaults()}
}
