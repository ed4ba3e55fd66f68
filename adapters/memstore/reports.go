package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// ReportStore is an in-memory ports.ReportStore.
type ReportStore struct {
	mu      sync.Mutex
	reports map[string]profile.Report // by id
}

var _ ports.ReportStore = (*ReportStore)(nil)

// NewReportStore returns an empty store.
func NewReportStore() *ReportStore { return &ReportStore{reports: map[string]profile.Report{}} }

// SaveReport stores a new report.
func (s *ReportStore) SaveReport(ctx context.Context, r profile.Report) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: save report: %w: %w", ports.ErrUnavailable, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.reports[r.ID]; taken {
		return fmt.Errorf("memstore: save report: id %q is taken: %w", r.ID, ports.ErrConflict)
	}
	s.reports[r.ID] = copyReport(r)
	return nil
}

// Report returns one report of the user.
func (s *ReportStore) Report(_ context.Context, scope memory.Scope, id string) (profile.Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reports[id]
	if !ok || r.Scope != scope {
		return profile.Report{}, fmt.Errorf("memstore: get report: %w", ports.ErrNotFound)
	}
	return copyReport(r), nil
}

// Reports returns the user's reports before beforeID, newest first.
func (s *ReportStore) Reports(_ context.Context, scope memory.Scope, beforeID string, limit int) ([]profile.Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []profile.Report
	for id, r := range s.reports {
		if r.Scope == scope && (beforeID == "" || id < beforeID) {
			out = append(out, copyReport(r))
		}
	}
	slices.SortFunc(out, func(a, b profile.Report) int { return strings.Compare(b.ID, a.ID) })
	return out[:min(len(out), max(limit, 0))], nil
}

// PurgeUser removes the user's reports.
func (s *ReportStore) PurgeUser(_ context.Context, scope memory.Scope) (map[string]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := deleteOfScope(s.reports, scope, func(r profile.Report) memory.Scope { return r.Scope })
	return map[string]int64{"profile_reports": n}, nil
}

func copyReport(r profile.Report) profile.Report {
	r.Facts = slices.Clone(r.Facts)
	r.FactsUsed = slices.Clone(r.FactsUsed)
	r.GeneratedAt = normTime(r.GeneratedAt)
	return r
}
