// Package oplog is the operations log of the background roles: one INFO line per
// extraction outcome and per indexer batch (vector and lexical), written by
// observers that wrap the metrics observers from outside, so the use cases do
// not log their outcomes themselves. Failures are logged where they happen (at WARN, by the loops).
package oplog

import (
	"log/slog"
	"maps"
	"slices"
	"time"

	"engram/app/extraction"
	"engram/app/indexing"
)

// Extraction logs each successful extraction run, then passes the report on to
// next (nil: none). A failed run is logged by the runner with its error.
func Extraction(log *slog.Logger, next extraction.Observer) extraction.Observer {
	return extractionLog{log: log, next: next}
}

type extractionLog struct {
	log  *slog.Logger
	next extraction.Observer
}

func (x extractionLog) Processed(r extraction.Report) {
	switch {
	case r.Wait != nil:
		x.log.Info(waitMessage(r.Wait.Reason), "tenant", r.Scope.Tenant, "user", r.Scope.User,
			"conversation", r.ConversationID, "stage", r.Wait.Stage, "reason", r.Wait.Reason,
			"messages", len(r.Messages), "until", r.Wait.Until.UTC().Format(time.RFC3339))
	case r.Err == nil:
		x.log.Info("extraction", extractionAttrs(r)...)
	}
	if x.next != nil {
		x.next.Processed(r)
	}
}

// waitMessage says why a run waits for the model, in words an operator acts on.
func waitMessage(reason string) string {
	if reason == extraction.WaitBudget {
		return "extraction waits: the tenant has used its LLM budget (ENGRAM_LLM_TENANT_CALLS_PER_MINUTE); messages stay PENDING"
	}
	return "extraction waits: the LLM endpoint asked to slow down (HTTP 429); messages stay PENDING"
}

// extractionAttrs says which messages were read and what became of them: the
// memories written, the messages skipped and the candidates dropped, by reason.
func extractionAttrs(r extraction.Report) []any {
	ids := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		ids[i] = m.ID
	}
	attrs := []any{
		"tenant", r.Scope.Tenant, "user", r.Scope.User, "conversation", r.ConversationID,
		"messages", ids, "candidates", r.Candidates, "written", r.Written, "unchanged", r.Unchanged,
	}
	if r.Reused > 0 || r.Merged > 0 {
		attrs = append(attrs, "reused", r.Reused, "merged", r.Merged)
	}
	if r.RoutedToProfile > 0 {
		attrs = append(attrs, "routed_to_profile", r.RoutedToProfile)
	}
	if r.Deferred > 0 {
		attrs = append(attrs, "deferred", r.Deferred) // over a message's write limit: the next run writes them
	}
	if len(r.Skipped) > 0 {
		attrs = append(attrs, "skipped", reasons(r.Skipped))
	}
	if len(r.Dropped) > 0 {
		attrs = append(attrs, "dropped", reasons(r.Dropped))
	}
	if calls := r.ModelCalls(); calls > 0 {
		attrs = append(attrs, "model_calls", calls)
	}
	if r.Colliding > 0 {
		attrs = append(attrs, "colliding", r.Colliding)
	}
	return append(attrs, "took", r.Duration.Round(time.Millisecond))
}

// reasons renders counts by reason in a stable order: "greeting=2 noise_key=1".
func reasons(counts map[string]int) slog.Value {
	attrs := make([]slog.Attr, 0, len(counts))
	for _, reason := range slices.Sorted(maps.Keys(counts)) {
		attrs = append(attrs, slog.Int(reason, counts[reason]))
	}
	return slog.GroupValue(attrs...)
}

// Indexing logs each vector indexer batch that claimed something, then passes
// the report on to next (nil: none).
func Indexing(log *slog.Logger, next indexing.Observer) indexing.Observer {
	return indexingLog{log: log, next: next}
}

type indexingLog struct {
	log  *slog.Logger
	next indexing.Observer
}

func (x indexingLog) Batch(r indexing.Report) {
	if r.Claimed > 0 {
		attrs := []any{"kind", string(r.Kind), "claimed", r.Claimed, "embedded", r.Embedded, "unchanged", r.Unchanged,
			"synced", r.Synced, "failed", r.Failed}
		if r.Stale > 0 {
			attrs = append(attrs, "stale", r.Stale)
		}
		if r.Removed > 0 {
			attrs = append(attrs, "removed", r.Removed)
		}
		if len(r.Failures) > 0 {
			attrs = append(attrs, "failures", reasons(r.Failures))
		}
		x.log.Info("indexer batch", append(attrs, "took", r.Duration.Round(time.Millisecond))...)
	}
	if x.next != nil {
		x.next.Batch(r)
	}
}

// Lexical logs each lexical indexer batch that wrote or deleted documents (the
// message pass and the repair pass), then passes the report on to next (nil:
// none). A batch of the repair pass that found every document in step did
// nothing and is not logged.
func Lexical(log *slog.Logger, next indexing.LexicalObserver) indexing.LexicalObserver {
	return lexicalLog{log: log, next: next}
}

type lexicalLog struct {
	log  *slog.Logger
	next indexing.LexicalObserver
}

func (x lexicalLog) LexicalBatch(r indexing.LexicalReport) {
	if r.Indexed+r.Removed > 0 {
		attrs := []any{"pass", r.Pass, "read", r.Read, "indexed", r.Indexed}
		if r.Removed > 0 {
			attrs = append(attrs, "removed", r.Removed)
		}
		x.log.Info("lexical index batch", append(attrs, "took", r.Duration.Round(time.Millisecond))...)
	}
	if x.next != nil {
		x.next.LexicalBatch(r)
	}
}
