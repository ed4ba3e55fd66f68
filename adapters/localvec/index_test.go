package localvec_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"engram/adapters/localvec"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/contract"
)

func TestVectorIndex_Localvec(t *testing.T) {
	t.Parallel()
	contract.RunVectorIndex(t, func(t *testing.T, dim int) ports.VectorIndex {
		ix, err := localvec.New(localvec.Options{Dimension: dim})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	})
}

// With a threshold of 1 every partition gets a graph, so the contract also covers
// the HNSW path, its delta and its dead nodes.
func TestVectorIndex_LocalvecHNSW(t *testing.T) {
	t.Parallel()
	contract.RunVectorIndex(t, func(t *testing.T, dim int) ports.VectorIndex {
		ix, err := localvec.New(localvec.Options{Dimension: dim, HNSW: localvec.HNSWOptions{Threshold: 1}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ix.Close() })
		return syncedGraphs{ix}
	})
}

// syncedGraphs builds due graphs after each write, so searches run on a graph
// instead of racing its background build.
type syncedGraphs struct{ *localvec.Index }

func (s syncedGraphs) Upsert(ctx context.Context, records []ports.VectorRecord) error {
	err := s.Index.Upsert(ctx, records)
	s.BuildGraphs()
	return err
}

func TestNew_refusesBadOptions(t *testing.T) {
	t.Parallel()
	for _, opts := range []localvec.Options{{}, {Dimension: -3}, {Dimension: 4, HNSW: localvec.HNSWOptions{Threshold: -1}}} {
		if _, err := localvec.New(opts); err == nil {
			t.Errorf("New(%+v) accepted", opts)
		}
	}
}

func TestUpsert_movesAnIDToItsNewUser(t *testing.T) {
	t.Parallel()
	ix := mustNew(t, 4, 0)
	ctx := context.Background()
	rec := ports.VectorRecord{ID: "m1", Tenant: "t", User: "alice", Kind: memory.KindMemory, Vector: []float32{1, 0, 0, 0}}
	must(t, ix.Upsert(ctx, []ports.VectorRecord{rec}))
	rec.User = "bob"
	must(t, ix.Upsert(ctx, []ports.VectorRecord{rec}))

	if hits := search(t, ix, "t", "alice"); len(hits) != 0 {
		t.Fatalf("alice still has %v", hits)
	}
	if hits := search(t, ix, "t", "bob"); len(hits) != 1 || hits[0].ID != "m1" {
		t.Fatalf("bob has %v, want m1", hits)
	}
	if ix.Len() != 1 {
		t.Fatalf("Len %d, want 1", ix.Len())
	}
}

func TestUpsert_sameIDInTwoTenantsAreTwoRecords(t *testing.T) {
	t.Parallel()
	ix := mustNew(t, 4, 0)
	ctx := context.Background()
	must(t, ix.Upsert(ctx, []ports.VectorRecord{
		{ID: "m1", Tenant: "t1", User: "u", Kind: memory.KindMemory, Vector: []float32{1, 0, 0, 0}},
		{ID: "m1", Tenant: "t2", User: "u", Kind: memory.KindMemory, Vector: []float32{0, 1, 0, 0}},
	}))
	must(t, ix.Delete(ctx, "t1", []string{"m1"}))
	if hits := search(t, ix, "t2", "u"); len(hits) != 1 {
		t.Fatalf("t2 lost its m1 when t1 deleted its own: %v", hits)
	}
}

