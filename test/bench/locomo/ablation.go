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

func ablationVariants() []variant {
	p := productConfig
	p.Window, p.NeighbourWeight = 2, 0.3
	p.DenseWindow, p.DenseNeighbourWeight = 2, 0.3
	lex := with(p, func(c *hybridConfig) { c.Dense = false })
	return []variant{
		{"lex ±2 @0.3", lex},
		{"lex speaker boost 0.2", with(lex, func(c *hybridConfig) { c.SpeakerBoost = 0.2 })},
		{"lex speaker boost 0.5", with(lex, func(c *hybridConfig) { c.SpeakerBoost = 0.5 })},
		{"lex no speaker", with(lex, func(c *hybridConfig) { c.NoSpeaker = true })},
		{"lex session 0.1", with(lex, func(c *hybridConfig) { c.SessionWeight = 0.1 })},
		{"lex session 0.3", with(lex, func(c *hybridConfig) { c.SessionWeight = 0.3 })},
		{"lex k1 0.9 b 0.4", with(lex, func(c *hybridConfig) { c.BM25 = ranking.BM25{K1: 0.9, B: 0.4} })},
		{"lex k1 1.5 b 0.75", with(lex, func(c *hybridConfig) { c.BM25 = ranking.BM25{K1: 1.5, B: 0.75} })},
		{"lex k1 1.2 b 0.5", with(lex, func(c *hybridConfig) { c.BM25 = ranking.BM25{K1: 1.2, B: 0.5} })},
		{"lex k1 1.2 b 0.9", with(lex, func(c *hybridConfig) { c.BM25 = ranking.BM25{K1: 1.2, B: 0.9} })},
		{"dense only ±5 @0.3", with(p, func(c *hybridConfig) { c.DenseOnly = true; c.DenseWindow = 5 })},
		{"rrf dw0.3 dense ±5", with(p, func(c *hybridConfig) { c.DenseWeight = 0.3; c.DenseWindow = 5 })},
		{"rrf dw0.3 d1024", with(p, func(c *hybridConfig) { c.DenseWeight = 0.3; c.Dimension = 1024 })},
		{"minmax dw0.3 d1024", with(p, func(c *hybridConfig) { c.Fusion = "minmax"; c.DenseWeight = 0.3; c.Dimension = 1024 })},
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

func runGeneralisation(ctx context.Context, convs []Conversation, ks []int, workers int) error {
	return nil
}
