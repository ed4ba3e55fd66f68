package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
)

// Concurrent writers share SQLite commits; each must still be atomic on its own.
func TestGroupCommit_eachWriterIsAtomic_SQLite(t *testing.T) {
	t.Parallel()
	db := openSQLiteForTest(t)
	ctx := testContext(t)
	errOdd := errors.New("odd writers fail after writing")
	const writers = 200
	var wg sync.WaitGroup
	results := make([]error, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				for j := 0; j < 2; j++ {
					row := apiKeyRow{ID: fmt.Sprintf("k-%d-%d", i, j), TenantID: "t", KeyHash: fmt.Sprintf("h-%d-%d", i, j), CreatedAt: time.Now()}
					if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
						return err
					}
				}
				if i%2 == 1 {
					return errOdd
				}
				return nil
			})
		}()
	}
	wg.Wait()
	for i, err := range results {
		if i%2 == 1 && err != errOdd || i%2 == 0 && err != nil {
			t.Fatalf("writer %d: err = %v", i, err)
		}
	}
	var ids []string
	if err := db.Bun().NewSelect().Model((*apiKeyRow)(nil)).Column("id").Scan(ctx, &ids); err != nil {
		t.Fatal(err)
	}
	if len(ids) != writers { // two rows for each of the 100 writers that succeeded
		t.Fatalf("%d rows committed, want %d", len(ids), writers)
	}
	for _, id := range ids {
		var i, j int
		if _, err := fmt.Sscanf(id, "k-%d-%d", &i, &j); err != nil || i%2 == 1 {
			t.Errorf("row %s of a failed writer was committed", id)
		}
	}
}

func TestGroupCommit_panicReachesItsCaller_SQLite(t *testing.T) {
	t.Parallel()
	db := openSQLiteForTest(t)
	ctx := testContext(t)
	func() {
		defer func() {
			if v := recover(); v != "kaboom" {
				t.Errorf("recovered %v, want the fn's panic value", v)
			}
		}()
		_ = db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error { panic("kaboom") })
		t.Error("WriteTx returned instead of panicking")
	}()
	// The writer survives the panic.
	if err := db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewInsert().Model(&apiKeyRow{ID: "after", TenantID: "t", KeyHash: "after", CreatedAt: time.Now()}).Exec(ctx)
		return err
	}); err != nil {
		t.Fatalf("write after a panic: %v", err)
	}
}

func TestGroupCommit_closedDatabaseRefusesWrites_SQLite(t *testing.T) {
	t.Parallel()
	db := openSQLiteForTest(t)
	_ = db.Close()
	err := db.WriteTx(context.Background(), func(ctx context.Context, tx bun.Tx) error { return nil })
	if err == nil {
		t.Fatal("a write after Close succeeded")
	}
}
