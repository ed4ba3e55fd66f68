package bootstrap

import (
	"time"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/sqlstore"
	"engram/app/lifecycle"
	"engram/app/messages"
	"engram/bootstrap/config"
	"engram/ports"
)

// conversationsModule is what every role shares of the extraction channel:
// ingestion and the lifecycle use cases, and their routes (used when the api role
// runs). The message and job stores are the storage module's.
var conversationsModule = fx.Module("conversations",
	fx.Provide(
		newMessagesService,
		newLifecycleService,
		AsRoute(messageRoutes),
		AsRoute(lifecycleRoutes),
	),
)

type messagesParams struct {
	fx.In
	Config   config.Config
	Store    ports.MessageLog
	Clock    ports.Clock
	IDs      ports.IDs
	Notifier messages.Notifier `optional:"true"`
}

func newMessagesService(p messagesParams) *messages.Service {
	return messages.New(p.Store, p.Clock, p.IDs, messages.Options{
		Debounce: time.Duration(p.Config.Memory.DebounceSec * float64(time.Second)),
		Notifier: p.Notifier,
		Secrets:  p.Config.Secrets.ScreenMode(),
	})
}

type lifecycleParams struct {
	fx.In
	Config   config.Config
	Jobs     *sqlstore.JobStore
	Memories ports.MemoryStore
	Clock    ports.Clock
	IDs      ports.IDs
}

func newLifecycleService(p lifecycleParams) *lifecycle.Service {
	return lifecycle.New(p.Jobs, p.Memories, p.Jobs, p.Clock, p.IDs, lifecycle.Options{MergeSimilarity: p.Config.Memory.MergeSimilarity})
}

func messageRoutes(svc *messages.Service) Route {
	return func(api *httpapi.API) { httpapi.RegisterMessages(api, svc) }
}

func lifecycleRoutes(svc *lifecycle.Service) Route {
	return func(api *httpapi.API) { httpapi.RegisterLifecycle(api, svc) }
}
