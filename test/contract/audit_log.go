package contract

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// RunAuditLog is the contract every ports.AuditLog adapter must pass. open returns
// an empty log; each case opens its own.
func RunAuditLog(t *testing.T, open func(t *testing.T) ports.AuditLog) {
	t.Helper()
	base := time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.UTC)

	t.Run("entries filter by target, actor and time, oldest first, with a cursor", func(t *testing.T) {
		t.Parallel()
		log, ctx := open(t), memTestContext(t)
		var all []ports.AuditEntry
		for i, e := range []struct{ actor, action, target string }{
			{"lead", "profile.read", "dev"},
			{"vp", "profile.read", "dev"},
			{"lead", "report.create", "dev"},
			{"lead", "profile.read", "qa"},
			{"peer", "profile.read.denied", "dev"},
		} {
			entry := ports.AuditEntry{ID: fmt.Sprintf("01A%02d", i), Tenant: "acme", At: base.Add(time.Duration(i) * time.Minute),
				Actor: e.actor, Action: e.action, TargetUser: e.target}
			must(t, log.AppendAudit(ctx, entry))
			entry.At = entry.At.Truncate(time.Microsecond)
			all = append(all, entry)
		}
		must(t, log.AppendAudit(ctx, ports.AuditEntry{ID: "01A99", Tenant: "globex", At: base, Actor: "lead", Action: "profile.read", TargetUser: "dev"}))

		got, err := log.Audit(ctx, ports.AuditQuery{Tenant: "acme", Limit: 100})
		if err != nil || !reflect.DeepEqual(got, all) {
			t.Fatalf("all:\n %v (err %v)\nwant\n %v", got, err, all)
		}
		got, _ = log.Audit(ctx, ports.AuditQuery{Tenant: "acme", TargetUser: "dev", Actor: "lead", Limit: 100})
		if !reflect.DeepEqual(got, []ports.AuditEntry{all[0], all[2]}) {
			t.Errorf("target dev, actor lead: %v", got)
		}
		got, _ = log.Audit(ctx, ports.AuditQuery{Tenant: "acme", Since: base.Add(2 * time.Minute), Limit: 2})
		if !reflect.DeepEqual(got, []ports.AuditEntry{all[2], all[3]}) {
			t.Errorf("since 10:02, limit 2: %v", got)
		}
		got, _ = log.Audit(ctx, ports.AuditQuery{Tenant: "acme", AfterID: got[1].ID, Limit: 2})
		if !reflect.DeepEqual(got, []ports.AuditEntry{all[4]}) {
			t.Errorf("after the cursor: %v", got)
		}
		if err := log.AppendAudit(ctx, all[0]); !errors.Is(err, ports.ErrConflict) {
			t.Errorf("a taken id: %v", err)
		}
	})

	t.Run("an erased user's id is replaced by their fingerprint, as target and as actor", func(t *testing.T) {
		t.Parallel()
		log, ctx := open(t), memTestContext(t)
		for i, e := range []struct{ tenant, actor, target string }{
			{"acme", "lead", "dev"}, {"acme", "dev", "qa"}, {"acme", "lead", "qa"}, {"globex", "lead", "dev"},
		} {
			must(t, log.AppendAudit(ctx, ports.AuditEntry{ID: fmt.Sprintf("01B%02d", i), Tenant: e.tenant, At: base,
				Actor: e.actor, Action: "profile.read", TargetUser: e.target}))
		}
		dev := memory.Scope{Tenant: "acme", User: "dev"}
		removed, err := log.PurgeUser(ctx, dev)
		if err != nil || removed["audit_entries"] != 2 {
			t.Fatalf("purge: %v, %v; want 2 entries rewritten", removed, err)
		}
		for _, q := range []ports.AuditQuery{{Tenant: "acme", TargetUser: "dev", Limit: 10}, {Tenant: "acme", Actor: "dev", Limit: 10}} {
			if got, _ := log.Audit(ctx, q); len(got) != 0 {
				t.Errorf("%+v still finds %v", q, got)
			}
		}
		if got, _ := log.Audit(ctx, ports.AuditQuery{Tenant: "acme", TargetUser: dev.Fingerprint(), Limit: 10}); len(got) != 1 || got[0].Actor != "lead" {
			t.Errorf("the read of dev is not kept under the fingerprint: %v", got)
		}
		if got, _ := log.Audit(ctx, ports.AuditQuery{Tenant: "globex", TargetUser: "dev", Limit: 10}); len(got) != 1 {
			t.Errorf("another tenant's dev was touched: %v", got)
		}
		if again, err := log.PurgeUser(ctx, dev); err != nil || again["audit_entries"] != 0 {
			t.Errorf("a second purge: %v, %v", again, err)
		}
	})
}
