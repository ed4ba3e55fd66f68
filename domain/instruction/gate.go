package instruction

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Go's regular expressions run in time proportional to the text times the active
// part of the program, and the word lists make programs of thousands of
// instructions. Two things keep classification cheap:
//
//   - A gate: literal keys one of which starts every match ("ignore", "disregard",
//     "忽略"…), derived from the compiled pattern itself so they cannot drift from
//     it. A pattern whose gate finds none of its keys in the text never runs; most
//     text holds none.
//   - Anchored runs: when every match starts exactly at a key, the pattern is tried
//     only at the keys' positions, anchored (\A), which costs the length of the
//     attempt instead of a scan of the whole text.
//
// A pattern whose matches may start anywhere (a line start, \s*) has no gate and is
// scanned as usual.
type gate struct {
	keys     keySet         // keys one of which starts every match; nil: none known
	required []keySet       // sets of keys every match holds one key of each
	anchored *regexp.Regexp // \A(?:pattern), when matches start exactly at a key
	// boundary holds the keys that start a match only after a word boundary (\b):
	// the anchored run cannot see the character before, so findAll checks it.
	boundary keySet
}

// maxMatchWindow bounds an anchored attempt: no pattern's match is longer, and the
// cost of an attempt grows with the text it is given.
const maxMatchWindow = 320

// Keys are literals cut at the first space and to gateKeyLen bytes (a match still
// starts with the cut literal), lower-cased, and numbered across all rules.
const gateKeyLen = 6

var (
	gateKeys  = map[string]int{}
	keyText   []string             // by id
	keysByOne [256][]int           // one-byte keys by their byte
	keysByTwo = map[uint16][]int{} // longer keys by their first two bytes
)

// maxGateLiterals bounds the literal set; a pattern that would need more literals
// is gated by the ones it has so far.
const maxGateLiterals = 256

func keyID(literal string) int {
	k := literal
	if i := strings.IndexFunc(k, unicode.IsSpace); i > 0 {
		k = k[:i]
	}
	if len(k) > gateKeyLen {
		k = k[:gateKeyLen]
	}
	id, ok := gateKeys[k]
	if !ok {
		id = len(gateKeys)
		gateKeys[k] = id
		keyText = append(keyText, k)
		if len(k) == 1 {
			keysByOne[k[0]] = append(keysByOne[k[0]], id)
		} else {
			pair := uint16(k[0])<<8 | uint16(k[1])
			keysByTwo[pair] = append(keysByTwo[pair], id)
		}
	}
	return id
}

// gateOf derives the gate of a compiled pattern (src is its source, flags included).
func gateOf(src string) gate {
	parsed, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return gate{}
	}
	parsed = parsed.Simplify()
	var g gate
	items := prefixes(parsed)
	if keys, ok := keysOf(items); ok {
		g.keys = newKeySet(keys)
		if anchorable(items) {
			g.anchored = regexp.MustCompile(`\A(?:` + src + `)`)
			g.boundary = boundaryKeys(items)
		}
	}
	// Every part of a sequence that is one of a few literals must be in the text too
	// ("^\s*system\s*:" needs "system" and ":").
	top := parsed
	for top.Op == syntax.OpCapture {
		top = top.Sub[0]
	}
	if top.Op == syntax.OpConcat {
		for _, sub := range top.Sub {
			if keys, ok := keysOf(prefixes(sub)); ok {
				g.required = append(g.required, newKeySet(keys))
			}
		}
	}
	return g
}

// anchorable reports whether every match starts exactly at one of the literals, so
// that the pattern can be tried anchored at their positions: no literal opens with
// white space and none follows a line anchor (which the anchored run cannot check).
func anchorable(items []prefix) bool {
	for _, it := range items {
		r, _ := utf8.DecodeRuneInString(it.text)
		if unicode.IsSpace(r) || it.lineAnchor {
			return false
		}
	}
	return true
}

// boundaryKeys are the keys that only ever start a match after \b; a key that may
// also start one without it is left out (checking it would lose matches).
func boundaryKeys(items []prefix) keySet {
	need, free := map[int]bool{}, map[int]bool{}
	for _, it := range items {
		id := keyID(strings.ToLower(strings.TrimSpace(it.text)))
		if it.wordStart {
			need[id] = true
		} else {
			free[id] = true
		}
	}
	var ids []int
	for id := range need {
		if !free[id] {
			ids = append(ids, id)
		}
	}
	return newKeySet(ids)
}

