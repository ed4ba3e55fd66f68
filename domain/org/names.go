package org

import (
	"slices"
	"strings"
	"unicode"
)

// Strength says how well a name key identifies a person: a query that meets a
// stronger key ranks the person higher.
type Strength int

const (
	// StrengthPhonetic: the romanisation of a Chinese name ("xiaoming" for 小明),
	// and the informal 小王 / 老王 forms.
	StrengthPhonetic Strength = 1
	// StrengthAlias: part of a name people use alone — the given name of a Chinese
	// name (小明 of 王小明), one word of a Latin name ("John" of "John Smith").
	StrengthAlias Strength = 2
	// StrengthName: a whole display name or nickname.
	StrengthName Strength = 3
)

// NameKey is one normalised form under which a person can be found.
type NameKey struct {
	Key      string
	Strength Strength
}

// Syllable romanises one Han character ("明" → "ming"), or returns "" when it
// cannot. Name keys without it are still built, just without the phonetic forms.
type Syllable func(r rune) string

// compoundSurnames are the two-character surnames common enough that 欧阳娜娜's
// given name is 娜娜, not 阳娜娜.
var compoundSurnames = []string{
	"欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "令狐", "慕容", "尉迟", "公孙",
	"长孙", "宇文", "司徒", "夏侯", "轩辕", "端木", "独孤", "南宫", "西门", "百里",
	"呼延", "申屠", "太史", "澹台", "公冶", "万俟", "闻人", "赫连", "钟离", "司空",
}

// NormalizeName is the form names and queries are compared in: lower case,
// full-width Latin letters and digits folded to ASCII, and spaces, dots, hyphens,
// apostrophes and the middle dot of transliterated names removed, so "Xiao Ming",
// "xiao-ming" and "ＸｉａｏＭｉｎｇ" are one key.
func NormalizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xFF01 && r <= 0xFF5E { // full-width ASCII
			r -= 0xFEE0
		}
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			// separators and punctuation: "Xiao Ming", "Jean-Luc", "O'Brien", "玛丽·居里"
		}
	}
	return b.String()
}

