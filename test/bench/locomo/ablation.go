package main

import (
	"context"
	"fmt"

	"engram/domain/ranking"
)

type variant struct {
	name string
	cfg  hybridConfig
}

func with(base hybridConfig, change func(*hybridConfig)) hybridConfig {
	change(&base)
	return base
}

// ablationVariants builds the product method step by step from the baseline, then
// changes one thing of the product at a time.
func ablationVariants() []variant {
	p := productConfig
	lex := with(p, func(c *hybridConfig) { c.Dense = false })
	step1 := with(lex, func(c *hybridConfig) { c.Plain = true; c.Window = 0; c.SpeakerBoost = 0 })
	step2 := with(lex, func(c *hybridConfig) { c.Window = 0; c.SpeakerBoost = 0 })
	step3 := with(step2, func(c *hybridConfig) { c.Window = 1 })
	step4 := with(step2, func(c *hybridConfig) { c.Window = 2 })
	nw := fmt.Sprintf("%.1f", p.NeighbourWeight)
	return []variant{
		{"1. plain tokens, BM25 (the baseline, in this harness)", step1},
		{"2. + analyzer (Snowball stems, possessives, contractions)", step2},
		{"2b. row 2 without the session date in the text", with(step2, func(c *hybridConfig) { c.AppendDate = false })},
		{"3. + neighbours ±1 at weight " + nw, step3},
		{"4. + neighbours ±2 at weight " + nw, step4},
		{"5. + speaker boost 0.5 (= product-lexical)", lex},
		{"6. + local embedder fused, min-max, weight 0.3 (= product)", p},
		{"product, fusion RRF k=60, dense weight 0.3", with(p, func(c *hybridConfig) { c.Fusion = "rrf" })},
		{"product, fusion RRF k=60, dense weight 1", with(p, func(c *hybridConfig) { c.Fusion = "rrf"; c.DenseWeight = 1 })},
		{"product, min-max, dense weight 1", with(p, func(c *hybridConfig) { c.DenseWeight = 1 })},
		{"product, embedder without neighbours", with(p, func(c *hybridConfig) { c.DenseWindow = 0 })},
		{"product, embedder d256", with(p, func(c *hybridConfig) { c.Dimension = 256 })},
		{"product, embedder d1024", with(p, func(c *hybridConfig) { c.Dimension = 1024 })},
		{"product, embedder without character n-grams", with(p, func(c *hybridConfig) { c.NGramWeight = -1 })},
		{"product, embedder n-gram weight 1", with(p, func(c *hybridConfig) { c.NGramWeight = 1 })},
		{"embedder alone (= product-dense)", with(p, func(c *hybridConfig) { c.DenseOnly = true })},
		{"embedder alone, no neighbours", with(p, func(c *hybridConfig) { c.DenseOnly = true; c.DenseWindow = 0 })},
		{"embedder alone, d256", with(p, func(c *hybridConfig) { c.DenseOnly = true; c.Dimension = 256 })},
		{"embedder alone, d1024", with(p, func(c *hybridConfig) { c.DenseOnly = true; c.Dimension = 1024 })},
		{"embedder alone, without n-grams", with(p, func(c *hybridConfig) { c.DenseOnly = true; c.NGramWeight = -1 })},
		{"embedder alone, n-gram weight 0.25", with(p, func(c *hybridConfig) { c.DenseOnly = true; c.NGramWeight = 0.25 })},
		{"embedder alone, n-gram weight 1", with(p, func(c *hybridConfig) { c.DenseOnly = true; c.NGramWeight = 1 })},
		{"product, neighbours ±1", with(p, func(c *hybridConfig) { c.Window = 1; c.DenseWindow = 1 })},
		{"product, neighbours ±3", with(p, func(c *hybridConfig) { c.Window = 3; c.DenseWindow = 3 })},
		{"product, neighbour weight 0.2", with(p, func(c *hybridConfig) { c.NeighbourWeight = 0.2; c.DenseNeighbourWeight = 0.2 })},
		{"product, neighbour weight 0.3", with(p, func(c *hybridConfig) { c.NeighbourWeight = 0.3; c.DenseNeighbourWeight = 0.3 })},
		{"product, neighbour weight 0.7", with(p, func(c *hybridConfig) { c.NeighbourWeight = 0.7; c.DenseNeighbourWeight = 0.7 })},
		{"product, neighbour weight 1 (plain concatenation)", with(p, func(c *hybridConfig) { c.NeighbourWeight = 1; c.DenseNeighbourWeight = 1 })},
		{"product, speaker boost 1.0", with(p, func(c *hybridConfig) { c.SpeakerBoost = 1 })},
		{"product, no speaker boost", with(p, func(c *hybridConfig) { c.SpeakerBoost = 0 })},
		{"product, speaker names left out of the text", with(p, func(c *hybridConfig) { c.NoSpeaker = true })},
		{"product, no session date in the text", with(p, func(c *hybridConfig) { c.AppendDate = false })},
		{"product + session prior 0.3", with(p, func(c *hybridConfig) { c.SessionWeight = 0.3 })},
		{"product + pseudo-relevance feedback (5 docs, 10 terms, 0.3)", with(p, func(c *hybridConfig) { c.PRFDocs, c.PRFTerms, c.PRFWeight = 5, 10, 0.3 })},
		{"product, BM25 k1 0.9 b 0.4", with(p, func(c *hybridConfig) { c.BM25 = ranking.BM25{K1: 0.9, B: 0.4} })},
		{"product, BM25 k1 1.5 b 0.75", with(p, func(c *hybridConfig) { c.BM25 = ranking.BM25{K1: 1.5, B: 0.75} })},
		{"product, BM25 k1 1.2 b 0.5", with(p, func(c *hybridConfig) { c.BM25 = ranking.BM25{K1: 1.2, B: 0.5} })},
		{"product, BM25 k1 1.2 b 0.9", with(p, func(c *hybridConfig) { c.BM25 = ranking.BM25{K1: 1.2, B: 0.9} })},
	}
}

func runAblation(ctx context.Context, convs []Conversation, ks []int, workers int) error {
	fmt.Printf("| variant |")
	for _, k := range ks {
		fmt.Printf(" recall@%d |", k)
	}
	fmt.Printf(" hit@10 |\n|---|")
	for range ks {
		fmt.Printf("---:|")
	}
	fmt.Printf("---:|\n")
	for _, v := range ablationVariants() {
		rep, err := evaluate(ctx, newHybrid(v.cfg), convs, ks, workers)
		if err != nil {
			return err
		}
		fmt.Printf("| %s |", v.name)
		for _, k := range ks {
			fmt.Printf(" %.3f |", rep.Overall.R(k))
		}
		fmt.Printf(" %.3f |\n", rep.Overall.H(10))
	}
	return nil
}
