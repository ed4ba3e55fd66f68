package promptctx

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/domain/clip"
)

// Quoting stored text. Text from a store (a memory, a message, a summary, a profile
// field, a caller's external item) is data, whoever wrote it, and the block must
// stay a block whatever it holds:
//
//   - every line break a reader might honour (CR, CR LF, U+2028, U+2029, NEL, VT,
//     FF) becomes one LF, so the line structure Render builds is the only one;
//   - control characters go, and so do invisible ones (zero-width spaces and
//     joiners, bidi overrides, soft hyphens), which could hide a marker from the
//     checks below or reorder what a reader sees;
//   - the block's header and footer and every "[/…]" closer, chat-template tokens
//     (<|im_start|>, [INST], <<SYS>>, <start_of_turn>) and tag-like delimiters
//     (</memory>, <system>) have their ASCII brackets replaced by look-alikes
//     (‹ › ［ ］): still readable, no longer the thing they imitate;
//   - Render then puts "> " (after a label, or "  > " on continuation lines) in
//     front of every line, so no stored line can start a line of the block.
//
// Detection (is this text instruction-like?) is domain/instruction's; quoting
// applies to every text regardless.

var (
	// A bracketed name: the header, the footer, [INST], or any closer "[/…]".
	bracketed = regexp.MustCompile(`\[([^\[\]\n]{1,64})\]`)
	// Chat-template tokens: <|im_start|>, <|eot_id|>, <<SYS>>, <</SYS>>.
	templateToken = regexp.MustCompile(`<\|[^\n]{0,40}?\|>|<<\s*/?\s*[A-Za-z_]{1,20}\s*>>`)
	// Tag-like delimiters: <system>, </memory>, <end_of_turn>, <s>, <br/>.
	tagLike = regexp.MustCompile(`<\s*/?\s*[A-Za-z_][A-Za-z0-9_:.\-]{0,40}\s*/?\s*>`)
)

var (
	lookAlike  = strings.NewReplacer("[", "［", "]", "］", "<", "‹", ">", "›", "|", "¦")
	tokenEdges = strings.NewReplacer("<|", "‹¦", "|>", "¦›")
)

// quoter neutralises the markers of one layout.
type quoter struct {
	name string // the header's name, lower case
}

func (l Layout) quoter() quoter { return quoter{name: strings.ToLower(l.name())} }

// lines returns text cleaned and neutralised, as lines (no empty first or last
// line, at most one empty line in a row); nil when nothing is left.
func (q quoter) lines(text string) []string {
	text = q.neutralise(Clean(text))
	if text == "" {
		return nil
	}
	var out []string
	blank := false
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		if line == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, line)
	}
	if n := len(out); n > 0 && out[n-1] == "" {
		out = out[:n-1]
	}
	return out
}

// neutralise replaces the brackets of every marker in text.
func (q quoter) neutralise(text string) string {
	if !strings.ContainsAny(text, "[<|") {
		return text
	}
	text = templateToken.ReplaceAllStringFunc(text, lookAlike.Replace)
	text = tokenEdges.Replace(text) // a half token too: "<|" or "|>" alone
	text = tagLike.ReplaceAllStringFunc(text, lookAlike.Replace)
	return bracketed.ReplaceAllStringFunc(text, func(m string) string {
		inner := strings.ToLower(strings.TrimSpace(m[1 : len(m)-1]))
		if strings.HasPrefix(inner, "/") || inner == q.name || inner == "inst" || strings.HasPrefix(inner, "inst ") {
			return lookAlike.Replace(m)
		}
		return m
	})
}

// Clean normalises line breaks to LF, turns tabs into spaces and removes control
// and invisible characters, trimming the ends.
func Clean(text string) string {
	if text == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r == '\r':
			if i < len(text) && text[i] == '\n' {
				i++
			}
			b.WriteByte('\n')
		case r == '\n' || r == '\u2028' || r == '\u2029' || r == '\u0085' || r == '\v' || r == '\f':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteByte(' ')
		case r == utf8.RuneError && size == 1, unicode.IsControl(r), isInvisible(r):
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// isInvisible reports format characters that render as nothing or reorder text:
// zero-width spaces and joiners, word joiners, bidi controls, the BOM, soft hyphens.
func isInvisible(r rune) bool {
	switch {
	case r == '\u00ad', r == '\u034f', r == '\u061c', r == '\u180e', r == '\ufeff':
		return true
	case r >= '\u200b' && r <= '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2060' && r <= '\u206f':
		return true
	}
	return false
}

// MaxLabelLen bounds an item's label.
const MaxLabelLen = 80

// label makes a label one safe line: cleaned, line breaks as spaces, markers
// neutralised as in text, and every ">" a look-alike, so that neither a
// speaker's name nor a caller's source can imitate the block's structure or the
// " > " that ends the label.
func (q quoter) label(label string) string {
	label = q.neutralise(strings.Join(strings.Fields(Clean(label)), " "))
	return clip.Runes(strings.ReplaceAll(label, ">", "›"), MaxLabelLen)
}

// SnippetLen is how much of an item's text a trace keeps.
const SnippetLen = 160

// Snippet is the start of text on one line, as a trace shows it.
func Snippet(text string) string {
	return clip.Runes(strings.Join(strings.Fields(Clean(text)), " "), SnippetLen)
}
