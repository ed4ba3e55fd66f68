package indexing

import (
	"context"
	"fmt"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// IndexMemory brings the memory's document in line with it: stored when the memory
// is indexable, removed otherwise.
func (ix *LexicalIndexer) IndexMemory(ctx context.Context, m memory.Memory) error {
	if indexable(m) {
		return ix.docs.Put(ctx, []ports.LexicalDoc{memoryDoc(ix.analyzer, m)})
	}
	return ix.docs.Delete(ctx, m.Scope(), []ports.LexicalRef{{Kind: memory.KindMemory, ID: m.ID()}})
}

// RepairMemories compares the memories changed since the last repair (all of them
// the first time) with their documents and fixes those that differ. It returns
// how many documents it wrote.
func (ix *LexicalIndexer) RepairMemories(ctx context.Context) (int, error) {
	started := ix.clock.Now()
	ix.mu.Lock()
	afterAt, afterID := ix.repairFrom, ix.repairID
	ix.mu.Unlock()
	fixed := 0
	for {
		began := time.Now()
		page, err := ix.memories.MemoriesChangedSince(ctx, afterAt, afterID, DefaultRepairBatch)
		if err != nil {
			return fixed, fmt.Errorf("read changed memories: %w", err)
		}
		byUser := map[memory.Scope][]memory.Memory{}
		for _, m := range page {
			byUser[m.Scope()] = append(byUser[m.Scope()], m)
		}
		batch := LexicalReport{Pass: LexicalPassRepair, Read: len(page)}
		for scope, ms := range byUser {
			put, removed, err := ix.repairUser(ctx, scope, ms)
			fixed += put + removed
			batch.Indexed, batch.Removed = batch.Indexed+put, batch.Removed+removed
			if err != nil {
				return fixed, err
			}
		}
		if len(page) > 0 {
			batch.Duration = time.Since(began)
			ix.observe(batch)
		}
		if len(page) < DefaultRepairBatch {
			break
		}
		last := page[len(page)-1]
		afterAt, afterID = last.UpdatedAt(), last.ID()
	}
	ix.mu.Lock()
	ix.repairFrom, ix.repairID = started.Add(-repairMargin), ""
	ix.mu.Unlock()
	return fixed, nil
}

// repairUser writes the documents of the user's memories that differ and deletes
// those of memories no longer indexable; it returns how many of each.
func (ix *LexicalIndexer) repairUser(ctx context.Context, scope memory.Scope, ms []memory.Memory) (put, removed int, err error) {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID()
	}
	versions, err := ix.docs.Versions(ctx, scope, ids)
	if err != nil {
		return 0, 0, fmt.Errorf("read indexed versions: %w", err)
	}
	var puts []ports.LexicalDoc
	var dels []ports.LexicalRef
	for _, m := range ms {
		v, has := versions[m.ID()]
		switch {
		case indexable(m) && (!has || v != m.Version()):
			puts = append(puts, memoryDoc(ix.analyzer, m))
		case !indexable(m) && has:
			dels = append(dels, ports.LexicalRef{Kind: memory.KindMemory, ID: m.ID()})
		}
	}
	if err := ix.docs.Put(ctx, puts); err != nil {
		return 0, 0, fmt.Errorf("repair documents: %w", err)
	}
	if err := ix.docs.Delete(ctx, scope, dels); err != nil {
		return len(puts), 0, fmt.Errorf("repair deletions: %w", err)
	}
	return len(puts), len(dels), nil
}
