package profiles

import (
	"context"
	"errors"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// Refresh derives the user's profile again from their conversations, sessions,
// work memories and activity, and stores it if anything changed. A user of whom
// nothing is known gets no profile. It runs in the worker role (Refresher), never
// on a request.
func (s *Service) Refresh(ctx context.Context, scope memory.Scope) error {
	now := s.deps.Clock.Now()
	in := profile.Inputs{Now: now}
	cur, err := s.deps.Profiles.Profile(ctx, scope)
	switch {
	case err == nil:
		in.TimeZone = cur.State().Declared.TimeZone
	case !errors.Is(err, ports.ErrNotFound):
		return err
	}
	if in.Conversations, in.LastConversationAt, err = s.deps.Messages.ConversationSummary(ctx, scope); err != nil {
		return err
	}
	msgs, err := s.deps.Messages.RecentUserMessages(ctx, scope, now.Add(-profile.WorkHoursWindow), s.opts.MessageSample)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		in.Messages = append(in.Messages, profile.MessageFact{At: m.CreatedAt, Text: m.Content})
	}
	if in.Memories, err = s.memoryFacts(ctx, scope); err != nil {
		return err
	}
	if in.Activity, err = s.deps.Activity.ActivityTallies(ctx, scope); err != nil {
		return err
	}
	if in.Sessions, err = s.sessionFacts(ctx, scope); err != nil {
		return err
	}
	derived := profile.Derive(in, s.deps.Analyzer.Terms)
	stored, err := s.deps.Profiles.UpdateProfile(ctx, scope, func(cur *profile.Profile) (profile.Profile, error) {
		base := profile.New(scope, now)
		if cur != nil {
			base = *cur
		}
		next, changed := base.WithDerived(derived, now)
		if !changed || next.IsEmpty() {
			return profile.Profile{}, ports.ErrNoChange
		}
		return next, nil
	})
	if errors.Is(err, ports.ErrNoChange) {
		return nil
	}
	if err != nil {
		return err
	}
	// The names are indexed again with every refresh, so a write of the index that
	// failed after a PATCH heals here.
	return s.indexNames(ctx, stored)
}

// sessionFacts are the user's live sessions as the derivations see them.
func (s *Service) sessionFacts(ctx context.Context, scope memory.Scope) ([]profile.SessionFact, error) {
	if s.deps.Sessions == nil {
		return nil, nil
	}
	metas, err := s.deps.Sessions.Sessions(ctx, scope, ports.SessionQuery{Limit: ports.MaxSessionList})
	if err != nil {
		return nil, err
	}
	facts := make([]profile.SessionFact, len(metas))
	for i, m := range metas {
		facts[i] = profile.SessionFact{FlowID: m.Ref.FlowID, FlowName: m.FlowName, Messages: m.MessageCount, LastActiveAt: m.LastActiveAt}
	}
	return facts, nil
}
