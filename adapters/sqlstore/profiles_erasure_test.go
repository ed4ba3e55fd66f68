package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

func TestUpdateProfile_refusedWhileTheUserIsErased_SQLite(t *testing.T) {
	t.Parallel()
	checkProfileWritesWaitForErasure(t, openSQLiteForTest(t))
}

func TestUpdateProfile_refusedWhileTheUserIsErased_Postgres(t *testing.T) {
	t.Parallel()
	checkProfileWritesWaitForErasure(t, openPostgresForTest(t))
}

// From BeginErasure to the job's DONE no profile of the user is written (a PATCH,
// an identity slot, a refresh); other users are untouched, and once the job is
// DONE the user starts afresh.
func checkProfileWritesWaitForErasure(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	alice, bob := memory.Scope{Tenant: "t1", User: "alice"}, memory.Scope{Tenant: "t1", User: "bob"}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	store := NewProfileStore(db)
	setNickname := func(scope memory.Scope, nick string) (profile.Profile, error) {
		return store.UpdateProfile(ctx, scope, func(cur *profile.Profile) (profile.Profile, error) {
			base := profile.New(scope, now)
			if cur != nil {
				base = *cur
			}
			next, _, err := base.ApplySlots([]profile.SlotUpdate{{Slot: profile.SlotNickname, Value: nick,
				Source: profile.Source{Channel: profile.ChannelExtraction, ConversationID: "c1", MessageID: "m1", At: now}}})
			return next, err
		})
	}
	job, created, err := NewErasureStore(db).BeginErasure(ctx, ports.Job{ID: "erase-1", Scope: alice, Kind: ports.JobEraseUser, CreatedAt: now})
	if err != nil || !created {
		t.Fatalf("begin erasure: %v %v", created, err)
	}
	_, err = setNickname(alice, "Captain")
	var erasing *ports.ErasingError
	if !errors.As(err, &erasing) || erasing.JobID != "erase-1" || !errors.Is(err, ports.ErrConflict) {
		t.Fatalf("update while erasing: %v, want an *ErasingError naming the job", err)
	}
	if _, err := store.Profile(ctx, alice); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("a profile was stored while erasing: %v", err)
	}
	if p, err := setNickname(bob, "Bobby"); err != nil || p.State().Declared.Nickname != "Bobby" {
		t.Errorf("bob's update: %+v %v", p.State().Declared, err)
	}

	jobs := NewJobStore(db)
	claimed, err := jobs.ClaimJob(ctx, "w", now, time.Minute)
	if err != nil || claimed.ID != job.ID {
		t.Fatalf("claim: %+v %v", claimed, err)
	}
	claimed.Status, claimed.FinishedAt = ports.JobDone, now
	if err := jobs.FinishJob(ctx, "w", claimed); err != nil {
		t.Fatal(err)
	}
	if p, err := setNickname(alice, "Captain"); err != nil || p.State().Declared.Nickname != "Captain" {
		t.Errorf("after the erasure: %+v %v", p.State().Declared, err)
	}
}
