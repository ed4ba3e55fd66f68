package sqlstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"engram/domain/memory"
	"engram/ports"
	"engram/test/contract"
)

func TestLexicalIndex_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunLexicalIndex(t, func(t *testing.T) contract.LexicalIndex {
		return NewLexicalDocs(openSQLiteForTest(t))
	})
}

func TestLexicalIndex_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunLexicalIndex(t, func(t *testing.T) contract.LexicalIndex {
		return NewLexicalDocs(openPostgresForTest(t))
	})
}

func TestLexicalCompaction_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunLexicalCompaction(t, func(t *testing.T, window int64) contract.LexicalPurgeIndex {
		db := openSQLiteForTest(t)
		db.SetLexicalTombstoneWindow(window)
		return NewLexicalDocs(db)
	})
}

func TestLexicalCompaction_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunLexicalCompaction(t, func(t *testing.T, window int64) contract.LexicalPurgeIndex {
		db := openPostgresForTest(t)
		db.SetLexicalTombstoneWindow(window)
		return NewLexicalDocs(db)
	})
}

// The tombstones the window drops are gone from the table, not only from answers.
func TestLexicalCompaction_deletesTombstoneRows_SQLite(t *testing.T) {
	t.Parallel()
	db := openSQLiteForTest(t)
	db.SetLexicalTombstoneWindow(3)
	x := NewLexicalDocs(db)
	ctx := context.Background()
	alice := memory.Scope{Tenant: "t1", User: "alice"}
	for i := range 10 {
		id := fmt.Sprintf("d%d", i)
		if err := x.Put(ctx, []ports.LexicalDoc{{Tenant: "t1", User: "alice", Kind: memory.KindMessage, ID: id, At: time.Now()}}); err != nil {
			t.Fatal(err)
		}
		if err := x.Delete(ctx, alice, []ports.LexicalRef{{Kind: memory.KindMessage, ID: id}}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := db.Bun().NewSelect().Table("lexical_docs").Where("deleted = TRUE").Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 20 generations; tombstones of the last 3 stay (gens 18 and 20 are deletions).
	if n != 2 {
		t.Errorf("%d tombstone rows kept, want the 2 of the last 3 generations", n)
	}
}

func TestLexicalCursors_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunLexicalCursors(t, func(t *testing.T) contract.LexicalCursors {
		return NewLexicalCursors(openSQLiteForTest(t))
	})
}

func TestLexicalCursors_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunLexicalCursors(t, func(t *testing.T) contract.LexicalCursors {
		return NewLexicalCursors(openPostgresForTest(t))
	})
}
