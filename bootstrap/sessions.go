package bootstrap

import (
	"log/slog"
	"time"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/llm"
	"engram/adapters/metrics"
	"engram/adapters/redisstore"
	"engram/adapters/rules"
	"engram/adapters/sqlstore"
	"engram/app/extraction"
	"engram/app/messages"
	"engram/app/sessions"
	"engram/app/users"
	"engram/bootstrap/config"
	"engram/configs/prompts"
	"engram/domain/erasure"
	"engram/domain/session"
	"engram/ports"
)

// sessionsModule is short-term sessions for the roles that serve or fold
// them: the session store ENGRAM_REDIS_ADDR selects (Redis with the SQL fallback,
// or SQL), the use cases and their routes, the fallback's probe and drain, and
// Redis' state for /readyz.
var sessionsModule = fx.Module("sessions",
	fx.Provide(
		newSessionStores,
		func(s *sessionStores) ports.SessionStore { return s.store },
		func(m *metrics.Metrics) *metrics.SessionEvents { return m.SessionEvents() },
		fx.Annotate(newSessionsService, fx.ParamTags("", "", "", "", "", "", `optional:"true"`, "")),
		func(s *sessionStores) redisCheck { return s.check },
		AsRoute(sessionRoutes),
		// Extraction judges a session's turns with its summary (bootstrap/worker.go).
		func(store ports.SessionStore) extraction.Summaries { return sessions.Summaries{Store: store} },
	),
	fx.Invoke(startSessionFailover),
	// Erasure purges the user's sessions: Redis and SQL both; while
	// Redis is down the step fails and the erasure job retries it.
	AsPurger("sessions", erasure.PhaseTruth, func(store ports.SessionStore) ports.UserPurger { return store }),
	// GET /v1/users counts each user's live sessions (Redis and SQL merged).
	AsUserSource(users.KindSessions, func(s *sessionStores) ports.UserActivity { return s.activity }),
)

// sessionsSchedulerModule is the scheduler role's share: the folder (which a
// record in this process wakes at once) and the sweep of expired SQL sessions.
var sessionsSchedulerModule = fx.Module("sessions-scheduler",
	fx.Provide(
		newFolder,
		func(f *sessions.Folder) sessions.Notifier { return f },
	),
	fx.Invoke(startSessionScheduler),
)

// redisCheck is Redis' probe for /readyz; nil when sessions are in SQL.
type redisCheck httpapi.Check

// sessionStores are the session stores of this process.
type sessionStores struct {
	store    ports.SessionStore   // what the use cases call
	activity ports.UserActivity   // the same store, counting users
	folds    []ports.SessionFolds // where sessions may be queued for a fold
	sql      *sqlstore.SessionStore
	redis    *redisstore.Store  // nil without Redis
	failover *sessions.Failover // nil without Redis
	check    redisCheck
}

func sessionLimits(cfg config.Config) session.Limits {
	s := cfg.Sessions
	return session.Limits{MaxHistory: s.MaxHistory, MessageTTL: time.Duration(s.TTLDays) * 24 * time.Hour,
		SummaryTTL: time.Duration(s.SummaryTTLDays) * 24 * time.Hour}
}

func sessionPolicy(cfg config.Config) session.Policy {
	return session.Policy{Threshold: cfg.Sessions.SummaryThreshold, Keep: cfg.Sessions.SummaryKeep}
}

// newSessionStores opens the SQL session store, and Redis in front of it when
// ENGRAM_REDIS_ADDR is set. Redis being down at start is no error: the fallback
// serves from SQL until it answers.
func newSessionStores(lc fx.Lifecycle, cfg config.Config, s *storage, clk ports.Clock, ev *metrics.SessionEvents, log *slog.Logger) (*sessionStores, error) {
	limits := sessionLimits(cfg)
	sql := sqlstore.NewSessionStore(s.db, clk, limits)
	out := &sessionStores{store: sql, activity: sql, folds: []ports.SessionFolds{sql}, sql: sql}
	if cfg.Redis.Addr == "" {
		return out, nil
	}
	r := cfg.Redis
	timeout := time.Duration(r.TimeoutMS) * time.Millisecond
	rs, err := redisstore.New(redisstore.Options{Addr: r.Addr, Username: r.Username, Password: r.Password, DB: r.DB,
		Prefix: r.KeyPrefix, Limits: limits, ClientCache: r.ClientCache, RelayTurns: true, DialTimeout: max(timeout, 100*time.Millisecond)})
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(rs.Close))
	out.redis = rs
	out.failover = sessions.NewFailover(rs, sql, sessions.FailoverOptions{
		Timeout: timeout, ProbeInterval: time.Duration(r.ProbeIntervalMS) * time.Millisecond, PrimaryRelays: true,
		Logger: log, Observer: ev,
	})
	out.store, out.activity, out.folds = out.failover, out.failover, []ports.SessionFolds{rs, sql}
	out.check = out.failover.Check
	return out, nil
}

