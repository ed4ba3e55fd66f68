package ports

import (
	"context"
	"time"
)

// AuditEntry records that someone read (or was refused) a user's profile or
// reports. It holds no content, so it outlives the user's erasure.
type AuditEntry struct {
	ID         string // sorts by time (a ULID)
	Tenant     string
	At         time.Time
	Actor      string // the X-Acting-User
	Action     string // profile.read, report.create, …
	TargetUser string
}

// AuditQuery filters the audit log of one tenant; empty fields do not filter.
type AuditQuery struct {
	Tenant     string
	TargetUser string
	Actor      string
	Since      time.Time // At at or after
	AfterID    string    // cursor: entries with ids after this
	Limit      int
}

// AuditLog is an append-only log of reads of profiles and reports.
//
// Its PurgeUser (the erasure hook) keeps the entries but replaces the erased
// user's id, as target or as actor, with memory.Scope.Fingerprint(): the record that
// a read happened outlives the user, their id does not ("audit_entries": rewritten).
type AuditLog interface {
	UserPurger

	// AppendAudit stores an entry.
	AppendAudit(ctx context.Context, e AuditEntry) error

	// Audit returns up to q.Limit entries, oldest first.
	Audit(ctx context.Context, q AuditQuery) ([]AuditEntry, error)
}
