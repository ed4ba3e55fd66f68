package bootstrap

import (
	"log/slog"
	"time"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/metrics"
	"engram/adapters/redisstore"
	"engram/adapters/sqlstore"
	"engram/app/extraction"
	"engram/app/messages"
	"engram/app/sessions"
	"engram/app/users"
	"engram/bootstrap/config"
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
		newSessionsService,
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
type sessionStoresParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Config    config.Config
	DB        *sqlstore.DB
	Clock     ports.Clock
	Events    *metrics.SessionEvents
	Log       *slog.Logger
}

func newSessionStores(p sessionStoresParams) (*sessionStores, error) {
	lc, cfg, ev, log := p.Lifecycle, p.Config, p.Events, p.Log
	limits := sessionLimits(cfg)
	sql := sqlstore.NewSessionStore(p.DB, p.Clock, limits)
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

type sessionsParams struct {
	fx.In
	Config   config.Config
	Store    ports.SessionStore
	Messages *messages.Service
	Clock    ports.Clock
	IDs      ports.IDs
	Metrics  *metrics.Metrics
	// Notifier is the sessions scheduler module's folder, woken by a record in
	// this process; without the scheduler role the folder polls elsewhere.
	Notifier  sessions.Notifier `optional:"true"`
	Erasures  ports.ErasureStore
	Exchanges sessions.ExchangeObserver
}

func newSessionsService(p sessionsParams) metrics.SessionService {
	cfg := p.Config
	svc := sessions.New(sessions.Deps{Store: p.Store, Conversations: p.Messages, Clock: p.Clock, IDs: p.IDs, Notifier: p.Notifier, Erasures: p.Erasures,
		Exchanges: p.Exchanges}, sessions.Options{Policy: sessionPolicy(cfg), Secrets: cfg.Secrets.ScreenMode()})
	return p.Metrics.SessionRecords(svc)
}

func sessionRoutes(svc metrics.SessionService) Route {
	return func(api *httpapi.API) { httpapi.RegisterSessions(api, svc) }
}

// startSessionFailover runs the fallback's probe and drain, and the relay of
// queued turns into the extraction channel, while the app runs.
type failoverStart struct {
	fx.In
	Lifecycle fx.Lifecycle
	Stores    *sessionStores
	Config    config.Config
	Messages  *messages.Service
	Events    *metrics.SessionEvents
	Metrics   *metrics.Metrics
	Log       *slog.Logger
}

func startSessionFailover(p failoverStart) {
	lc, s, cfg, msgs, ev, m, log := p.Lifecycle, p.Stores, p.Config, p.Messages, p.Events, p.Metrics, p.Log
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
