package contextbuild

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/domain/session"
	"engram/ports"
)

// Stage names in traces and metrics.
const (
	StageSession  = "session"
	StageProfile  = "profile"
	StageStanding = "standing"
	StageMemories = "memories"
	StageEpisodes = "episodes"
	StageExternal = "external"
	StagePack     = "pack"
	StageTrace    = "trace"
	StageTotal    = "total"
)

// Stages lists every stage (metrics pre-register them).
var Stages = []string{StageSession, StageProfile, StageStanding, StageMemories, StageEpisodes, StageExternal, StagePack, StageTrace, StageTotal}

// gathered is what the sources answered.
type gathered struct {
	view     session.View // the session; zero when the request names none, or it does not exist
	profile  string
	standing []memory.Memory // the user's standing memories, in their order
	memories Found
	episodes Found
	timings  map[string]time.Duration
}

// gather reads the session, the standing memories and the profile side by
// side, then, with the session's summary joining the question, retrieves
// memories and episodes side by side. A source the request did not include is
// not read.
func (s *Service) gather(ctx context.Context, p plan, now time.Time) (gathered, error) {
	g := gathered{timings: map[string]time.Duration{}}
	var sessionErr, standingErr, profileErr, memErr, epErr error
	var sessionTime, standingTime, profileTime, memTime, epTime time.Duration
	var wg sync.WaitGroup
	if p.ref != nil && s.deps.Sessions != nil {
		wg.Go(func() {
			g.view, sessionTime, sessionErr = timed(func() (session.View, error) { return s.readSession(ctx, p) })
		})
	}
	if p.wants(promptctx.Standing) && s.deps.Standing != nil {
		wg.Go(func() {
			g.standing, standingTime, standingErr = timed(func() ([]memory.Memory, error) {
				return s.deps.Standing.StandingMemories(ctx, p.Scope, s.opts.StandingMinImportance, now, MaxStanding)
			})
		})
	}
	if p.wants(promptctx.Profile) && s.deps.Profiles != nil {
		g.profile, profileTime, profileErr = timed(func() (string, error) { return s.deps.Profiles.Section(ctx, p.Scope) })
	}
	wg.Wait()
	if err := errors.Join(sessionErr, standingErr, profileErr); err != nil {
		return gathered{}, err
	}
	q := Query{Scope: p.Scope, Text: p.asked, Summary: g.view.Summary.Text}
	if p.wants(promptctx.Episodes) {
		wg.Go(func() {
			eq := q
			eq.Within, eq.Limit = WithinMessages, s.episodeLimit(p)
			g.episodes, epTime, epErr = timed(func() (Found, error) { return s.deps.Retriever.Retrieve(ctx, eq) })
		})
	}
	if p.wants(promptctx.Memories) {
		mq := q
		mq.Within, mq.Limit = WithinMemories, p.maxMemories
		g.memories, memTime, memErr = timed(func() (Found, error) { return s.deps.Retriever.Retrieve(ctx, mq) })
	}
	wg.Wait()
	if err := errors.Join(memErr, epErr); err != nil {
		return gathered{}, err
	}
	for stage, d := range map[string]time.Duration{StageSession: sessionTime, StageStanding: standingTime, StageProfile: profileTime,
		StageMemories: memTime, StageEpisodes: epTime} {
		if d > 0 {
			g.timings[stage] = d
		}
	}
	return g, nil
}

// readSession reads the session the request names, with the most recent
// messages; a session that does not exist (any more) reads as empty.
func (s *Service) readSession(ctx context.Context, p plan) (session.View, error) {
	ref := *p.ref
	if ref.FlowID == "" {
		found, err := s.deps.Sessions.Sessions(ctx, p.Scope, ports.SessionQuery{SessionID: ref.SessionID, Limit: 1})
		if err != nil {
			return session.View{}, fmt.Errorf("find session: %w", err)
		}
		if len(found) == 0 {
			return session.View{}, nil
		}
		ref = found[0].Ref
	}
	v, err := s.deps.Sessions.Session(ctx, ref, s.opts.RecentMessages)
	switch {
	case errors.Is(err, ports.ErrNotFound):
		return session.View{}, nil
	case err != nil:
		return session.View{}, fmt.Errorf("read session: %w", err)
	}
	v.Meta.Ref = ref
	return v, nil
}

// timed runs fn and says how long it took.
func timed[T any](fn func() (T, error)) (T, time.Duration, error) {
	start := time.Now()
	v, err := fn()
	return v, time.Since(start), err
}

// EpisodeChars is the budget one more episode is considered for: past messages
// are short, so a large budget asks for more of them than MaxEpisodes.
const EpisodeChars = 160

// episodeLimit is how many past messages are retrieved: MaxEpisodes, or one per
// EpisodeChars of the budget when that is more, up to MaxLimit.
func (s *Service) episodeLimit(p plan) int {
	return min(MaxLimit, max(s.opts.MaxEpisodes, p.budget/EpisodeChars))
}
