package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/profiles"
	"engram/ports"
)

type auditInput struct {
	TargetUser string    `query:"target_user" maxLength:"128" doc:"Only reads of this user's profile and reports."`
	Actor      string    `query:"actor" maxLength:"128" doc:"Only reads by this X-Acting-User."`
	Since      time.Time `query:"since" doc:"Only entries at or after this time (RFC 3339)."`
	Limit      int       `query:"limit" minimum:"1" maximum:"1000" default:"100" doc:"Most records in one page."`
	Cursor     string    `query:"cursor" maxLength:"64" doc:"next_cursor of the previous page."`
}

// AuditEntry is one read of a profile or report by a manager, or one refusal.
type AuditEntry struct {
	At         time.Time `json:"at"`
	Actor      string    `json:"actor"`
	Action     string    `json:"action" doc:"profile.read, report.create, report.read, user.export, user.import; with .denied appended when refused."`
	TargetUser string    `json:"target_user"`
}

// AuditPage is a page of the audit log, oldest first.
type AuditPage struct {
	Items      []AuditEntry `json:"items"`
	NextCursor string       `json:"next_cursor,omitempty"`
}

type auditOutput struct {
	Body AuditPage
}

// Auditor is what the audit operation needs.
type Auditor interface {
	Audit(ctx context.Context, q profiles.ListAudit) ([]ports.AuditEntry, string, error)
}

// RegisterAudit adds GET /v1/audit.
func RegisterAudit(api *API, svc Auditor) {
	log := api.opts.Logger
	register(api, huma.Operation{
		OperationID: "audit_list", Method: http.MethodGet, Path: "/audit",
		Summary: "Read the audit log of profile and report reads", Tags: []string{"profiles"},
		Errors: []int{http.StatusUnprocessableEntity},
		Description: "Every read of a user's profile or reports by a manager, every report requested, and every refused " +
			"attempt, oldest first. Entries hold no content and outlive the user's erasure.",
	}, func(ctx context.Context, in *auditInput) (*auditOutput, error) {
		entries, next, err := svc.Audit(ctx, profiles.ListAudit{
			Tenant: tenantFrom(ctx), TargetUser: in.TargetUser, Actor: in.Actor, Since: in.Since, Cursor: in.Cursor, Limit: in.Limit,
		})
		if err != nil {
			return nil, problem(ctx, log, err, "query")
		}
		out := &auditOutput{Body: AuditPage{Items: make([]AuditEntry, 0, len(entries)), NextCursor: next}}
		for _, e := range entries {
			out.Body.Items = append(out.Body.Items, AuditEntry{At: e.At.UTC(), Actor: e.Actor, Action: e.Action, TargetUser: e.TargetUser})
		}
		return out, nil
	})
}
