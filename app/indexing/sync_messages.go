package indexing

import (
	"context"
	"fmt"
	"time"

	"engram/domain/clip"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
)

// SyncMessages claims the due messages of some conversations (about one batch) and
// brings their vectors in step:
//
//  1. each user or assistant message is embedded alone (its IndexText), in one
//     call for the batch, unless its stored embedding is of the same text and
//     model;
//  2. per conversation, the stored embeddings of the messages around the claimed
//     ones are read, and every message whose neighbourhood changed — the claimed
//     ones and up to NeighbourWindow indexed messages on each side — gets its
//     vector rebuilt as ranking.ContextVectors and upserted;
//  3. the raw embeddings and the outcomes are stored (SYNCED, or FAILED with the
//     error and a retry time; a failure after embedding keeps the embedding, so
//     the retry does not embed again).
//
// System messages get no vector. Neighbours that wait for their own sync are not
// upserted here: their sync rebuilds them, and their neighbours, later.
func (ix *Indexer) SyncMessages(ctx context.Context) (Report, error) {
	start := time.Now()
	rep := Report{Kind: memory.KindMessage}
	claimed, err := ix.store.ClaimMessages(ctx, ports.VectorClaim{
		Worker: ix.opts.Worker, Now: ix.clock.Now(), Lease: ix.opts.Lease, Limit: ix.opts.BatchSize,
	})
	if err != nil {
		return rep, fmt.Errorf("claim messages: %w", err)
	}
	rep.Claimed = len(claimed)
	if len(claimed) == 0 {
		return rep, nil
	}

	now := ix.clock.Now()
	model := ix.embedder.Model()
	dim := ix.embedder.Dimension()
	outcomes := make([]ports.MessageVectorOutcome, len(claimed))
	own := make([][]float32, len(claimed)) // each claimed message's embedding; nil: none
	hashes := make([]string, len(claimed))
	fresh := make([]bool, len(claimed))         // embedded in this batch: to be stored
	embedded := make([][]float32, len(claimed)) // what the embedder returned
	failed := func(i int, reason string) {
		attempts := claimed[i].Attempts + 1
		outcomes[i] = ports.MessageVectorOutcome{
			Seq: claimed[i].Message.Seq, Status: memory.VectorFailed, Error: clip.Runes(reason, maxErrorLen),
			Attempts: attempts, NextAttempt: now.Add(ix.opts.Retry.Delay(attempts)),
		}
	}
	synced := func(i int) {
		outcomes[i] = ports.MessageVectorOutcome{Seq: claimed[i].Message.Seq, Status: memory.VectorSynced, SyncedAt: now}
	}

	var (
		embedIdx []int
		texts    []string
	)
	for i, mv := range claimed {
		if !indexedMessage(mv.Message) {
			synced(i)
			continue
		}
		text := mv.Message.IndexText()
		hashes[i] = memory.TextHash(text)
		if mv.Embedding != nil && mv.Model == model && mv.TextHash == hashes[i] && len(mv.Embedding) == dim {
			own[i] = mv.Embedding
			rep.Unchanged++
			if isZero(own[i]) {
				own[i] = nil
				synced(i)
			}
			continue
		}
		embedIdx = append(embedIdx, i)
		texts = append(texts, text)
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
			for k, i := range embedIdx {
				own[i], fresh[i], embedded[i] = vectors[k], true, vectors[k]
				if isZero(vectors[k]) {
					// Nothing the embedder could read: kept (a reindex reuses it), but
					// no vector and nothing to mix into the neighbours.
					own[i] = nil
					synced(i)
				}
			}
		}
	}

	for _, group := range conversations(claimed) {
		ix.syncConversation(ctx, claimed, group, own, &rep, synced, failed)
	}
	if err := ctx.Err(); err != nil {
		return rep, ix.release(ctx, err)
	}
	for i := range outcomes {
		if fresh[i] {
			outcomes[i].Model, outcomes[i].TextHash, outcomes[i].Embedding = model, hashes[i], embedded[i]
		}
	}
	stored, err := ix.store.FinishMessages(context.WithoutCancel(ctx), ix.opts.Worker, outcomes)
	if err != nil {
		return rep, fmt.Errorf("store message vector outcomes: %w", err)
	}
	for i, o := range outcomes {
		switch o.Status {
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

// syncConversation rebuilds and upserts the vectors of one conversation's claimed
// messages (claimed[group[0]] … claimed[group[len-1]], in order) and of their
// neighbours, and records the claimed messages' outcomes.
func (ix *Indexer) syncConversation(ctx context.Context, claimed []ports.MessageVector, group []int,
	own [][]float32, rep *Report, synced func(int), failed func(int, string),
) {
	// The claimed messages that still wait for an outcome: indexed and embedded.
	var pending []int
	for _, i := range group {
		if indexedMessage(claimed[i].Message) && own[i] != nil {
			pending = append(pending, i)
		}
	}
	if len(pending) == 0 {
		return
	}
	fail := func(stage, reason string) {
		for _, i := range pending {
			failed(i, reason)
		}
		rep.fail(stage, len(pending))
	}
	w := ix.opts.NeighbourWindow
	first, last := claimed[group[0]].Message, claimed[group[len(group)-1]].Message
	window, err := ix.store.MessageWindow(ctx, first, last, 2*w)
	if err != nil {
		fail("store", "read neighbours: "+err.Error())
		return
	}

	// The conversation around the claimed messages, as the index sees it.
	claimedAt := make(map[string]int, len(group)) // seq → index in claimed
	for _, i := range group {
		claimedAt[claimed[i].Message.Seq] = i
	}
	model, dim := ix.embedder.Model(), ix.embedder.Dimension()
	var (
		seq       []ports.MessageVector
		vectors   [][]float32
		isClaimed []bool
	)
	seen := map[string]bool{}
	for _, mv := range window {
		if !indexedMessage(mv.Message) {
			continue
		}
		seen[mv.Message.Seq] = true
		v := []float32(nil)
		i, ok := claimedAt[mv.Message.Seq]
		if ok {
			v = own[i]
		} else if mv.Model == model && len(mv.Embedding) == dim && !isZero(mv.Embedding) {
			v = mv.Embedding
		}
		seq = append(seq, mv)
		vectors = append(vectors, v)
		isClaimed = append(isClaimed, ok)
	}
	for _, i := range pending {
		if !seen[claimed[i].Message.Seq] {
			fail("store", fmt.Sprintf("read neighbours: message %s is missing from its conversation", claimed[i].Message.Seq))
			return
		}
	}

	// Which vectors to write: the claimed ones and the neighbours of any claimed
	// one whose embedding is known, when those neighbours are themselves indexed.
	write := make([]bool, len(seq))
	for p := range seq {
		if !isClaimed[p] || vectors[p] == nil {
			continue
		}
		for q := max(0, p-w); q <= min(len(seq)-1, p+w); q++ {
			switch {
			case vectors[q] == nil:
			case isClaimed[q]:
				write[q] = true
			case seq[q].Status == memory.VectorSynced:
				write[q] = true
			}
		}
	}
	mixed := ranking.ContextVectors(withZeros(vectors, dim), w, ix.opts.NeighbourWeight)
	var records []ports.VectorRecord
	for p, ok := range write {
		if !ok {
			continue
		}
		m := seq[p].Message
		records = append(records, ports.VectorRecord{
			ID: m.Seq, Tenant: m.Scope.Tenant, User: m.Scope.User, Kind: memory.KindMessage,
			ConversationID: m.ConversationID, At: m.CreatedAt, Vector: mixed[p],
		})
	}
	if err := ix.call(ctx, func(ctx context.Context) error { return ix.index.Upsert(ctx, records) }); err != nil {
		fail("upsert", "upsert vector: "+err.Error())
		return
	}
	rep.Upserted += len(records)
	for _, i := range pending {
		synced(i)
	}
}

// withZeros stands a zero vector in for each missing embedding: it adds nothing
// to its neighbours' mixes.
func withZeros(vectors [][]float32, dim int) [][]float32 {
	out := make([][]float32, len(vectors))
	var zero []float32
	for i, v := range vectors {
		if v == nil {
			if zero == nil {
				zero = make([]float32, dim)
			}
			v = zero
		}
		out[i] = v
	}
	return out
}

// conversations splits claimed messages (grouped and ordered by the store) into
// the index lists of each conversation.
func conversations(claimed []ports.MessageVector) [][]int {
	var out [][]int
	same := func(a, b conversation.Message) bool {
		return a.Scope == b.Scope && a.ConversationID == b.ConversationID
	}
	for i := 0; i < len(claimed); {
		j := i + 1
		for j < len(claimed) && same(claimed[j].Message, claimed[i].Message) {
			j++
		}
		group := make([]int, 0, j-i)
		for k := i; k < j; k++ {
			group = append(group, k)
		}
		out = append(out, group)
		i = j
	}
	return out
}
