package sqlstore

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"engram/adapters/localvec"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/contract"
)

// The embedded vector index is localvec in memory with its vectors kept here; the
// vector index contract runs against that pair. Cases share one database and are
// kept apart by model name, the way two embedding models share the table.

func TestVectorIndex_LocalvecSQLite(t *testing.T) {
	t.Parallel()
	runDurableContract(t, openSQLiteForTest(t))
}

func TestVectorIndex_LocalvecPostgres(t *testing.T) {
	t.Parallel()
	runDurableContract(t, openPostgresForTest(t))
}

func runDurableContract(t *testing.T, db *DB) {
	var n atomic.Int64
	contract.RunVectorIndex(t, func(t *testing.T, dim int) ports.VectorIndex {
		store := NewLocalVectorStore(db, fmt.Sprintf("contract-%d", n.Add(1)), dim)
		ix, err := localvec.OpenDurable(context.Background(), store, localvec.Options{Dimension: dim})
		if err != nil {
			t.Fatalf("OpenDurable: %v", err)
		}
		// Every case also checks that what it wrote survives a restart: a fresh index
		// loaded from the store must hold the same vectors.
		t.Cleanup(func() {
			reopened, err := localvec.OpenDurable(context.Background(), store, localvec.Options{Dimension: dim})
			if err != nil {
				t.Errorf("reopen: %v", err)
				return
			}
			want, got := ix.Index().Snapshot(), reopened.Index().Snapshot()
			if len(want) != len(got) {
				t.Errorf("after a restart the index holds %d vectors, want %d", len(got), len(want))
				return
			}
			for i := range want {
				if want[i].ID != got[i].ID || want[i].Tenant != got[i].Tenant || want[i].User != got[i].User ||
					want[i].Kind != got[i].Kind || want[i].MemoryType != got[i].MemoryType ||
					want[i].ConversationID != got[i].ConversationID || !want[i].At.Equal(got[i].At) {
					t.Errorf("after a restart record %d is %+v, want %+v", i, got[i], want[i])
				}
			}
		})
		return ix
	})
}

func TestLocalVectorStore_loadsOnlyItsModelInPages(t *testing.T) {
	t.Parallel()
	db := openSQLiteForTest(t)
	ctx := context.Background()
	mine := NewLocalVectorStore(db, "model-a", 4)
	other := NewLocalVectorStore(db, "model-b", 4)
	otherDim := NewLocalVectorStore(db, "model-a", 8)

	var records []ports.VectorRecord
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	for i := range LoadBatchSize + 7 {
		records = append(records, ports.VectorRecord{
			ID: fmt.Sprintf("m%05d", i), Tenant: "t1", User: "u1", Kind: memory.KindMemory,
			MemoryType: "fact", At: at, Vector: []float32{1, float32(i), 0, 0},
		})
	}
	if err := mine.SaveVectors(ctx, records); err != nil {
		t.Fatalf("SaveVectors: %v", err)
	}
	if err := other.SaveVectors(ctx, records[:3]); err != nil {
		t.Fatalf("SaveVectors other model: %v", err)
	}
	if err := otherDim.SaveVectors(ctx, []ports.VectorRecord{{ID: "x", Tenant: "t1", User: "u1", Kind: memory.KindMemory, At: at, Vector: make([]float32, 8)}}); err != nil {
		t.Fatalf("SaveVectors other dimension: %v", err)
	}

	var pages, total int
	err := mine.LoadVectors(ctx, func(batch []ports.VectorRecord) error {
		pages++
		for _, r := range batch {
			want := records[total]
			if r.ID != want.ID || r.Vector[1] != want.Vector[1] || !r.At.Equal(want.At) || r.MemoryType != "fact" {
				t.Fatalf("record %d = %+v, want %+v", total, r, want)
			}
			total++
		}
		return nil
	})
	if err != nil {
		t.Fatalf("LoadVectors: %v", err)
	}
	if total != len(records) || pages != 2 {
		t.Fatalf("loaded %d records in %d pages, want %d in 2", total, pages, len(records))
	}
	if n, err := mine.CountVectors(ctx); err != nil || n != int64(len(records)) {
		t.Fatalf("CountVectors = %d, %v; want %d", n, err, len(records))
	}

	purged, err := mine.PurgeOtherModels(ctx)
	if err != nil || purged != 4 {
		t.Fatalf("PurgeOtherModels = %d, %v; want 4", purged, err)
	}
	if n, _ := other.CountVectors(ctx); n != 0 {
		t.Fatalf("other model still has %d vectors after the purge", n)
	}
	if n, _ := mine.CountVectors(ctx); n != int64(len(records)) {
		t.Fatalf("the purge took %d of this model's vectors", int64(len(records))-n)
	}
}
