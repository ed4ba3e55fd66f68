package indexing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"engram/domain/clip"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/retry"
	"engram/ports"
)

// SyncMemories claims one batch of due memories and brings their vectors in step:
//
//   - a memory that is inactive, expired or in a noise family loses its vector and
//     is marked SYNCED with no text hash (so coming back to life re-embeds it);
//   - a memory whose index text and embedding model are those of the vector the
//     index holds is marked SYNCED without calling the embedder;
//   - the others are embedded in one call, upserted, and marked SYNCED with the
//     model, their version and the hash of their index text.
//
// Failures mark the items FAILED with the error and a retry time; the embedder or
// vector index being down never loses the DIRTY state. Outcomes are stored only
// for memories still at the claimed version, so an edit made meanwhile stays
// DIRTY. It returns the batch's report; zero claimed means nothing was due.
func (ix *Indexer) SyncMemories(ctx context.Context) (Report, error) {
	start := time.Now()
	claimed, rep, err := claimBatch(ctx, ix, memory.KindMemory, "memories", ix.store.ClaimMemories)
	if err != nil || len(claimed) == 0 {
		return rep, err
	}
	now := ix.clock.Now()
	plan := planMemorySync(claimed, ix.embedder.Model(), now)
	out := &memoryOutcomes{claimed: claimed, model: ix.embedder.Model(), now: now, retry: ix.opts.Retry,
		list: make([]ports.MemoryVectorOutcome, len(claimed))}
	for _, i := range plan.unchanged {
		out.synced(i, plan.hashes[i])
	}
	rep.Unchanged = len(plan.unchanged)
	for tenant, idx := range plan.remove {
		if ix.deleteMemoryVectors(ctx, tenant, idx, nil, out, &rep) {
			rep.Removed += len(idx)
		}
	}
	ix.embedMemories(ctx, plan, out, &rep)
	status := func(i int) (memory.VectorStatus, time.Time) { return out.list[i].Vector.Status, claimed[i].DirtySince }
	return finishBatch(ctx, ix, "memory", ix.store.FinishMemories, out.list, status, rep, now, start)
}

// claimBatch claims one batch of a vector queue and starts its report; nouns
// names the items in an error.
func claimBatch[T any](ctx context.Context, ix *Indexer, kind memory.Kind, nouns string,
	claim func(context.Context, ports.VectorClaim) ([]T, error),
) ([]T, Report, error) {
	rep := Report{Kind: kind}
	claimed, err := claim(ctx, ports.VectorClaim{Worker: ix.opts.Worker, Now: ix.clock.Now(), Lease: ix.opts.Lease, Limit: ix.opts.BatchSize})
	if err != nil {
		return nil, rep, fmt.Errorf("claim %s: %w", nouns, err)
	}
	rep.Claimed = len(claimed)
	return claimed, rep, nil
}

// finishBatch stores a batch's outcomes (unless the batch was cut short: then its
// claims are released), counts them (status: each one's, and since when its
// item waited) and reports the batch. An outcome the store did not take was
// stale: its item changed meanwhile.
func finishBatch[O any](ctx context.Context, ix *Indexer, noun string,
	finish func(context.Context, string, []O) (int, error), outcomes []O,
	status func(i int) (memory.VectorStatus, time.Time), rep Report, now, start time.Time,
) (Report, error) {
	if err := ctx.Err(); err != nil {
		return rep, ix.release(ctx, err)
	}
	stored, err := finish(context.WithoutCancel(ctx), ix.opts.Worker, outcomes)
	if err != nil {
		return rep, fmt.Errorf("store %s vector outcomes: %w", noun, err)
	}
	for i := range outcomes {
		st, dirtySince := status(i)
		rep.tally(st, dirtySince, now)
	}
	rep.Stale = len(outcomes) - stored
	rep.Duration = time.Since(start)
	ix.observe(rep)
	return rep, nil
}

// memorySync is what a batch of claimed memories needs, decided from the rows
// alone (planMemorySync); indexes are into the claimed list.
type memorySync struct {
	unchanged []int            // the index holds this text of this model: synced as they are
	remove    map[string][]int // by tenant: not live (inactive, expired, noise), their vectors deleted
	embed     []int            // to embed, in order
	texts     []string         // the index text of each of embed
	hashes    []string         // the hash of each claimed memory's index text; "" for those removed
}

// planMemorySync sorts the claimed memories into those whose vector goes, those
// the index already holds as they are, and those to embed.
func planMemorySync(claimed []ports.ClaimedMemory, model string, now time.Time) memorySync {
	plan := memorySync{remove: map[string][]int{}, hashes: make([]string, len(claimed))}
	for i, c := range claimed {
		m := c.Memory
		if !m.IsLive(now) {
			plan.remove[m.Scope().Tenant] = append(plan.remove[m.Scope().Tenant], i)
			continue
		}
		text := m.IndexText()
		plan.hashes[i] = memory.TextHash(text)
		if v := m.Vector(); v.TextHash == plan.hashes[i] && v.Model == model {
			plan.unchanged = append(plan.unchanged, i)
			continue
		}
		plan.embed = append(plan.embed, i)
		plan.texts = append(plan.texts, text)
	}
	return plan
}

