package candidate

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/profile"
)

// Identity slots: "profile 类型用于用户档案字段，不进入长期记忆表" — what the
// user wants to be called, the name they give the assistant, their emoji, and the
// language and tone they want, are fields of the profile, never long-term memories.
// An extractor proposes one as a candidate of TypeProfile: its key names the slot
// ("profile.nickname") and its content is the value as the user said it
// ("Captain", "中文"); op DELETE with no content clears the slot ("stop calling me
// Captain"). Such a candidate is screened like any other (instruction-like text,
// grounding in what the user said, confidence), then Route turns it into a
// profile.SlotUpdate. It cannot become a memory: memory.ParseType refuses
// TypeProfile, and the write plan drops it (PlanWrites).
//
// The routing lives here, not in domain/profile, because this package decides what
// each proposal of an extractor becomes — a memory write, a drop with a reason, or
// a profile update — while the profile owns its slots and their rules
// (profile.SlotUpdate.Validate, profile.LanguageTag) and knows nothing of
// extraction.

// TypeProfile is the type of an identity-slot candidate ("profile"). It
// is a candidate's type only: no memory has it.
const TypeProfile memory.Type = "profile"

// ReasonRoutedToProfile marks a message part that set the profile instead of
// becoming a long-term memory (a PROCESSED message's skip_reason).
const ReasonRoutedToProfile Reason = conversation.SkipRoutedToProfile

// slotKeyPrefix opens the key of every slot candidate.
const slotKeyPrefix = "profile."

// SlotKey is the key of the candidate for slot: "profile.nickname".
func SlotKey(slot profile.Slot) string { return slotKeyPrefix + string(slot) }

// NewSlotCandidate is the candidate that sets slot to value as the user said it,
// or clears the slot when value is empty.
func NewSlotCandidate(slot profile.Slot, value string, confidence float64, messageID string) Candidate {
	op := OpAdd
	if value == "" {
		op = OpDelete
	}
	return Candidate{Op: op, Type: TypeProfile, Key: SlotKey(slot), Content: value, Importance: memory.DefaultImportance,
		Confidence: confidence, SourceMessageID: messageID}
}

// IsSlot reports whether the candidate is for an identity slot, not a memory.
func (c Candidate) IsSlot() bool { return c.Type == TypeProfile }

// ParseSlotKey reads the slot a slot candidate's key names, leniently, since a
// model writes it in many ways: "profile.nickname", "nickname", "profile.ai-name",
// "assistant_name".
func ParseSlotKey(key string) (profile.Slot, bool) {
	k := strings.ToLower(strings.TrimSpace(key))
	for _, prefix := range []string{"user_profile.", "profile.", "profile_", "user."} {
		k = strings.TrimPrefix(k, prefix)
	}
	k = strings.NewReplacer("-", "_", " ", "_", ".", "_").Replace(k)
	if alias, ok := slotAliases[k]; ok {
		return alias, true
	}
	slot, err := profile.ParseSlot(k)
	return slot, err == nil
}

var slotAliases = map[string]profile.Slot{
	"nick": profile.SlotNickname, "nick_name": profile.SlotNickname, "user_nickname": profile.SlotNickname,
	"name_to_call":   profile.SlotNickname,
	"preferred_name": profile.SlotPreferredName, "preferred_address": profile.SlotPreferredName,
	"assistant_name": profile.SlotAIName, "bot_name": profile.SlotAIName, "ai_nickname": profile.SlotAIName,
	"assistant_nickname": profile.SlotAIName, "ainame": profile.SlotAIName,
	"user_emoji": profile.SlotEmoji, "emoji_preference": profile.SlotEmoji,
	"preferred_language": profile.SlotLanguage, "reply_language": profile.SlotLanguage,
	"preferred_tone": profile.SlotTone, "reply_tone": profile.SlotTone,
}

// checkSlot is Check for a slot candidate: the key names a slot, the value is one
// the slot can hold, and a value set (not a clear) is sure enough.
func (b Boundaries) checkSlot(c Candidate) Screening {
	if _, s := slotUpdate(c); !s.Kept {
		return s
	}
	if c.Op != OpDelete && (c.Confidence < b.MinConfidence || c.Confidence != c.Confidence) {
		return drop(ReasonLowConfidence, "confidence "+ftoa(c.Confidence)+" < "+ftoa(b.MinConfidence))
	}
	return keep()
}

