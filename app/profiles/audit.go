package profiles

import (
	"context"
	"strings"
	"time"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// Audit listing bounds.
const (
	DefaultAuditLimit = 100
	MaxAuditLimit     = 1000
)

// ListAudit filters a tenant's audit log; empty fields do not filter.
type ListAudit struct {
	Tenant     string
	TargetUser string
	Actor      string
	Since      time.Time
	Cursor     string // next_cursor of the previous page
	Limit      int
}

// Audit returns a page of the tenant's audit log, oldest first, and the cursor of
// the next page ("" on the last).
func (s *Service) Audit(ctx context.Context, q ListAudit) ([]ports.AuditEntry, string, error) {
	limit := q.Limit
	if limit == 0 {
		limit = DefaultAuditLimit
	}
	var errs []error
	if limit < 1 || limit > MaxAuditLimit {
		errs = append(errs, invalid.FieldValue("limit", q.Limit, "must be between 1 and %d", MaxAuditLimit))
	}
	for field, v := range map[string]string{"target_user": q.TargetUser, "actor": q.Actor} {
		if v != "" {
			errs = append(errs, memory.ValidateUserID(field, v))
		}
	}
	if err := invalid.Join(errs...); err != nil {
		return nil, "", err
	}
	entries, err := s.deps.Audit.Audit(ctx, ports.AuditQuery{
		Tenant: q.Tenant, TargetUser: q.TargetUser, Actor: q.Actor, Since: q.Since,
		AfterID: strings.TrimSpace(q.Cursor), Limit: limit + 1,
	})
	if err != nil {
		return nil, "", err
	}
	if len(entries) > limit {
		return entries[:limit], entries[limit-1].ID, nil
	}
	return entries, "", nil
}