// memoryRecords turns what the embedder returned for plan.embed into the records
// to upsert (owners: the claimed index of each) and, by tenant, the memories it
// found nothing to read in: they get no vector, and none may be left over.
func memoryRecords(claimed []ports.ClaimedMemory, embed []int, vectors [][]float32) (records []ports.VectorRecord, owners []int, blank map[string][]int) {
	blank = map[string][]int{}
	for k, i := range embed {
		m := claimed[i].Memory
		if isZero(vectors[k]) {
			blank[m.Scope().Tenant] = append(blank[m.Scope().Tenant], i)
			continue
		}
		records = append(records, ports.VectorRecord{
			ID: m.ID(), Tenant: m.Scope().Tenant, User: m.Scope().User,
			Kind: memory.KindMemory, MemoryType: string(m.Type()),
			At: m.UpdatedAt(), Vector: vectors[k],
		})
		owners = append(owners, i)
	}
	return records, owners, blank
}

// memoryOutcomes collects the outcome of each claimed memory.
type memoryOutcomes struct {
	claimed []ports.ClaimedMemory
	model   string
	now     time.Time
	retry   retry.Policy
	list    []ports.MemoryVectorOutcome
}

// synced records a sync of the claimed version with the hash of the text the
// index holds ("" when it holds no vector).
func (o *memoryOutcomes) synced(i int, hash string) {
	m := o.claimed[i].Memory
	o.list[i] = ports.MemoryVectorOutcome{
		ID: m.ID(), Version: m.Version(),
		Vector: m.MarkVectorSynced(o.model, int(m.Version()), hash, o.now).Vector(),
	}
}

// failed records a failed sync and when it is tried again.
func (o *memoryOutcomes) failed(i int, reason string) {
	c := o.claimed[i]
	attempts := c.Attempts + 1
	o.list[i] = ports.MemoryVectorOutcome{
		ID: c.Memory.ID(), Version: c.Memory.Version(),
		Vector:   c.Memory.MarkVectorFailed(clip.Runes(reason, maxErrorLen), o.now).Vector(),
		Attempts: attempts, NextAttempt: o.now.Add(o.retry.Delay(attempts)),
	}
}

// deleteMemoryVectors deletes the vectors of one tenant's claimed memories idx
// and records them synced (with hashes[i], or no hash when hashes is nil), or
// failed; it reports whether the delete went through.
func (ix *Indexer) deleteMemoryVectors(ctx context.Context, tenant string, idx []int, hashes []string, out *memoryOutcomes, rep *Report) bool {
	ids := make([]string, len(idx))
	for k, i := range idx {
		ids[k] = out.claimed[i].Memory.ID()
	}
	if err := ix.call(ctx, func(ctx context.Context) error { return ix.index.Delete(ctx, tenant, ids) }); err != nil {
		for _, i := range idx {
			out.failed(i, "delete vector: "+err.Error())
		}
		rep.fail("delete", len(idx))
		return false
	}
	for _, i := range idx {
		hash := ""
		if hashes != nil {
			hash = hashes[i]
		}
		out.synced(i, hash)
	}
	return true
}

// embedMemories embeds the planned texts in one call and upserts their vectors.
func (ix *Indexer) embedMemories(ctx context.Context, plan memorySync, out *memoryOutcomes, rep *Report) {
	if len(plan.texts) == 0 {
		return
	}
	rep.Embedded = len(plan.texts)
	vectors, err := ix.embed(ctx, plan.texts)
	if err != nil {
		for _, i := range plan.embed {
			out.failed(i, "embed: "+err.Error())
		}
		rep.fail("embed", len(plan.embed))
		return
	}
	records, owners, blank := memoryRecords(out.claimed, plan.embed, vectors)
	for tenant, idx := range blank {
		ix.deleteMemoryVectors(ctx, tenant, idx, plan.hashes, out, rep)
	}
	for k, err := range ix.upsertEach(ctx, records) {
		if err != nil {
			out.failed(owners[k], "upsert vector: "+err.Error())
			rep.fail("upsert", 1)
			continue
		}
		out.synced(owners[k], plan.hashes[owners[k]])
		rep.Upserted++
	}
}

// embed calls the embedder with the call timeout and checks what comes back.
func (ix *Indexer) embed(ctx context.Context, texts []string) ([][]float32, error) {
	var vectors [][]float32
	err := ix.call(ctx, func(ctx context.Context) error {
		v, err := ix.embedder.Embed(ctx, texts)
		vectors = v
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(vectors) != len(texts) {
		return nil, fmt.Errorf("the embedder returned %d vectors for %d texts", len(vectors), len(texts))
	}
	return vectors, nil
}

// upsertEach writes the records in one call and returns one error per record. When
// the index refuses the batch as unusable (*invalid.Error: one bad vector refuses
// them all), the records are written one by one, so one bad record fails alone
// instead of holding back the others on every retry.
func (ix *Indexer) upsertEach(ctx context.Context, records []ports.VectorRecord) []error {
	errs := make([]error, len(records))
	if len(records) == 0 {
		return errs
	}
	err := ix.call(ctx, func(ctx context.Context) error { return ix.index.Upsert(ctx, records) })
	var bad *invalid.Error
	if err == nil || !errors.As(err, &bad) || len(records) == 1 {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	for i := range records {
		errs[i] = ix.call(ctx, func(ctx context.Context) error { return ix.index.Upsert(ctx, records[i:i+1]) })
	}
	return errs
}

// isZero reports a vector with no direction (all zeros): the embedder found
// nothing in the text, and an index cannot rank it.
func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// release gives the worker's claims back when the batch was cut short (shutting
// down): the items were not failed, so they keep no error and no backoff.
func (ix *Indexer) release(ctx context.Context, cause error) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := ix.store.Release(rctx, ix.opts.Worker); err != nil {
		return fmt.Errorf("batch cut short (%w); releasing its claims failed, they return after the lease: %w", cause, err)
	}
	return cause
}

// call runs fn with the call timeout.
func (ix *Indexer) call(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, ix.opts.CallTimeout)
	defer cancel()
	return fn(ctx)
}
