package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"engram/app/retrieval"
)

// -calibrate-scores measures what a min_score costs and buys, through the app
// (mode auto) with the product's calibration and no min_score:
//
//   - LoCoMo recall@10 and hit@10 when items below each threshold are dropped;
//   - LoCoMo questions asked of another conversation's user (related words, none
//     of the facts): how often each threshold leaves them with no item;
//   - MemoryBank probing questions (English and Chinese) asked of their own user
//     (about what the user told) and of another user: how often an item is left.
var calibrateScores = flag.Bool("calibrate-scores", false, "print what each min_score keeps of LoCoMo's evidence and of unrelated users' answers, instead")

var scoreThresholds = []float64{0, 0.05, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4}

type scoredID struct {
	id    string
	score float64
}

// searchScored asks the app's search with min_score 0 and returns the items with
// their scores; a query with nothing to embed answers lexically.
func (a *appRetriever) searchScored(ctx context.Context, question string, k int) ([]scoredID, error) {
	zero := 0.0
	res, err := a.search.Search(ctx, retrieval.Search{
		Scope: a.scope, Query: question, Within: retrieval.WithinMessages, Mode: string(a.mode), Limit: min(k, retrieval.MaxLimit), MinScore: &zero,
	})
	if err != nil {
		return nil, err
	}
	if res.FallbackReason != "" && res.FallbackReason != retrieval.FallbackNoEmbeddableText {
		return nil, fmt.Errorf("search fell back to lexical: %s", res.FallbackReason)
	}
	out := make([]scoredID, len(res.Items))
	for i, it := range res.Items {
		out[i] = scoredID{it.Message.ID, it.Score}
	}
	return out, nil
}

func newScoringApp() *appRetriever {
	c := appFlagConfig
	c.MinScore = 0
	return newConfiguredApp(retrieval.ModeAuto, c)().(*appRetriever)
}

func runScoreCalibration(ctx context.Context, convs []Conversation) error {
	if err := locomoScores(ctx, convs); err != nil {
		return err
	}
	for _, lang := range []string{"en", "cn"} {
		if err := memoryBankScores(ctx, lang); err != nil {
			return err
		}
	}
	return nil
}

func locomoScores(ctx context.Context, convs []Conversation) error {
	recall := make([]float64, len(scoreThresholds))
	hit := make([]float64, len(scoreThresholds))
	emptyCross := make([]int, len(scoreThresholds))
	var evidenceScores, otherScores, crossTop []float64
	questions, cross := 0, 0
	for ci, c := range convs {
		app := newScoringApp()
		if err := app.Index(ctx, c.Turns); err != nil {
			return err
		}
		for _, q := range c.Questions {
			items, err := app.searchScored(ctx, q.Text, 20)
			if err != nil {
				return err
			}
			questions++
			evidence := map[string]bool{}
			for _, e := range q.Evidence {
				evidence[e] = true
			}
			for i, it := range items {
				if evidence[it.id] && i < 10 {
					evidenceScores = append(evidenceScores, it.score)
				} else if !evidence[it.id] && i == 0 {
					otherScores = append(otherScores, it.score)
				}
			}
			for ti, th := range scoreThresholds {
				found := 0
				for i, it := range items {
					if i < 10 && it.score >= th && evidence[it.id] {
						found++
					}
				}
				recall[ti] += float64(found) / float64(len(q.Evidence))
				if found > 0 {
					hit[ti]++
				}
			}
		}
		// Questions of the other conversations: their people, places and facts are
		// not this user's.
		for oi, o := range convs {
			if oi == ci {
				continue
			}
			for qi, q := range o.Questions {
				if qi%4 != 0 { // a quarter of them is enough
					continue
				}
				items, err := app.searchScored(ctx, q.Text, 1)
				if err != nil {
					return err
				}
				cross++
				top := 0.0
				if len(items) > 0 {
					top = items[0].score
				}
				crossTop = append(crossTop, top)
				for ti, th := range scoreThresholds {
					if top < th || top == 0 {
						emptyCross[ti]++
					}
				}
			}
		}
		app.cleanup()
	}
	fmt.Printf("LoCoMo, mode auto, scope messages: %d questions of their own conversation, %d of another one\n\n", questions, cross)
	fmt.Println("| min_score | recall@10 | hit@10 | questions of another conversation left with no item |")
	fmt.Println("|---:|---:|---:|---:|")
	for ti, th := range scoreThresholds {
		fmt.Printf("| %.2f | %.3f | %.3f | %.1f%% |\n", th, recall[ti]/float64(questions), hit[ti]/float64(questions), 100*float64(emptyCross[ti])/float64(cross))
	}
	fmt.Println()
	fmt.Println("| scores | n | p5 | p10 | p25 | p50 | p75 | p90 |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, row := range []struct {
		name string
		xs   []float64
	}{
		{"evidence found in the top 10", evidenceScores},
		{"first item when it is not evidence", otherScores},
		{"first item for a question of another conversation", crossTop},
	} {
		printQuantiles(row.name, row.xs)
	}
	fmt.Println()
	return nil
}

