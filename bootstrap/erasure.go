package bootstrap

import (
	"context"
	"fmt"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/metrics"
	"engram/adapters/sqlstore"
	"engram/app/contextbuild"
	apperasure "engram/app/erasure"
	"engram/app/lifecycle"
	"engram/app/sessions"
	"engram/app/users"
	"engram/domain/erasure"
	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
)

// erasureModule is forgetting (README "Erasure"): the erasure use cases and the
// operator's listings with their routes, the steps of a user's purge, and the job
// handler the worker role's job runner runs erasures with.
//
// Every store of user data contributes a purge step with AsPurger, and every store
// that counts users contributes a source with AsUserSource; later steps (sessions,
// summaries, traces, profiles, org entries) plug in the same way from their own
// modules, without this file changing.
var erasureModule = fx.Module("erasure",
	AsPurger("sql", erasure.PhaseTruth, func(p *sqlstore.UserPurger) ports.UserPurger { return p }),
	AsPurger("lexical", erasure.PhaseDerived, func(x *sqlstore.LexicalDocs) ports.UserPurger { return x }),
	AsPurger("vectors", erasure.PhaseDerived, func(v *vectorStore) ports.UserPurger { return v.purger }),
	AsUserSource(users.KindMemories, func(s *sqlstore.MemoryStore) ports.UserActivity { return s }),
	AsUserSource(users.KindMessages, func(s *sqlstore.MessageStore) ports.UserActivity { return s }),
	AsJobHandler(ports.JobEraseUser, func(e metrics.Eraser) lifecycle.JobHandler { return e }),
	fx.Provide(newEraser, newUsersService, AsRoute(erasureRoutes)),
)

// AsPurger registers the ports.UserPurger that constructor builds as the purge
// step name of phase: every truth step runs before any derived one.
func AsPurger(name string, phase erasure.Phase, constructor any) fx.Option {
	tag := fmt.Sprintf(`name:"purger.%s"`, name)
	step := erasure.Step{Name: name, Phase: phase}
	return fx.Options(
		fx.Provide(fx.Annotate(constructor, fx.ResultTags(tag))),
		fx.Provide(fx.Annotate(func(p ports.UserPurger) apperasure.Purger { return apperasure.Purger{Step: step, Purge: p} },
			fx.ParamTags(tag), fx.ResultTags(`group:"purgers"`))),
	)
}

// AsUserSource registers the ports.UserActivity that constructor builds as the
// source of kind in GET /v1/users.
func AsUserSource(kind string, constructor any) fx.Option {
	tag := fmt.Sprintf(`name:"users.%s"`, kind)
	return fx.Options(
		fx.Provide(fx.Annotate(constructor, fx.ResultTags(tag))),
		fx.Provide(fx.Annotate(func(a ports.UserActivity) users.Source { return users.Source{Kind: kind, Activity: a} },
			fx.ParamTags(tag), fx.ResultTags(`group:"user_sources"`))),
	)
}

// jobHandler is a job kind the worker role's job runner hands to another package.
type jobHandler struct {
	kind    ports.JobKind
	handler lifecycle.JobHandler
}

// AsJobHandler registers the lifecycle.JobHandler that constructor builds for the
// jobs of kind.
func AsJobHandler(kind ports.JobKind, constructor any) fx.Option {
	tag := fmt.Sprintf(`name:"jobs.%s"`, kind)
	return fx.Options(
		fx.Provide(fx.Annotate(constructor, fx.ResultTags(tag))),
		fx.Provide(fx.Annotate(func(h lifecycle.JobHandler) jobHandler { return jobHandler{kind: kind, handler: h} },
			fx.ParamTags(tag), fx.ResultTags(`group:"job_handlers"`))),
	)
}

type eraserParams struct {
	fx.In
	Memories *sqlstore.MemoryStore
	Messages *sqlstore.MessageStore
	Lexical  *sqlstore.LexicalDocs
	TraceDB  *sqlstore.TraceStore
	Scrubber *sqlstore.Scrubber
	Erasures ports.ErasureStore
	Jobs     ports.JobStore
	Purgers  []apperasure.Purger `group:"purgers"`
	Vectors  ports.VectorIndex
	Traces   *contextbuild.TraceRecorder
	// Sessions is the sessions module's (absent from an indexer-only process,
	// which deletes no session).
	Sessions metrics.SessionService `optional:"true"`
	Clock    ports.Clock
	IDs      ports.IDs
	Metrics  *metrics.Metrics
}

// newEraser is the erasure use cases with their metrics. The memory purge writes
// through the SQL store itself (which deletes the lexical document in the same
// transaction); the vector index is the one search uses; traces are changed
// through the recorder, which holds those not written yet.
func newEraser(p eraserParams) (metrics.Eraser, error) {
	deps := apperasure.Deps{
		Erasures: p.Erasures, Jobs: p.Jobs, Purgers: p.Purgers,
		Memories: p.Memories, Messages: p.Messages,
		Conversations: p.Messages, Histories: p.Memories,
		Traces:   contextbuild.TraceEraser{Recorder: p.Traces, Store: p.TraceDB},
		Scrubber: p.Scrubber,
		Vectors:  p.Vectors, Lexical: p.Lexical,
		Clock: p.Clock, IDs: p.IDs,
	}
	if p.Sessions != nil {
		deps.Sessions = sessionRemover{p.Sessions}
	}
	svc, err := apperasure.New(deps, apperasure.Options{Neighbours: ranking.DefaultRecipe.NeighbourWindow})
	if err != nil {
		return nil, fmt.Errorf("erasure: %w", err)
	}
	return p.Metrics.Erasure(svc), nil
}

type usersParams struct {
	fx.In
	Messages *sqlstore.MessageStore
	Erasures ports.ErasureStore
	Sources  []users.Source `group:"user_sources"`
}

func newUsersService(p usersParams) *users.Service {
	return users.New(p.Sources, p.Erasures, p.Messages)
}

func erasureRoutes(e metrics.Eraser, u *users.Service) Route {
	return func(api *httpapi.API) {
		httpapi.RegisterErasure(api, e, u)
		httpapi.RegisterSessionDeletion(api, e)
	}
}

// sessionRemover is the session store's share of a session's deletion: the
// sessions use case, for the erasure's.
type sessionRemover struct{ svc metrics.SessionService }

func (r sessionRemover) DeleteSession(ctx context.Context, scope memory.Scope, sessionID, flowID string) error {
	return r.svc.Delete(ctx, sessions.Delete{Scope: scope, SessionID: sessionID, FlowID: flowID})
}