func newSessionsService(cfg config.Config, store ports.SessionStore, msgs *messages.Service, clk ports.Clock, ids ports.IDs,
	m *metrics.Metrics, notifier sessions.Notifier, erasures ports.ErasureStore, exchanges sessions.ExchangeObserver,
) metrics.SessionService {
	svc := sessions.New(sessions.Deps{Store: store, Conversations: msgs, Clock: clk, IDs: ids, Notifier: notifier, Erasures: erasures,
		Exchanges: exchanges}, sessions.Options{Policy: sessionPolicy(cfg), Secrets: cfg.Secrets.ScreenMode()})
	return m.SessionRecords(svc)
}

func sessionRoutes(svc metrics.SessionService) Route {
	return func(api *httpapi.API) { httpapi.RegisterSessions(api, svc) }
}

// startSessionFailover runs the fallback's probe and drain, and the relay of
// queued turns into the extraction channel, while the app runs.
func startSessionFailover(lc fx.Lifecycle, s *sessionStores, cfg config.Config, msgs *messages.Service, ev *metrics.SessionEvents,
	m *metrics.Metrics, log *slog.Logger,
) {
	if s.failover == nil {
		return
	}
	log.Info("sessions in redis, with the SQL database as fallback", "addr", cfg.Redis.Addr, "prefix", cfg.Redis.KeyPrefix)
	runWhileUp(lc, s.failover.Run)
	relay := sessions.NewRelay(s.redis, msgs, sessions.RelayOptions{
		Consumer: workerName(), Backoff: time.Duration(cfg.Redis.ProbeIntervalMS) * time.Millisecond, Logger: log, Observer: ev,
	})
	runWhileUp(lc, relay.Run)
	m.GaugeFunc("engram_session_relay_backlog", "Turns queued in Redis, not yet written to the extraction channel.", s.redis.TurnBacklog)
}

// newFolder folds the queued sessions of every session store with the summarizer
// ENGRAM_SESSION_SUMMARIZER picks; with a model, the offline summarizer writes the
// folds the model cannot.
func newFolder(cfg config.Config, s *sessionStores, clk ports.Clock, ev *metrics.SessionEvents, log *slog.Logger) (*sessions.Folder, error) {
	offline := rules.NewSummarizer(rules.SummarizerOptions{Budget: cfg.Sessions.SummaryMaxChars})
	var primary, fallback ports.Summarizer = offline, nil
	lease := time.Duration(cfg.Sessions.FoldLeaseSec) * time.Second
	if cfg.SummarizerUsesLLM() {
		client, set, err := newLLMClient(cfg, lease/2)
		if err != nil {
			return nil, err
		}
		primary = llm.NewSummarizer(client, llm.SummarizerOptions{Prompts: set, MaxChars: cfg.Sessions.SummaryMaxChars})
		fallback = offline
		log.Info("session summaries are written by the model", "model", client.Model(), "prompt", set.Origin(prompts.Summarize))
	}
	return sessions.NewFolder(s.folds, primary, fallback, clk, sessions.FolderOptions{
		Holder: workerName(), Policy: sessionPolicy(cfg), Lease: lease,
		Interval: time.Duration(cfg.Sessions.FoldIntervalSec) * time.Second, Logger: log, Observer: ev,
	}), nil
}

// startSessionScheduler runs the folder and the SQL sweep while the app runs.
func startSessionScheduler(lc fx.Lifecycle, cfg config.Config, f *sessions.Folder, s *sessionStores, clk ports.Clock, log *slog.Logger) {
	runWhileUp(lc, f.Run)
	sweeper := sessions.NewSweeper(s.sql, clk, sessions.SweepOptions{
		Interval: time.Duration(cfg.Sessions.SweepIntervalSec) * time.Second, Logger: log,
	})
	runWhileUp(lc, sweeper.Run)
}
