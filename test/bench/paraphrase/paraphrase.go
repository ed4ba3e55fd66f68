// Command paraphrase measures how often a natural question finds the memory it asks
// for when the two share no content word ("which medicine must I avoid?" →
// "User is allergic to penicillin."), through the product's search use case on
// the offline default (local embedder, lexical search, mode auto, min_score 0.12).
// The set (testdata/paraphrases.tsv) is split by memory into a tuning half and a
// test half: weights are tuned on the first, figures are reported on the second.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	lexicalpkg "engram/adapters/lexical"
	"engram/adapters/lexicon"
	"engram/adapters/localembed"
	"engram/adapters/localvec"
	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/indexing"
	"engram/app/memories"
	"engram/app/retrieval"
	"engram/domain/memory"
)

// Memory is one memory of the set's user.
type Memory struct {
	ID, Split, Type, Key, Content string
}

// Question is a natural question and the memory it asks for.
type Question struct {
	Memory, Lang, Text string
	Split              string // its memory's
}

// Set is the labelled paraphrase set.
type Set struct {
	Memories  []Memory
	Questions []Question
}

// Load reads the set's file.
func Load(path string) (Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return Set{}, err
	}
	defer f.Close()
	var set Set
	split := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		switch {
		case f[0] == "m" && len(f) == 6:
			set.Memories = append(set.Memories, Memory{ID: f[1], Split: f[2], Type: f[3], Key: f[4], Content: f[5]})
			split[f[1]] = f[2]
		case f[0] == "q" && len(f) == 4:
			s, ok := split[f[1]]
			if !ok {
				return Set{}, fmt.Errorf("%s:%d: question for unknown memory %q", path, n, f[1])
			}
			set.Questions = append(set.Questions, Question{Memory: f[1], Lang: f[2], Text: f[3], Split: s})
		default:
			return Set{}, fmt.Errorf("%s:%d: bad record %q", path, n, line)
		}
	}
	return set, sc.Err()
}

// Config is what a run searches with.
type Config struct {
	Expand  bool            // the lexicon's query expansion
	Weights lexicon.Weights // zero: lexicon.DefaultWeights
	Mode    retrieval.Mode  // zero: auto
	K       int             // zero: 5
	// MinScore, when set, replaces the product's min_score.
	MinScore *float64
}

// Outcome is one question's result.
type Outcome struct {
	Question
	Rank int // 1-based rank of its memory, 0 when not in the top K
}

// Rig is one user holding the set's memories, indexed and searchable.
type Rig struct {
	search   *retrieval.Service
	scope    memory.Scope
	ids      map[string]string // memory id → set id
	analyzer *textanalysis.Analyzer
	expander *lexicon.Expander
}

type fixedClock struct{ now time.Time }

func (c fixedClock) Now() time.Time { return c.now }

// NewRig saves the memories through the memories use case into db (migrated,
// empty) and runs the indexer role's passes to completion.
func NewRig(ctx context.Context, db *sqlstore.DB, set Set, c Config) (*Rig, error) {
	clock := fixedClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	analyzer := textanalysis.New(textanalysis.Options{})
	embedder, err := localembed.New(localembed.Options{Analyzer: analyzer})
	if err != nil {
		return nil, err
	}
	mems, msgs, lexical := sqlstore.NewMemoryStore(db), sqlstore.NewMessageStore(db), sqlstore.NewLexicalDocs(db)
	vectors, err := localvec.New(localvec.Options{Dimension: embedder.Dimension()})
	if err != nil {
		return nil, err
	}
	scope := memory.Scope{Tenant: "bench", User: "paraphrase"}
	save := memories.New(mems, clock, ulids.New(), memory.Policy{})
	r := &Rig{scope: scope, ids: map[string]string{}, analyzer: analyzer}
	for _, m := range set.Memories {
		res, err := save.Save(ctx, memories.Save{Scope: scope, Key: m.Key + "." + m.ID, Draft: memory.DraftInput{Type: m.Type, Content: m.Content}})
		if err != nil {
			return nil, fmt.Errorf("save %s: %w", m.ID, err)
		}
		r.ids[res.Memory.ID()] = m.ID
	}
	lexIndexer := indexing.NewLexicalIndexer(analyzer, lexical, sqlstore.NewLexicalCursors(db), mems, msgs, clock, indexing.LexicalOptions{MessageLag: -1})
	if _, err := lexIndexer.RepairMemories(ctx); err != nil {
		return nil, fmt.Errorf("lexical index: %w", err)
	}
	vecIndexer := indexing.New(sqlstore.NewVectorQueue(db), embedder, vectors, clock, indexing.Options{BatchSize: 256, Lease: time.Hour}, nil)
	for {
		rep, err := vecIndexer.SyncMemories(ctx)
		if err != nil {
			return nil, fmt.Errorf("vector index: %w", err)
		}
		if rep.Claimed == 0 {
			break
		}
	}
	guard := retrieval.NewVectorGuard(clock, retrieval.GuardOptions{Timeout: 10 * time.Second})
	deps := retrieval.Deps{Analyzer: analyzer, Lexical: lexicalpkg.New(lexical, lexicalpkg.Options{}), Memories: mems,
		Embedder: guard.Embedder(embedder), Vectors: guard.Index(vectors), Clock: clock}
	if c.Expand {
		r.expander = lexicon.New(analyzer, c.Weights)
		deps.Expander = r.expander
	}
	r.search = retrieval.New(deps, retrieval.Options{MinScore: ProductMinScore})
	return r, nil
}

// ProductMinScore is configs/engram.yaml's LONG_TERM_MEMORY_MIN_SCORE.
const ProductMinScore = 0.12

// Ask runs every question and returns where its memory ranked.
func (r *Rig) Ask(ctx context.Context, qs []Question, c Config) ([]Outcome, error) {
	k := c.K
	if k == 0 {
		k = 5
	}
	out := make([]Outcome, 0, len(qs))
	for _, q := range qs {
		res, err := r.search.Search(ctx, retrieval.Search{Scope: r.scope, Query: q.Text, Mode: string(c.Mode), Limit: k, MinScore: c.MinScore})
		if err != nil {
			return nil, err
		}
		if res.FallbackReason != "" {
			return nil, fmt.Errorf("search fell back to lexical: %s", res.FallbackReason)
		}
		o := Outcome{Question: q}
		for i, it := range res.Items {
			if r.ids[it.Memory.ID()] == q.Memory {
				o.Rank = i + 1
				break
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// Recall is the share of outcomes whose memory was found, per language ("all"
// included).
func Recall(os []Outcome) map[string]float64 {
	n, hit := map[string]int{}, map[string]int{}
	for _, o := range os {
		for _, l := range []string{o.Lang, "all"} {
			n[l]++
			if o.Rank > 0 {
				hit[l]++
			}
		}
	}
	out := map[string]float64{}
	for l, c := range n {
		out[l] = float64(hit[l]) / float64(c)
	}
	return out
}

// Of keeps the questions of one split.
func (s Set) Of(split string) []Question {
	var out []Question
	for _, q := range s.Questions {
		if q.Split == split {
			out = append(out, q)
		}
	}
	return out
}
