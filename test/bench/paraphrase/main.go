package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"
)

func main() {
	data := flag.String("data", "test/bench/paraphrase/testdata/paraphrases.tsv", "the labelled set")
	split := flag.String("split", "test", "tune, test or all")
	misses := flag.Bool("misses", false, "list the questions whose memory was not in the top 5")
	flag.Parse()
	if err := run(*data, *split, *misses); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(data, split string, misses bool) error {
	ctx := context.Background()
	set, err := Load(data)
	if err != nil {
		return err
	}
	qs := set.Questions
	if split != "all" {
		qs = set.Of(split)
	}
	fmt.Printf("%d memories, %d questions (%s half: %d)\n\n", len(set.Memories), len(set.Questions), split, len(qs))
	fmt.Println("| search | en | zh | cross-lingual | all | p50 | p95 |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|")
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"without the lexicon", Config{}}, {"with the lexicon", Config{Expand: true}}} {
		rig, err := NewRig(ctx, set, c.cfg)
		if err != nil {
			return err
		}
		if rig.expander != nil {
			t0 := time.Now()
			if err := rig.expander.Load(); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "lexicon loaded in %s\n", time.Since(t0).Round(time.Millisecond))
		}
		if _, err := rig.Ask(ctx, qs, c.cfg); err != nil { // warm the indexes
			return err
		}
		var lat []time.Duration
		var outs []Outcome
		for _, q := range qs {
			t0 := time.Now()
			o, err := rig.Ask(ctx, []Question{q}, c.cfg)
			if err != nil {
				return err
			}
			lat = append(lat, time.Since(t0))
			outs = append(outs, o...)
		}
		slices.Sort(lat)
		r := Recall(outs)
		fmt.Printf("| %s | %.3f | %.3f | %.3f | %.3f | %s | %s |\n", c.name, r["en"], r["zh"], r["x"], r["all"],
			lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*95/100].Round(time.Microsecond))
		if misses && c.cfg.Expand {
			for _, o := range outs {
				if o.Rank == 0 {
					fmt.Printf("  miss %s %s: %s\n", o.Lang, o.Memory, o.Text)
				}
			}
		}
	}
	return nil
}
