package profiles

import (
	"context"

	"engram/domain/memory"
	"engram/domain/profile"
)

// RecordActivity is one posted activity event.
type RecordActivity struct {
	Scope memory.Scope
	Event profile.ActivityInput
}

// RecordActivity stores an event (idempotent on its event id: a repeat with the
// same content returns the stored event, other content is a conflict) and marks
// the profile for a refresh; the statistics are derived later by the worker.
func (s *Service) RecordActivity(ctx context.Context, cmd RecordActivity) (profile.Activity, bool, error) {
	a, err := profile.NewActivity(cmd.Scope, cmd.Event, s.deps.Clock.Now())
	if err != nil {
		return profile.Activity{}, false, err
	}
	stored, created, err := s.deps.Activity.RecordActivity(ctx, a)
	if err != nil {
		return profile.Activity{}, false, err
	}
	if created {
		if err := s.MarkStale(ctx, cmd.Scope); err != nil {
			// The event is stored; the next conversation or event marks the
			// profile again. Failing the call would make the client post it again
			// for nothing.
			s.opts.Logger.WarnContext(ctx, "profiles: marking a profile for refresh failed", "user", cmd.Scope.User, "error", err)
		}
	}
	return stored, created, nil
}

// MarkStale schedules a refresh of the user's derived fields, debounced: the
// worker derives them once the user has been quiet for RefreshDebounce (at most
// RefreshMaxWait after the first change). Extraction calls it after a
// conversation's messages are processed.
func (s *Service) MarkStale(ctx context.Context, scope memory.Scope) error {
	return s.deps.Refreshes.MarkProfileStale(ctx, scope, s.deps.Clock.Now(), s.opts.RefreshDebounce, s.opts.RefreshMaxWait)
}
