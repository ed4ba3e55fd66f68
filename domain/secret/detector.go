package secret

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Kind names what a secret is. The names are stable: they are metric labels and
// appear in benchmark tables.
type Kind string

const (
	KindCard       Kind = "card"        // a payment card number
	KindIBAN       Kind = "iban"        // an international bank account number
	KindSSN        Kind = "ssn"         // a US social security number
	KindCNID       Kind = "cn_id"       // a Chinese resident identity number
	KindPhone      Kind = "phone"       // a phone number said to be one
	KindAPIKey     Kind = "api_key"     // an API key or access token of a known shape
	KindPrivateKey Kind = "private_key" // a PEM private key block
	KindJWT        Kind = "jwt"         // a JSON web token
	KindPassword   Kind = "password"    // a password or PIN given in a phrase
)

// Kinds lists every kind, structured detectors (a checksum or an unmistakable
// shape) first.
var Kinds = []Kind{KindCard, KindIBAN, KindSSN, KindCNID, KindAPIKey, KindPrivateKey, KindJWT, KindPhone, KindPassword}

// Structured reports whether the kind is found by shape and checksum alone, which
// is held to a higher precision than the kinds that need a phrase around them.
func (k Kind) Structured() bool { return k != KindPhone && k != KindPassword }

// Detector is one detector, as data.
//
// Pattern is a regular expression; the secret is its group named v when it has one,
// the whole match otherwise. A match that touches a letter or a digit on either side
// is part of a longer token and is not a secret. Valid, when set, checks the value
// (a checksum, a date, a word list). Context, when set, must match in the
// ContextWindow bytes before the match, and Unless must not match between the last
// context match and the value (without Context: anywhere in the window). Mask
// writes the masked form of the value.
type Detector struct {
	Kind            Kind
	Pattern         string
	Valid           func(value string) bool
	Context         string
	Unless          string
	Mask            func(value string) string
	Examples        []string // texts the detector must fire on
	CounterExamples []string // texts no detector may fire on
}

// trailingPunct is cut from the end of a value.
const trailingPunct = ".,;:!?)]}"

// ContextWindow is how far before a match Context and Unless look, in bytes.
const ContextWindow = 40

// Finding is one secret in a text: its kind and where its value is, as byte offsets.
type Finding struct {
	Kind       Kind
	Start, End int
}

type compiled struct {
	Detector
	re      *regexp.Regexp
	values  []int // the indexes of the groups named v; none: the whole match
	context *regexp.Regexp
	unless  *regexp.Regexp
}

func compile(d Detector) compiled {
	c := compiled{Detector: d, re: regexp.MustCompile(d.Pattern)}
	for i, name := range c.re.SubexpNames() {
		if name == "v" {
			c.values = append(c.values, i)
		}
	}
	if d.Context != "" {
		c.context = regexp.MustCompile(d.Context)
	}
	if d.Unless != "" {
		c.unless = regexp.MustCompile(d.Unless)
	}
	return c
}

// find returns the detector's findings in text.
func (c compiled) find(text string) []Finding {
	var out []Finding
	for _, loc := range c.re.FindAllStringSubmatchIndex(text, -1) {
		start, end := loc[0], loc[1]
		if len(c.values) > 0 {
			start, end = -1, -1
			for _, g := range c.values {
				if loc[2*g] >= 0 {
					start, end = loc[2*g], loc[2*g+1]
					break
				}
			}
		}
		if start < 0 || touchesWord(text, start, end) {
			continue
		}
		// A sentence's punctuation after a value is not part of it.
		for end > start && strings.ContainsRune(trailingPunct, rune(text[end-1])) {
			end--
		}
		if start < 0 || end <= start {
			continue
		}
		if c.Valid != nil && !c.Valid(text[start:end]) {
			continue
		}
		if !c.inContext(text, loc[0]) {
			continue
		}
		out = append(out, Finding{Kind: c.Kind, Start: start, End: end})
	}
	return out
}

// inContext checks Context and Unless on the window before a match at start.
func (c compiled) inContext(text string, start int) bool {
	from := max(start-ContextWindow, 0)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from++
	}
	before := text[from:start]
	if c.context != nil {
		locs := c.context.FindAllStringIndex(before, -1)
		if locs == nil {
			return false
		}
		// What stands between the last context word and the value must not make
		// it something else ("phone number and order number 1234567").
		before = before[locs[len(locs)-1][1]:]
	}
	return c.unless == nil || !c.unless.MatchString(before)
}

// touchesWord reports whether the match [start, end) has an ASCII letter or digit
// right before or right after it.
func touchesWord(text string, start, end int) bool {
	if start > 0 {
		if r, _ := utf8.DecodeLastRuneInString(text[:start]); isAlnum(r) {
			return true
		}
	}
	if end < len(text) {
		if r, _ := utf8.DecodeRuneInString(text[end:]); isAlnum(r) {
			return true
		}
	}
	return false
}

func isAlnum(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

var compiledDetectors = func() []compiled {
	out := make([]compiled, len(detectors))
	for i, d := range detectors {
		out[i] = compile(d)
	}
	return out
}()

// Find returns the secrets in text, in order of position. Where two overlap, the
// one that starts first (on a tie, the longer, then the kind first in Kinds) is kept.
func Find(text string) []Finding {
	var all []Finding
	for _, c := range compiledDetectors {
		if c.mayMatch(text) {
			all = append(all, c.find(text)...)
		}
	}
	slices.SortFunc(all, func(a, b Finding) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		if a.End != b.End {
			return b.End - a.End
		}
		return slices.Index(Kinds, a.Kind) - slices.Index(Kinds, b.Kind)
	})
	out := all[:0]
	for _, f := range all {
		if len(out) > 0 && f.Start < out[len(out)-1].End {
			continue
		}
		out = append(out, f)
	}
	return out
}

// mayMatch is a cheap test that the text holds what every match of the detector
// needs: most text holds no digit run and no key prefix at all.
func (c compiled) mayMatch(text string) bool {
	if c.context != nil && !c.context.MatchString(text) {
		return false // no context word anywhere: no match can have one before it
	}
	switch c.Kind {
	case KindPrivateKey:
		return strings.Contains(text, "PRIVATE KEY")
	case KindJWT:
		return strings.Contains(text, "eyJ")
	case KindPassword:
		return true
	case KindAPIKey:
		for _, p := range apiKeyPrefixes {
			if strings.Contains(text, p) {
				return true
			}
		}
		return false
	}
	return strings.ContainsAny(text, "0123456789")
}

// Contains reports whether text holds a secret.
func Contains(text string) bool { return len(Find(text)) > 0 }

// Kinds of the findings, without repeats, in the order of Kinds.
func KindsOf(findings []Finding) []Kind {
	var out []Kind
	for _, k := range Kinds {
		for _, f := range findings {
			if f.Kind == k {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// Mask returns text with every secret replaced by its mask.
func Mask(text string) string {
	found := Find(text)
	if len(found) == 0 {
		return text
	}
	var b strings.Builder
	last := 0
	for _, f := range found {
		b.WriteString(text[last:f.Start])
		b.WriteString(maskOf(f.Kind)(text[f.Start:f.End]))
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String()
}

func maskOf(k Kind) func(string) string {
	for _, d := range detectors {
		if d.Kind == k && d.Mask != nil {
			return d.Mask
		}
	}
	return func(string) string { return "[" + string(k) + "]" }
}
