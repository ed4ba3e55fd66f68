package memory_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/quick"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"engram/domain/invalid"
	"engram/domain/memory"
)

// The documented rule (memory.KeyRule), stated independently of ParseKey's loop:
// two raw keys are one key exactly when their NFKC-lower-cased forms split into the
// same words, where a word is a run of anything but spaces, '/' and '-'. A form
// that is not valid UTF-8, holds a character other than a letter, mark, digit, '_'
// or '.', has no letter or digit, or is longer than 160 characters once the words
// are joined by '-', is refused.
func ruleKey(raw string) (string, bool) {
	if !utf8.ValidString(raw) {
		return "", false
	}
	folded := norm.NFKC.String(strings.ToLower(norm.NFKC.String(raw)))
	words := strings.FieldsFunc(folded, func(r rune) bool { return r == '-' || r == '/' || unicode.IsSpace(r) })
	key := strings.Join(words, "-")
	word := false
	for _, r := range key {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			word = true
		case unicode.IsMark(r) || r == '_' || r == '.' || r == '-':
		default:
			return "", false
		}
	}
	if !word || utf8.RuneCountInString(key) > memory.MaxKeyLen {
		return "", false
	}
	return key, true
}

// checkAgainstRule fails t unless ParseKey agrees with the rule on raw, refuses with
// a problem on "key", and is idempotent on what it accepts.
func checkAgainstRule(t *testing.T, raw string) {
	t.Helper()
	want, ok := ruleKey(raw)
	got, err := memory.ParseKey(raw)
	if !ok {
		var ve *invalid.Error
		if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != "key" {
			t.Fatalf("ParseKey(%q) = %q, %v; the rule refuses it, so want a validation error on key", raw, got, err)
		}
		return
	}
	if err != nil || got.String() != want {
		t.Fatalf("ParseKey(%q) = %q, %v; the rule says %q", raw, got, err, want)
	}
	if again, err := memory.ParseKey(got.String()); err != nil || again != got {
		t.Fatalf("ParseKey is not idempotent on %q: %q, %v", got, again, err)
	}
}

// keyAlphabet mixes what the rule folds together (case, compatibility forms,
// separator spellings) with what it keeps apart, so that short random strings over
// it collide often.
var keyAlphabet = []rune("aAbB1１ａＡ-/ \t\u3000\u00a0／._éÉe\u0301饮食睡Σσς:+🍕\x00")

func randomKey(r *rand.Rand, maxLen int) string {
	n := r.IntN(maxLen + 1)
	var b strings.Builder
	for range n {
		b.WriteRune(keyAlphabet[r.IntN(len(keyAlphabet))])
	}
	return b.String()
}

func TestParseKey_followsTheDocumentedRule(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		checkAgainstRule(t, randomKey(r, 12))
	}
	if err := quick.Check(func(raw string) bool {
		checkAgainstRule(t, raw)
		return true
	}, &quick.Config{MaxCount: 5000}); err != nil {
		t.Fatal(err)
	}
}

// Two raw keys become one memory only when the rule says they are the same key:
// over many random pairs (from an alphabet that makes collisions common), equal
// keys mean equal rule forms and different rule forms mean different keys.
func TestParseKey_collidesOnlyUnderTheRule(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 5))
	byKey := map[memory.Key]string{} // key -> the rule form of the first raw key that made it
	collisions := 0
	for range 50000 {
		raw := randomKey(r, 6)
		k, err := memory.ParseKey(raw)
		if err != nil {
			continue
		}
		form, _ := ruleKey(raw)
		if prev, seen := byKey[k]; seen {
			collisions++
			if prev != form {
				t.Fatalf("%q became %q, the key of rule form %q, but its own rule form is %q", raw, k, prev, form)
			}
			continue
		}
		byKey[k] = form
	}
	if collisions == 0 {
		t.Fatal("no two random keys collided: the generator does not exercise the rule")
	}
}

// Spellings the rule declares equal are one key; every edit that changes a word
// (a letter, a digit, a '_' or '.', a mark) makes another key or is refused.
func TestParseKey_equalSpellingsAndDistinctEdits(t *testing.T) {
	t.Parallel()
	words := []string{"diet", "饮食", "睡眠", "café", "v1.2", "home_city", "москва", "σοφία", "हिन्दी", "東京2026"}
	separators := []string{"-", "/", " ", "  ", " / ", "\t", "\u3000", "\u00a0", "／", "--", "- -"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		parts := make([]string, 1+r.IntN(4))
		for i := range parts {
			parts[i] = words[r.IntN(len(words))]
		}
		base := memory.MustParseKey(strings.Join(parts, "-"))

		// Equal under the rule: other separators, upper case, full-width ASCII, ends.
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteString(separators[r.IntN(len(separators))])
		}
		for i, p := range parts {
			if i > 0 {
				b.WriteString(separators[r.IntN(len(separators))])
			}
			b.WriteString(respell(r, p))
		}
		if r.IntN(2) == 0 {
			b.WriteString(separators[r.IntN(len(separators))])
		}
		if got, err := memory.ParseKey(b.String()); err != nil || got != base {
			t.Fatalf("ParseKey(%q) = %q, %v; the rule makes it %q", b.String(), got, err, base)
		}

		// Different under the rule: one rune of the key replaced, inserted or removed.
		edited := editKey(r, base.String())
		if got, err := memory.ParseKey(edited); err == nil && got == base {
			t.Fatalf("the edit %q of %q became the same key", edited, base)
		}
	}
}

// respell changes case and width without changing the word under the rule.
func respell(r *rand.Rand, word string) string {
	var b strings.Builder
	for _, c := range word {
		switch {
		case c >= 'a' && c <= 'z' && r.IntN(3) == 0:
			b.WriteRune(c - 'a' + 'Ａ') // full-width capital
		case unicode.ToLower(unicode.ToUpper(c)) == c && r.IntN(2) == 0:
			b.WriteRune(unicode.ToUpper(c))
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// editKey replaces, inserts or removes one non-separator rune of key.
func editKey(r *rand.Rand, key string) string {
	runes := []rune(key)
	others := []rune("xy9_.é长Жß")
	i := r.IntN(len(runes))
	for runes[i] == '-' {
		i = r.IntN(len(runes))
	}
	switch r.IntN(3) {
	case 0:
		repl := others[r.IntN(len(others))]
		if repl == runes[i] {
			repl = 'q'
		}
		runes[i] = repl
	case 1:
		runes = append(runes[:i], append([]rune{others[r.IntN(len(others))]}, runes[i:]...)...)
	default:
		runes = append(runes[:i], runes[i+1:]...)
	}
	return string(runes)
}

// FuzzParseKey: whatever the input, ParseKey agrees with the documented rule, its
// keys are valid UTF-8 of at most 160 characters made of letters, marks, digits,
// '_', '.' and single inner '-', and parsing a key again gives the same key.
func FuzzParseKey(f *testing.F) {
	for _, seed := range []string{"food", "Food Preferences", "饮食偏好", "café", "cafe\u0301", "a--b", "allergy: peanuts!",
		"ＦＯＯＤ", "\x00", "\xff", "ﬁ", "x²", "İstanbul", "ǅ", strings.Repeat("长", 161)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		checkAgainstRule(t, raw)
		k, err := memory.ParseKey(raw)
		if err != nil {
			return
		}
		s := k.String()
		if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > memory.MaxKeyLen ||
			strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--") {
			t.Fatalf("ParseKey(%q) = %q breaks the key invariants", raw, s)
		}
	})
}
