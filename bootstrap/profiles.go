package bootstrap

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/llm"
	"engram/adapters/mcpserver"
	"engram/adapters/metrics"
	"engram/adapters/pinyin"
	"engram/adapters/sqlstore"
	"engram/app/extraction"
	apporg "engram/app/org"
	"engram/app/profiles"
	"engram/app/users"
	"engram/bootstrap/config"
	"engram/configs/prompts"
	"engram/domain/conversation"
	"engram/domain/erasure"
	"engram/domain/memory"
	"engram/ports"
)

// profilesModule is what every role shares of user profiles and the organisation
// graph: their stores, use cases and routes, and the extraction queue that
// marks a user's profile for a refresh once their messages are processed.
var profilesModule = fx.Module("profiles",
	fx.Provide(
		fx.Private,
		func() ports.NameRomanizer { return pinyin.New() },
		newReportWriter,
	),
	fx.Provide(
		newProfilesService,
		newOrgService,
		newProfileMarkingQueue,
		newProfileMarks, // bootstrap/profile_marks.go
		// Identity slots said in conversations go to the profile (extraction's route step).
		func(svc *profiles.Service) extraction.ProfileSlots { return svc },
		AsRoute(profileRoutes),
		AsMCPResource(func(p *profiles.Service) mcpserver.Resource { return mcpserver.ProfileResource(httpapi.OwnProfile(p)) }),
	),
	AsPurger("profiles", erasure.PhaseTruth, func(svc *profiles.Service) ports.UserPurger { return svc }),
	// GET /v1/users lists a user with only a profile, an org entry or activity too.
	AsUserSource(users.KindProfile, func(db *sqlstore.DB) ports.UserActivity { return sqlstore.ProfileActivity(db) }),
	AsUserSource(users.KindOrg, func(db *sqlstore.DB) ports.UserActivity { return sqlstore.OrgActivity(db) }),
	AsUserSource(users.KindActivity, func(db *sqlstore.DB) ports.UserActivity { return sqlstore.EventActivity(db) }),
)

// newReportWriter is the model that writes evaluation reports, its cost counted
// (stage report); nil offline (ENGRAM_LLM_PROVIDER=rules), when reports are
// written by rules.
func newReportWriter(cfg config.Config, m *metrics.Metrics) (ports.ReportWriter, error) {
	if cfg.LLM.Provider == "rules" {
		return nil, nil
	}
	set, err := prompts.Load(prompts.Options{Dir: cfg.LLM.PromptsDir})
	if err != nil {
		return nil, fmt.Errorf("ENGRAM_PROMPTS_DIR: %w", err)
	}
	client, err := llm.NewClient(llm.Options{
		Provider: llm.Provider(cfg.LLM.Provider), BaseURL: cfg.LLM.APIBase, APIKey: cfg.LLM.APIKey, Model: cfg.LLM.Model,
		MaxRetries: cfg.LLM.MaxRetries, Timeout: time.Duration(cfg.Profiles.ReportTimeoutSec) * time.Second,
		Temperature: 0.2,
	})
	if err != nil {
		return nil, fmt.Errorf("ENGRAM_LLM_PROVIDER %s: %w", cfg.LLM.Provider, err)
	}
	return m.LLMCost().ReportWriter(llm.NewReportWriter(client, client.Model(), llm.ReportWriterOptions{Prompts: set})), nil
}

type profilesParams struct {
	fx.In
	Config    config.Config
	Profiles  *sqlstore.ProfileStore
	Activity  *sqlstore.ActivityStore
	Org       *sqlstore.OrgStore
	Reports   *sqlstore.ReportStore
	Messages  *sqlstore.MessageStore
	Memories  ports.MemoryStore
	Sessions  ports.SessionStore `optional:"true"` // absent in a process without the session store
	Analyzer  ports.TextAnalyzer
	Romanizer ports.NameRomanizer
	Writer    ports.ReportWriter `optional:"true"`
	Clock     ports.Clock
	IDs       ports.IDs
	Erasures  ports.ErasureStore
	Log       *slog.Logger
}

func newProfilesService(p profilesParams) *profiles.Service {
	c := p.Config.Profiles
	return profiles.New(profiles.Deps{
		Profiles: p.Profiles, Refreshes: p.Profiles, Activity: p.Activity, Org: p.Org, Reports: p.Reports, Audit: p.Reports,
		Memories: p.Memories, Messages: p.Messages, Sessions: p.Sessions, Analyzer: p.Analyzer, Romanizer: p.Romanizer, Writer: p.Writer,
		Clock: p.Clock, IDs: p.IDs, Erasures: p.Erasures,
		Purgers: []profiles.UserPurger{p.Profiles, p.Activity, p.Reports, p.Org},
	}, profiles.Options{
		RefreshDebounce:   time.Duration(c.RefreshDebounceSec) * time.Second,
		RefreshMaxWait:    time.Duration(c.RefreshMaxWaitSec) * time.Second,
		ReportTimeout:     time.Duration(c.ReportTimeoutSec) * time.Second,
		ReportMaxMemories: c.ReportMaxMemories,
		Logger:            p.Log,
		Secrets:           p.Config.Secrets.ScreenMode(),
	})
}

type orgParams struct {
	fx.In
	Org       *sqlstore.OrgStore
	Profiles  *sqlstore.ProfileStore
	Romanizer ports.NameRomanizer
	Clock     ports.Clock
	Erasures  ports.ErasureStore
}

func newOrgService(p orgParams) *apporg.Service {
	return apporg.New(apporg.Deps{Graph: p.Org, Profiles: p.Profiles, Romanizer: p.Romanizer, Clock: p.Clock, Erasures: p.Erasures})
}

func profileRoutes(p *profiles.Service, o *apporg.Service) Route {
	return func(api *httpapi.API) {
		httpapi.RegisterProfiles(api, p)
		httpapi.RegisterOrg(api, o)
		httpapi.RegisterAudit(api, p)
	}
}

// profileMarkingQueue is the extraction runner's message queue: once a
// conversation's messages are finished (extracted or skipped), the users' profiles
// are marked for a refresh, so topics and work hours follow the conversation and
// its new memories.
type profileMarkingQueue struct {
	extraction.Queue
	profiles *profiles.Service
	log      *slog.Logger
}

func newProfileMarkingQueue(messages *sqlstore.MessageStore, svc *profiles.Service, log *slog.Logger) extraction.Queue {
	return profileMarkingQueue{Queue: messages, profiles: svc, log: log}
}

// Finish stores the outcomes, then marks each user of the finished messages.
func (q profileMarkingQueue) Finish(ctx context.Context, worker string, msgs []conversation.Message) (int, error) {
	n, err := q.Queue.Finish(ctx, worker, msgs)
	if err != nil || n == 0 {
		return n, err
	}
	seen := map[memory.Scope]bool{}
	for _, m := range msgs {
		if seen[m.Scope] {
			continue
		}
		seen[m.Scope] = true
		if err := q.profiles.MarkStale(ctx, m.Scope); err != nil {
			// The outcome is stored; the user's next conversation or event marks
			// the profile again.
			q.log.WarnContext(ctx, "marking a profile for refresh failed", "user", m.Scope.User, "error", err)
		}
	}
	return n, nil
}
