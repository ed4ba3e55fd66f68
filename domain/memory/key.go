package memory

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"engram/domain/invalid"
)

// MaxKeyLen is the longest normalised key, in characters (runes).
const MaxKeyLen = 160

// KeyRule is the normalisation rule in words, for API documentation and for the
// problems that refuse a key.
const KeyRule = "keys are normalised losslessly: Unicode NFKC, lower case, and every run of " +
	"spaces, '/' and '-' becomes one '-' (dropped at either end); letters, marks and digits of " +
	"any script are kept, as are '_' and '.'; any other character is refused, never dropped; " +
	"the result holds at least one letter or digit and at most 160 characters, never truncated"

// Key identifies a memory within one user's scope. It is always normalised, so the
// agent's "Food Preferences/Spicy" and "food-preferences-spicy" are the same memory,
// while "饮食a" and "睡眠a" stay two. The zero Key is no key: only ParseKey (and
// RestoreKey, for keys read back from storage) make one.
type Key struct {
	value string
}

// String is the normalised key.
func (k Key) String() string { return k.value }

// Compare orders keys by their normalised text, byte by byte (as storage orders them).
func (k Key) Compare(other Key) int { return strings.Compare(k.value, other.value) }

// IsZero reports whether k is the zero Key (no key).
func (k Key) IsZero() bool { return k.value == "" }

// ParseKey normalises raw into a Key by KeyRule. Two raw keys give the same Key only
// when they differ in Unicode compatibility form, letter case, or the spelling of a
// separator run; anything the rule cannot represent is refused with an
// *invalid.Error on "key", so two different keys never silently become one memory.
// Noise keys are not refused here (see NoiseRuleFor), because reading an old noisy
// key back must still work.
func ParseKey(raw string) (Key, error) {
	if !utf8.ValidString(raw) {
		return Key{}, keyError(raw, "must be valid UTF-8")
	}
	folded := norm.NFKC.String(strings.ToLower(norm.NFKC.String(raw)))
	var b strings.Builder
	b.Grow(len(folded))
	pendingDash, hasWord, runes := false, false, 0
	for _, r := range folded {
		switch {
		case isKeySeparator(r):
			pendingDash = true
			continue
		case unicode.IsLetter(r), unicode.IsNumber(r):
			hasWord = true
		case unicode.IsMark(r), r == '_', r == '.':
		default:
			return Key{}, keyError(raw, "must not contain %s; %s", describeRune(r), KeyRule)
		}
		if pendingDash && b.Len() > 0 {
			b.WriteByte('-')
			runes++
		}
		pendingDash = false
		b.WriteRune(r)
		runes++
	}
	if !hasWord {
		return Key{}, keyError(raw, "must contain at least one letter or digit; %s", KeyRule)
	}
	if runes > MaxKeyLen {
		return Key{}, keyError(raw, "is %d characters after normalisation, more than %d; keys are never truncated, so shorten it",
			runes, MaxKeyLen)
	}
	return Key{value: b.String()}, nil
}

// MustParseKey is ParseKey for constants and tests: it panics on a key ParseKey refuses.
func MustParseKey(raw string) Key {
	k, err := ParseKey(raw)
	if err != nil {
		panic(fmt.Sprintf("memory.MustParseKey(%q): %v", raw, err))
	}
	return k
}

// RestoreKey rebuilds a key read back from storage without validating it: it was
// valid when written (older rules wrote a subset of what ParseKey accepts today),
// and refusing to read it back would lose the memory.
func RestoreKey(stored string) Key { return Key{value: stored} }

// isKeySeparator reports whether r spells a separator: any run of them is one '-'.
func isKeySeparator(r rune) bool {
	return r == '-' || r == '/' || unicode.IsSpace(r)
}

func keyError(raw, format string, args ...any) error {
	return invalid.FieldValue("key", raw, format, args...)
}

// describeRune names a refused character so that the client sees which one it was
// even when it is invisible (a control or format character).
func describeRune(r rune) string {
	if unicode.IsGraphic(r) {
		return fmt.Sprintf("%q (U+%04X)", r, r)
	}
	return fmt.Sprintf("U+%04X", r)
}
