package promptctx

import "strings"

// SplitSentences cuts text into sentences, each keeping its end mark and the
// space after it, so that joining them gives text back: after 。！？；!?; and
// a line break, and after "." followed by a space (not inside "3.5" or
// "e.g.x"). A text of one sentence is one part.
func SplitSentences(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	for i := 0; i < len(rs); i++ {
		end := false
		switch rs[i] {
		case '。', '！', '？', '；', '!', '?', ';', '\n':
			end = true
		case '.':
			end = i+1 < len(rs) && (rs[i+1] == ' ' || rs[i+1] == '\n')
		}
		if !end {
			continue
		}
		j := i + 1
		for j < len(rs) && (rs[j] == ' ' || rs[j] == '\n' || isCloser(rs[j])) {
			j++
		}
		out = append(out, string(rs[start:j]))
		start, i = j, j-1
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	if len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" && len(out) > 1 {
		out[len(out)-2] += out[len(out)-1]
		out = out[:len(out)-1]
	}
	return out
}

// isCloser is a closing quote or bracket that belongs to the sentence before it.
func isCloser(r rune) bool { return strings.ContainsRune(`"'”’）)」』】`, r) }
