package sqlstore

import (
	"context"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/ports"
	"engram/test/contract"
)

func erasureStores(db *DB, clock ports.Clock) contract.ErasureStores {
	return contract.ErasureStores{
		Erasures: NewErasureStore(db), Jobs: NewJobStore(db), Memories: NewMemoryStore(db), Messages: NewMessageStore(db),
		Sync: NewVectorQueue(db), Truth: NewUserPurger(db, clock), Org: NewOrgStore(db),
		Activity: NewActivityStore(db),
	}
}

func TestErasure_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunErasure(t, func(t *testing.T, clock ports.Clock) contract.ErasureStores {
		return erasureStores(openSQLiteForTest(t), clock)
	})
}

func TestErasure_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunErasure(t, func(t *testing.T, clock ports.Clock) contract.ErasureStores {
		return erasureStores(openPostgresForTest(t), clock)
	})
}

// The lexical passes read the truth outside the transaction that writes the
// documents: a document of a user being erased is dropped, not written back.
func TestLexicalPut_skipsUsersBeingErased_SQLite(t *testing.T) {
	t.Parallel()
	db := openSQLiteForTest(t)
	ctx := context.Background()
	alice, bob := memory.Scope{Tenant: "t1", User: "alice"}, memory.Scope{Tenant: "t1", User: "bob"}
	if _, _, err := NewErasureStore(db).BeginErasure(ctx, ports.Job{ID: "erase-1", Scope: alice, Kind: ports.JobEraseUser, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	x := NewLexicalDocs(db)
	doc := func(sc memory.Scope, id string) ports.LexicalDoc {
		return ports.LexicalDoc{Tenant: sc.Tenant, User: sc.User, Kind: memory.KindMessage, ID: id, At: time.Now(), Terms: []string{"tea"}}
	}
	if err := x.Put(ctx, []ports.LexicalDoc{doc(alice, "a1"), doc(bob, "b1")}); err != nil {
		t.Fatal(err)
	}
	if g, _ := x.Generation(ctx, alice); g != 0 {
		t.Errorf("alice's generation moved to %d while she is being erased", g)
	}
	if ch, _ := x.ChangesSince(ctx, alice, 0); len(ch.Docs) != 0 {
		t.Errorf("alice's document was written: %+v", ch.Docs)
	}
	if ch, _ := x.ChangesSince(ctx, bob, 0); len(ch.Docs) != 1 {
		t.Errorf("bob's document was dropped: %+v", ch.Docs)
	}
}