func printQuantiles(name string, xs []float64) {
	sort.Float64s(xs)
	q := func(p float64) float64 { return quantile(xs, p) }
	fmt.Printf("| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", name, len(xs), q(0.05), q(0.10), q(0.25), q(0.5), q(0.75), q(0.9))
}

// memoryBankScores ingests each MemoryBank user's history as their messages (one
// conversation per day: the user's query, then the answer) and asks the probing
// questions of that user and of the next one.
func memoryBankScores(ctx context.Context, lang string) error {
	path := filepath.Join(*memoryBankDir, "memory_bank_"+lang+".json")
	users, err := loadMemoryBank(path)
	if err != nil {
		return err
	}
	probes, err := probingQuestions(filepath.Join(*memoryBankDir, "probing_questions_"+lang+".jsonl"))
	if err != nil {
		return err
	}
	var names []string
	for name := range users {
		if len(probes[name]) > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	apps := map[string]*appRetriever{}
	for _, name := range names {
		var turns []Turn
		days := make([]string, 0, len(users[name].History))
		for day := range users[name].History {
			days = append(days, day)
		}
		sort.Strings(days)
		for si, day := range days {
			at, err := time.Parse("2006-01-02", day)
			if err != nil {
				return fmt.Errorf("%s: day %q: %w", path, day, err)
			}
			for ei, ex := range users[name].History[day] {
				for ri, text := range []string{ex.Query, ex.Response} {
					if strings.TrimSpace(text) == "" {
						continue
					}
					speaker := []string{name, "AI"}[ri]
					turns = append(turns, Turn{ID: fmt.Sprintf("%s-%d-%d-%d", name, si, ei, ri), Session: si, Speaker: speaker, Content: text,
						At: at.Add(time.Duration(2*ei+ri) * time.Minute)})
				}
			}
		}
		app := newScoringApp()
		if err := app.Index(ctx, turns); err != nil {
			return err
		}
		apps[name] = app
	}
	own := make([]int, len(scoreThresholds))
	other := make([]int, len(scoreThresholds))
	var ownTop, otherTop []float64
	n := 0
	for i, name := range names {
		next := names[(i+1)%len(names)]
		for _, q := range probes[name] {
			n++
			for who, app := range []*appRetriever{apps[name], apps[next]} {
				items, err := app.searchScored(ctx, q, 1)
				if err != nil {
					return err
				}
				top := 0.0
				if len(items) > 0 {
					top = items[0].score
				}
				counts := own
				if who == 1 {
					counts, otherTop = other, append(otherTop, top)
				} else {
					ownTop = append(ownTop, top)
				}
				for ti, th := range scoreThresholds {
					if top > 0 && top >= th {
						counts[ti]++
					}
				}
			}
		}
	}
	for _, app := range apps {
		app.cleanup()
	}
	fmt.Printf("MemoryBank %s: %d probing questions of %d users, asked of their user and of another\n\n", lang, n, len(names))
	fmt.Println("| min_score | asked of their user: some item left | asked of another user: some item left |")
	fmt.Println("|---:|---:|---:|")
	for ti, th := range scoreThresholds {
		fmt.Printf("| %.2f | %.1f%% | %.1f%% |\n", th, 100*float64(own[ti])/float64(n), 100*float64(other[ti])/float64(n))
	}
	fmt.Println()
	fmt.Println("| first item's score | n | p5 | p10 | p25 | p50 | p75 | p90 |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	printQuantiles("asked of their user", ownTop)
	printQuantiles("asked of another user", otherTop)
	fmt.Println()
	return nil
}

func probingQuestions(path string) (map[string][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var m map[string][]string
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for name, qs := range m {
			out[name] = append(out[name], qs...)
		}
	}
	return out, nil
}
