package org_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"engram/adapters/pinyin"
	"engram/app/org"
	"engram/domain/memory"
	domainorg "engram/domain/org"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// From the erasure's request until its purge, a user is in no answer of the
// organisation: not read, not found by name, not listed, not named as anyone's
// manager; and their entry cannot be put (409). Others, and the same user id in
// another tenant, are untouched.
func TestOrg_hidesAndRefusesUsersBeingErased(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := fakeclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	stores := teststore.New(t)
	erasures := stores.Erasures
	svc := org.New(org.Deps{Graph: stores.Org, Profiles: stores.Profiles, Romanizer: pinyin.New(), Clock: clk, Erasures: erasures})
	put := func(tenant, user, name, manager string) error {
		_, _, err := svc.Put(ctx, org.Put{Scope: memory.Scope{Tenant: tenant, User: user},
			Member: domainorg.MemberInput{DisplayName: name, Department: "R&D", ManagerID: manager}})
		return err
	}
	for _, m := range [][3]string{{"boss", "王总", ""}, {"alice", "李小红", "boss"}, {"bob", "张小明", "alice"}} {
		if err := put("acme", m[0], m[1], m[2]); err != nil {
			t.Fatal(err)
		}
	}
	if err := put("other", "alice", "李小红", ""); err != nil {
		t.Fatal(err)
	}
	alice := memory.Scope{Tenant: "acme", User: "alice"}
	if _, _, err := erasures.BeginErasure(ctx, ports.Job{ID: "erase-1", Scope: alice, Kind: ports.JobEraseUser, CreatedAt: clk.Now()}); err != nil {
		t.Fatal(err)
	}

	if _, err := svc.Get(ctx, alice); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("get the user being erased: %v, want not found", err)
	}
	bob, err := svc.Get(ctx, memory.Scope{Tenant: "acme", User: "bob"})
	if err != nil || bob.Member.ManagerID != "" || len(bob.Managers) != 0 {
		t.Errorf("bob reads %+v %v; want no manager: the chain went through alice", bob, err)
	}
	if boss, err := svc.Get(ctx, memory.Scope{Tenant: "acme", User: "boss"}); err != nil || boss.Member.DisplayName != "王总" {
		t.Errorf("boss reads %+v %v", boss, err)
	}
	if found, err := svc.Find(ctx, "acme", "李小红", 0); err != nil || len(found) != 0 {
		t.Errorf("found %+v %v by the erased user's name", found, err)
	}
	found, err := svc.Find(ctx, "acme", "Xiao Ming", 0)
	if err != nil || len(found) != 1 || found[0].UserID != "bob" || found[0].ManagerID != "" {
		t.Errorf("found %+v %v; want bob without his erased manager", found, err)
	}
	members, next, err := svc.List(ctx, "acme", "", 2)
	if err != nil || next != "bob" || len(members) != 1 || members[0].UserID != "bob" || members[0].ManagerID != "" {
		t.Errorf("first page %+v next %q %v; want bob alone (alice left out), cursor after bob", members, next, err)
	}
	if members, _, _ := svc.List(ctx, "acme", "bob", 2); len(members) != 1 || members[0].UserID != "boss" {
		t.Errorf("second page %+v", members)
	}

	var erasing *ports.ErasingError
	if err := put("acme", "alice", "李小红", "boss"); !errors.As(err, &erasing) || erasing.JobID != "erase-1" {
		t.Errorf("put while erasing: %v, want the ErasingError of erase-1", err)
	}
	if err := put("acme", "bob", "张小明", "boss"); err != nil {
		t.Errorf("put of another user: %v", err)
	}
	if found, _ := svc.Find(ctx, "other", "李小红", 0); len(found) != 1 {
		t.Errorf("the other tenant's alice: %+v", found)
	}
}
