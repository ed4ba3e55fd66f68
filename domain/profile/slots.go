package profile

import (
	"slices"
	"strconv"
	"strings"

	"engram/domain/invalid"
)

// Slot is an identity slot: a profile field a user sets by saying it in a
// conversation ("Please call me Captain from now on"), routed here instead of
// becoming a long-term memory.
type Slot string

const (
	SlotNickname      Slot = "nickname"
	SlotPreferredName Slot = "preferred_name"
	SlotAIName        Slot = "ai_name"
	SlotEmoji         Slot = "emoji"
	SlotLanguage      Slot = "language"
	SlotTone          Slot = "tone"
)

// Slots lists every slot.
var Slots = []Slot{SlotNickname, SlotPreferredName, SlotAIName, SlotEmoji, SlotLanguage, SlotTone}

// ParseSlot accepts a slot name, case-insensitively.
func ParseSlot(s string) (Slot, error) {
	slot := Slot(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Slots {
		if slot == known {
			return slot, nil
		}
	}
	return "", invalid.FieldValue("slot", s, slotNames)
}

// SlotUpdate is one identity slot value and where it was said. An empty value
// clears the slot ("stop calling me Captain").
type SlotUpdate struct {
	Slot   Slot
	Value  string
	Source Source
}

// ApplySlots applies identity slot updates in order, each recorded with its own
// source; a later update of the same slot wins. It validates like Apply and names
// the failing update ("slots[1].nickname").
func (p Profile) ApplySlots(updates []SlotUpdate) (Profile, []Field, error) {
	var changed []Field
	next := p
	for i, u := range updates {
		patch, ok := u.patch()
		if !ok {
			return p, nil, invalid.FieldValue(slotsField(i, "slot"), string(u.Slot), slotNames)
		}
		applied, fields, err := next.Apply(patch, u.Source)
		if err != nil {
			return p, nil, invalid.Prefix(slotsField(i, ""), err)
		}
		next = applied
		for _, f := range fields {
			if !slices.Contains(changed, f) {
				changed = append(changed, f)
			}
		}
	}
	if len(changed) > 0 {
		next.s.Version = p.s.Version + 1 // one stored change, however many slots
	}
	return next, changed, nil
}

// Validate checks the update as ApplySlots would, without a profile: the slot is
// known and the value fits its field (length, printable, a language tag). The
// extraction's screen uses it to drop a bad value alone instead of failing the
// whole batch.
func (u SlotUpdate) Validate() error {
	patch, ok := u.patch()
	if !ok {
		return invalid.FieldValue("slot", string(u.Slot), slotNames)
	}
	for _, f := range patch.textFields(&Declared{}) {
		if f.patch.Set {
			return f.check(f.field, strings.TrimSpace(f.patch.Value))
		}
	}
	return nil
}

const slotNames = "must be one of nickname, preferred_name, ai_name, emoji, language, tone"

// patch is the declared-field patch that sets the update's slot; ok is false for
// an unknown slot.
func (u SlotUpdate) patch() (patch Patch, ok bool) {
	switch u.Slot {
	case SlotNickname:
		patch.Nickname = Value(u.Value)
	case SlotPreferredName:
		patch.PreferredName = Value(u.Value)
	case SlotAIName:
		patch.AIName = Value(u.Value)
	case SlotEmoji:
		patch.Emoji = Value(u.Value)
	case SlotLanguage:
		patch.Language = Value(u.Value)
	case SlotTone:
		patch.Tone = Value(u.Value)
	default:
		return Patch{}, false
	}
	return patch, true
}

func slotsField(i int, name string) string {
	f := "slots[" + strconv.Itoa(i) + "]"
	if name != "" {
		f += "." + name
	}
	return f
}
