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
		{"allergy: peanuts!", "allergy-peanuts"},
		{"a--b", "a-b"},
		{"a - / b", "a-b"},
		{"--lead-and-trail--", "lead-and-trail"},
		{"home_city", "home_city"},
		{"café au lait", "caf-au-lait"},
		{"饮食 preference", "preference"},
		{"ÀB", "b"},
		{"weather-date_2026-11-30", "weather-date_2026-11-30"},
		{"x" + strings.Repeat("y", 200), "x" + strings.Repeat("y", 159)},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := ParseKey(tt.raw)
			if err != nil {
				t.Fatalf("ParseKey(%q) error: %v", tt.raw, err)
			}
			if string(got) != tt.want {
				t.Errorf("ParseKey(%q) = %q, want %q", tt.raw, got, tt.want)
			}
			if len(got) > MaxKeyLen {
				t.Errorf("key longer than %d: %d", MaxKeyLen, len(got))
			}
			again, _ := ParseKey(string(got))
			if again != got {
				t.Errorf("normalisation is not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestParseKey_refusesKeysWithNothingLeft(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"", "   ", "///", "饮食偏好", "---", "._."} {
		_, err := ParseKey(raw)
		var ve *invalid.Error
		if !errors.As(err, &ve) || ve.Fields[0].Field != "key" {
			t.Errorf("ParseKey(%q) = %v, want a validation error on key", raw, err)
		}
	}
}

func TestNoiseRuleFor_matchesSeedFamilies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key   Key
		noise bool
	}{
		{"weather-date_2026-11-30", true},
		{"tool-list", true},
		{"system-prompt", true},
		{"reminder-last_umbrella", true},
		{"finance-monthly_2026-10", true},
		{"finance-weekly_w47", true},
		{"finance-daily_1130", true},
		{"finance-goal", false},
		{"weather-preference", false},
		{"toolbox", false},
		{"food.likes", false},
	}
	for _, tt := range tests {
		if got := IsNoise(tt.key); got != tt.noise {
			t.Errorf("IsNoise(%q) = %v, want %v", tt.key, got, tt.noise)
		}
	}
}
