package candidate_test

import (
	"testing"

	"engram/domain/candidate"
	"engram/domain/memory"
)

func TestCalibrateImportance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		typ  memory.Type
		key  string
		imp  int
		want int
	}{
		{"an allergy is always 5", memory.TypeFact, "allergy.peanuts", 3, 5},
		{"a health condition at least 4", memory.TypeFact, "health.diabetes", 3, 4},
		{"a health condition may be 5", memory.TypeFact, "health.diabetes", 5, 5},
		{"a diet at least 4", memory.TypeFact, "diet", 2, 4},
		{"food the user avoids at least 4", memory.TypeConstraint, "food.avoids.pork", 0, 4},
		{"the reply language at least 4", memory.TypeConstraint, "reply.language", 3, 4},
		{"a reply taste stated as a preference at least 4", memory.TypePreference, "reply.length", 3, 4},
		{"any constraint at least 4", memory.TypeConstraint, "note.umbrella", 2, 4},
		{"a like at most 3", memory.TypePreference, "music.likes.jazz", 5, 3},
		{"a dislike at most 3", memory.TypePreference, "food.dislikes.cilantro", 4, 3},
		{"a favourite at most 3", memory.TypePreference, "favorite.color", 4, 3},
		{"a habit at most 3", memory.TypePreference, "habit.swimming", 4, 3},
		{"a name keeps what it was given", memory.TypeFact, "name", 4, 4},
		{"a missing importance is the default", memory.TypeFact, "home.city", 0, memory.DefaultImportance},
		{"a key named like a family is not in it", memory.TypeFact, "allergyfree.note", 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := candidate.Candidate{Op: candidate.OpAdd, Type: tt.typ, Key: tt.key, Content: "x", Importance: tt.imp}
			if got := candidate.CalibrateImportance(c).Importance; got != tt.want {
				t.Errorf("importance %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCalibrateImportance_leavesSlotsAndDeletionsAlone(t *testing.T) {
	t.Parallel()
	del := candidate.Candidate{Op: candidate.OpDelete, Type: memory.TypeFact, Key: "allergy.peanuts", Importance: 2}
	if got := candidate.CalibrateImportance(del); got.Importance != 2 {
		t.Errorf("a deletion got importance %d", got.Importance)
	}
	slot := candidate.NewSlotCandidate("nickname", "Captain", 0.9, "m1")
	if got := candidate.CalibrateImportance(slot); got.Importance != slot.Importance {
		t.Errorf("a slot got importance %d, was %d", got.Importance, slot.Importance)
	}
}
