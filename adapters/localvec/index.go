package localvec

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/coder/hnsw"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

var _ ports.VectorIndex = (*Index)(nil)

// Options configure an Index.
type Options struct {
	// Dimension is the length of every vector: the embedder's Dimension().
	Dimension int
	// HNSW adds approximate graphs to big partitions. The zero value keeps every
	// search exact, which measured better at every size (BENCHMARKS.md in this
	// directory).
	HNSW HNSWOptions
	// Prefilter picks the candidates of big partitions by int8 copies of the
	// vectors before scoring them exactly. The zero value turns it on with the
	// defaults below.
	Prefilter PrefilterOptions
}

// PrefilterOptions tune the int8 prefilter (quantised.go): a partition of at least
// Threshold live vectors is scanned by its int8 copies and only its best
// Candidates (at least the search limit) are scored exactly with the float32
// vectors, so the scores returned are exact and only the choice of candidates is
// approximate. Recall@10 against the exact scan: prefilter_test.go, and
// BENCHMARKS.md in this directory.
type PrefilterOptions struct {
	// Threshold is the partition size from which searches are prefiltered; 0 means
	// DefaultPrefilterThreshold where the CPU has an int8 kernel (AVX2) and off
	// elsewhere, negative turns the prefilter off (exact scans only, and no int8
	// copies are kept).
	Threshold int
	// Candidates is how many records are scored exactly; 0 means
	// DefaultPrefilterCandidates.
	Candidates int
}

const (
	// DefaultPrefilterThreshold: below it an exact scan takes about a millisecond.
	DefaultPrefilterThreshold = 20_000
	// DefaultPrefilterCandidates keeps recall@10 against the exact scan at or
	// above 0.99 at 100,000 vectors (prefilter_test.go).
	DefaultPrefilterCandidates = 200
)

func (o PrefilterOptions) withDefaults() PrefilterOptions {
	if o.Threshold == 0 {
		o.Threshold = DefaultPrefilterThreshold
		if !fastInt8 {
			o.Threshold = -1
		}
	}
	if o.Candidates <= 0 {
		o.Candidates = DefaultPrefilterCandidates
	}
	return o
}

// plan is how the index's partitions are searched.
func (ix *Index) plan() searchPlan {
	plan := searchPlan{hnswEf: ix.hnsw.EfSearch}
	if ix.prefilter.Threshold > 0 {
		plan.quantisedFrom, plan.candidates = ix.prefilter.Threshold, ix.prefilter.Candidates
	}
	return plan
}

// HNSWOptions tune the optional HNSW graphs (github.com/coder/hnsw).
type HNSWOptions struct {
	// Threshold is the number of live vectors in one partition (a tenant's user's
	// vectors of one kind) from which that partition gets a graph. 0 disables graphs.
	Threshold int
	// M is the number of neighbours per node (default 32).
	M int
	// EfConstruction is the candidate list size while building (default 200).
	EfConstruction int
	// EfSearch is how many graph neighbours are fetched and re-scored exactly per
	// search; it is raised to the search limit when that is larger (default 200).
	EfSearch int
	// StaleFraction is how much of a graph may be outdated (records written or
	// removed since its build) before it is rebuilt in the background (default 0.2).
	StaleFraction float64
}

func (o HNSWOptions) withDefaults() HNSWOptions {
	if o.M <= 0 {
		o.M = 32
	}
	if o.EfConstruction <= 0 {
		o.EfConstruction = 200
	}
	if o.EfSearch <= 0 {
		o.EfSearch = 200
	}
	if o.StaleFraction <= 0 {
		o.StaleFraction = 0.2
	}
	return o
}

// Index is an in-process vector index for one embedding model. Vectors are kept
// normalised in partitions of one tenant, user and kind; a search reads only the
// asking user's partitions and scores exactly the records that pass its filters
// (an optional HNSW graph serves unfiltered searches of big partitions). It is safe
// for concurrent use: searches share read locks (one on the index to find the
// user's partitions, then one per partition while scanning it); writers serialise
// on the index lock only while placing records, and graphs are built outside every
// lock.
//
// The index keeps nothing on disk. See Load, Snapshot and Durable for how its
// vectors survive a restart.
type Index struct {
	dim       int
	hnsw      HNSWOptions
	prefilter PrefilterOptions

	mu    sync.RWMutex
	parts map[partKey]*partition
	kinds map[scopeKey]map[memory.Kind]*partition // a user's partitions
	where map[idKey]partKey                       // where each (tenant, id) lives

	builds inflight // background graph builds
}

