package bootstrap

import (
	"log/slog"
	"time"

	"go.uber.org/fx"

	"engram/adapters/llm"
	"engram/adapters/metrics"
	"engram/adapters/rules"
	"engram/app/sessions"
	"engram/bootstrap/config"
	"engram/configs/prompts"
	"engram/ports"
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

// newFolder folds the queued sessions of every session store with the summarizer
// ENGRAM_SESSION_SUMMARIZER picks; with a model, the offline summarizer writes the
// folds the model cannot.
type folderParams struct {
	fx.In
	Config config.Config
	Stores *sessionStores
	Clock  ports.Clock
	Events *metrics.SessionEvents
	Log    *slog.Logger
}

func newFolder(p folderParams) (*sessions.Folder, error) {
	cfg, s, clk, ev, log := p.Config, p.Stores, p.Clock, p.Events, p.Log
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
type sessionSchedulerStart struct {
	fx.In
	Lifecycle fx.Lifecycle
	Config    config.Config
	Folder    *sessions.Folder
	Stores    *sessionStores
	Clock     ports.Clock
	Log       *slog.Logger
}

func startSessionScheduler(p sessionSchedulerStart) {
	lc := p.Lifecycle
	runWhileUp(lc, p.Folder.Run)
	sweeper := sessions.NewSweeper(p.Stores.sql, p.Clock, sessions.SweepOptions{
		Interval: time.Duration(p.Config.Sessions.SweepIntervalSec) * time.Second, Logger: p.Log,
	})
	runWhileUp(lc, sweeper.Run)
}
