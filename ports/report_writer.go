package ports

import (
	"context"
	"time"

	"engram/domain/memory"
	"engram/domain/profile"
)

// ReportRequest is what an evaluation report is written from.
type ReportRequest struct {
	Scope    memory.Scope
	Subject  string // how the report names the user
	Language string // the profile's language
	Facts    []profile.Fact
	Now      time.Time
}

// ReportDraft is a written report and the ids of the facts it rests on (a subset
// of the request's).
type ReportDraft struct {
	Text      string
	FactsUsed []string
	Model     string
}

// ReportWriter writes evaluation reports with a language model.
type ReportWriter interface {
	WriteReport(ctx context.Context, req ReportRequest) (ReportDraft, LLMUsage, error)
}
