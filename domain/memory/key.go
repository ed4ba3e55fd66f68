package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/domain/invalid"
)

// MaxKeyLen is the longest normalised key.
const MaxKeyLen = 160

// Key identifies a memory within one user's scope. It is always normalised, so the
// agent's "Food Preferences/Spicy" and "food-preferences-spicy" are the same memory.
type Key string

func (k Key) String() string { return string(k) }

// ParseKey normalises raw into a Key: lower case; spaces, slashes and other separators
// become '-'; only [a-z0-9_.-] remain; runs of '-' collapse; at most 160 characters;
// never empty. Noise keys are not refused here (see NoiseRuleFor), because reading an
// old noisy key back must still work.
func ParseKey(raw string) (Key, error) {
	k := normalizeKey(raw)
	if k == "" {
		return "", invalid.FieldValue("key", clip(raw, 80),
			"must contain at least one letter or digit from a-z or 0-9 after normalisation")
	}
	return Key(k), nil
}

func normalizeKey(raw string) string {
	var b strings.Builder
	b.Grow(len(raw))
	pendingDash := false
	for _, r := range strings.ToLower(raw) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '.':
			if pendingDash && b.Len() > 0 {
				b.WriteByte('-')
			}
			pendingDash = false
			b.WriteRune(r)
		case r < utf8.RuneSelf || unicode.IsSpace(r) || unicode.IsPunct(r):
			// Separators of any kind ("/", ":", spaces, "-") become one dash.
			pendingDash = true
		default:
			// Letters outside a-z (accents, CJK) cannot be represented; dropping them
			// keeps keys stable instead of inventing transliterations.
		}
	}
	k := strings.Trim(b.String(), "._")
	if len(k) > MaxKeyLen {
		k = strings.TrimRight(k[:MaxKeyLen], "-._")
	}
	return k
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
