package metrics

import (
	"context"

	"engram/ports"
)

// reportWriter is a ports.ReportWriter that records what each report cost the
// model (stage report), a failed attempt included: its retries were sent.
type reportWriter struct {
	next ports.ReportWriter
	cost *LLMCost
}

var _ ports.ReportWriter = reportWriter{}

// ReportWriter wraps next so that its model usage is counted by tenant.
func (c *LLMCost) ReportWriter(next ports.ReportWriter) ports.ReportWriter {
	return reportWriter{next: next, cost: c}
}

// WriteReport implements ports.ReportWriter.
func (w reportWriter) WriteReport(ctx context.Context, req ports.ReportRequest) (ports.ReportDraft, ports.LLMUsage, error) {
	draft, usage, err := w.next.WriteReport(ctx, req)
	w.cost.Record(StageReport, req.Scope.Tenant, usage)
	return draft, usage, err
}