// NameKeys returns every key under which one person can be found, each once with
// its strongest strength, sorted by key. fullNames are display names, split into
// surname and given name or into words; nicknames (and preferred names) are taken
// whole, with their romanisation.
func NameKeys(fullNames, nicknames []string, syllable Syllable) []NameKey {
	best := map[string]Strength{}
	add := func(key string, s Strength) {
		if key != "" && s > best[key] {
			best[key] = s
		}
	}
	for _, nick := range nicknames {
		full := NormalizeName(nick)
		add(full, StrengthName)
		if runes := []rune(full); allHan(runes) && syllable != nil {
			if roman, ok := romanize(runes, syllable); ok {
				add(roman, StrengthPhonetic)
			}
		}
	}
	for _, name := range fullNames {
		full := NormalizeName(name)
		if full == "" {
			continue
		}
		add(full, StrengthName)
		if runes := []rune(full); allHan(runes) {
			addChineseForms(runes, syllable, add)
			continue
		}
		words := latinWords(name)
		if len(words) > 1 {
			for _, w := range words {
				if len([]rune(w)) >= 2 {
					add(w, StrengthAlias)
				}
			}
			reversed := slices.Clone(words)
			slices.Reverse(reversed)
			add(strings.Join(reversed, ""), StrengthAlias) // "Smith John", "Ming Xiao"
		}
	}
	out := make([]NameKey, 0, len(best))
	for k, s := range best {
		out = append(out, NameKey{Key: k, Strength: s})
	}
	slices.SortFunc(out, func(a, b NameKey) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// addChineseForms adds the given name, 小王/老王, and the romanised forms of a
// Chinese name of two to four characters.
func addChineseForms(runes []rune, syllable Syllable, add func(string, Strength)) {
	if len(runes) < 2 || len(runes) > 4 {
		return
	}
	surname, given := splitChineseName(runes)
	if len(given) >= 2 {
		add(string(given), StrengthAlias)
	}
	if len(surname) == 1 {
		add("小"+string(surname), StrengthPhonetic)
		add("老"+string(surname), StrengthPhonetic)
	}
	if syllable == nil {
		return
	}
	sur, okS := romanize(surname, surnameSyllable(syllable))
	giv, okG := romanize(given, syllable)
	if !okS || !okG {
		return
	}
	add(sur+giv, StrengthPhonetic)
	add(giv+sur, StrengthPhonetic) // "Xiaoming Wang", the Western order
	if len(given) >= 2 {
		add(giv, StrengthPhonetic)
	}
}

// splitChineseName separates the surname: a compound one when the name starts with
// one and is long enough to leave a given name, else the first character.
func splitChineseName(runes []rune) (surname, given []rune) {
	if len(runes) >= 3 && slices.Contains(compoundSurnames, string(runes[:2])) {
		return runes[:2], runes[2:]
	}
	return runes[:1], runes[1:]
}

// surnameReadings are surnames read unlike the character's most common reading
// (单 is dan, but the surname is Shan).
var surnameReadings = map[rune]string{
	'单': "shan", '曾': "zeng", '解': "xie", '区': "ou", '仇': "qiu", '朴': "piao", '查': "zha",
	'盖': "ge", '缪': "miao", '覃': "qin", '翟': "zhai", '乐': "yue", '尉': "yu", '召': "shao",
	'种': "chong", '秘': "bi", '长': "chang", '折': "she", '员': "yun", '句': "gou",
}

func surnameSyllable(syllable Syllable) Syllable {
	return func(r rune) string {
		if s, ok := surnameReadings[r]; ok {
			return s
		}
		return syllable(r)
	}
}

// QueryKeys returns the keys a name query is looked up under: its normalised form,
// and for a Chinese query its romanisation too, so 晓明 also finds 小明 (as a
// weaker, phonetic match).
func QueryKeys(query string, syllable Syllable) []QueryKey {
	full := NormalizeName(query)
	if full == "" {
		return nil
	}
	out := []QueryKey{{Key: full, Strength: StrengthName}}
	if runes := []rune(full); allHan(runes) && syllable != nil {
		if roman, ok := romanize(runes, syllable); ok && roman != full {
			out = append(out, QueryKey{Key: roman, Strength: StrengthPhonetic})
		}
	}
	return out
}

// QueryKey is one lookup key of a query; Strength caps what a match through it is
// worth (a match through the query's romanisation is phonetic at best).
type QueryKey struct {
	Key      string
	Strength Strength
}

// MatchStrength is what a stored key met through a query key is worth.
func MatchStrength(stored Strength, through QueryKey) Strength {
	return min(stored, through.Strength)
}

func romanize(runes []rune, syllable Syllable) (string, bool) {
	var b strings.Builder
	for _, r := range runes {
		s := syllable(r)
		if s == "" {
			return "", false
		}
		b.WriteString(strings.ToLower(s))
	}
	return b.String(), true
}

func allHan(runes []rune) bool {
	if len(runes) == 0 {
		return false
	}
	for _, r := range runes {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}

// latinWords splits a name into its normalised words ("John  Smith" → john, smith).
func latinWords(name string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(name, func(r rune) bool {
		return unicode.IsSpace(r) || r == '-' || r == '·' || r == '.' || r == '_'
	}) {
		if w := NormalizeName(f); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// KeyHit is a stored key of a user that a lookup found.
type KeyHit struct {
	UserID   string
	Key      string
	Strength Strength
}

// Match is a user found by a name query, through its best key.
type Match struct {
	UserID   string
	Key      string
	Strength Strength
}

// BestMatches keeps each user's best hit (what it is worth through the query key
// that found it) and orders the users strongest first, then by user id.
func BestMatches(query []QueryKey, hits []KeyHit) []Match {
	through := map[string]QueryKey{}
	for _, q := range query {
		if cur, ok := through[q.Key]; !ok || q.Strength > cur.Strength {
			through[q.Key] = q
		}
	}
	best := map[string]Match{}
	for _, h := range hits {
		q, ok := through[h.Key]
		if !ok {
			continue
		}
		m := Match{UserID: h.UserID, Key: h.Key, Strength: MatchStrength(h.Strength, q)}
		if cur, seen := best[h.UserID]; !seen || m.Strength > cur.Strength {
			best[h.UserID] = m
		}
	}
	out := make([]Match, 0, len(best))
	for _, m := range best {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Match) int { return strongestFirst(a.Strength, b.Strength, a.UserID, b.UserID, "", "") })
	return out
}

// strongestFirst orders by strength (strongest first), then user, then key.
func strongestFirst(sa, sb Strength, ua, ub, ka, kb string) int {
	if sa != sb {
		return int(sb - sa)
	}
	if c := strings.Compare(ua, ub); c != 0 {
		return c
	}
	return strings.Compare(ka, kb)
}

// TopHits keeps each user's key once at its strongest, orders the hits strongest
// first (then by user and key), and keeps those of the limit users with the
// strongest keys: what a name lookup returns from the stored keys it met.
func TopHits(hits []KeyHit, limit int) []KeyHit {
	type userKey struct{ user, key string }
	best := map[userKey]KeyHit{}
	for _, h := range hits {
		k := userKey{h.UserID, h.Key}
		if cur, ok := best[k]; !ok || h.Strength > cur.Strength {
			best[k] = h
		}
	}
	out := make([]KeyHit, 0, len(best))
	for _, h := range best {
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b KeyHit) int { return strongestFirst(a.Strength, b.Strength, a.UserID, b.UserID, a.Key, b.Key) })
	users := map[string]bool{}
	kept := out[:0]
	for _, h := range out {
		if !users[h.UserID] {
			if len(users) >= limit {
				continue
			}
			users[h.UserID] = true
		}
		kept = append(kept, h)
	}
	return kept
}
