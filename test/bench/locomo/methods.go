package main

import "sort"

type method struct {
	about string
	new   func() Retriever
}

var methods = map[string]method{
	"baseline": {"plain BM25 reference (k1 1.2, b 0.75, stop words, alphanumeric tokens, date appended)", newBaselineBM25},
}

func methodNames() []string {
	var names []string
	for n := range methods {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
