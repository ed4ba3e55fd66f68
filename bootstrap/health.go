package bootstrap

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/sqlstore"
	"engram/app/health"
	"engram/bootstrap/config"
	"engram/ports"
)

// healthModule is what /readyz knows beyond its probes: the outcome of the real
// calls to SQL (writes refused by a full disk), the remote embedder and the LLM,
// reported by decorators into one recorder.
var healthModule = fx.Module("health",
	fx.Provide(newHealthRecorder),
	fx.Invoke(func(db *sqlstore.DB, rec *health.Recorder) {
		db.ObserveWrites(func(err error) { rec.Observe(health.SQL, err) })
	}),
)

// embedderHealth makes every caller of the embedder report through the health
// recorder: the indexer, search, extraction's similarity, the readiness probe. A
// decorator reaches only its own module and those below it, so this one is
// applied to the whole app (bootstrap/serve.go), outside every module.
var embedderHealth = fx.Options(
	fx.Decorate(func(cfg config.Config, e ports.Embedder, rec *health.Recorder) ports.Embedder {
		if cfg.Embedding.Provider == "local" {
			return e // in process: it has no failures to report
		}
		return rec.Embedder(e)
	}),
)

func newHealthRecorder(clk ports.Clock) *health.Recorder {
	return health.NewRecorder(clk, map[string]int{
		health.SQL:      0, // a full disk degrades SQL; only a failed ping makes it down
		health.Embedder: health.DefaultDownAfter,
		health.LLM:      health.DefaultDownAfter,
	})
}

// Probe intervals of a remote embedder: a probe is a paid request, so while the
// embedder is up one answer is reused for a while; once calls fail it is probed
// more often, so that recovery shows within seconds.
const (
	embedderProbeTTL           = 30 * time.Second
	embedderProbeTTLWhenFailed = 5 * time.Second
)

// statusCheck is /readyz's view of what the recorder says of dep.
func statusCheck(rec *health.Recorder, dep string) error {
	st := rec.Status(dep)
	switch st.State {
	case health.Up:
		return nil
	case health.Degraded:
		return httpapi.Degraded(errors.New(st.Detail()))
	}
	return errors.New(st.Detail())
}

// sqlCheck: down when the database does not answer a ping, degraded while writes
// fail for want of space.
func sqlCheck(db *sqlstore.DB, rec *health.Recorder) httpapi.Check {
	return func(ctx context.Context) error {
		if err := db.Ping(ctx); err != nil {
			return err
		}
		return statusCheck(rec, health.SQL)
	}
}

// llmCheck is the LLM's state from its recent calls; disabled with the offline
// rules. It sends no probe: a chat call costs tokens, and extraction retries
// failed messages on its own.
func llmCheck(cfg config.Config, rec *health.Recorder) httpapi.Check {
	if cfg.LLM.Provider == "rules" {
		return nil
	}
	return func(context.Context) error { return statusCheck(rec, health.LLM) }
}

// embedderCheck probes a remote embedder (through the recorder's decorator, so a
// probe's outcome counts like any call) and reports what its calls said.
func embedderCheck(cfg config.Config, emb ports.Embedder, rec *health.Recorder) httpapi.Check {
	if cfg.Embedding.Provider == "local" {
		return func(context.Context) error { return nil } // in process, always there
	}
	probe := cachedProbe(func() time.Duration {
		if rec.Status(health.Embedder).State == health.Up {
			return embedderProbeTTL
		}
		return embedderProbeTTLWhenFailed
	}, func(ctx context.Context) error {
		_, err := emb.Embed(ctx, []string{"readiness probe"})
		return err
	})
	return func(ctx context.Context) error {
		_ = probe(ctx) // its outcome is in the recorder
		return statusCheck(rec, health.Embedder)
	}
}

// cachedProbe runs probe at most once per ttl() and answers with its last result
// meanwhile; concurrent callers share one run.
func cachedProbe(ttl func() time.Duration, probe func(ctx context.Context) error) httpapi.Check {
	var (
		mu      sync.Mutex
		checked time.Time
		last    error
	)
	return func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if !checked.IsZero() && time.Since(checked) < ttl() {
			return last
		}
		last = probe(ctx)
		checked = time.Now()
		return last
	}
}
