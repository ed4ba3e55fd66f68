package ports

import (
	"context"

	"engram/domain/memory"
	"engram/domain/profile"
)

// ReportStore keeps evaluation reports with the facts they were written from.
type ReportStore interface {
	// SaveReport stores a new report; ErrConflict if its id is taken.
	SaveReport(ctx context.Context, r profile.Report) error

	// Report returns one report of the user. ErrNotFound if absent.
	Report(ctx context.Context, scope memory.Scope, id string) (profile.Report, error)

	// Reports returns up to limit reports of the user with ids before beforeID
	// ("" for the newest), newest first.
	Reports(ctx context.Context, scope memory.Scope, beforeID string, limit int) ([]profile.Report, error)
}
