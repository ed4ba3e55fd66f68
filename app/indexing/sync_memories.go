package indexing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"engram/domain/clip"
	"engram/domain/invalid"
	"engram/domain/memory"
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
	rep := Report{Kind: memory.KindMemory}
	claimed, err := ix.store.ClaimMemories(ctx, ports.VectorClaim{
		Worker: ix.opts.Worker, Now: ix.clock.Now(), Lease: ix.opts.Lease, Limit: ix.opts.BatchSize,
	})
	if err != nil {
		return rep, fmt.Errorf("claim memories: %w", err)
	}
	rep.Claimed = len(claimed)
	if len(claimed) == 0 {
		return rep, nil
	}

	now := ix.clock.Now()
	model := ix.embedder.Model()
	outcomes := make([]ports.MemoryVectorOutcome, len(claimed))
	synced := func(i int, hash string) {
		m := claimed[i].Memory
		outcomes[i] = ports.MemoryVectorOutcome{
			ID: m.ID(), Version: m.Version(),
			Vector: m.MarkVectorSynced(model, int(m.Version()), hash, now).Vector(),
		}
	}
	failed := func(i int, reason string) {
		c := claimed[i]
		attempts := c.Attempts + 1
		outcomes[i] = ports.MemoryVectorOutcome{
			ID: c.Memory.ID(), Version: c.Memory.Version(),
			Vector:   c.Memory.MarkVectorFailed(clip.Runes(reason, maxErrorLen), now).Vector(),
			Attempts: attempts, NextAttempt: now.Add(ix.opts.Retry.Delay(attempts)),
		}
	}

	var (
		removals = map[string][]int{} // tenant → claimed indexes
		embedIdx []int
		texts    []string
		hashes   = make([]string, len(claimed))
	)
	for i, c := range claimed {
		m := c.Memory
		if !m.IsLive(now) {
			removals[m.Scope().Tenant] = append(removals[m.Scope().Tenant], i)
			continue
		}
		text := m.IndexText()
		hashes[i] = memory.TextHash(text)
		if v := m.Vector(); v.TextHash == hashes[i] && v.Model == model {
			synced(i, hashes[i])
			rep.Unchanged++
			continue
		}
		embedIdx = append(embedIdx, i)
		texts = append(texts, text)
	}

	for tenant, idx := range removals {
		ids := make([]string, len(idx))
		for k, i := range idx {
			ids[k] = claimed[i].Memory.ID()
		}
		if err := ix.call(ctx, func(ctx context.Context) error { return ix.index.Delete(ctx, tenant, ids) }); err != nil {
			for _, i := range idx {
				failed(i, "delete vector: "+err.Error())
			}
			rep.fail("delete", len(idx))
			continue
		}
		for _, i := range idx {
			synced(i, "")
		}
		rep.Removed += len(idx)
	}

	if len(texts) > 0 {
		rep.Embedded = len(texts)
		vectors, err := ix.embed(ctx, texts)
		if err != nil {
			for _, i := range embedIdx {
				failed(i, "embed: "+err.Error())
			}
			rep.fail("embed", len(embedIdx))
		} else {
			var (
				records []ports.VectorRecord
				owners  []int // claimed index of each record
				blank   = map[string][]int{}
			)
			for k, i := range embedIdx {
				m := claimed[i].Memory
				if isZero(vectors[k]) {
					// Nothing the embedder could read: no vector, and none left over.
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
			for tenant, idx := range blank {
				ids := make([]string, len(idx))
				for k, i := range idx {
					ids[k] = claimed[i].Memory.ID()
				}
				if err := ix.call(ctx, func(ctx context.Context) error { return ix.index.Delete(ctx, tenant, ids) }); err != nil {
					for _, i := range idx {
						failed(i, "delete vector: "+err.Error())
					}
					rep.fail("delete", len(idx))
					continue
				}
				for _, i := range idx {
					synced(i, hashes[i])
				}
			}
			for k, err := range ix.upsertEach(ctx, records) {
				if err != nil {
					failed(owners[k], "upsert vector: "+err.Error())
					rep.fail("upsert", 1)
					continue
				}
				synced(owners[k], hashes[owners[k]])
				rep.Upserted++
			}
		}
	}

	if err := ctx.Err(); err != nil {
		return rep, ix.release(ctx, err)
	}
	stored, err := ix.store.FinishMemories(context.WithoutCancel(ctx), ix.opts.Worker, outcomes)
	if err != nil {
		return rep, fmt.Errorf("store memory vector outcomes: %w", err)
	}
	for i, o := range outcomes {
		switch o.Vector.Status {
		case memory.VectorSynced:
			rep.Synced++
			if !claimed[i].DirtySince.IsZero() {
				rep.Lags = append(rep.Lags, now.Sub(claimed[i].DirtySince))
			}
		case memory.VectorFailed:
			rep.Failed++
		}
	}
	rep.Stale = len(outcomes) - stored
	rep.Duration = time.Since(start)
	ix.observe(rep)
	return rep, nil
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
