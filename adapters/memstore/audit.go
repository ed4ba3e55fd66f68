package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"engram/domain/memory"
	"engram/ports"
)

// AuditLog is an in-memory ports.AuditLog.
type AuditLog struct {
	mu      sync.Mutex
	entries []ports.AuditEntry // in id order
}

var _ ports.AuditLog = (*AuditLog)(nil)

// NewAuditLog returns an empty log.
func NewAuditLog() *AuditLog { return &AuditLog{} }

// AppendAudit stores an entry.
func (s *AuditLog) AppendAudit(ctx context.Context, e ports.AuditEntry) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: append audit: %w: %w", ports.ErrUnavailable, err)
	}
	e.At = normTime(e.At)
	s.mu.Lock()
	defer s.mu.Unlock()
	i, found := slices.BinarySearchFunc(s.entries, e.ID, func(x ports.AuditEntry, id string) int { return strings.Compare(x.ID, id) })
	if found {
		return fmt.Errorf("memstore: append audit: id %q is taken: %w", e.ID, ports.ErrConflict)
	}
	s.entries = slices.Insert(s.entries, i, e)
	return nil
}

// Audit returns the matching entries, oldest first.
func (s *AuditLog) Audit(_ context.Context, q ports.AuditQuery) ([]ports.AuditEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ports.AuditEntry
	for _, e := range s.entries {
		if len(out) >= q.Limit {
			break
		}
		if e.Tenant != q.Tenant || e.ID <= q.AfterID || (q.TargetUser != "" && e.TargetUser != q.TargetUser) ||
			(q.Actor != "" && e.Actor != q.Actor) || (!q.Since.IsZero() && e.At.Before(normTime(q.Since))) {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// PurgeUser replaces the user's id in their entries with the scope's fingerprint.
func (s *AuditLog) PurgeUser(_ context.Context, scope memory.Scope) (map[string]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for i := range s.entries {
		e := &s.entries[i]
		if e.Tenant != scope.Tenant {
			continue
		}
		if e.TargetUser == scope.User {
			e.TargetUser, n = scope.Fingerprint(), n+1
		}
		if e.Actor == scope.User {
			e.Actor, n = scope.Fingerprint(), n+1
		}
	}
	return map[string]int64{"audit_entries": n}, nil
}
