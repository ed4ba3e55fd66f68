package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"engram/adapters/lexicon"
	"engram/adapters/sqlstore"
	"engram/app/retrieval"
)

func main() {
	data := flag.String("data", "test/bench/paraphrase/testdata/paraphrases.tsv", "the labelled set")
	split := flag.String("split", "test", "tune, test or all")
	misses := flag.Bool("misses", false, "list the questions whose memory was not in the top 5")
	weights := flag.String("weights", "", "the lexicon's weights instead of its defaults: syn=0.6,der=0.6,broad=0.35,n1=0.5,n2=0.4,n3=0.3,tr=0.6,pivot=0.45,char=0.35,intent=0.55,decay=0.8 (any subset)")
	minScore := flag.Float64("min-score", -1, "min_score of every search; negative: the product's")
	flag.Parse()
	if *minScore >= 0 {
		minScoreFlag = minScore
	}
	w, err := parseWeights(*weights)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := run(*data, *split, *misses, w); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

var minScoreFlag *float64

// openDB opens a migrated SQLite file in a new temporary directory; done closes
// it and removes the directory.
func openDB(ctx context.Context) (db *sqlstore.DB, done func(), err error) {
	dir, err := os.MkdirTemp("", "engram-paraphrase-")
	if err != nil {
		return nil, nil, err
	}
	if db, err = sqlstore.Open(ctx, sqlstore.Options{DataDir: dir}); err != nil {
		_ = os.RemoveAll(dir)
		return nil, nil, err
	}
	done = func() { _ = db.Close(); _ = os.RemoveAll(dir) }
	if err := db.Migrate(ctx); err != nil {
		done()
		return nil, nil, err
	}
	return db, done, nil
}

func run(data, split string, misses bool, w lexicon.Weights) error {
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
	configs := []struct {
		name string
		cfg  Config
	}{{"without the lexicon", Config{}}, {"with the lexicon", Config{Expand: true, Weights: w}}}
	for i := range configs {
		configs[i].cfg.MinScore = minScoreFlag
	}
	for _, c := range configs {
		db, closeDB, err := openDB(ctx)
		if err != nil {
			return err
		}
		defer closeDB()
		rig, err := NewRig(ctx, db, set, c.cfg)
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
					why(ctx, rig, set, o)
				}
			}
		}
	}
	return nil
}

// parseWeights reads -weights over lexicon.DefaultWeights.
func parseWeights(s string) (lexicon.Weights, error) {
	w := lexicon.DefaultWeights
	w.Narrower = slices.Clone(w.Narrower)
	if strings.TrimSpace(s) == "" {
		return w, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		f, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil {
			return w, fmt.Errorf("-weights: %q is not name=number", kv)
		}
		switch k {
		case "syn":
			w.Synonym = f
		case "der":
			w.Derived = f
		case "broad":
			w.Broader = f
		case "n1", "n2", "n3":
			w.Narrower[k[1]-'1'] = f
		case "tr":
			w.Translation = f
		case "pivot":
			w.Pivot = f
		case "char":
			w.Character = f
		case "intent":
			w.Intent = f
		case "decay":
			w.SenseDecay = f
		default:
			return w, fmt.Errorf("-weights: unknown weight %q", k)
		}
	}
	return w, nil
}

// why prints, for a missed question, the terms of its memory that the question
// reaches and what it found instead.
func why(ctx context.Context, rig *Rig, set Set, o Outcome) {
	var text string
	for _, m := range set.Memories {
		if m.ID == o.Memory {
			text = m.Key + " " + m.Content
		}
	}
	mine := map[string]bool{}
	for _, t := range rig.analyzer.Terms(text) {
		mine[t] = true
	}
	terms, related := rig.expander.Expand(o.Text)
	var reach []string
	for _, r := range related {
		if mine[r.Term] {
			reach = append(reach, fmt.Sprintf("%s→%s %.2f", r.Of, r.Term, r.Weight))
		}
	}
	zero := 0.0
	res, _ := rig.search.Search(ctx, retrieval.Search{Scope: rig.scope, Query: o.Text, Limit: 3, MinScore: &zero})
	var top []string
	for _, it := range res.Items {
		top = append(top, fmt.Sprintf("%s %.3f", rig.ids[it.Memory.ID()], it.Score))
	}
	fmt.Printf("    terms %v; reaches %v; top %v\n", terms, reach, top)
}
