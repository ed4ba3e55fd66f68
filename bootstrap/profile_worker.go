package bootstrap

import (
	"log/slog"

	"go.uber.org/fx"

	"engram/app/profiles"
)

// profileWorkerModule is the worker role's share: the refresh loop.
var profileWorkerModule = fx.Module("profile-worker",
	fx.Provide(fx.Private, newRefresher),
	fx.Invoke(func(lc fx.Lifecycle, r *profiles.Refresher) { runWhileUp(lc, r.Run) }),
)

func newRefresher(svc *profiles.Service, log *slog.Logger) *profiles.Refresher {
	return profiles.NewRefresher(svc, profiles.RefresherOptions{Worker: workerName(), Logger: log})
}
