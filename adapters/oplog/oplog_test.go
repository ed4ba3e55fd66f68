package oplog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"engram/adapters/oplog"
	"engram/app/extraction"
	"engram/app/indexing"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

type recorded struct {
	reports []extraction.Report
	batches []indexing.Report
	lexical []indexing.LexicalReport
}

func (r *recorded) Processed(rep extraction.Report) { r.reports = append(r.reports, rep) }
func (r *recorded) Batch(rep indexing.Report)       { r.batches = append(r.batches, rep) }
func (r *recorded) LexicalBatch(rep indexing.LexicalReport) {
	r.lexical = append(r.lexical, rep)
}

func jsonLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

func TestExtraction_logsWhatBecameOfTheMessagesThenPassesOn(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	next := &recorded{}
	obs := oplog.Extraction(slog.New(slog.NewJSONHandler(&buf, nil)), next)
	ok := extraction.Report{
		Scope: memory.Scope{Tenant: "acme", User: "alice"}, ConversationID: "c1",
		Messages:   []conversation.Message{{ID: "m1"}, {ID: "m2"}},
		Skipped:    map[string]int{"greeting": 1},
		Dropped:    map[string]int{"low_confidence": 2, "noise_key": 1},
		Candidates: 4, Written: 1, RoutedToProfile: 1, Duration: 12 * time.Millisecond,
		Calls: []extraction.Call{{Stage: "extract", Usage: ports.LLMUsage{Calls: 1}}},
	}
	obs.Processed(ok)
	obs.Processed(extraction.Report{Err: errors.New("llm: 500"), Skipped: map[string]int{}, Dropped: map[string]int{}})
	if len(next.reports) != 2 {
		t.Fatalf("passed on %d reports, want both", len(next.reports))
	}
	lines := jsonLines(t, &buf)
	if len(lines) != 1 {
		t.Fatalf("%d lines, want one for the successful run (the runner logs failures): %s", len(lines), buf.String())
	}
	l := lines[0]
	if l["msg"] != "extraction" || l["level"] != "INFO" || l["tenant"] != "acme" || l["conversation"] != "c1" ||
		l["written"] != 1.0 || l["candidates"] != 4.0 || l["routed_to_profile"] != 1.0 || l["model_calls"] != 1.0 || l["took"] == nil {
		t.Errorf("line = %v", l)
	}
	if ids, _ := l["messages"].([]any); len(ids) != 2 || ids[0] != "m1" {
		t.Errorf("messages = %v", l["messages"])
	}
	if d, _ := l["dropped"].(map[string]any); d["low_confidence"] != 2.0 || d["noise_key"] != 1.0 {
		t.Errorf("dropped = %v", l["dropped"])
	}
	if s, _ := l["skipped"].(map[string]any); s["greeting"] != 1.0 {
		t.Errorf("skipped = %v", l["skipped"])
	}
}

func TestIndexing_logsBatchesThatClaimedSomething(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	next := &recorded{}
	obs := oplog.Indexing(slog.New(slog.NewJSONHandler(&buf, nil)), next)
	obs.Batch(indexing.Report{Kind: memory.KindMemory})
	obs.Batch(indexing.Report{Kind: memory.KindMessage, Claimed: 5, Embedded: 4, Unchanged: 1, Synced: 4, Failed: 1,
		Failures: map[string]int{"embed": 1}, Duration: 30 * time.Millisecond})
	if len(next.batches) != 2 {
		t.Fatalf("passed on %d batches", len(next.batches))
	}
	lines := jsonLines(t, &buf)
	if len(lines) != 1 {
		t.Fatalf("%d lines, want one (an empty batch is not logged): %s", len(lines), buf.String())
	}
	if l := lines[0]; l["msg"] != "indexer batch" || l["claimed"] != 5.0 || l["synced"] != 4.0 || l["failed"] != 1.0 || l["kind"] != string(memory.KindMessage) {
		t.Errorf("line = %v", l)
	}
}

func TestExtraction_aRunThatWaitsSaysWhyAndUntilWhen(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	obs := oplog.Extraction(slog.New(slog.NewJSONHandler(&buf, nil)), nil)
	until := time.Date(2026, 12, 1, 9, 0, 30, 0, time.UTC)
	obs.Processed(extraction.Report{Scope: memory.Scope{Tenant: "acme", User: "alice"}, ConversationID: "c1",
		Messages: []conversation.Message{{ID: "m1"}},
		Wait:     &extraction.Wait{Stage: extraction.StageExtract, Reason: extraction.WaitBudget, Until: until}})
	lines := jsonLines(t, &buf)
	if len(lines) != 1 {
		t.Fatalf("%d lines: %s", len(lines), buf.String())
	}
	l := lines[0]
	if !strings.Contains(l["msg"].(string), "ENGRAM_LLM_TENANT_CALLS_PER_MINUTE") || l["tenant"] != "acme" ||
		l["reason"] != extraction.WaitBudget || l["until"] != "2026-12-01T09:00:30Z" {
		t.Errorf("line %v", l)
	}
}

func TestLexical_logsBatchesThatWroteSomething(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	next := &recorded{}
	obs := oplog.Lexical(slog.New(slog.NewJSONHandler(&buf, nil)), next)
	obs.LexicalBatch(indexing.LexicalReport{Pass: indexing.LexicalPassRepair, Read: 500, Duration: time.Millisecond})
	obs.LexicalBatch(indexing.LexicalReport{Pass: indexing.LexicalPassMessages, Read: 1000, Indexed: 1000, Duration: 42 * time.Millisecond})
	obs.LexicalBatch(indexing.LexicalReport{Pass: indexing.LexicalPassRepair, Read: 3, Indexed: 1, Removed: 2, Duration: 2 * time.Millisecond})
	if len(next.lexical) != 3 {
		t.Fatalf("passed on %d batches, want all three", len(next.lexical))
	}
	lines := jsonLines(t, &buf)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want two (a repair batch that found everything in step is not logged): %s", len(lines), buf.String())
	}
	if l := lines[0]; l["msg"] != "lexical index batch" || l["level"] != "INFO" || l["pass"] != "messages" || l["read"] != 1000.0 ||
		l["indexed"] != 1000.0 || l["took"] == nil || l["removed"] != nil {
		t.Errorf("message pass line = %v", l)
	}
	if l := lines[1]; l["pass"] != "repair" || l["read"] != 3.0 || l["indexed"] != 1.0 || l["removed"] != 2.0 {
		t.Errorf("repair pass line = %v", l)
	}
}
