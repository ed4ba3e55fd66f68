package candidate_test

import (
	"reflect"
	"testing"
	"time"

	"engram/domain/candidate"
	"engram/domain/memory"
	"engram/domain/profile"
)

func slotCand(key, content string, op candidate.Op, confidence float64) candidate.Candidate {
	return candidate.Candidate{Op: op, Type: candidate.TypeProfile, Key: key, Content: content, Confidence: confidence, SourceMessageID: "m1"}
}

func TestParseSlotKey_readsTheWaysAModelNamesASlot(t *testing.T) {
	t.Parallel()
	cases := map[string]profile.Slot{
		"profile.nickname": profile.SlotNickname, "nickname": profile.SlotNickname, "Profile.NickName": profile.SlotNickname,
		"profile.ai-name": profile.SlotAIName, "ai_name": profile.SlotAIName, "assistant.name": profile.SlotAIName,
		"profile.preferred_name": profile.SlotPreferredName, "emoji": profile.SlotEmoji, "user.emoji": profile.SlotEmoji,
		"profile.language": profile.SlotLanguage, "preferred_language": profile.SlotLanguage, "profile.tone": profile.SlotTone,
	}
	for key, want := range cases {
		if got, ok := candidate.ParseSlotKey(key); !ok || got != want {
			t.Errorf("ParseSlotKey(%q) = %q %v, want %q", key, got, ok, want)
		}
	}
	for _, key := range []string{"profile.city", "home.city", "name", "", "profile."} {
		if got, ok := candidate.ParseSlotKey(key); ok {
			t.Errorf("ParseSlotKey(%q) = %q, want no slot", key, got)
		}
	}
}

func TestCheck_keepsAValidSlotCandidateAndSaysWhyNotOtherwise(t *testing.T) {
	t.Parallel()
	b := candidate.DefaultBoundaries()
	cases := []struct {
		name string
		c    candidate.Candidate
		want candidate.Reason // "" kept
	}{
		{"a nickname", slotCand("profile.nickname", "Captain", candidate.OpAdd, 0.9), ""},
		{"a Chinese nickname", slotCand("profile.nickname", "小王", "", 0.9), ""},
		{"an AI name", slotCand("ai_name", "Jarvis", candidate.OpUpdate, 0.9), ""},
		{"an emoji", slotCand("profile.emoji", "🐱", candidate.OpAdd, 0.9), ""},
		{"an emoji with a joiner", slotCand("profile.emoji", "👩‍💻", candidate.OpAdd, 0.9), ""},
		{"a language by name", slotCand("profile.language", "Chinese", candidate.OpAdd, 0.9), ""},
		{"a tone", slotCand("profile.tone", "formal", candidate.OpAdd, 0.9), ""},
		{"a clear needs no value or confidence", slotCand("profile.nickname", "", candidate.OpDelete, 0.1), ""},
		{"no such slot", slotCand("profile.city", "Berlin", candidate.OpAdd, 0.9), candidate.ReasonInvalid},
		{"append to a slot", slotCand("profile.nickname", "Cap", candidate.OpAppend, 0.9), candidate.ReasonInvalid},
		{"no value", slotCand("profile.nickname", " \"\" ", candidate.OpAdd, 0.9), candidate.ReasonEmptyContent},
		{"digits as a name", slotCand("profile.nickname", "12345", candidate.OpAdd, 0.9), candidate.ReasonWrongSlotValue},
		{"a word as an emoji", slotCand("profile.emoji", "cat", candidate.OpAdd, 0.9), candidate.ReasonWrongSlotValue},
		{"an unknown language", slotCand("profile.language", "Klingonese", candidate.OpAdd, 0.9), candidate.ReasonWrongSlotValue},
		{"a name longer than the field", slotCand("profile.nickname", "The Most Honourable Grand Captain Of All The Seven Seas And Beyond", candidate.OpAdd, 0.9), candidate.ReasonWrongSlotValue},
		{"a statement instead of a value", slotCand("profile.nickname", "User wants to be called Captain", candidate.OpAdd, 0.9), candidate.ReasonWrongSlotValue},
		{"a Chinese statement instead of a value", slotCand("profile.nickname", "用户希望被叫小王", candidate.OpAdd, 0.9), candidate.ReasonWrongSlotValue},
		{"a guess", slotCand("profile.nickname", "Captain", candidate.OpAdd, 0.5), candidate.ReasonLowConfidence},
	}
	for _, c := range cases {
		s := b.Check(c.c)
		if s.Kept != (c.want == "") || s.Reason != c.want {
			t.Errorf("%s: %+v, want reason %q", c.name, s, c.want)
		}
	}
	// The same key as a memory candidate is still no memory.
	legacy := candidate.Candidate{Op: candidate.OpAdd, Type: memory.TypePreference, Key: "nickname", Content: "User wants to be called Captain.", Confidence: 0.9}
	if s := b.Check(legacy); s.Kept || s.Reason != candidate.ReasonProfileSlot {
		t.Errorf("a memory candidate keyed nickname: %+v, want profile_slot", s)
	}
}

func TestRoute_sendsSlotsToTheProfileAndMemoriesOn(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	source := func(c candidate.Candidate) profile.Source {
		return profile.Source{Channel: profile.ChannelExtraction, ConversationID: "c1", MessageID: c.SourceMessageID, At: at}
	}
	memoryCand := cand(memory.TypeFact, "home.city", "User lives in Berlin.")
	kept := []candidate.Candidate{
		slotCand("profile.nickname", "\"Captain\".", candidate.OpAdd, 0.9),
		memoryCand,
		slotCand("profile.language", "中文", candidate.OpAdd, 0.9),
		slotCand("profile.nickname", "", candidate.OpDelete, 0.9),
		slotCand("profile.city", "Berlin", candidate.OpAdd, 0.9),
	}
	src := source(kept[0])
	cases := []struct {
		name      string
		toProfile bool
		want      candidate.Routing
	}{
		{"with a profile", true, candidate.Routing{
			Memories: []candidate.Candidate{memoryCand},
			Slots: []profile.SlotUpdate{
				{Slot: profile.SlotNickname, Value: "Captain", Source: src},
				{Slot: profile.SlotLanguage, Value: "zh", Source: src},
				{Slot: profile.SlotNickname, Value: "", Source: src},
			},
			Dropped: []candidate.Reason{candidate.ReasonInvalid},
		}},
		{"without one", false, candidate.Routing{
			Memories: []candidate.Candidate{memoryCand},
			Dropped:  []candidate.Reason{candidate.ReasonProfileSlot, candidate.ReasonProfileSlot, candidate.ReasonProfileSlot, candidate.ReasonProfileSlot},
		}},
	}
	for _, c := range cases {
		if got := candidate.Route(kept, c.toProfile, source); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestPlanWrites_neverWritesASlot(t *testing.T) {
	t.Parallel()
	p := candidate.UpsertPolicy{MaxWrites: 6}
	plan := p.PlanWrites([]candidate.Decision{{Candidate: slotCand("profile.nickname", "Captain", candidate.OpAdd, 0.9), Verdict: candidate.VerdictKeep}},
		candidate.Neighbourhood{}, time.Now())
	if len(plan.Writes) != 0 || !reflect.DeepEqual(plan.Dropped, []string{string(candidate.ReasonProfileSlot)}) {
		t.Errorf("plan %+v", plan)
	}
}
