package candidate

import "testing"

func TestParseProposedKey_readsPunctuationAsASeparator(t *testing.T) {
	t.Parallel()
	tests := []struct{ raw, want string }{
		{"allergy: peanuts", "allergy-peanuts"},
		{"System: Prompt", "system-prompt"},
		{"diet.vegetarian", "diet.vegetarian"},
		{"饮食（偏好）", "饮食-偏好"},
		{"c++ style", "c-style"},
	}
	for _, tt := range tests {
		got, err := ParseProposedKey(tt.raw)
		if err != nil || got.String() != tt.want {
			t.Errorf("ParseProposedKey(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
		}
	}
	for _, raw := range []string{"", "🍕!", "a\x00b"} {
		if k, err := ParseProposedKey(raw); err == nil {
			t.Errorf("ParseProposedKey(%q) = %q, want an error", raw, k)
		}
	}
}
