package contract

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/org"
	"engram/ports"
)

// RunOrgStore is the contract every ports.OrgStore adapter must pass. open returns
// an empty store; each case opens its own.
//
// Beyond the port's comments: a cycle is refused with a manager_id validation
// error and nothing is written; concurrent writes that would together close a
// cycle cannot both succeed; PurgeUser removes the member and their name keys and
// detaches the users they managed.
func RunOrgStore(t *testing.T, open func(t *testing.T) ports.OrgStore) {
	t.Helper()
	now := time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.UTC)
	member := func(t *testing.T, user, name, manager string) org.Member {
		t.Helper()
		m, err := org.NewMember(user, org.MemberInput{DisplayName: name, Department: "R&D", Position: "Engineer", ManagerID: manager}, now)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	put := func(t *testing.T, s ports.OrgStore, tenant string, m org.Member) error {
		t.Helper()
		_, _, err := s.PutMember(memTestContext(t), tenant, m, []org.NameKey{{Key: org.NormalizeName(m.DisplayName), Strength: org.StrengthName}})
		return err
	}

	t.Run("put inserts then replaces, keeping created_at", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		m := member(t, "u1", "王小明", "")
		stored, created, err := store.PutMember(ctx, "acme", m, nil)
		if err != nil || !created {
			t.Fatalf("insert: created %v err %v", created, err)
		}
		want := m
		want.CreatedAt, want.UpdatedAt = m.CreatedAt.Truncate(time.Microsecond), m.UpdatedAt.Truncate(time.Microsecond)
		if stored != want {
			t.Errorf("stored %+v, want %+v", stored, want)
		}
		m2 := member(t, "u1", "王小明", "boss")
		m2.Position, m2.CreatedAt, m2.UpdatedAt = "Lead", now.Add(time.Hour), now.Add(time.Hour)
		stored, created, err = store.PutMember(ctx, "acme", m2, nil)
		if err != nil || created || !stored.CreatedAt.Equal(want.CreatedAt) || stored.Position != "Lead" || stored.ManagerID != "boss" {
			t.Fatalf("replace: %+v created %v err %v", stored, created, err)
		}
		got, err := store.Member(ctx, "acme", "u1")
		if err != nil || got != stored {
			t.Errorf("read back %+v %v", got, err)
		}
		if _, err := store.Member(ctx, "globex", "u1"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("other tenant: %v", err)
		}
		many, err := store.MembersOf(ctx, "acme", []string{"u1", "nobody"})
		if err != nil || len(many) != 1 || many["u1"] != stored {
			t.Errorf("MembersOf %v %v", many, err)
		}
	})

	t.Run("chains are transitive; a cycle is refused and nothing changes", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		for _, m := range []org.Member{member(t, "ceo", "CEO", ""), member(t, "vp", "VP", "ceo"), member(t, "lead", "Lead", "vp"), member(t, "dev", "Dev", "lead")} {
			must(t, put(t, store, "acme", m))
		}
		chain, err := store.ManagerChain(ctx, "acme", "dev")
		if err != nil || !slices.Equal(chain, []string{"lead", "vp", "ceo"}) {
			t.Errorf("chain %v %v", chain, err)
		}
		if chain, _ := store.ManagerChain(ctx, "acme", "ceo"); len(chain) != 0 {
			t.Errorf("top: %v", chain)
		}
		if chain, _ := store.ManagerChain(ctx, "globex", "dev"); len(chain) != 0 {
			t.Errorf("other tenant: %v", chain)
		}
		err = put(t, store, "acme", member(t, "ceo", "CEO", "dev"))
		var ve *invalid.Error
		if !errors.As(err, &ve) || ve.Fields[0].Field != "manager_id" {
			t.Fatalf("cycle: err = %v, want a manager_id validation error", err)
		}
		if got, _ := store.Member(ctx, "acme", "ceo"); got.ManagerID != "" {
			t.Errorf("the refused manager was stored: %+v", got)
		}
		// In another tenant the same ids are another graph.
		must(t, put(t, store, "globex", member(t, "ceo", "CEO", "dev")))
	})

	t.Run("two concurrent writes cannot close a cycle between them", func(t *testing.T) {
		t.Parallel()
		store, _ := open(t), memTestContext(t)
		for round := range 5 {
			a, b := fmt.Sprintf("a%d", round), fmt.Sprintf("b%d", round)
			must(t, put(t, store, "acme", member(t, a, "A", "")))
			must(t, put(t, store, "acme", member(t, b, "B", "")))
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, m := range []org.Member{member(t, a, "A", b), member(t, b, "B", a)} {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = put(t, store, "acme", m) }()
			}
			wg.Wait()
			ok := 0
			for _, err := range errs {
				var ve *invalid.Error
				switch {
				case err == nil:
					ok++
				case errors.As(err, &ve), errors.Is(err, ports.ErrConflict):
				default:
					t.Fatalf("round %d: unexpected error %v", round, err)
				}
			}
			if ok != 1 {
				t.Fatalf("round %d: %d of the two crossing writes succeeded (errors %v)", round, ok, errs)
			}
		}
	})

	t.Run("name keys: found by key, replaced per source, strongest users first", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		_, _, err := store.PutMember(ctx, "acme", member(t, "wang", "王小明", ""), []org.NameKey{
			{Key: "王小明", Strength: org.StrengthName}, {Key: "小明", Strength: org.StrengthAlias}, {Key: "xiaoming", Strength: org.StrengthPhonetic}})
		must(t, err)
		_, _, err = store.PutMember(ctx, "acme", member(t, "li", "李晓明", ""), []org.NameKey{
			{Key: "李晓明", Strength: org.StrengthName}, {Key: "xiaoming", Strength: org.StrengthPhonetic}})
		must(t, err)
		_, _, err = store.PutMember(ctx, "globex", member(t, "zhao", "赵小明", ""), []org.NameKey{{Key: "小明", Strength: org.StrengthAlias}})
		must(t, err)
		must(t, store.SetNameKeys(ctx, memory.Scope{Tenant: "acme", User: "li"}, ports.NameSourceProfile, []org.NameKey{{Key: "小明", Strength: org.StrengthName}}))

		hits, err := store.FindByNameKeys(ctx, "acme", []string{"小明", "xiaoming"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := []org.KeyHit{
			{UserID: "li", Key: "小明", Strength: org.StrengthName},
			{UserID: "wang", Key: "小明", Strength: org.StrengthAlias},
			{UserID: "li", Key: "xiaoming", Strength: org.StrengthPhonetic},
			{UserID: "wang", Key: "xiaoming", Strength: org.StrengthPhonetic},
		}
		if !reflect.DeepEqual(hits, want) {
			t.Errorf("hits\n %v\nwant\n %v", hits, want)
		}
		if hits, _ := store.FindByNameKeys(ctx, "acme", []string{"小明", "xiaoming"}, 1); len(hits) != 2 || hits[0].UserID != "li" || hits[1].UserID != "li" {
			t.Errorf("limit 1 user: %v", hits)
		}
		// Replacing the profile keys drops the old ones; the org keys stay.
		must(t, store.SetNameKeys(ctx, memory.Scope{Tenant: "acme", User: "li"}, ports.NameSourceProfile, nil))
		hits, _ = store.FindByNameKeys(ctx, "acme", []string{"小明"}, 10)
		if len(hits) != 1 || hits[0].UserID != "wang" {
			t.Errorf("after clearing li's profile keys: %v", hits)
		}
		_, _, err = store.PutMember(ctx, "acme", member(t, "wang", "王大明", ""), []org.NameKey{{Key: "王大明", Strength: org.StrengthName}})
		must(t, err)
		if hits, _ := store.FindByNameKeys(ctx, "acme", []string{"小明", "王小明"}, 10); len(hits) != 0 {
			t.Errorf("a renamed member is still found by the old name: %v", hits)
		}
	})

	t.Run("list pages by user id", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		for _, u := range []string{"c", "a", "d", "b"} {
			must(t, put(t, store, "acme", member(t, u, u, "")))
		}
		must(t, put(t, store, "globex", member(t, "z", "z", "")))
		first, err := store.ListMembers(ctx, "acme", "", 3)
		if err != nil || len(first) != 3 || first[0].UserID != "a" || first[2].UserID != "c" {
			t.Fatalf("first page %v %v", first, err)
		}
		rest, _ := store.ListMembers(ctx, "acme", "c", 3)
		if len(rest) != 1 || rest[0].UserID != "d" {
			t.Errorf("second page %v", rest)
		}
	})

	t.Run("purge removes the member and their keys and detaches their reports", func(t *testing.T) {
		t.Parallel()
		store, ctx := open(t), memTestContext(t)
		must(t, put(t, store, "acme", member(t, "boss", "Boss", "")))
		must(t, put(t, store, "acme", member(t, "r1", "R1", "boss")))
		must(t, put(t, store, "acme", member(t, "r2", "R2", "boss")))
		must(t, put(t, store, "globex", member(t, "boss", "Boss", "")))
		must(t, store.SetNameKeys(ctx, memory.Scope{Tenant: "acme", User: "boss"}, ports.NameSourceProfile, []org.NameKey{{Key: "bigboss", Strength: org.StrengthName}}))
		counts, err := mustPurger(t, store).PurgeUser(ctx, memory.Scope{Tenant: "acme", User: "boss"})
		if err != nil || counts["org_members"] != 1 || counts["org_name_keys"] != 2 || counts["org_reports_detached"] != 2 {
			t.Fatalf("purge: %v %v", counts, err)
		}
		if _, err := store.Member(ctx, "acme", "boss"); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("member: %v", err)
		}
		if hits, _ := store.FindByNameKeys(ctx, "acme", []string{"boss", "bigboss"}, 10); len(hits) != 0 {
			t.Errorf("keys: %v", hits)
		}
		if chain, _ := store.ManagerChain(ctx, "acme", "r1"); len(chain) != 0 {
			t.Errorf("r1 still reports to the erased user: %v", chain)
		}
		if _, err := store.Member(ctx, "globex", "boss"); err != nil {
			t.Errorf("purge reached another tenant: %v", err)
		}
	})
}