func TestSearch_honoursACancelledContext(t *testing.T) {
	t.Parallel()
	ix := mustNew(t, 4, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ix.Search(ctx, ports.VectorQuery{Tenant: "t", User: "u", Vector: []float32{1, 0, 0, 0}, Limit: 1})
	if !errors.Is(err, ports.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want ErrUnavailable wrapping context.Canceled", err)
	}
}

func TestSnapshotLoad_roundTripKeepsSearchResults(t *testing.T) {
	t.Parallel()
	const dim = 16
	src := mustNew(t, dim, 0)
	records := randomRecords(500, dim, 3)
	must(t, src.Upsert(context.Background(), records))
	must(t, src.Delete(context.Background(), "tenant-0", []string{"id-0000", "id-0003"}))

	snap := src.Snapshot()
	if len(snap) != src.Len() {
		t.Fatalf("snapshot has %d records, index %d", len(snap), src.Len())
	}
	dst := mustNew(t, dim, 0)
	must(t, dst.Load(snap))

	rng := rand.New(rand.NewSource(9))
	for i := range 20 {
		q := ports.VectorQuery{Tenant: fmt.Sprintf("tenant-%d", i%3), User: "user-1", Vector: randomVector(rng, dim), Limit: 7}
		a, _ := src.Search(context.Background(), q)
		b, _ := dst.Search(context.Background(), q)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("query %d: before %v, after load %v", i, a, b)
		}
	}
}

func TestLoad_skipsBadRecordsAndLoadsTheRest(t *testing.T) {
	t.Parallel()
	ix := mustNew(t, 4, 0)
	err := ix.Load([]ports.VectorRecord{
		{ID: "ok", Tenant: "t", User: "u", Kind: memory.KindMemory, Vector: []float32{1, 0, 0, 0}},
		{ID: "old-model", Tenant: "t", User: "u", Kind: memory.KindMemory, Vector: []float32{1, 0}},
	})
	if err == nil {
		t.Fatal("Load reported no skipped record")
	}
	if ix.Len() != 1 {
		t.Fatalf("Len %d, want the one good record", ix.Len())
	}
}

// TestIndex_concurrentUse is for -race: writers and readers on shared and separate
// partitions, with background graph builds going on.
func TestIndex_concurrentUse(t *testing.T) {
	t.Parallel()
	const dim = 8
	ix := mustNew(t, dim, 50)
	t.Cleanup(func() { _ = ix.Close() })
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for i := range 300 {
				r := ports.VectorRecord{
					ID: fmt.Sprintf("w%d-%d", w, i%120), Tenant: "t", User: fmt.Sprintf("u%d", w%2),
					Kind: memory.KindMessage, ConversationID: "c", At: time.UnixMilli(int64(i)), Vector: randomVector(rng, dim),
				}
				if err := ix.Upsert(ctx, []ports.VectorRecord{r}); err != nil {
					t.Error(err)
					return
				}
				if i%7 == 0 {
					_ = ix.Delete(ctx, "t", []string{fmt.Sprintf("w%d-%d", w, (i*13)%120)})
				}
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(100 + w)))
			for range 300 {
				q := ports.VectorQuery{Tenant: "t", User: fmt.Sprintf("u%d", w%2), Vector: randomVector(rng, dim), Limit: 5}
				if w%2 == 1 {
					q.Since = time.UnixMilli(50)
				}
				if _, err := ix.Search(ctx, q); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	_ = ix.Snapshot()
}

type memStore struct {
	mu      sync.Mutex
	records map[string]ports.VectorRecord
	fail    error
}

func (s *memStore) SaveVectors(_ context.Context, records []ports.VectorRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	for _, r := range records {
		s.records[r.Tenant+"\x00"+r.ID] = r
	}
	return nil
}

func (s *memStore) DeleteVectors(_ context.Context, tenant string, ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	for _, id := range ids {
		delete(s.records, tenant+"\x00"+id)
	}
	return nil
}

func (s *memStore) DeleteUserVectors(_ context.Context, tenant, user string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return 0, s.fail
	}
	var n int64
	for k, r := range s.records {
		if r.Tenant == tenant && r.User == user {
			delete(s.records, k)
			n++
		}
	}
	return n, nil
}