// inflight counts running background builds. Unlike a sync.WaitGroup it may be
// waited on while new builds start (Close and BuildGraphs race with writes).
type inflight struct {
	mu   sync.Mutex
	n    int
	idle *sync.Cond
}

func (f *inflight) add() {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
}

func (f *inflight) done() {
	f.mu.Lock()
	f.n--
	if f.n == 0 && f.idle != nil {
		f.idle.Broadcast()
	}
	f.mu.Unlock()
}

func (f *inflight) wait() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.idle == nil {
		f.idle = sync.NewCond(&f.mu)
	}
	for f.n > 0 {
		f.idle.Wait()
	}
}

type scopeKey struct{ tenant, user string }

type idKey struct{ tenant, id string }

// New returns an empty index for vectors of opts.Dimension values.
func New(opts Options) (*Index, error) {
	if opts.Dimension <= 0 {
		return nil, invalid.FieldValue("dimension", opts.Dimension, "must be at least 1, got %d", opts.Dimension)
	}
	h := opts.HNSW
	if h.Threshold < 0 {
		return nil, invalid.FieldValue("hnsw.threshold", h.Threshold, "must be 0 (off) or positive, got %d", h.Threshold)
	}
	if opts.Prefilter.Candidates < 0 {
		return nil, invalid.FieldValue("prefilter.candidates", opts.Prefilter.Candidates, "must be 0 (default) or positive, got %d", opts.Prefilter.Candidates)
	}
	return &Index{
		dim:       opts.Dimension,
		hnsw:      h.withDefaults(),
		prefilter: opts.Prefilter.withDefaults(),
		parts:     make(map[partKey]*partition),
		kinds:     make(map[scopeKey]map[memory.Kind]*partition),
		where:     make(map[idKey]partKey),
	}, nil
}

// Dimension is the vector length the index accepts.
func (ix *Index) Dimension() int { return ix.dim }

// Upsert stores the records, replacing any with the same tenant and id. The batch is
// validated first and refused as a whole (*invalid.Error) if any record is unusable.
func (ix *Index) Upsert(ctx context.Context, records []ports.VectorRecord) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("localvec: upsert: %w: %w", ports.ErrUnavailable, err)
	}
	prepared, err := ix.prepare(records)
	if err != nil {
		return err
	}
	ix.apply(prepared)
	return nil
}

