package candidate

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"engram/domain/memory"
)

// Key scheme shared by both extractors (ASCII, stable, readable):
//
//	<area>[.<aspect>][.<object>]
//
// Segments are separated by '.', words inside a segment by '_', all lower case
// [a-z0-9_]. Fixed slots hold one value that a newer statement replaces (name, age,
// home.city, hometown, work.place, work.role, work.status, education.school,
// birthday, diet, family.marital, family.<wife|husband|partner|mother|father…>,
// reply.language, reply.length, reply.style, favorite.<thing>); open families hold
// one memory per object (allergy.<object>, health.<condition>, <domain>.likes.<object>,
// <domain>.dislikes.<object>, <domain>.prefers.<object>, food.avoids.<object>,
// pet.<animal>, family.<son|daughter|brother…>[.<name>], goal.<object>,
// learning.<object>, project.<name>, habit.<object>, rule.<object>, note.<object>). An object is a slug of the user's ASCII words
// ("peanuts", "sichuan_food"); text without ASCII words gets a stable hashed slug
// "h" + 8 hex digits of the normalised text, so Chinese values still give ASCII keys
// and the same words always give the same key.

// MaxSlugWords bounds how many words a slug keeps.
const MaxSlugWords = 4

// Slug turns a value into a key segment: its ASCII content words (stop words and
// articles dropped), lower case, joined by '_', at most MaxSlugWords words; or
// HashSlug(value) when it has none.
func Slug(value string) string {
	low := strings.ToLower(Fold(value))
	var kept, numbers []string
	for _, w := range words(low) {
		w = strings.Trim(w, "'")
		if !isASCIIWord(w) || englishStop[w] || slugStop[w] {
			continue
		}
		w = strings.ReplaceAll(w, "'", "")
		if onlyDigits(w) {
			// Values change ("my locker code is 4512"); the key names the thing.
			numbers = append(numbers, w)
			continue
		}
		if len(kept) < MaxSlugWords {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 && len(numbers) > 0 {
		kept = numbers[:1]
	}
	if len(kept) == 0 {
		return HashSlug(value)
	}
	return strings.Join(kept, "_")
}

// slugStop are words that make slugs longer without making them more distinct.
var slugStop = toSet([]string{"really", "especially", "kind", "kinds", "type", "types", "sort", "lot", "lots", "things", "thing", "stuff"})

func isASCIIWord(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '\'') {
			return false
		}
	}
	return true
}

// HashSlug is "h" followed by the first 8 hex digits of the sha256 of the
// normalised value (NormalizeContent with spaces removed), so "川菜" and " 川菜。"
// share a slug.
func HashSlug(value string) string {
	n := strings.ReplaceAll(NormalizeContent(value), " ", "")
	sum := sha256.Sum256([]byte(n))
	return "h" + hex.EncodeToString(sum[:4])
}

// typeArea is the key area SuggestKey uses for each memory type.
var typeArea = map[memory.Type]string{
	memory.TypePreference: "pref",
	memory.TypeFact:       "fact",
	memory.TypeGoal:       "goal",
	memory.TypeProject:    "project",
	memory.TypeConstraint: "rule",
}

// SuggestKey proposes a key for a candidate that came without one: the type's area
// and a slug of the content ("[goal] Pass the JLPT N1" → "goal.pass_jlpt_n1"). The
// third-person frame is dropped first, so "User likes jazz" gives "pref.jazz".
func SuggestKey(t memory.Type, content string) string {
	area, ok := typeArea[t]
	if !ok {
		area = "note"
	}
	return area + "." + Slug(content)
}

// ParseProposedKey normalises a key an extractor proposed for a new fact. Unlike a
// client's key, which addresses one memory and is refused when it holds a character
// the key rule cannot keep (memory.ParseKey), a proposed key is only a topic path:
// punctuation and symbols in it ("allergy: peanuts", "System: Prompt") separate its
// words, so the fact is kept and the noise rules still see "system-prompt".
func ParseProposedKey(raw string) (memory.Key, error) {
	spaced := strings.Map(func(r rune) rune {
		if r != '_' && r != '.' && r != '-' && (unicode.IsPunct(r) || unicode.IsSymbol(r)) {
			return ' '
		}
		return r
	}, raw)
	return memory.ParseKey(spaced)
}
