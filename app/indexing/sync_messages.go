package indexing

import (
	"context"
	"fmt"
	"time"

	"engram/domain/clip"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/domain/retry"
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
	claimed, rep, err := claimBatch(ctx, ix, memory.KindMessage, "messages", ix.store.ClaimMessages)
	if err != nil || len(claimed) == 0 {
		return rep, err
	}
	now := ix.clock.Now()
	mix := ix.mixing()
	plan := planMessageSync(claimed, mix.model, mix.dim)
	out := &messageOutcomes{claimed: claimed, now: now, retry: ix.opts.Retry, list: make([]ports.MessageVectorOutcome, len(claimed))}
	for _, i := range plan.done {
		out.synced(i)
	}
	rep.Unchanged = plan.unchanged
	if len(plan.texts) > 0 {
		rep.Embedded = len(plan.texts)
		if vectors, err := ix.embed(ctx, plan.texts); err != nil {
			out.failAll(plan.embed, "embed: "+err.Error())
			rep.fail("embed", len(plan.embed))
		} else {
			for _, i := range plan.took(vectors) {
				out.synced(i)
			}
		}
	}
	for _, group := range conversations(claimed) {
		ix.syncConversation(ctx, group, plan.own, mix, out, &rep)
	}
	plan.keepEmbeddings(out.list, mix.model)
	status := func(i int) (memory.VectorStatus, time.Time) { return out.list[i].Status, claimed[i].DirtySince }
	return finishBatch(ctx, ix, "message", ix.store.FinishMessages, out.list, status, rep, now, start)
}

// messageSync is what a batch of claimed messages needs, decided from the rows
// (planMessageSync) and then from what the embedder returned (took); indexes
// are into the claimed list.
type messageSync struct {
	done      []int       // nothing to write: not indexed, or an embedding with nothing in it
	unchanged int         // embeddings of the same text and model, used again
	embed     []int       // to embed, in order
	texts     []string    // the index text of each of embed
	hashes    []string    // the hash of each claimed message's index text
	own       [][]float32 // each claimed message's embedding to mix; nil: none
	embedded  []bool      // embedded in this batch: fresh is to be stored
	fresh     [][]float32 // what the embedder returned
}

// planMessageSync sorts the claimed messages into those with nothing to index,
// those whose stored embedding is of the same text and model, and those to embed.
func planMessageSync(claimed []ports.MessageVector, model string, dim int) *messageSync {
	plan := &messageSync{hashes: make([]string, len(claimed)), own: make([][]float32, len(claimed)),
		embedded: make([]bool, len(claimed)), fresh: make([][]float32, len(claimed))}
	for i, mv := range claimed {
		if !indexedMessage(mv.Message) {
			plan.done = append(plan.done, i)
			continue
		}
		text := mv.Message.IndexText()
		plan.hashes[i] = memory.TextHash(text)
		if mv.Embedding != nil && mv.Model == model && mv.TextHash == plan.hashes[i] && len(mv.Embedding) == dim {
			plan.unchanged++
			if isZero(mv.Embedding) {
				plan.done = append(plan.done, i)
			} else {
				plan.own[i] = mv.Embedding
			}
			continue
		}
		plan.embed = append(plan.embed, i)
		plan.texts = append(plan.texts, text)
	}
	return plan
}

// took records what the embedder returned for plan.embed and says which are
// done already: an embedding with nothing in it is kept (a reindex reuses it),
// but gives no vector and nothing to mix into the neighbours.
func (plan *messageSync) took(vectors [][]float32) (done []int) {
	for k, i := range plan.embed {
		plan.embedded[i], plan.fresh[i] = true, vectors[k]
		if isZero(vectors[k]) {
			done = append(done, i)
			continue
		}
		plan.own[i] = vectors[k]
	}
	return done
}

// keepEmbeddings puts the embeddings made in this batch into their outcomes, so
// that a retry need not embed again.
func (plan *messageSync) keepEmbeddings(outcomes []ports.MessageVectorOutcome, model string) {
	for i := range outcomes {
		if plan.embedded[i] {
			outcomes[i].Model, outcomes[i].TextHash, outcomes[i].Embedding = model, plan.hashes[i], plan.fresh[i]
		}
	}
}

// messageOutcomes collects the outcome of each claimed message.
type messageOutcomes struct {
	claimed []ports.MessageVector
	now     time.Time
	retry   retry.Policy
	list    []ports.MessageVectorOutcome
}

func (o *messageOutcomes) synced(i int) {
	o.list[i] = ports.MessageVectorOutcome{Seq: o.claimed[i].Message.Seq, Status: memory.VectorSynced, SyncedAt: o.now}
}

func (o *messageOutcomes) failAll(idx []int, reason string) {
	for _, i := range idx {
		attempts := o.claimed[i].Attempts + 1
		o.list[i] = ports.MessageVectorOutcome{
			Seq: o.claimed[i].Message.Seq, Status: memory.VectorFailed, Error: clip.Runes(reason, maxErrorLen),
			Attempts: attempts, NextAttempt: o.now.Add(o.retry.Delay(attempts)),
		}
	}
}

