package indexing

import (
	"slices"
	"testing"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

var planNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func claimedMemory(id, tenant, content string, active bool, held memory.VectorState) ports.ClaimedMemory {
	s := memory.State{ID: id, Scope: memory.Scope{Tenant: tenant, User: "u"}, Key: memory.MustParseKey("k." + id),
		Type: memory.TypeFact, Content: content, Active: active, Version: 2, Vector: held, UpdatedAt: planNow}
	return ports.ClaimedMemory{Memory: memory.Restore(s)}
}

func TestPlanMemorySync_removesEmbedsOrKeepsEachMemory(t *testing.T) {
	t.Parallel()
	fresh := claimedMemory("a", "t1", "likes tea", true, memory.VectorState{})
	heldHash := memory.TextHash(fresh.Memory.IndexText())
	tests := []struct {
		name      string
		claimed   []ports.ClaimedMemory
		unchanged []int
		remove    map[string][]int
		embed     []int
	}{
		{name: "never embedded", claimed: []ports.ClaimedMemory{fresh}, embed: []int{0}},
		{name: "the index holds this text of this model",
			claimed:   []ports.ClaimedMemory{claimedMemory("a", "t1", "likes tea", true, memory.VectorState{TextHash: heldHash, Model: "m1"})},
			unchanged: []int{0}},
		{name: "another model: embedded again",
			claimed: []ports.ClaimedMemory{claimedMemory("a", "t1", "likes tea", true, memory.VectorState{TextHash: heldHash, Model: "m0"})},
			embed:   []int{0}},
		{name: "inactive memories lose their vectors, by tenant",
			claimed: []ports.ClaimedMemory{claimedMemory("a", "t1", "x", false, memory.VectorState{}), fresh,
				claimedMemory("b", "t2", "y", false, memory.VectorState{}), claimedMemory("c", "t1", "z", false, memory.VectorState{})},
			remove: map[string][]int{"t1": {0, 3}, "t2": {2}}, embed: []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := planMemorySync(tt.claimed, "m1", planNow)
			if !slices.Equal(plan.unchanged, tt.unchanged) || !slices.Equal(plan.embed, tt.embed) || len(plan.remove) != len(tt.remove) {
				t.Fatalf("plan %+v, want unchanged %v embed %v remove %v", plan, tt.unchanged, tt.embed, tt.remove)
			}
			for tenant, idx := range tt.remove {
				if !slices.Equal(plan.remove[tenant], idx) {
					t.Errorf("remove[%s] = %v, want %v", tenant, plan.remove[tenant], idx)
				}
			}
			for k, i := range plan.embed {
				if plan.texts[k] != tt.claimed[i].Memory.IndexText() || plan.hashes[i] != memory.TextHash(plan.texts[k]) {
					t.Errorf("embed %d: text %q hash %q", i, plan.texts[k], plan.hashes[i])
				}
			}
		})
	}
}

func TestMemoryRecords_blankVectorsGetNoRecord(t *testing.T) {
	t.Parallel()
	claimed := []ports.ClaimedMemory{claimedMemory("a", "t1", "x", true, memory.VectorState{}),
		claimedMemory("b", "t2", "y", true, memory.VectorState{}), claimedMemory("c", "t1", "z", true, memory.VectorState{})}
	records, owners, blank := memoryRecords(claimed, []int{0, 1, 2}, [][]float32{{1, 0}, {0, 0}, {0, 1}})
	if len(records) != 2 || records[0].ID != "a" || records[1].ID != "c" || records[1].Kind != memory.KindMemory ||
		!slices.Equal(owners, []int{0, 2}) || len(blank) != 1 || !slices.Equal(blank["t2"], []int{1}) {
		t.Fatalf("records %+v owners %v blank %v", records, owners, blank)
	}
}

func claimedMessage(seq, conv string, role conversation.Role, embedding []float32, status memory.VectorStatus) ports.MessageVector {
	m := conversation.Message{Seq: seq, Scope: memory.Scope{Tenant: "t1", User: "u"}, ConversationID: conv, Role: role,
		Content: "message " + seq, CreatedAt: planNow}
	mv := ports.MessageVector{Message: m, Status: status, Embedding: embedding}
	if embedding != nil {
		mv.Model, mv.TextHash = "m1", memory.TextHash(m.IndexText())
	}
	return mv
}

