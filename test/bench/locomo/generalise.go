package main

import (
	"context"
	"fmt"
	"strings"

	"engram/app/retrieval"
)

// tuningGrid is every configuration a tuner could pick from: neighbour window and
// weight, speaker boost, fusion and dense weight. The product's values are in it.
func tuningGrid() []variant {
	var out []variant
	for _, window := range []int{0, 1, 2, 3} {
		for _, nw := range []float64{0.2, 0.3, 0.5} {
			if window == 0 && nw != 0.3 {
				continue
			}
			for _, sb := range []float64{0, 0.5, 1} {
				for _, fusion := range []string{"minmax", "rrf"} {
					for _, dw := range []float64{0.3, 1} {
						cfg := with(productConfig, func(c *hybridConfig) {
							c.Window, c.DenseWindow = window, window
							c.NeighbourWeight, c.DenseNeighbourWeight = nw, nw
							c.SpeakerBoost = sb
							c.Fusion, c.DenseWeight = fusion, dw
						})
						out = append(out, variant{fmt.Sprintf("±%d@%.1f sb%.1f %s dw%.1f", window, nw, sb, fusion, dw), cfg})
					}
				}
			}
		}
	}
	return out
}

// candidate is one configuration a tuner could pick, as a retriever.
type candidate struct {
	name string
	new  func() Retriever
}

// runGeneralisation checks that the relevance core's settings were not fitted to
// these conversations (the component method's grid).
func runGeneralisation(ctx context.Context, convs []Conversation, ks []int, workers int) error {
	var grid []candidate
	for _, v := range tuningGrid() {
		grid = append(grid, candidate{v.name, newHybrid(v.cfg)})
	}
	fmt.Printf("Tuning grid: %d configurations (neighbour window 0-3, weight 0.2/0.3/0.5, speaker boost 0/0.5/1, fusion min-max/RRF, dense weight 0.3/1); selection by recall@10.\n\n", len(grid))
	return generalise(ctx, convs, ks, workers, grid, newHybrid(productConfig))
}

// appTuningGrid is every calibration a tuner could pick for the app: context
// discount, term saturation, speaker lift and the local embedder's dense weight.
// The product's values are in it.
func appTuningGrid() []candidate {
	var out []candidate
	for _, cd := range []float64{0.6, 0.8, 1} {
		for _, sat := range []float64{0.1, 0.3, 1} {
			for _, sb := range []float64{0.5, 1} {
				for _, dw := range []float64{0, 0.05, 0.2} {
					c := productAppConfig
					c.ContextDiscount, c.Saturation, c.SpeakerBoost, c.Dense.Weight = cd, sat, sb, dw
					out = append(out, candidate{fmt.Sprintf("cd%.1f sat%.1f sb%.1f dw%.2f", cd, sat, sb, dw), newConfiguredApp(retrieval.ModeAuto, c)})
				}
			}
		}
	}
	return out
}

// runAppGeneralisation is runGeneralisation for the app's calibration (mode auto).
func runAppGeneralisation(ctx context.Context, convs []Conversation, ks []int, workers int) error {
	grid := appTuningGrid()
	fmt.Printf("Tuning grid of the app's calibration, mode auto: %d configurations (context discount 0.6/0.8/1, term saturation 0.1/0.3/1, speaker lift 0.5/1, dense weight 0/0.05/0.2); selection by recall@10.\n\n", len(grid))
	return generalise(ctx, convs, ks, workers, grid, newConfiguredApp(retrieval.ModeAuto, productAppConfig))
}

// generalise (1) leaves one conversation out — for each conversation, the grid
// configuration that is best on the other six is scored on it; (2) splits — tuned
// on the first three conversations, scored on the other four.
func generalise(ctx context.Context, convs []Conversation, ks []int, workers int, grid []candidate, productMethod func() Retriever) error {
	reports := make([]*Report, len(grid))
	for i, v := range grid {
		rep, err := evaluate(ctx, v.new, convs, ks, workers)
		if err != nil {
			return err
		}
		reports[i] = rep
	}
	product, err := evaluate(ctx, productMethod, convs, ks, workers)
	if err != nil {
		return err
	}
	baseline, err := evaluate(ctx, newBaselineBM25, convs, ks, workers)
	if err != nil {
		return err
	}
	ids := make([]string, len(convs))
	for i, c := range convs {
		ids[i] = c.ID
	}
	best := func(on []string) int {
		bi, bv := 0, -1.0
		for i, rep := range reports {
			t := sum(rep, on)
			if v := t.R(10); v > bv {
				bi, bv = i, v
			}
		}
		return bi
	}

	fmt.Println("#### Leave one conversation out")
	fmt.Println()
	fmt.Println("| held out | questions | config tuned on the other six | tuned: recall@10 | product: recall@10 | baseline: recall@10 |")
	fmt.Println("|---|---:|---|---:|---:|---:|")
	loo := newTally()
	for _, held := range ids {
		var rest []string
		for _, id := range ids {
			if id != held {
				rest = append(rest, id)
			}
		}
		bi := best(rest)
		t := reports[bi].ByConv[held]
		loo.add(t)
		fmt.Printf("| %s | %d | %s | %.3f | %.3f | %.3f |\n", held, t.N, grid[bi].name, t.R(10), product.ByConv[held].R(10), baseline.ByConv[held].R(10))
	}
	fmt.Printf("| **all** | %d | | %s | %s | %s |\n\n", loo.N, rs(loo, ks), rs(product.Overall, ks), rs(baseline.Overall, ks))
	fmt.Printf("(all: recall@%s)\n\n", joinInts(ks, " / "))

	train, test := ids[:3], ids[3:]
	bi := best(train)
	fmt.Printf("#### Fixed split: tuned on %s, scored on %s\n\n", strings.Join(train, ", "), strings.Join(test, ", "))
	fmt.Printf("| method | recall@%s on the test conversations | hit@10 |\n|---|---:|---:|\n", joinInts(ks, "/"))
	for _, row := range []struct {
		name string
		rep  *Report
	}{
		{"tuned on the train conversations: " + grid[bi].name, reports[bi]},
		{"product (general choice)", product},
		{"baseline", baseline},
	} {
		t := sum(row.rep, test)
		fmt.Printf("| %s | %s | %.3f |\n", row.name, rs(t, ks), t.H(10))
	}
	oracle := best(ids)
	fmt.Printf("\nBest grid configuration on all seven (an upper bound, fitted): %s, recall@%s %s.\n",
		grid[oracle].name, joinInts(ks, "/"), rs(reports[oracle].Overall, ks))
	return nil
}

func sum(rep *Report, convs []string) *Tally {
	t := newTally()
	for _, id := range convs {
		t.add(rep.ByConv[id])
	}
	return t
}

func rs(t *Tally, ks []int) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%.3f", t.R(k))
	}
	return strings.Join(parts, " / ")
}

func joinInts(ks []int, sep string) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = fmt.Sprint(k)
	}
	return strings.Join(s, sep)
}
