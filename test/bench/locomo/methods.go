package main

import "sort"

type method struct {
	about string
	new   func() Retriever
}

var methods = map[string]method{
	"baseline": {"plain BM25 reference (k1 1.2, b 0.75, stop words, alphanumeric tokens, date appended)", newBaselineBM25},
	"product": {"analyzer + BM25 with neighbours ±2 @0.5 and speaker boost 0.5, fused (min-max, weight 0.3) with the local embedder (d512, neighbours ±2 @0.5)",
		newHybrid(productConfig)},
	"product-lexical": {"the product's lexical side alone (what search falls back to when vectors are down)",
		newHybrid(with(productConfig, func(c *hybridConfig) { c.Dense = false }))},
	"product-dense": {"the product's local embedder alone (mode dense)",
		newHybrid(with(productConfig, func(c *hybridConfig) { c.DenseOnly = true }))},
}

func methodNames() []string {
	var names []string
	for n := range methods {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