// mixing is how message vectors are built: the embedder's model and dimension,
// and how many neighbours on each side mix in, at what weight.
type mixing struct {
	model  string
	dim    int
	window int
	weight float64
}

func (ix *Indexer) mixing() mixing {
	return mixing{model: ix.embedder.Model(), dim: ix.embedder.Dimension(), window: ix.opts.NeighbourWindow, weight: ix.opts.NeighbourWeight}
}

// syncConversation rebuilds and upserts the vectors of one conversation's claimed
// messages (group: their indexes, in order) and of their neighbours, and records
// the claimed messages' outcomes.
func (ix *Indexer) syncConversation(ctx context.Context, group []int, own [][]float32, mix mixing, out *messageOutcomes, rep *Report) {
	claimed := out.claimed
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
		out.failAll(pending, reason)
		rep.fail(stage, len(pending))
	}
	first, last := claimed[group[0]].Message, claimed[group[len(group)-1]].Message
	window, err := ix.store.MessageWindow(ctx, first, last, 2*mix.window)
	if err != nil {
		fail("store", "read neighbours: "+err.Error())
		return
	}
	records, missing := planConversation(claimed, group, pending, own, window, mix)
	if missing != "" {
		fail("store", fmt.Sprintf("read neighbours: message %s is missing from its conversation", missing))
		return
	}
	if err := ix.call(ctx, func(ctx context.Context) error { return ix.index.Upsert(ctx, records) }); err != nil {
		fail("upsert", "upsert vector: "+err.Error())
		return
	}
	rep.Upserted += len(records)
	for _, i := range pending {
		out.synced(i)
	}
}

// neighbourhood is one conversation around its claimed messages as the index
// sees it: its indexed messages in order, the embedding of each that can be
// mixed (nil: none), and which of them are claimed.
type neighbourhood struct {
	seq     []ports.MessageVector
	vectors [][]float32
	claimed []bool
}

// planConversation decides the vectors to upsert for one conversation from the
// window the store read around its claimed messages (group; pending: those that
// wait for an outcome): the claimed ones and the neighbours of any claimed one
// whose embedding is known, when those neighbours are themselves indexed and
// synced. missing names a pending message the window lacks (then nothing is
// written).
func planConversation(claimed []ports.MessageVector, group, pending []int, own [][]float32, window []ports.MessageVector,
	mix mixing,
) (records []ports.VectorRecord, missing string) {
	n := around(claimed, group, own, window, mix)
	seen := make(map[string]bool, len(n.seq))
	for _, mv := range n.seq {
		seen[mv.Message.Seq] = true
	}
	for _, i := range pending {
		if !seen[claimed[i].Message.Seq] {
			return nil, claimed[i].Message.Seq
		}
	}
	write := n.toWrite(mix.window)
	mixed := ranking.ContextVectors(withZeros(n.vectors, mix.dim), mix.window, mix.weight)
	for p, ok := range write {
		if !ok {
			continue
		}
		m := n.seq[p].Message
		records = append(records, ports.VectorRecord{
			ID: m.Seq, Tenant: m.Scope.Tenant, User: m.Scope.User, Kind: memory.KindMessage,
			ConversationID: m.ConversationID, At: m.CreatedAt, Vector: mixed[p],
		})
	}
	return records, ""
}

// around reads the window: a claimed message brings its own embedding, any
// other the stored one when it is of this model and has something in it.
func around(claimed []ports.MessageVector, group []int, own [][]float32, window []ports.MessageVector, mix mixing) neighbourhood {
	claimedAt := make(map[string]int, len(group)) // seq → index in claimed
	for _, i := range group {
		claimedAt[claimed[i].Message.Seq] = i
	}
	var n neighbourhood
	for _, mv := range window {
		if !indexedMessage(mv.Message) {
			continue
		}
		v := []float32(nil)
		i, ok := claimedAt[mv.Message.Seq]
		if ok {
			v = own[i]
		} else if mv.Model == mix.model && len(mv.Embedding) == mix.dim && !isZero(mv.Embedding) {
			v = mv.Embedding
		}
		n.seq = append(n.seq, mv)
		n.vectors = append(n.vectors, v)
		n.claimed = append(n.claimed, ok)
	}
	return n
}

// toWrite marks the vectors to write: within w of a claimed message with an
// embedding, every message with one that is claimed or already synced (one that
// waits for its own sync is rebuilt by it).
func (n neighbourhood) toWrite(w int) []bool {
	write := make([]bool, len(n.seq))
	for p := range n.seq {
		if !n.claimed[p] || n.vectors[p] == nil {
			continue
		}
		for q := max(0, p-w); q <= min(len(n.seq)-1, p+w); q++ {
			if n.vectors[q] != nil && (n.claimed[q] || n.seq[q].Status == memory.VectorSynced) {
				write[q] = true
			}
		}
	}
	return write
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
