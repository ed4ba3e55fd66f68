package promptctx_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"engram/domain/promptctx"
)

var zh = promptctx.Layout{Header: promptctx.DefaultHeader, Language: promptctx.Chinese}

// checkBlock fails unless prompt is a well-formed block of layout l: header,
// notice, then only headings, item lines and quoted continuations, then the
// footer; the header and footer nowhere else; no raw line break but LF; and no
// more characters than budget.
func checkBlock(t *testing.T, prompt string, l promptctx.Layout, budget int) {
	t.Helper()
	if prompt == "" {
		return
	}
	if n := utf8.RuneCountInString(prompt); n > budget {
		t.Errorf("the block has %d characters, over the budget of %d", n, budget)
	}
	lines := strings.Split(prompt, "\n")
	header, footer := l.Header, l.Footer()
	if len(lines) < 5 || lines[0] != header || lines[len(lines)-1] != footer {
		t.Fatalf("not framed by %s … %s:\n%s", header, footer, prompt)
	}
	if strings.Count(prompt, header) != 1 || strings.Count(prompt, footer) != 1 {
		t.Errorf("the header or footer appears inside the block:\n%s", prompt)
	}
	headings := map[string]bool{}
	for _, s := range promptctx.Order {
		headings[l.Language.Heading(s)] = true
	}
	for i, line := range lines[2 : len(lines)-1] {
		switch {
		case headings[line]:
		case strings.HasPrefix(line, "- ") && strings.Contains(line, " > "):
		case strings.HasPrefix(line, "> "), strings.HasPrefix(line, "  > "), line == ">", line == "  >":
		default:
			t.Errorf("line %d is neither a heading, an item nor a quote: %q\n%s", i+3, line, prompt)
		}
	}
	for _, bad := range []string{"\r", "\u2028", "\u2029", "\u0085", "\v", "\f", "\u200b", "\u202e", "<|", "|>"} {
		if strings.Contains(prompt, bad) {
			t.Errorf("the block holds %q:\n%s", bad, prompt)
		}
	}
}

func decisionOf(t *testing.T, p promptctx.Plan, id string) promptctx.Decision {
	t.Helper()
	for _, d := range p.Decisions {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("no decision for %s", id)
	return promptctx.Decision{}
}
