package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"engram/adapters/llm"
	"engram/adapters/localembed"
	"engram/adapters/textanalysis"
	"engram/domain/conversation"
	"engram/domain/ranking"
)

// -calibrate-dense measures the cosine distribution of an embedder for related
// and unrelated pairs, the way search sees them, and suggests the dense scale
// (the floor under which a cosine is no evidence, the cosine of full evidence):
//
//   - LoCoMo: each question against the stored vectors (the turn's text, mixed
//     with its ±2 neighbours as the indexer does) of its evidence turns (related),
//     of random turns of other conversations (unrelated), and of random other
//     turns of its own conversation (mostly unrelated);
//   - MemoryBank (English and Chinese): each user's query against the answer it
//     got (related) and against a random answer given to another user
//     (unrelated).
//
// The local embedder is the default; a remote one is measured with the same flags
// as the server's settings (-embedder openai -embedding-model … -embedding-dim …,
// MEMORY_EMBEDDING_API_BASE and MEMORY_EMBEDDING_API_KEY from the environment).
var (
	calibrateDense = flag.Bool("calibrate-dense", false, "print the embedder's cosine distribution for related and unrelated pairs and the suggested dense scale, instead")
	memoryBankDir  = flag.String("memorybank", "../shared/datasets/memorybank", "MemoryBank directory (memory_bank_en.json, memory_bank_cn.json) for -calibrate-dense")
	embedderName   = flag.String("embedder", "local", "embedder of -calibrate-dense: local, openai or ollama")
	embeddingModel = flag.String("embedding-model", "text-embedding-3-small", "model of a remote embedder")
	embeddingDim   = flag.Int("embedding-dim", 1536, "dimension of a remote embedder")
	maxPairs       = flag.Int("max-pairs", 3000, "pairs per set at most (a remote embedder is paid per text)")
)

type embedFunc func(ctx context.Context, texts []string) ([][]float32, error)

func calibrationEmbedder() (embedFunc, string, error) {
	if *embedderName == "local" {
		e, err := localembed.New(localembed.Options{Analyzer: textanalysis.New(textanalysis.Options{})})
		if err != nil {
			return nil, "", err
		}
		return e.Embed, e.Model(), nil
	}
	e, err := llm.NewEmbedder(llm.EmbedderOptions{
		Provider: llm.Provider(*embedderName), Model: *embeddingModel, Dimension: *embeddingDim,
		BaseURL: os.Getenv("MEMORY_EMBEDDING_API_BASE"), APIKey: os.Getenv("MEMORY_EMBEDDING_API_KEY"),
	})
	if err != nil {
		return nil, "", err
	}
	return e.Embed, e.Model(), nil
}

// pairSet is the cosines of one kind of pair.
type pairSet struct {
	name    string
	related bool
	cosines []float64
}

func runDenseCalibration(ctx context.Context, convs []Conversation) error {
	embed, model, err := calibrationEmbedder()
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(7, 11))
	sets, err := locomoPairs(ctx, embed, convs, rng)
	if err != nil {
		return err
	}
	for _, lang := range []string{"en", "cn"} {
		mb, err := memoryBankPairs(ctx, embed, filepath.Join(*memoryBankDir, "memory_bank_"+lang+".json"), lang, rng)
		if err != nil {
			return err
		}
		sets = append(sets, mb...)
	}
	fmt.Printf("Embedder %s: cosine of query and stored vector\n\n", model)
	fmt.Println("| pairs | related | n | p1 | p5 | p10 | p25 | p50 | p75 | p90 | p95 | p99 | max |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var unrelated99, related95 []float64
	for _, s := range sets {
		sort.Float64s(s.cosines)
		q := func(p float64) float64 { return quantile(s.cosines, p) }
		fmt.Printf("| %s | %v | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", s.name, s.related, len(s.cosines),
			q(0.01), q(0.05), q(0.10), q(0.25), q(0.50), q(0.75), q(0.90), q(0.95), q(0.99), q(1))
		if s.related {
			related95 = append(related95, q(0.95))
		} else if !strings.Contains(s.name, "same conversation") {
			unrelated99 = append(unrelated99, q(0.99))
		}
	}
	fmt.Printf("\nSuggested dense scale (to the nearest 0.05): min_cosine %.2f, the highest 99th percentile of the unrelated sets "+
		"(about 1 unrelated pair in 100 shows any dense evidence); full_cosine %.2f, the highest 95th percentile of the related sets. "+
		"dense_weight is not a property of pairs: 1 for a semantic model, less for one that only matches words (docs/BENCHMARKS.md).\n",
		roundTo(maxOf(unrelated99), 0.05), roundTo(maxOf(related95), 0.05))
	return nil
}

func roundTo(x, step float64) float64 { return math.Round(x/step) * step }

func quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Round(p * float64(len(sorted)-1)))
	return sorted[i]
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// storedVectors embeds every turn of a conversation as the indexer does: its
// IndexText, mixed with its neighbours of the same session.
func storedVectors(ctx context.Context, embed embedFunc, c Conversation) (map[string][]float32, []string, error) {
	out := map[string][]float32{}
	var ids []string
	for _, session := range bySession(c.Turns) {
		texts := make([]string, len(session))
		for i, t := range session {
			texts[i] = conversation.Message{Name: t.Speaker, Content: t.Content, CreatedAt: t.At}.IndexText()
		}
		vecs, err := embedAll(ctx, embed, texts)
		if err != nil {
			return nil, nil, err
		}
		mixed := ranking.ContextVectors(vecs, ranking.DefaultRecipe.NeighbourWindow, ranking.DefaultRecipe.NeighbourWeight)
		for i, t := range session {
			out[t.ID] = mixed[i]
			ids = append(ids, t.ID)
		}
	}
	return out, ids, nil
}

func embedAll(ctx context.Context, embed embedFunc, texts []string) ([][]float32, error) {
	var out [][]float32
	for start := 0; start < len(texts); start += 256 {
		v, err := embed(ctx, texts[start:min(start+256, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, v...)
	}
	return out, nil
}

func locomoPairs(ctx context.Context, embed embedFunc, convs []Conversation, rng *rand.Rand) ([]pairSet, error) {
	related := pairSet{name: "LoCoMo question, evidence turn", related: true}
	same := pairSet{name: "LoCoMo question, other turn of the same conversation"}
	cross := pairSet{name: "LoCoMo question, turn of another conversation"}
	stored := make([]map[string][]float32, len(convs))
	ids := make([][]string, len(convs))
	for i, c := range convs {
		var err error
		if stored[i], ids[i], err = storedVectors(ctx, embed, c); err != nil {
			return nil, err
		}
	}
	for i, c := range convs {
		texts := make([]string, 0, len(c.Questions))
		for _, q := range c.Questions {
			texts = append(texts, q.Text)
		}
		qvecs, err := embedAll(ctx, embed, texts)
		if err != nil {
			return nil, err
		}
		for qi, q := range c.Questions {
			evidence := map[string]bool{}
			for _, id := range q.Evidence {
				evidence[id] = true
				related.cosines = append(related.cosines, ranking.Cosine(qvecs[qi], stored[i][id]))
			}
			for range 3 {
				if id := ids[i][rng.IntN(len(ids[i]))]; !evidence[id] {
					same.cosines = append(same.cosines, ranking.Cosine(qvecs[qi], stored[i][id]))
				}
				other := (i + 1 + rng.IntN(len(convs)-1)) % len(convs)
				cross.cosines = append(cross.cosines, ranking.Cosine(qvecs[qi], stored[other][ids[other][rng.IntN(len(ids[other]))]]))
			}
		}
	}
	return []pairSet{capped(related, rng), capped(same, rng), capped(cross, rng)}, nil
}

// memoryBank is one MemoryBank file: user → day → exchanges.
type memoryBank map[string]struct {
	History map[string][]struct {
		Query    string `json:"query"`
		Response string `json:"response"`
	} `json:"history"`
}

func loadMemoryBank(path string) (memoryBank, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var users memoryBank
	if err := json.Unmarshal(data, &users); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return users, nil
}

func memoryBankPairs(ctx context.Context, embed embedFunc, path, lang string, rng *rand.Rand) ([]pairSet, error) {
	users, err := loadMemoryBank(path)
	if err != nil {
		return nil, err
	}
	type exchange struct{ user, query, response string }
	var all []exchange
	names := make([]string, 0, len(users))
	for name := range users {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		days := make([]string, 0, len(users[name].History))
		for day := range users[name].History {
			days = append(days, day)
		}
		sort.Strings(days)
		for _, day := range days {
			for _, ex := range users[name].History[day] {
				if strings.TrimSpace(ex.Query) != "" && strings.TrimSpace(ex.Response) != "" {
					all = append(all, exchange{name, ex.Query, ex.Response})
				}
			}
		}
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	all = all[:min(len(all), *maxPairs)]
	texts := make([]string, 0, 2*len(all))
	for _, ex := range all {
		texts = append(texts, ex.query, ex.response)
	}
	vecs, err := embedAll(ctx, embed, texts)
	if err != nil {
		return nil, err
	}
	related := pairSet{name: "MemoryBank " + lang + " query, its answer", related: true}
	cross := pairSet{name: "MemoryBank " + lang + " query, another user's answer"}
	for i, ex := range all {
		related.cosines = append(related.cosines, ranking.Cosine(vecs[2*i], vecs[2*i+1]))
		for tries := 0; tries < 10; tries++ {
			if j := rng.IntN(len(all)); all[j].user != ex.user {
				cross.cosines = append(cross.cosines, ranking.Cosine(vecs[2*i], vecs[2*j+1]))
				break
			}
		}
	}
	return []pairSet{related, cross}, nil
}

// capped keeps at most -max-pairs cosines of a set, drawn at random.
func capped(s pairSet, rng *rand.Rand) pairSet {
	if len(s.cosines) > *maxPairs {
		rng.Shuffle(len(s.cosines), func(i, j int) { s.cosines[i], s.cosines[j] = s.cosines[j], s.cosines[i] })
		s.cosines = s.cosines[:*maxPairs]
	}
	return s
}