func TestPlanMessageSync_embedsOnlyWhatItMustAndKeepsBlankEmbeddings(t *testing.T) {
	t.Parallel()
	claimed := []ports.MessageVector{
		claimedMessage("1", "c", conversation.RoleSystem, nil, memory.VectorDirty),           // not indexed
		claimedMessage("2", "c", conversation.RoleUser, []float32{1, 0}, memory.VectorDirty), // same text and model
		claimedMessage("3", "c", conversation.RoleUser, []float32{0, 0}, memory.VectorDirty), // same, but blank
		claimedMessage("4", "c", conversation.RoleAssistant, nil, memory.VectorDirty),        // to embed
		claimedMessage("5", "c", conversation.RoleUser, nil, memory.VectorDirty),             // to embed, comes back blank
	}
	stale := claimedMessage("6", "c", conversation.RoleUser, []float32{1, 0, 0}, memory.VectorDirty) // another dimension
	claimed = append(claimed, stale)
	plan := planMessageSync(claimed, "m1", 2)
	if !slices.Equal(plan.done, []int{0, 2}) || plan.unchanged != 2 || !slices.Equal(plan.embed, []int{3, 4, 5}) ||
		plan.own[1] == nil || plan.own[2] != nil {
		t.Fatalf("plan %+v", plan)
	}
	done := plan.took([][]float32{{0, 1}, {0, 0}, {1, 1}})
	if !slices.Equal(done, []int{4}) || plan.own[3] == nil || plan.own[4] != nil || plan.own[5] == nil {
		t.Fatalf("after embedding: done %v, own %v", done, plan.own)
	}
	outcomes := make([]ports.MessageVectorOutcome, len(claimed))
	plan.keepEmbeddings(outcomes, "m1")
	for i, o := range outcomes {
		if kept := o.Embedding != nil || o.Model != ""; kept != plan.embedded[i] {
			t.Errorf("message %d: embedding kept %v, embedded now %v", i, kept, plan.embedded[i])
		}
	}
	if outcomes[4].Embedding == nil || outcomes[4].TextHash != plan.hashes[4] {
		t.Errorf("a blank embedding is not kept for a reindex: %+v", outcomes[4])
	}
}

func TestPlanConversation_writesTheClaimedAndTheirSyncedNeighbours(t *testing.T) {
	t.Parallel()
	mix := mixing{model: "m1", dim: 2, window: 1, weight: 0.5}
	window := []ports.MessageVector{
		claimedMessage("1", "c", conversation.RoleUser, []float32{1, 0}, memory.VectorSynced), // neighbour of 2: rebuilt
		claimedMessage("2", "c", conversation.RoleUser, nil, memory.VectorDirty),              // claimed
		claimedMessage("s", "c", conversation.RoleSystem, nil, memory.VectorSynced),           // not indexed: not a neighbour
		claimedMessage("3", "c", conversation.RoleUser, []float32{0, 1}, memory.VectorDirty),  // waits for its own sync
		claimedMessage("4", "c", conversation.RoleUser, []float32{1, 1}, memory.VectorSynced), // two away from 2
	}
	claimed := []ports.MessageVector{window[1]}
	own := [][]float32{{0, 1}}
	records, missing := planConversation(claimed, []int{0}, []int{0}, own, window, mix)
	var ids []string
	for _, r := range records {
		ids = append(ids, r.ID)
	}
	if missing != "" || !slices.Equal(ids, []string{"1", "2"}) {
		t.Fatalf("records %v, missing %q; want 1 and 2", ids, missing)
	}
	if records[1].Vector[0] == 0 {
		t.Errorf("the claimed message's vector has nothing of its neighbour: %v", records[1].Vector)
	}
	if _, missing := planConversation(claimed, []int{0}, []int{0}, own, window[2:], mix); missing != "2" {
		t.Errorf("a window without the claimed message: missing %q, want 2", missing)
	}
}
