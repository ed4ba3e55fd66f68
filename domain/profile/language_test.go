package profile

import "testing"

func TestLanguageTag_readsLanguagesAsUsersNameThem(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"Chinese": "zh", " chinese ": "zh", "中文": "zh", "普通话": "zh", "繁体中文": "zh-Hant", "British English": "en-GB",
		"English": "en", "英语": "en", "Spanish": "es", "西班牙语": "es", "japanese language": "ja", "en-US": "en-US", "zh": "zh",
	}
	for name, want := range cases {
		if got, err := LanguageTag(name); err != nil || got != want {
			t.Errorf("LanguageTag(%q) = %q %v, want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"", "Klingonese", "the language of love", "火星文", "e"} {
		if got, err := LanguageTag(name); err == nil {
			t.Errorf("LanguageTag(%q) = %q, want an error", name, got)
		}
	}
}

func TestSlotUpdateValidate_checksTheValueAsApplySlotsWould(t *testing.T) {
	t.Parallel()
	cases := []struct {
		u     SlotUpdate
		field string // "" valid
	}{
		{SlotUpdate{Slot: SlotNickname, Value: "Captain"}, ""},
		{SlotUpdate{Slot: SlotNickname, Value: ""}, ""}, // a clear
		{SlotUpdate{Slot: SlotLanguage, Value: "zh-Hant"}, ""},
		{SlotUpdate{Slot: SlotLanguage, Value: "Chinese"}, "language"},
		{SlotUpdate{Slot: SlotEmoji, Value: "🐱🐱🐱🐱🐱🐱🐱🐱🐱🐱🐱🐱🐱🐱🐱🐱🐱"}, "emoji"},
		{SlotUpdate{Slot: SlotAIName, Value: "Jar\x01vis"}, "ai_name"},
		{SlotUpdate{Slot: "city", Value: "Berlin"}, "slot"},
	}
	for _, c := range cases {
		err := c.u.Validate()
		if got := fieldsOf(err); c.field == "" && err != nil || c.field != "" && (len(got) != 1 || got[0] != c.field) {
			t.Errorf("%+v: %v (fields %v), want field %q", c.u, err, got, c.field)
		}
	}
}
