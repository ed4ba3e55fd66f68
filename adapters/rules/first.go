package rules

import (
	"regexp/syntax"
	"unicode"
)

// firstRunes is the set of runes a match of the expression can start with, or nil
// when it cannot be told (any rune, or a large class). Patterns are tried at every
// clause start; most cannot match there ("the movie was…" against "i like…"), and
// checking the first rune is much cheaper than running the expression.
func firstRunes(expr string) map[rune]bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	set := map[rune]bool{}
	if any, nullable := addFirst(re, set); any || nullable {
		return nil
	}
	return set
}

// addFirst adds the possible first runes of re to set; any reports that it could
// be anything, nullable that re may match the empty string (so what follows counts).
func addFirst(re *syntax.Regexp, set map[rune]bool) (any, nullable bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return false, false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return false, true
	case syntax.OpLiteral:
		return addLiteral(re, set)
	case syntax.OpCharClass:
		return addClass(re.Rune, set), false
	case syntax.OpCapture, syntax.OpPlus:
		return addFirst(re.Sub[0], set)
	case syntax.OpStar, syntax.OpQuest:
		a, _ := addFirst(re.Sub[0], set)
		return a, true
	case syntax.OpRepeat:
		a, n := addFirst(re.Sub[0], set)
		return a, n || re.Min == 0
	case syntax.OpConcat:
		return addConcat(re.Sub, set)
	case syntax.OpAlternate:
		return addAlternate(re.Sub, set)
	}
	return true, false // OpAnyChar, OpAnyCharNotNL and anything new
}

// addLiteral adds the first rune of a literal, in both cases when it folds case.
func addLiteral(re *syntax.Regexp, set map[rune]bool) (any, nullable bool) {
	if len(re.Rune) == 0 {
		return false, true
	}
	r := re.Rune[0]
	set[r] = true
	if re.Flags&syntax.FoldCase != 0 {
		set[unicode.ToLower(r)], set[unicode.ToUpper(r)] = true, true
	}
	return false, false
}

// addClass adds the runes of a class given as ranges; a class of more than 256
// runes counts as any rune (any=true), as a set that large would not pay.
func addClass(ranges []rune, set map[rune]bool) (any bool) {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > 256 {
			return true
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			set[r] = true
		}
	}
	return false
}

// addConcat adds the first runes of each part up to the first that cannot match
// empty.
func addConcat(subs []*syntax.Regexp, set map[rune]bool) (any, nullable bool) {
	for _, sub := range subs {
		a, n := addFirst(sub, set)
		if a {
			return true, false
		}
		if !n {
			return false, false
		}
	}
	return false, true
}

// addAlternate adds the first runes of every branch.
func addAlternate(subs []*syntax.Regexp, set map[rune]bool) (any, nullable bool) {
	nullable = false
	for _, sub := range subs {
		a, n := addFirst(sub, set)
		if a {
			return true, false
		}
		nullable = nullable || n
	}
	return false, nullable
}
