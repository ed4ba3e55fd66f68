package profiles

import (
	"context"
	"errors"
	"strings"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// Report listing bounds.
const (
	DefaultReportsLimit = 20
	MaxReportsLimit     = 100
)

// ListReports reads a user's stored reports, newest first.
type ListReports struct {
	Scope  memory.Scope
	Actor  string
	Before string // cursor: the last id of the previous page
	Limit  int
}

// GetReport reads one stored report.
type GetReport struct {
	Scope memory.Scope
	Actor string
	ID    string
}

// Reports returns a page of the user's reports, to a manager above them
// (audited); NextBefore is "" on the last page.
func (s *Service) Reports(ctx context.Context, q ListReports) (reports []profile.Report, nextBefore string, err error) {
	limit := q.Limit
	if limit == 0 {
		limit = DefaultReportsLimit
	}
	if limit < 1 || limit > MaxReportsLimit {
		return nil, "", invalid.FieldValue("limit", q.Limit, "must be between 1 and %d", MaxReportsLimit)
	}
	if _, err := s.authorize(ctx, q.Scope, q.Actor, ActionReportRead, managersOnly); err != nil {
		return nil, "", err
	}
	page, err := s.deps.Reports.Reports(ctx, q.Scope, strings.TrimSpace(q.Before), limit+1)
	if err != nil {
		return nil, "", err
	}
	if len(page) > limit {
		return page[:limit], page[limit-1].ID, nil
	}
	return page, "", nil
}

// Report returns one stored report with the facts it was written from, to a
// manager above the user (audited).
func (s *Service) Report(ctx context.Context, q GetReport) (profile.Report, error) {
	if _, err := s.authorize(ctx, q.Scope, q.Actor, ActionReportRead, managersOnly); err != nil {
		return profile.Report{}, err
	}
	r, err := s.deps.Reports.Report(ctx, q.Scope, q.ID)
	if errors.Is(err, ports.ErrNotFound) {
		return profile.Report{}, ports.NotFound("report", q.ID)
	}
	return r, err
}