func (s *memStore) LoadVectors(_ context.Context, fn func([]ports.VectorRecord) error) error {
	s.mu.Lock()
	var all []ports.VectorRecord
	for _, r := range s.records {
		all = append(all, r)
	}
	s.mu.Unlock()
	for len(all) > 0 {
		n := min(len(all), 2)
		if err := fn(all[:n]); err != nil {
			return err
		}
		all = all[n:]
	}
	return nil
}

func TestDurable_survivesARestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &memStore{records: map[string]ports.VectorRecord{}}
	d, err := localvec.OpenDurable(ctx, store, localvec.Options{Dimension: 4})
	must(t, err)
	must(t, d.Upsert(ctx, []ports.VectorRecord{
		{ID: "a", Tenant: "t", User: "u", Kind: memory.KindMemory, Vector: []float32{1, 0, 0, 0}},
		{ID: "b", Tenant: "t", User: "u", Kind: memory.KindMemory, Vector: []float32{0, 1, 0, 0}},
		{ID: "c", Tenant: "t", User: "u", Kind: memory.KindMemory, Vector: []float32{0, 0, 1, 0}},
	}))
	must(t, d.Delete(ctx, "t", []string{"b"}))

	restarted, err := localvec.OpenDurable(ctx, store, localvec.Options{Dimension: 4})
	must(t, err)
	hits, err := restarted.Search(ctx, ports.VectorQuery{Tenant: "t", User: "u", Vector: []float32{1, 0, 0, 0}, Limit: 10})
	must(t, err)
	if len(hits) != 2 || hits[0].ID != "a" || hits[1].ID != "c" {
		t.Fatalf("after restart %v, want a then c", hits)
	}
}

func TestDurable_storeFailureLeavesMemoryUntouched(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &memStore{records: map[string]ports.VectorRecord{}, fail: fmt.Errorf("sqlstore: save: %w", ports.ErrUnavailable)}
	d, err := localvec.OpenDurable(ctx, store, localvec.Options{Dimension: 4})
	must(t, err)
	err = d.Upsert(ctx, []ports.VectorRecord{{ID: "a", Tenant: "t", User: "u", Kind: memory.KindMemory, Vector: []float32{1, 0, 0, 0}}})
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("err %v, want ErrUnavailable", err)
	}
	if d.Index().Len() != 0 {
		t.Fatal("a record the store refused reached memory")
	}
	// Invalid records never reach the store.
	store.fail = nil
	err = d.Upsert(ctx, []ports.VectorRecord{{ID: "a", Tenant: "t", User: "u", Kind: memory.KindMemory, Vector: []float32{1}}})
	if err == nil || len(store.records) != 0 {
		t.Fatalf("invalid record: err %v, store has %d records", err, len(store.records))
	}
}

func mustNew(t testing.TB, dim, threshold int) *localvec.Index {
	t.Helper()
	ix, err := localvec.New(localvec.Options{Dimension: dim, HNSW: localvec.HNSWOptions{Threshold: threshold}})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func search(t *testing.T, ix *localvec.Index, tenant, user string) []ports.VectorHit {
	t.Helper()
	hits, err := ix.Search(context.Background(), ports.VectorQuery{Tenant: tenant, User: user, Vector: []float32{1, 0, 0, 0}, Limit: 10})
	must(t, err)
	return hits
}

func randomVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

func randomRecords(n, dim, tenants int) []ports.VectorRecord {
	rng := rand.New(rand.NewSource(1))
	out := make([]ports.VectorRecord, n)
	for i := range out {
		out[i] = ports.VectorRecord{
			ID: fmt.Sprintf("id-%04d", i), Tenant: fmt.Sprintf("tenant-%d", i%tenants), User: fmt.Sprintf("user-%d", i%2),
			Kind: []memory.Kind{memory.KindMemory, memory.KindMessage}[i%3%2], MemoryType: "fact",
			At: time.UnixMilli(int64(i) * 1000).UTC(), Vector: randomVector(rng, dim),
		}
	}
	return out
}
