// Command locomo measures retrieval quality on the LoCoMo benchmark with the protocol
// of ../shared/datasets/README.md: every turn of one conversation is a document of
// one user, each category 1–4 question whose evidence resolves is asked, and
// recall@k and hit@k are reported per category and overall.
//
//	go run ./test/bench/locomo                  # baseline and product method
//	go run ./test/bench/locomo -method product  # one method
//	go run ./test/bench/locomo -ablation        # the ablation table
//	go run ./test/bench/locomo -generalise      # leave-one-conversation-out and a fixed split
//	go run ./test/bench/locomo -generalise-app  # the same for the app's calibration
//	go run ./test/bench/locomo -calibrate-dense # the embedder's cosines, related and unrelated
//	go run ./test/bench/locomo -calibrate-scores # what each min_score keeps
//
// A method is anything that implements Retriever (retriever.go) and is listed in
// methods (methods.go). The methods here are built from the relevance core
// (adapters/textanalysis, adapters/localembed, domain/ranking); to check the app,
// add a Retriever that ingests the turns through the app's use cases (one user, one
// conversation per session, the speaker as the message's name, the turn's time as
// its time) and searches through the retrieval use case, then run it with -method.
// docs/BENCHMARKS.md holds the results and what they mean.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "locomo:", err)
		os.Exit(1)
	}
}

func run() error {
	defer cleanupApp() // app.go: the app methods' temporary databases
	var (
		dataPath   = flag.String("data", "../shared/datasets/locomo/locomo_dev.json", "LoCoMo JSON file (data/locomo10.json of snap-research/LoCoMo, or a split of it; not in this repository), relative to the working directory")
		kList      = flag.String("k", "5,10,20", "comma-separated k values for recall@k")
		method     = flag.String("method", "baseline,product", "comma-separated methods: "+strings.Join(methodNames(), ", "))
		ablation   = flag.Bool("ablation", false, "print the ablation table instead")
		generalise = flag.Bool("generalise", false, "print leave-one-conversation-out and fixed-split results instead")
		genApp     = flag.Bool("generalise-app", false, "the same for the app's calibration (mode auto)")
		workers    = flag.Int("workers", 2, "conversations evaluated in parallel")
	)
	flag.Parse()
	ks, err := parseKs(*kList)
	if err != nil {
		return err
	}
	if appFlagConfig, err = parseAppConfig(*appConfigFlag); err != nil {
		return err
	}
	convs, err := loadLoCoMo(*dataPath)
	if err != nil {
		return err
	}
	ctx := context.Background()
	questions := 0
	for _, c := range convs {
		questions += len(c.Questions)
	}
	fmt.Printf("LoCoMo: %d conversations, %d questions (categories 1-4, evidence resolved)\n\n", len(convs), questions)
	hitK := 10
	switch {
	case *ablation:
		return runAblation(ctx, convs, ks, *workers)
	case *generalise:
		return runGeneralisation(ctx, convs, ks, *workers)
	case *genApp:
		return runAppGeneralisation(ctx, convs, ks, *workers)
	case *calibrateDense:
		return runDenseCalibration(ctx, convs)
	case *calibrateScores:
		return runScoreCalibration(ctx, convs)
	}
	for _, name := range strings.Split(*method, ",") {
		m, ok := methods[strings.TrimSpace(name)]
		if !ok {
			return fmt.Errorf("unknown method %q (have %s)", name, strings.Join(methodNames(), ", "))
		}
		start := time.Now()
		rep, err := evaluate(ctx, m.new, convs, ks, *workers)
		if err != nil {
			return err
		}
		fmt.Printf("### %s — %s (%.1fs)\n\n%s\n", name, m.about, time.Since(start).Seconds(), rep.table(ks, hitK))
	}
	return nil
}

func parseKs(s string) ([]int, error) {
	var ks []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k <= 0 {
			return nil, fmt.Errorf("-k: %q is not a positive number", f)
		}
		ks = append(ks, k)
	}
	return ks, nil
}