// slotUpdate turns a slot candidate into the profile's update, without a source.
func slotUpdate(c Candidate) (profile.SlotUpdate, Screening) {
	slot, ok := ParseSlotKey(c.Key)
	if !ok {
		return profile.SlotUpdate{}, drop(ReasonInvalid, "key "+quote(c.Key)+" names no identity slot (nickname, preferred_name, ai_name, emoji, language, tone)")
	}
	switch c.Op {
	case OpDelete:
		return profile.SlotUpdate{Slot: slot}, keep()
	case "", OpAdd, OpUpdate:
	default:
		return profile.SlotUpdate{}, drop(ReasonInvalid, "op "+quote(string(c.Op))+" on an identity slot: set it (ADD) or clear it (DELETE)")
	}
	if !utf8.ValidString(c.Content) {
		return profile.SlotUpdate{}, drop(ReasonInvalid, "content is not valid UTF-8")
	}
	value := trimSlotValue(c.Content)
	if value == "" {
		return profile.SlotUpdate{}, drop(ReasonEmptyContent, "no value for the slot "+quote(string(slot)))
	}
	value, detail := slotValueFor(slot, value)
	if detail != "" {
		return profile.SlotUpdate{}, drop(ReasonWrongSlotValue, detail)
	}
	u := profile.SlotUpdate{Slot: slot, Value: value}
	if err := u.Validate(); err != nil {
		return profile.SlotUpdate{}, drop(ReasonWrongSlotValue, err.Error())
	}
	return u, keep()
}

// slotValueFor is the value as the slot keeps it, or what is wrong with it: a
// language by its tag, an emoji only if it is one, a name never digits alone.
func slotValueFor(slot profile.Slot, value string) (string, string) {
	switch slot {
	case profile.SlotLanguage:
		tag, err := profile.LanguageTag(value)
		if err != nil {
			return "", quote(value) + " is not a language engram knows"
		}
		return tag, ""
	case profile.SlotEmoji:
		if !isEmoji(value) {
			return "", quote(value) + " is not an emoji"
		}
	case profile.SlotNickname, profile.SlotPreferredName, profile.SlotAIName:
		if onlyDigits(value) {
			return "", quote(value) + " cannot be a name"
		}
	}
	if slot != profile.SlotEmoji && readsAsStatement(value) {
		return "", quote(value) + " reads as a statement about the user, not as the slot's value"
	}
	return value, ""
}

// readsAsStatement tells a sentence an extractor wrote ("User wants to be called
// Captain", "用户希望被叫小王") from a value ("Captain", "小王"): a slot holds a few
// words at most.
func readsAsStatement(v string) bool {
	if strings.Contains(v, "用户") {
		return true
	}
	words := strings.Fields(lowerASCII(v))
	for _, w := range words {
		if w == "user" || w == "user's" || w == "users" {
			return true
		}
	}
	return len(words) > 4 || hasCJK(v) && utf8.RuneCountInString(v) > 12
}

// trimSlotValue drops spaces, quotes and closing punctuation around a value
// ("\"Captain\".", "「小王」").
func trimSlotValue(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'`“”‘’「」『』《》()（）[]【】.,!?;:。，！？；：~～、", r)
	})
}

// isEmoji reports whether s is made of emoji: pictographs and symbols, with the
// joiners and modifiers that combine them, and no letters or digits.
func isEmoji(s string) bool {
	symbol := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || r >= 0x1F000 && r <= 0x1FAFF:
			symbol = true
		case r == 0x200D || r == 0xFE0F || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.IsSpace(r):
		default:
			return false
		}
	}
	return symbol
}

// Routing is where the screened candidates of a run go: memory candidates on to
// refinement and the upsert, slot candidates to the profile.
type Routing struct {
	Memories []Candidate
	Slots    []profile.SlotUpdate // in the order proposed; a later update of a slot wins
	Dropped  []Reason             // slot candidates that go nowhere, one reason each
}

// Route splits screened candidates into memory candidates and profile updates,
// each update with the source source gives it. With toProfile false (no profile to
// write to) a slot candidate is dropped as ReasonProfileSlot: nothing of a slot is
// ever a memory, whether or not it reaches the profile.
func Route(kept []Candidate, toProfile bool, source func(Candidate) profile.Source) Routing {
	var r Routing
	for _, c := range kept {
		if !c.IsSlot() {
			r.Memories = append(r.Memories, c)
			continue
		}
		if !toProfile {
			r.Dropped = append(r.Dropped, ReasonProfileSlot)
			continue
		}
		u, s := slotUpdate(c)
		if !s.Kept {
			r.Dropped = append(r.Dropped, s.Reason)
			continue
		}
		u.Source = source(c)
		r.Slots = append(r.Slots, u)
	}
	return r
}