// Delete removes the tenant's vectors with these ids; unknown ids are ignored.
func (ix *Index) Delete(ctx context.Context, tenant string, ids []string) error {
	if tenant == "" {
		return invalid.Field("tenant", "must not be empty: deletes are confined to one tenant")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("localvec: delete: %w: %w", ports.ErrUnavailable, err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, id := range ids {
		ix.removeLocked(idKey{tenant, id})
	}
	return nil
}

// PurgedVectors is the kind PurgeUser counts.
const PurgedVectors = "vectors"

var _ ports.UserPurger = (*Index)(nil)

// PurgeUser removes every vector of the user and forgets the user's partitions.
func (ix *Index) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	if err := ctx.Err(); err != nil {
		return map[string]int64{PurgedVectors: 0}, fmt.Errorf("localvec: purge user: %w: %w", ports.ErrUnavailable, err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var ids []string
	for _, p := range ix.kinds[scopeKey{scope.Tenant, scope.User}] {
		p.mu.RLock()
		for id := range p.slotOf {
			ids = append(ids, id)
		}
		p.mu.RUnlock()
	}
	for _, id := range ids {
		ix.removeLocked(idKey{scope.Tenant, id})
	}
	return map[string]int64{PurgedVectors: int64(len(ids))}, nil
}

// Search returns the user's nearest vectors that pass every filter of q, nearest first.
func (ix *Index) Search(ctx context.Context, q ports.VectorQuery) ([]ports.VectorHit, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	query, err := normalized("vector", q.Vector, ix.dim)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("localvec: search: %w: %w", ports.ErrUnavailable, err)
	}

	ix.mu.RLock()
	var parts []*partition
	userParts := ix.kinds[scopeKey{q.Tenant, q.User}]
	if len(q.Kinds) == 0 {
		for _, p := range userParts {
			parts = append(parts, p)
		}
	} else {
		seen := make(map[memory.Kind]bool, len(q.Kinds))
		for _, k := range q.Kinds {
			if p := userParts[k]; p != nil && !seen[k] {
				seen[k] = true
				parts = append(parts, p)
			}
		}
	}
	ix.mu.RUnlock()

	f := newFilter(q)
	top := newTopK(q.Limit)
	plan := ix.plan()
	for _, p := range parts {
		p.mu.RLock()
		p.search(query, f, top, plan)
		p.mu.RUnlock()
	}
	return top.sorted(), nil
}

// Load adds records to the index (replacing same tenant and id), typically all the
// vectors a Store kept, once at start. Unlike Upsert it does not refuse the batch for
// one bad record: it loads every usable record and returns an error naming how many
// were skipped and why the first was. Graphs due are built before it returns.
func (ix *Index) Load(records []ports.VectorRecord) error {
	prepared := make([]preparedRecord, 0, len(records))
	var skipped int
	var firstErr error
	for i, r := range records {
		p, err := ix.prepareOne(fmt.Sprintf("records[%d]", i), r)
		if err != nil {
			skipped++
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		prepared = append(prepared, p)
	}
	ix.apply(prepared)
	ix.BuildGraphs()
	if skipped > 0 {
		return fmt.Errorf("localvec: load: skipped %d of %d records: %w", skipped, len(records), firstErr)
	}
	return nil
}

// Snapshot returns a copy of every stored record, ordered by tenant, user, kind and
// id. Vectors come back normalised and At with millisecond precision, which is all
// the index keeps; loading a snapshot reproduces the same search results.
func (ix *Index) Snapshot() []ports.VectorRecord {
	ix.mu.RLock()
	keys := make([]partKey, 0, len(ix.parts))
	for k := range ix.parts {
		keys = append(keys, k)
	}
	parts := make([]*partition, len(keys))
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.tenant != b.tenant {
			return a.tenant < b.tenant
		}
		if a.user != b.user {
			return a.user < b.user
		}
		return a.kind < b.kind
	})
	for i, k := range keys {
		parts[i] = ix.parts[k]
	}
	ix.mu.RUnlock()

	var out []ports.VectorRecord
	for i, p := range parts {
		k := keys[i]
		p.mu.RLock()
		start := len(out)
		for _, r := range p.records {
			if !r.live {
				continue
			}
			out = append(out, ports.VectorRecord{
				ID: r.id, Tenant: k.tenant, User: k.user, Kind: k.kind,
				MemoryType: r.memoryType, ConversationID: r.conversationID,
				At: time.UnixMilli(r.atMillis).UTC(), Vector: append([]float32(nil), r.vec...),
			})
		}
		p.mu.RUnlock()
		added := out[start:]
		sort.Slice(added, func(i, j int) bool { return added[i].ID < added[j].ID })
	}
	return out
}

// Len is the number of stored vectors.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.where)
}

// BuildGraphs builds or refreshes, synchronously, every HNSW graph that is due. Writes
// schedule the same work in the background; this is for start-up and benchmarks.
func (ix *Index) BuildGraphs() {
	if ix.hnsw.Threshold == 0 {
		return
	}
	ix.builds.wait()
	ix.mu.RLock()
	parts := make([]*partition, 0, len(ix.parts))
	for _, p := range ix.parts {
		parts = append(parts, p)
	}
	ix.mu.RUnlock()
	for _, p := range parts {
		ix.build(p)
	}
}

// Close waits for background graph builds to finish. The index stays usable.
func (ix *Index) Close() error {
	ix.builds.wait()
	return nil
}

type preparedRecord struct {
	key partKey
	rec record
}

