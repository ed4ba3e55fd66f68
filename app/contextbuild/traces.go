package contextbuild

import (
	"context"
	"errors"

	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/ports"
)

// Trace reads one trace of the tenant (GET /v1/traces/{trace_id}). A trace past
// its retention, or of a user being erased, is not found.
func (s *Service) Trace(ctx context.Context, tenant, id string) (promptctx.Trace, error) {
	t, err := s.deps.Reader.Trace(ctx, tenant, id)
	if err != nil {
		return promptctx.Trace{}, ports.NameNotFound(err, "trace", id)
	}
	return s.visible(ctx, t, ports.NotFound("trace", id))
}

// LatestTrace reads the user's most recent trace (GET
// /v1/users/{user}/traces/latest), as the trace endpoint shows it.
func (s *Service) LatestTrace(ctx context.Context, scope memory.Scope) (promptctx.Trace, error) {
	notFound := ports.NotFound("trace of user", scope.User)
	t, err := s.deps.Reader.LatestTrace(ctx, scope)
	if errors.Is(err, ports.ErrNotFound) {
		return promptctx.Trace{}, notFound
	}
	if err != nil {
		return promptctx.Trace{}, err
	}
	return s.visible(ctx, t, notFound)
}

// ListTraces reads a page of the user's traces, newest first (GET
// /v1/users/{user}/traces): none past their retention, none of a user being
// erased.
func (s *Service) ListTraces(ctx context.Context, scope memory.Scope, before string, limit int) ([]promptctx.Trace, error) {
	erasing, err := s.erasing(ctx, scope)
	if err != nil || erasing {
		return []promptctx.Trace{}, err
	}
	page, err := s.deps.Reader.ListTraces(ctx, scope, before, limit)
	if err != nil {
		return nil, err
	}
	// Newest first: the first trace past its retention ends the page.
	oldest := s.deps.Clock.Now().Add(-s.opts.Retention)
	for i, t := range page {
		if t.At.Before(oldest) {
			return page[:i], nil
		}
	}
	return page, nil
}

// visible returns t unless it is past its retention or its user is being erased.
func (s *Service) visible(ctx context.Context, t promptctx.Trace, notFound error) (promptctx.Trace, error) {
	if t.At.Before(s.deps.Clock.Now().Add(-s.opts.Retention)) {
		return promptctx.Trace{}, notFound
	}
	erasing, err := s.erasing(ctx, t.Scope)
	if err != nil {
		return promptctx.Trace{}, err
	}
	if erasing {
		return promptctx.Trace{}, notFound
	}
	return t, nil
}
