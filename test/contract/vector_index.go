package contract

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// vectorContractDim is the dimension the suite asks for. It is small so the
// expected cosine scores can be worked out by hand.
const vectorContractDim = 8

// vectorScoreTolerance absorbs float32 rounding (Milvus returns float32 scores).
const vectorScoreTolerance = 1e-4

// RunVectorIndex is the contract every ports.VectorIndex adapter must pass. open
// returns an empty index for vectors of dim dimensions; each case opens its own.
//
// Behaviour the suite pins down beyond the port's comments:
//   - Search returns hits nearest first, Score is the cosine similarity.
//   - Since is inclusive and Until exclusive, compared at millisecond precision.
//   - Tenant, user, kind, memory type, conversation and time filters restrict the
//     candidates before ranking: a search never answers with fewer hits than the
//     caller's matching vectors (up to Limit) because someone else's were closer.
//   - Wrong dimensions, a missing tenant or user, and a non-positive limit are
//     refused with an *invalid.Error, never ports.ErrUnavailable; a refused Upsert
//     writes nothing.
//   - Delete is scoped by tenant, ignores unknown ids, and an empty id list is a no-op.
//   - Ids, tenants and users are matched literally, whatever characters they hold.
func RunVectorIndex(t *testing.T, open func(t *testing.T, dim int) ports.VectorIndex) {
	t.Helper()
	const dim = vectorContractDim

	t.Run("upsert then search returns nearest first with cosine scores", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		vecMustUpsert(t, ctx, ix,
			vecMemory("t1", "u1", "exact", "fact", vecUnit(0)),
			vecMemory("t1", "u1", "diagonal", "fact", vecMix(1, 0, 1)),     // cos 1/√2
			vecMemory("t1", "u1", "opposite", "fact", vecMix(-1, 0, 0.25)), // cos -4/√17
			vecMemory("t1", "u1", "orthogonal", "fact", vecUnit(3)),        // cos 0
		)
		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(0), Limit: 10})
		vecExpectHits(t, hits, []vecWant{
			{"exact", 1},
			{"diagonal", 1 / math.Sqrt2},
			{"orthogonal", 0},
			{"opposite", -4 / math.Sqrt(17)},
		})
		for _, h := range hits {
			if h.Kind != memory.KindMemory {
				t.Errorf("hit %s: kind %q, want %q", h.ID, h.Kind, memory.KindMemory)
			}
		}
	})

	t.Run("scores ignore vector length", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		long := vecScale(vecMix(1, 1), 40)
		vecMustUpsert(t, ctx, ix, vecMemory("t1", "u1", "long", "fact", long))
		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecScale(vecUnit(0), 0.01), Limit: 1})
		vecExpectHits(t, hits, []vecWant{{"long", 1 / math.Sqrt2}})
	})

	t.Run("upsert of an existing id replaces it", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		vecMustUpsert(t, ctx, ix,
			vecMemory("t1", "u1", "m1", "fact", vecUnit(0)),
			vecMemory("t1", "u1", "m2", "fact", vecMix(1, 1)),
		)
		vecMustUpsert(t, ctx, ix, vecMemory("t1", "u1", "m1", "goal", vecUnit(1)))

		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(1), Limit: 10})
		vecExpectHits(t, hits, []vecWant{{"m1", 1}, {"m2", 1 / math.Sqrt2}})

		// The old memory type went with the old vector.
		hits = vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", MemoryTypes: []string{"fact"}, Vector: vecUnit(0), Limit: 10})
		vecExpectIDs(t, hits, "m2")
	})

	t.Run("the last copy of an id within one batch wins", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		vecMustUpsert(t, ctx, ix,
			vecMemory("t1", "u1", "m1", "fact", vecUnit(0)),
			vecMemory("t1", "u1", "m1", "fact", vecUnit(2)),
		)
		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(2), Limit: 10})
		vecExpectHits(t, hits, []vecWant{{"m1", 1}})
	})

	t.Run("delete removes and ignores unknown ids", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		vecMustUpsert(t, ctx, ix,
			vecMemory("t1", "u1", "m1", "fact", vecUnit(0)),
			vecMemory("t1", "u1", "m2", "fact", vecUnit(1)),
			vecMemory("t1", "u1", "m3", "fact", vecUnit(2)),
		)
		if err := ix.Delete(ctx, "t1", []string{"m1", "m3", "never-existed"}); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if err := ix.Delete(ctx, "t1", nil); err != nil {
			t.Fatalf("Delete with no ids: %v", err)
		}
		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(0), Limit: 10})
		vecExpectIDs(t, hits, "m2")
	})

	t.Run("delete is scoped by tenant", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		vecMustUpsert(t, ctx, ix, vecMemory("t1", "u1", "m1", "fact", vecUnit(0)))
		if err := ix.Delete(ctx, "t2", []string{"m1"}); err != nil {
			t.Fatalf("Delete from another tenant: %v", err)
		}
		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(0), Limit: 10})
		vecExpectIDs(t, hits, "m1")
	})

	t.Run("purging a user removes all of the user's vectors and no one else's", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		// Tenants of this case alone: a purge reaches the user's vectors of every
		// model, and adapters' suites may keep cases apart by model in one store.
		purger, ok := ix.(ports.UserPurger)
		if !ok {
			t.Fatalf("%T does not implement ports.UserPurger: an erasure could not reach its vectors", ix)
		}
		vecMustUpsert(t, ctx, ix,
			vecMemory("purge-a", "u1", "m1", "fact", vecUnit(0)),
			vecMessage("purge-a", "u1", "s1", "c1", vecUnit(1)),
			vecMemory("purge-a", "u2", "m2", "fact", vecUnit(0)),
			vecMemory("purge-b", "u1", "m3", "fact", vecUnit(0)),
			vecMemory("purge-a", "u1/x", "m4", "fact", vecUnit(0)),
		)
		removed, err := purger.PurgeUser(ctx, memory.Scope{Tenant: "purge-a", User: "u1"})
		if err != nil {
			t.Fatalf("PurgeUser: %v", err)
		}
		if removed["vectors"] != 2 {
			t.Errorf("removed %v, want 2 vectors", removed)
		}
		if hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "purge-a", User: "u1", Vector: vecUnit(0), Limit: 10}); len(hits) != 0 {
			t.Errorf("the purged user still has %v", vecIDs(hits))
		}
		for _, q := range []ports.VectorQuery{{Tenant: "purge-a", User: "u2"}, {Tenant: "purge-b", User: "u1"}, {Tenant: "purge-a", User: "u1/x"}} {
			q.Vector, q.Limit = vecUnit(0), 10
			if hits := vecMustSearch(t, ctx, ix, q); len(hits) != 1 {
				t.Errorf("%s/%s lost vectors to the purge: %v", q.Tenant, q.User, vecIDs(hits))
			}
		}
		if again, err := purger.PurgeUser(ctx, memory.Scope{Tenant: "purge-a", User: "u1"}); err != nil || again["vectors"] != 0 {
			t.Errorf("second purge = %v, %v", again, err)
		}
	})

	t.Run("other users and tenants are never candidates", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		// The user owns two far vectors; everyone else owns many vectors that sit right
		// on the query. An index that fetched "a few more" and dropped foreign hits
		// would answer with nothing.
		records := []ports.VectorRecord{
			vecMemory("t1", "u1", "mine-1", "fact", vecMix(0.2, 1)),
			vecMemory("t1", "u1", "mine-2", "fact", vecMix(0.1, 0, 1)),
		}
		for i := range 60 {
			near := vecMix(1, 0.001*float32(i))
			records = append(records,
				vecMemory("t1", "u2", fmt.Sprintf("other-user-%02d", i), "fact", near),
				vecMemory("t2", "u1", fmt.Sprintf("other-tenant-%02d", i), "fact", near),
				vecMemory("t1", "u1x", fmt.Sprintf("prefix-user-%02d", i), "fact", near),
			)
		}
		// Scopes that only differ in where the tenant ends and the user begins.
		records = append(records,
			vecMemory("a/b", "c", "split-1", "fact", vecUnit(0)),
			vecMemory("a", "b/c", "split-2", "fact", vecUnit(0)),
		)
		vecMustUpsert(t, ctx, ix, records...)

		vecExpectIDs(t, vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "a/b", User: "c", Vector: vecUnit(0), Limit: 10}), "split-1")
		vecExpectIDs(t, vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "a", User: "b/c", Vector: vecUnit(0), Limit: 10}), "split-2")
		for _, limit := range []int{1, 2, 5, 100} {
			hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(0), Limit: limit})
			want := []string{"mine-1", "mine-2"}[:min(limit, 2)]
			vecExpectIDs(t, hits, want...)
		}
		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t2", User: "u1", Vector: vecUnit(0), Limit: 100})
		if len(hits) != 60 {
			t.Fatalf("tenant t2 user u1: %d hits, want its 60", len(hits))
		}
		for _, h := range hits {
			if len(h.ID) < 12 || h.ID[:12] != "other-tenant" {
				t.Fatalf("tenant t2 got %s", h.ID)
			}
		}
	})

	t.Run("limit larger than the user's vectors returns just theirs", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		vecMustUpsert(t, ctx, ix,
			vecMemory("t1", "u1", "a", "fact", vecUnit(0)),
			vecMemory("t1", "u1", "b", "fact", vecUnit(1)),
			vecMemory("t1", "u1", "c", "fact", vecUnit(2)),
			vecMemory("t1", "u2", "d", "fact", vecUnit(0)),
		)
		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(0), Limit: 1000})
		if len(hits) != 3 || hits[0].ID != "a" {
			t.Fatalf("hits %v, want a then b and c", vecIDs(hits))
		}
		vecExpectIDSet(t, hits, "a", "b", "c")
	})

	t.Run("limit is respected and keeps the nearest", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		var records []ports.VectorRecord
		for i := range 10 {
			// rec-0 is nearest to e0, rec-9 farthest.
			records = append(records, vecMemory("t1", "u1", fmt.Sprintf("rec-%d", i), "fact", vecMix(1, 0.3*float32(i))))
		}
		vecMustUpsert(t, ctx, ix, records...)
		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(0), Limit: 3})
		vecExpectIDs(t, hits, "rec-0", "rec-1", "rec-2")
	})

	t.Run("empty index answers with no hits", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(0), Limit: 5})
		if len(hits) != 0 {
			t.Fatalf("hits %v from an empty index", vecIDs(hits))
		}
	})

	t.Run("kind filter", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		records := []ports.VectorRecord{vecMemory("t1", "u1", "memory-far", "fact", vecMix(0.1, 1))}
		for i := range 30 {
			records = append(records, vecMessage("t1", "u1", fmt.Sprintf("message-%02d", i), "c1", vecMix(1, 0.01*float32(i))))
		}
		vecMustUpsert(t, ctx, ix, records...)

		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Kinds: []memory.Kind{memory.KindMemory}, Vector: vecUnit(0), Limit: 3})
		vecExpectIDs(t, hits, "memory-far")

		hits = vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Kinds: []memory.Kind{memory.KindMessage}, Vector: vecUnit(0), Limit: 2})
		vecExpectIDs(t, hits, "message-00", "message-01")
		for _, h := range hits {
			if h.Kind != memory.KindMessage {
				t.Errorf("hit %s: kind %q, want message", h.ID, h.Kind)
			}
		}

		hits = vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Kinds: []memory.Kind{memory.KindMemory, memory.KindMessage}, Vector: vecUnit(1), Limit: 1})
		vecExpectIDs(t, hits, "memory-far")

		hits = vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(0), Limit: 100})
		if len(hits) != 31 {
			t.Fatalf("no kind filter: %d hits, want all 31", len(hits))
		}
	})

	t.Run("memory type filter", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		records := []ports.VectorRecord{
			vecMemory("t1", "u1", "fact-far", "fact", vecMix(0.1, 1)),
			vecMemory("t1", "u1", "goal-far", "goal", vecMix(0.1, 0, 1)),
		}
		for i := range 30 {
			records = append(records, vecMemory("t1", "u1", fmt.Sprintf("pref-%02d", i), "preference", vecMix(1, 0.01*float32(i))))
		}
		vecMustUpsert(t, ctx, ix, records...)

		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", MemoryTypes: []string{"fact"}, Vector: vecUnit(0), Limit: 5})
		vecExpectIDs(t, hits, "fact-far")
		hits = vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", MemoryTypes: []string{"goal", "fact"}, Vector: vecUnit(1), Limit: 5})
		vecExpectIDs(t, hits, "fact-far", "goal-far")
	})

	t.Run("conversation filter", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		records := []ports.VectorRecord{
			vecMessage("t1", "u1", "c1-far", "c1", vecMix(0.1, 1)),
			vecMemory("t1", "u1", "memory-near", "fact", vecUnit(0)),
		}
		for i := range 30 {
			records = append(records, vecMessage("t1", "u1", fmt.Sprintf("c2-%02d", i), "c2", vecMix(1, 0.01*float32(i))))
		}
		vecMustUpsert(t, ctx, ix, records...)

		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", ConversationID: "c1", Vector: vecUnit(0), Limit: 5})
		vecExpectIDs(t, hits, "c1-far")
	})

	t.Run("time range: since inclusive, until exclusive", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		at := func(r ports.VectorRecord, d time.Duration) ports.VectorRecord { r.At = t0.Add(d); return r }
		vecMustUpsert(t, ctx, ix,
			at(vecMessage("t1", "u1", "h0", "c1", vecMix(1, 0.1)), 0),
			at(vecMessage("t1", "u1", "h1", "c1", vecMix(1, 0.2)), time.Hour),
			at(vecMessage("t1", "u1", "h2", "c1", vecMix(1, 0.3)), 2*time.Hour),
			at(vecMessage("t1", "u1", "h3", "c1", vecMix(1, 0.4)), 3*time.Hour),
		)
		q := ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(0), Limit: 10}

		q.Since = t0.Add(time.Hour)
		vecExpectIDs(t, vecMustSearch(t, ctx, ix, q), "h1", "h2", "h3")

		q.Since, q.Until = time.Time{}, t0.Add(2*time.Hour)
		vecExpectIDs(t, vecMustSearch(t, ctx, ix, q), "h0", "h1")

		q.Since, q.Until = t0.Add(time.Hour), t0.Add(3*time.Hour)
		vecExpectIDs(t, vecMustSearch(t, ctx, ix, q), "h1", "h2")

		q.Since, q.Until = t0.Add(time.Hour+time.Millisecond), t0.Add(2*time.Hour+time.Millisecond)
		vecExpectIDs(t, vecMustSearch(t, ctx, ix, q), "h2")

		q.Since, q.Until = t0.Add(5*time.Hour), time.Time{}
		vecExpectIDs(t, vecMustSearch(t, ctx, ix, q))
	})

	t.Run("filters combine", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		old := vecMessage("t1", "u1", "c1-old", "c1", vecUnit(0))
		old.At = vecBaseTime.Add(-time.Hour)
		vecMustUpsert(t, ctx, ix,
			old,
			vecMessage("t1", "u1", "c1-new", "c1", vecMix(0.2, 1)),
			vecMessage("t1", "u1", "c2-new", "c2", vecUnit(0)),
			vecMemory("t1", "u1", "memory", "fact", vecUnit(0)),
		)
		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{
			Tenant: "t1", User: "u1", Kinds: []memory.Kind{memory.KindMessage},
			ConversationID: "c1", Since: vecBaseTime, Vector: vecUnit(0), Limit: 10,
		})
		vecExpectIDs(t, hits, "c1-new")
	})

	t.Run("hostile ids, tenants and users are matched literally", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		hostile := []string{
			`a" || user != "`,
			`b' or 1 == 1 or user == '`,
			`c\" || tenant != \"`,
			"line\nbreak\ttab",
			`back\\slash\`,
			"记忆 👋 ümlaut",
		}
		var records []ports.VectorRecord
		for i, name := range hostile {
			records = append(records,
				vecMemory(name, name, name, "fact", vecUnit(i%dim)),
				vecMemory("t1", "victim", fmt.Sprintf("victim-%d", i), "fact", vecUnit(i%dim)),
			)
		}
		vecMustUpsert(t, ctx, ix, records...)
		for i, name := range hostile {
			hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{
				Tenant: name, User: name, MemoryTypes: []string{"fact", name}, ConversationID: "",
				Vector: vecUnit(i % dim), Limit: 10,
			})
			vecExpectIDs(t, hits, name)
		}
		if err := ix.Delete(ctx, hostile[0], []string{`victim-0" || id != "`, hostile[0]}); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "victim", Vector: vecUnit(0), Limit: 100})
		if len(hits) != len(hostile) {
			t.Fatalf("victim has %d vectors after a hostile delete, want %d", len(hits), len(hostile))
		}
		hits = vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: hostile[0], User: hostile[0], Vector: vecUnit(0), Limit: 10})
		vecExpectIDs(t, hits)
	})

	t.Run("wrong dimension is refused and writes nothing", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		good := vecMemory("t1", "u1", "good", "fact", vecUnit(0))
		bad := vecMemory("t1", "u1", "bad", "fact", make([]float32, dim+1))
		bad.Vector[0] = 1
		vecExpectInvalid(t, "Upsert with a longer vector", ix.Upsert(ctx, []ports.VectorRecord{good, bad}))

		short := vecMemory("t1", "u1", "short", "fact", []float32{1, 0})
		vecExpectInvalid(t, "Upsert with a shorter vector", ix.Upsert(ctx, []ports.VectorRecord{short}))

		_, err := ix.Search(ctx, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: []float32{1}, Limit: 5})
		vecExpectInvalid(t, "Search with a wrong-dimension query", err)

		hits := vecMustSearch(t, ctx, ix, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: vecUnit(0), Limit: 5})
		vecExpectIDs(t, hits)
	})

	t.Run("unusable vectors are refused", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		nan := vecUnit(0)
		nan[1] = float32(math.NaN())
		inf := vecUnit(0)
		inf[2] = float32(math.Inf(1))
		for name, v := range map[string][]float32{"NaN": nan, "Inf": inf, "zero": make([]float32, dim)} {
			err := ix.Upsert(ctx, []ports.VectorRecord{vecMemory("t1", "u1", "x", "fact", v)})
			vecExpectInvalid(t, "Upsert with a "+name+" vector", err)
			_, err = ix.Search(ctx, ports.VectorQuery{Tenant: "t1", User: "u1", Vector: v, Limit: 5})
			vecExpectInvalid(t, "Search with a "+name+" vector", err)
		}
	})

	t.Run("incomplete requests are refused", func(t *testing.T) {
		t.Parallel()
		ix, ctx := open(t, dim), vecTestContext(t)
		for name, q := range map[string]ports.VectorQuery{
			"no tenant":      {User: "u1", Vector: vecUnit(0), Limit: 5},
			"no user":        {Tenant: "t1", Vector: vecUnit(0), Limit: 5},
			"zero limit":     {Tenant: "t1", User: "u1", Vector: vecUnit(0)},
			"negative limit": {Tenant: "t1", User: "u1", Vector: vecUnit(0), Limit: -1},
		} {
			_, err := ix.Search(ctx, q)
			vecExpectInvalid(t, "Search with "+name, err)
		}
		for name, r := range map[string]ports.VectorRecord{
			"no id":     vecMemory("t1", "u1", "", "fact", vecUnit(0)),
			"no tenant": vecMemory("", "u1", "x", "fact", vecUnit(0)),
			"no user":   vecMemory("t1", "", "x", "fact", vecUnit(0)),
			"no kind":   {ID: "x", Tenant: "t1", User: "u1", Vector: vecUnit(0)},
		} {
			vecExpectInvalid(t, "Upsert with "+name, ix.Upsert(ctx, []ports.VectorRecord{r}))
		}
		vecExpectInvalid(t, "Delete with no tenant", ix.Delete(ctx, "", []string{"x"}))
		if err := ix.Upsert(ctx, nil); err != nil {
			t.Fatalf("Upsert of nothing: %v", err)
		}
	})
}

type vecWant struct {
	id    string
	score float64
}

func vecTestContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// vecUnit is the unit vector along axis i.
func vecUnit(i int) []float32 {
	v := make([]float32, vectorContractDim)
	v[i] = 1
	return v
}

// vecMix is the (unnormalised) vector with the given leading components.
func vecMix(components ...float32) []float32 {
	v := make([]float32, vectorContractDim)
	copy(v, components)
	return v
}

func vecScale(v []float32, f float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * f
	}
	return out
}

var vecBaseTime = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

func vecMemory(tenant, user, id, memoryType string, v []float32) ports.VectorRecord {
	return ports.VectorRecord{ID: id, Tenant: tenant, User: user, Kind: memory.KindMemory, MemoryType: memoryType, At: vecBaseTime, Vector: v}
}

func vecMessage(tenant, user, id, conversation string, v []float32) ports.VectorRecord {
	return ports.VectorRecord{ID: id, Tenant: tenant, User: user, Kind: memory.KindMessage, ConversationID: conversation, At: vecBaseTime, Vector: v}
}

func vecMustUpsert(t *testing.T, ctx context.Context, ix ports.VectorIndex, records ...ports.VectorRecord) {
	t.Helper()
	if err := ix.Upsert(ctx, records); err != nil {
		t.Fatalf("Upsert: %v", err)
	}
}

func vecMustSearch(t *testing.T, ctx context.Context, ix ports.VectorIndex, q ports.VectorQuery) []ports.VectorHit {
	t.Helper()
	hits, err := ix.Search(ctx, q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score+vectorScoreTolerance {
			t.Fatalf("hits not nearest first: %v", hits)
		}
	}
	return hits
}

func vecIDs(hits []ports.VectorHit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func vecExpectIDs(t *testing.T, hits []ports.VectorHit, want ...string) {
	t.Helper()
	got := vecIDs(hits)
	if len(got) != len(want) {
		t.Fatalf("hits %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("hits %q, want %q", got, want)
		}
	}
}

func vecExpectIDSet(t *testing.T, hits []ports.VectorHit, want ...string) {
	t.Helper()
	got := vecIDs(hits)
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("hit ids %q, want %q", got, want)
	}
}

func vecExpectHits(t *testing.T, hits []ports.VectorHit, want []vecWant) {
	t.Helper()
	if len(hits) != len(want) {
		t.Fatalf("hits %v, want %v", hits, want)
	}
	for i, w := range want {
		if hits[i].ID != w.id || math.Abs(hits[i].Score-w.score) > vectorScoreTolerance {
			t.Fatalf("hit %d is %s (%.5f), want %s (%.5f); all hits %v", i, hits[i].ID, hits[i].Score, w.id, w.score, hits)
		}
	}
}

func vecExpectInvalid(t *testing.T, what string, err error) {
	t.Helper()
	var ve *invalid.Error
	switch {
	case err == nil:
		t.Errorf("%s: no error, want a validation error", what)
	case errors.Is(err, ports.ErrUnavailable):
		t.Errorf("%s: %v is ErrUnavailable, want a validation error", what, err)
	case !errors.As(err, &ve):
		t.Errorf("%s: %v (%T), want *invalid.Error", what, err, err)
	}
}
