package memory

import (
	"errors"
	"strings"
	"testing"

	"engram/domain/invalid"
)

func TestParseKey_normalises(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, want string
	}{
		{"food", "food"},
		{"Food Preferences", "food-preferences"},
		{"food/likes/spicy", "food-likes-spicy"},
		{"  Reply.Language  ", "reply.language"},
		{"a--b", "a-b"},
		{"a - / b", "a-b"},
		{"--lead-and-trail--", "lead-and-trail"},
		{"/food/", "food"},
		{"home_city", "home_city"},
		{"_private.", "_private."},
		{"weather-date_2026-11-30", "weather-date_2026-11-30"},
		{"café au lait", "café-au-lait"},
		{"cafe\u0301", "café"}, // a combining accent composes (NFKC)
		{"饮食偏好", "饮食偏好"},
		{"饮食 preference", "饮食-preference"},
		{"ÀB", "àb"},
		{"ＦＯＯＤ　１", "food-1"}, // full-width letters, digit and ideographic space
		{"Straße", "straße"},
		{"ΣΟΦΊΑ", "σοφία"},
		{"हिन्दी भाषा", "हिन्दी-भाषा"}, // vowel signs and virama are marks, kept
		{"x²", "x2"},
		{"ﬁle", "file"}, // the ligature decomposes
		{"tab\there\nnewline", "tab-here-newline"},
		{strings.Repeat("长", MaxKeyLen), strings.Repeat("长", MaxKeyLen)},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			t.Parallel()
			got, err := ParseKey(tt.raw)
			if err != nil {
				t.Fatalf("ParseKey(%q) error: %v", tt.raw, err)
			}
			if got.String() != tt.want {
				t.Errorf("ParseKey(%q) = %q, want %q", tt.raw, got, tt.want)
			}
			if again, err := ParseKey(got.String()); err != nil || again != got {
				t.Errorf("normalisation is not idempotent: %q -> %q (%v)", got, again, err)
			}
		})
	}
}

func TestParseKey_keepsDistinctKeysApart(t *testing.T) {
	t.Parallel()
	// Each pair collided under the ASCII-only rule of steps 1-3.
	pairs := [][2]string{
		{"饮食a", "睡眠a"},
		{"café", "caf"},
		{"naïve", "nave"},
		{"food.likes", "food-likes"},
		{"food_likes", "food-likes"},
		{strings.Repeat("k", MaxKeyLen-1) + "a", strings.Repeat("k", MaxKeyLen-1) + "b"},
		{"straße", "strasse"},
	}
	for _, p := range pairs {
		a, errA := ParseKey(p[0])
		b, errB := ParseKey(p[1])
		if errA != nil || errB != nil {
			t.Errorf("ParseKey(%q), ParseKey(%q): %v, %v", p[0], p[1], errA, errB)
			continue
		}
		if a == b {
			t.Errorf("%q and %q both became %q", p[0], p[1], a)
		}
	}
}

func TestParseKey_refusesWhatItCannotKeep(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, says string
	}{
		{"", "at least one letter or digit"},
		{"   ", "at least one letter or digit"},
		{"///", "at least one letter or digit"},
		{"---", "at least one letter or digit"},
		{"._.", "at least one letter or digit"},
		{"allergy: peanuts!", `':' (U+003A)`},
		{"c++", `'+' (U+002B)`},
		{"c#", `'#' (U+0023)`},
		{"🍕", "U+1F355"},
		{"a\x00b", "U+0000"},
		{"zero\u200bwidth", "U+200B"},
		{"bad\xffbyte", "valid UTF-8"},
		{strings.Repeat("x", MaxKeyLen+1), "161 characters after normalisation"},
		{strings.Repeat("长", MaxKeyLen+1), "never truncated"},
		{strings.Repeat("ab ", 60), "179 characters"}, // separators count once normalised
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			t.Parallel()
			k, err := ParseKey(tt.raw)
			var ve *invalid.Error
			if !errors.As(err, &ve) || ve.Fields[0].Field != "key" {
				t.Fatalf("ParseKey(%q) = %q, %v; want a validation error on key", tt.raw, k, err)
			}
			if !strings.Contains(ve.Fields[0].Problem, tt.says) {
				t.Errorf("ParseKey(%q) says %q, want it to mention %q", tt.raw, ve.Fields[0].Problem, tt.says)
			}
			if !k.IsZero() {
				t.Errorf("a refused key is %q, want the zero Key", k)
			}
		})
	}
}

func TestKey_zeroRestoreAndMustParse(t *testing.T) {
	t.Parallel()
	if !(Key{}).IsZero() || MustParseKey("a").IsZero() {
		t.Error("IsZero is wrong")
	}
	if RestoreKey("-legacy").String() != "-legacy" {
		t.Error("RestoreKey changed a stored key")
	}
	if MustParseKey("A b").Compare(MustParseKey("a-c")) >= 0 {
		t.Error("Compare does not order by text")
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParseKey accepted a key ParseKey refuses")
		}
	}()
	MustParseKey("c++")
}

func TestNoiseRuleFor_matchesSeedFamilies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key   string
		noise bool
	}{
		{"weather-date_2026-11-30", true},
		{"tool-list", true},
		{"system-prompt", true},
		{"reminder-last_umbrella", true},
		{"finance-monthly_2026-10", true},
		{"finance-weekly_w47", true},
		{"finance-daily_1130", true},
		{"Weather Date_2026", true}, // the rules see the normalised key
		{"finance-goal", false},
		{"weather-preference", false},
		{"toolbox", false},
		{"food.likes", false},
	}
	for _, tt := range tests {
		if got := IsNoise(MustParseKey(tt.key)); got != tt.noise {
			t.Errorf("IsNoise(%q) = %v, want %v", tt.key, got, tt.noise)
		}
	}
}

func BenchmarkParseKey(b *testing.B) {
	for _, raw := range []string{"food.likes.sichuan_food", "Food Preferences / Spicy", "饮食偏好 川菜", strings.Repeat("长", MaxKeyLen)} {
		b.Run(raw[:min(len(raw), 24)], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseKey(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