func (ix *Index) prepare(records []ports.VectorRecord) ([]preparedRecord, error) {
	out := make([]preparedRecord, 0, len(records))
	var errs []error
	for i, r := range records {
		p, err := ix.prepareOne(fmt.Sprintf("records[%d]", i), r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, p)
	}
	if err := invalid.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func (ix *Index) prepareOne(field string, r ports.VectorRecord) (preparedRecord, error) {
	if err := r.Validate(field); err != nil {
		return preparedRecord{}, err
	}
	vec, err := normalized(field+".vector", r.Vector, ix.dim)
	if err != nil {
		return preparedRecord{}, err
	}
	return preparedRecord{
		key: partKey{r.Tenant, r.User, r.Kind},
		rec: record{
			id: r.ID, memoryType: r.MemoryType, conversationID: r.ConversationID,
			atMillis: r.At.UnixMilli(), vec: vec,
		},
	}, nil
}

// apply writes validated records in order, so the last copy of an id wins.
func (ix *Index) apply(prepared []preparedRecord) {
	if len(prepared) == 0 {
		return
	}
	var due []*partition
	ix.mu.Lock()
	for _, pr := range prepared {
		id := idKey{pr.key.tenant, pr.rec.id}
		if old, ok := ix.where[id]; ok && old != pr.key {
			// The id moved to another user or kind: it must not stay behind.
			ix.removeLocked(id)
		}
		p := ix.partitionLocked(pr.key)
		p.mu.Lock()
		p.put(pr.rec)
		p.keepQuantised(ix.prefilter.Threshold)
		if ix.graphDue(p) {
			due = append(due, p)
		}
		p.mu.Unlock()
		ix.where[id] = pr.key
	}
	ix.mu.Unlock()
	for _, p := range due {
		ix.startBuild(p)
	}
}

func (ix *Index) partitionLocked(key partKey) *partition {
	if p := ix.parts[key]; p != nil {
		return p
	}
	p := newPartition(key.kind, quantisedStride(ix.dim))
	ix.parts[key] = p
	scope := scopeKey{key.tenant, key.user}
	if ix.kinds[scope] == nil {
		ix.kinds[scope] = make(map[memory.Kind]*partition)
	}
	ix.kinds[scope][key.kind] = p
	return p
}

func (ix *Index) removeLocked(id idKey) {
	key, ok := ix.where[id]
	if !ok {
		return
	}
	delete(ix.where, id)
	p := ix.parts[key]
	p.mu.Lock()
	p.remove(id.id)
	p.keepQuantised(ix.prefilter.Threshold)
	empty := p.live() == 0
	if p.graph != nil && p.live() < ix.hnsw.Threshold {
		p.graph = nil
	}
	p.mu.Unlock()
	if empty {
		// Forget the partition so users who left cost nothing.
		delete(ix.parts, key)
		scope := scopeKey{key.tenant, key.user}
		delete(ix.kinds[scope], key.kind)
		if len(ix.kinds[scope]) == 0 {
			delete(ix.kinds, scope)
		}
	}
}

// graphDue reports whether p should get a new graph. Callers hold p.mu.
func (ix *Index) graphDue(p *partition) bool {
	if ix.hnsw.Threshold == 0 || p.building || p.live() < ix.hnsw.Threshold {
		return false
	}
	return p.graph == nil || p.graph.stale(ix.hnsw.StaleFraction)
}

func (ix *Index) startBuild(p *partition) {
	ix.builds.add()
	go func() {
		defer ix.builds.done()
		ix.build(p)
	}()
}

// build replaces p's graph with one over its current records. The graph is built
// without holding p's lock, so searches and writes go on meanwhile; records written
// during the build become the new graph's delta.
func (ix *Index) build(p *partition) {
	p.mu.Lock()
	if !ix.graphDue(p) {
		if p.live() < ix.hnsw.Threshold {
			p.graph = nil
		}
		p.mu.Unlock()
		return
	}
	p.building = true
	nodes := make([]hnsw.Node[uint64], 0, p.live())
	for _, r := range p.records {
		if r.live {
			nodes = append(nodes, hnsw.MakeNode(r.seq, r.vec))
		}
	}
	snapshotSeq := p.lastSeq
	p.mu.Unlock()

	g := buildGraph(nodes, ix.hnsw)

	p.mu.Lock()
	defer p.mu.Unlock()
	p.building = false
	if p.live() < ix.hnsw.Threshold {
		p.graph = nil
		return
	}
	gi := &graphIndex{g: g, slotOf: make(map[uint64]int32, len(nodes)), delta: make(map[int32]struct{})}
	for slot, r := range p.records {
		switch {
		case !r.live:
		case r.seq <= snapshotSeq:
			// Live now and no newer than the snapshot: it is in the graph.
			gi.slotOf[r.seq] = int32(slot)
		default:
			gi.delta[int32(slot)] = struct{}{}
		}
	}
	gi.dead = len(nodes) - len(gi.slotOf)
	p.graph = gi
}
