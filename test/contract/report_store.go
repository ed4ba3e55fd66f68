package contract

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// RunReportStore is the contract every ports.ReportStore adapter must pass. open
// returns an empty store; each case opens its own.
func RunReportStore(t *testing.T, open func(t *testing.T) ports.ReportStore) {
	t.Helper()
	now := time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.UTC)
	scope := memory.Scope{Tenant: "acme", User: "dev"}
	report := func(id string, sc memory.Scope) profile.Report {
		return profile.Report{
			ID: id, Scope: sc, Actor: "lead", Text: "报告 " + id,
			Facts: []profile.Fact{
				{ID: "F1", Source: profile.FactProfile, Key: "position", Text: "职位：工程师"},
				{ID: "F2", Source: profile.FactMemory, Key: "project.crm", Text: "负责 CRM 迁移"},
			},
			FactsUsed: []string{"F2"}, Generator: profile.GeneratorLLM, Model: "gpt-x",
			FallbackReason: "", Language: "zh", GeneratedAt: now,
		}
	}

	t.Run("a report round-trips with its facts", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		r := report(memNewID(), scope)
		r.Generator, r.Model, r.FallbackReason = profile.GeneratorRules, "", "llm_timeout"
		must(t, store.SaveReport(ctx, r))
		got, err := store.Report(ctx, scope, r.ID)
		want := r
		want.GeneratedAt = now.Truncate(time.Microsecond)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v (err %v)\nwant %+v", got, err, want)
		}
		if _, err := store.Report(ctx, memory.Scope{Tenant: "globex", User: "dev"}, r.ID); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("another tenant read the report: %v", err)
		}
		if err := store.SaveReport(ctx, r); !errors.Is(err, ports.ErrConflict) {
			t.Errorf("a taken id: %v", err)
		}
	})

	t.Run("reports list newest first by pages; purge removes the user's", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		var ids []string
		for i := range 5 {
			id := fmt.Sprintf("01R%02d", i)
			ids = append(ids, id)
			must(t, store.SaveReport(ctx, report(id, scope)))
		}
		must(t, store.SaveReport(ctx, report("01R99", memory.Scope{Tenant: "acme", User: "other"})))
		page, err := store.Reports(ctx, scope, "", 2)
		if err != nil || len(page) != 2 || page[0].ID != ids[4] || page[1].ID != ids[3] {
			t.Fatalf("first page %v %v", page, err)
		}
		page, _ = store.Reports(ctx, scope, page[1].ID, 10)
		if len(page) != 3 || page[0].ID != ids[2] || page[2].ID != ids[0] {
			t.Errorf("second page %v", page)
		}
		counts, err := mustPurger(t, store).PurgeUser(ctx, scope)
		if err != nil || counts["profile_reports"] != 5 {
			t.Fatalf("purge %v %v", counts, err)
		}
		if page, _ := store.Reports(ctx, scope, "", 10); len(page) != 0 {
			t.Errorf("after purge %v", page)
		}
		if page, _ := store.Reports(ctx, memory.Scope{Tenant: "acme", User: "other"}, "", 10); len(page) != 1 {
			t.Errorf("purge reached another user: %v", page)
		}
	})
}