// keysOf numbers the keys of a set of prefixes; false when one is empty or only
// white space (it says nothing about the text).
func keysOf(items []prefix) ([]int, bool) {
	var keys []int
	for _, it := range items {
		t := strings.TrimSpace(it.text)
		if t == "" {
			return nil, false
		}
		if id := keyID(strings.ToLower(t)); !slices.Contains(keys, id) {
			keys = append(keys, id)
		}
	}
	return keys, len(keys) > 0
}

// keySet is a set of key ids as a bit set.
type keySet []uint64

func newKeySet(ids []int) keySet {
	var s keySet
	for _, id := range ids {
		for len(s) <= id/64 {
			s = append(s, 0)
		}
		s[id/64] |= 1 << (id % 64)
	}
	return s
}

func (s keySet) has(id int) bool { return id/64 < len(s) && s[id/64]&(1<<(id%64)) != 0 }

// meets reports whether the two sets share a key.
func (s keySet) meets(o keySet) bool {
	for i := range min(len(s), len(o)) {
		if s[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

// keyIndex is every occurrence of a gate key in a text, in ascending order of
// position, and the set of keys that occur.
type keyIndex struct {
	present keySet
	hits    []keyHit
}

type keyHit struct{ pos, id int }

// indexKeys finds every gate key in text, which must be lower-cased without changing
// byte offsets (lowerASCII).
func indexKeys(text string) keyIndex {
	idx := keyIndex{present: make(keySet, (len(keyText)+63)/64)}
	add := func(i, id int) {
		idx.hits = append(idx.hits, keyHit{i, id})
		idx.present[id/64] |= 1 << (id % 64)
	}
	for i := range len(text) {
		if !utf8.RuneStart(text[i]) {
			continue
		}
		for _, id := range keysByOne[text[i]] {
			add(i, id)
		}
		if i+1 < len(text) {
			for _, id := range keysByTwo[uint16(text[i])<<8|uint16(text[i+1])] {
				if strings.HasPrefix(text[i:], keyText[id]) {
					add(i, id)
				}
			}
		}
	}
	return idx
}

// open reports whether the text holds what every match needs.
func (g gate) open(idx keyIndex) bool {
	if g.keys != nil && !g.keys.meets(idx.present) {
		return false
	}
	for _, set := range g.required {
		if !set.meets(idx.present) {
			return false
		}
	}
	return true
}

// findAll returns the matches of a pattern in text[from:to) as FindAllStringIndex
// would, offsets into text, using the gate when it can.
func (g gate) findAll(re *regexp.Regexp, text string, from, to int, idx keyIndex) [][]int {
	if !g.open(idx) {
		return nil
	}
	if g.anchored == nil {
		var out [][]int
		for _, loc := range re.FindAllStringIndex(text[from:to], -1) {
			out = append(out, []int{from + loc[0], from + loc[1]})
		}
		return out
	}
	var out [][]int
	end := from
	for _, h := range idx.hits {
		p := h.pos
		if p < end || p >= to || !g.keys.has(h.id) {
			continue
		}
		if g.boundary.has(h.id) && p > 0 {
			before, _ := utf8.DecodeLastRuneInString(text[:p])
			if isWordRune(before) {
				continue
			}
		}
		if loc := g.anchored.FindStringIndex(text[p:min(to, p+maxMatchWindow)]); loc != nil {
			out = append(out, []int{p, p + loc[1]})
			end = max(p+loc[1], p+1)
		}
	}
	return out
}

// isWordRune is what \b counts as a word character (ASCII, as Go's regexp does).
func isWordRune(r rune) bool {
	return r < utf8.RuneSelf && (r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
}

// prefix is the start of some matches of a pattern. open: it is the whole text of
// the part it came from, so what follows may extend it; lineAnchor: a ^ or \A came
// before it; wordStart: a \b came right before it.
type prefix struct {
	text                        string
	open, lineAnchor, wordStart bool
}

// prefixes returns prefixes one of which starts every match of re: how the
// operators combine the prefixes of their parts.
func prefixes(re *syntax.Regexp) []prefix {
	switch re.Op {
	case syntax.OpCapture:
		return prefixes(re.Sub[0])
	case syntax.OpAlternate:
		var out []prefix
		for _, sub := range re.Sub {
			out = append(out, prefixes(sub)...)
		}
		return out
	case syntax.OpConcat:
		return concatPrefixes(re.Sub)
	case syntax.OpQuest:
		return append(prefixes(re.Sub[0]), prefix{open: true})
	case syntax.OpStar:
		return append(closeAll(prefixes(re.Sub[0])), prefix{open: true})
	case syntax.OpPlus:
		return closeAll(prefixes(re.Sub[0]))
	case syntax.OpRepeat:
		out := closeAll(prefixes(re.Sub[0]))
		if re.Min == 0 {
			out = append(out, prefix{open: true})
		}
		return out
	}
	return leafPrefixes(re)
}

// concatPrefixes extends the prefixes part by part, as long as they stay open and
// few; past that, what is known so far closes them.
func concatPrefixes(parts []*syntax.Regexp) []prefix {
	acc := []prefix{{open: true}}
	for _, sub := range parts {
		next := extend(acc, prefixes(sub))
		if next == nil {
			return closeAll(acc)
		}
		acc = next
	}
	return acc
}

// leafPrefixes are the prefixes of an expression without parts: a literal, an
// empty-width assertion, a character class, or anything else (which may start with
// any character).
func leafPrefixes(re *syntax.Regexp) []prefix {
	switch re.Op {
	case syntax.OpLiteral:
		return []prefix{{text: string(re.Rune), open: true}}
	case syntax.OpEmptyMatch, syntax.OpNoWordBoundary:
		return []prefix{{open: true}}
	case syntax.OpWordBoundary:
		return []prefix{{open: true, wordStart: true}}
	case syntax.OpBeginLine, syntax.OpBeginText:
		return []prefix{{open: true, lineAnchor: true}}
	case syntax.OpCharClass:
		return classPrefixes(re)
	}
	return []prefix{{}}
}

// classPrefixes: a class of separators reads as one space (keys are cut there), a
// small class as each of its runes, a large one as anything.
func classPrefixes(re *syntax.Regexp) []prefix {
	if isSpaceClass(re) {
		return []prefix{{text: " "}}
	}
	runes := classRunes(re)
	if runes == nil {
		return []prefix{{}}
	}
	out := make([]prefix, len(runes))
	for i, r := range runes {
		out[i] = prefix{text: string(r), open: true}
	}
	return out
}

// extend appends each of tails to each open prefix of acc; nil when the result would
// hold more than maxGateLiterals prefixes.
func extend(acc, tails []prefix) []prefix {
	var out []prefix
	for _, a := range acc {
		if !a.open {
			out = append(out, a)
			continue
		}
		for _, t := range tails {
			p := prefix{text: a.text + t.text, open: t.open,
				lineAnchor: a.lineAnchor || (a.text == "" && t.lineAnchor),
				wordStart:  a.wordStart || (a.text == "" && t.wordStart)}
			out = append(out, p)
		}
		if len(out) > maxGateLiterals {
			return nil
		}
	}
	return out
}

func closeAll(items []prefix) []prefix {
	out := make([]prefix, len(items))
	for i, it := range items {
		it.open = false
		out[i] = it
	}
	return out
}

// isSpaceClass reports whether re is a class of separators: white space (\s), and
// the underscore and dash that word-list phrases also accept between words. Keys are
// cut there anyway, so one space stands for all of them.
func isSpaceClass(re *syntax.Regexp) bool {
	if re.Op != syntax.OpCharClass || len(re.Rune) == 0 {
		return false
	}
	space := false
	for i := 0; i+1 < len(re.Rune); i += 2 {
		for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
			switch {
			case unicode.IsSpace(r):
				space = true
			case r == '_' || r == '-':
			default:
				return false
			}
		}
	}
	return space
}

// classRunes lists the runes of a small character class, lower-cased and without
// repeats; nil when it is large.
func classRunes(re *syntax.Regexp) []rune {
	var out []rune
	seen := map[rune]bool{}
	for i := 0; i+1 < len(re.Rune); i += 2 {
		lo, hi := re.Rune[i], re.Rune[i+1]
		if hi-lo > 8 {
			return nil
		}
		for r := lo; r <= hi; r++ {
			l := unicode.ToLower(r)
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
			if len(out) > 8 {
				return nil
			}
		}
	}
	return out
}

// lowerASCII lower-cases A-Z only, so offsets into the result are offsets into s.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}
