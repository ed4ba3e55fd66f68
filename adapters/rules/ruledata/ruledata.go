// Package ruledata is the shared form of the offline rules kept as data (the
// extract gate's, the identity slots'): named word lists spliced into regular
// expressions, so a rule file says {self} or {lead} where a long alternation
// would go (Microsoft Recognizers-Text keeps its fragments the same way).
//
// Standard library only.
package ruledata

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Lists are named alternations, ready to splice into patterns.
type Lists map[string]string

// NewLists joins each list's entries (regular expressions themselves) into one
// alternation, longest first so the longest form wins.
func NewLists(raw map[string][]string) Lists {
	l := make(Lists, len(raw))
	for name, words := range raw {
		sorted := slices.Clone(words)
		slices.SortStableFunc(sorted, func(a, b string) int { return len(b) - len(a) })
		l[name] = "(?:" + strings.Join(sorted, "|") + ")"
	}
	return l
}

// listRef is a {list} reference in a pattern.
var listRef = regexp.MustCompile(`\{([a-z_]+)\}`)

// Splice replaces every {name} in pattern with its list and lets each space match
// any run of spaces. A name that is no list is an error naming it.
func (l Lists) Splice(pattern string) (string, error) {
	var missing []string
	expanded := listRef.ReplaceAllStringFunc(pattern, func(ref string) string {
		name := ref[1 : len(ref)-1]
		alt, ok := l[name]
		if !ok {
			missing = append(missing, name)
		}
		return alt
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("pattern %q names unknown lists %v", pattern, missing)
	}
	return strings.ReplaceAll(expanded, " ", `\s+`), nil
}
