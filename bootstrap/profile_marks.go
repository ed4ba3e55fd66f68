package bootstrap

import (
	"log/slog"

	"go.uber.org/fx"

	"engram/app/profiles"
	"engram/app/sessions"
)

// newProfileMarks is how record_exchange marks the user's profile for a refresh
// (their sessions are one of its sources): noted on the request path, written
// every second in the background while the process runs, and once more when it
// stops.
func newProfileMarks(lc fx.Lifecycle, svc *profiles.Service, log *slog.Logger) sessions.ExchangeObserver {
	marks := profiles.NewMarks(svc, profiles.MarksOptions{Logger: log})
	runWhileUp(lc, marks.Run)
	return marks
}
