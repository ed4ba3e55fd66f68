package main

import (
	"context"
	"fmt"
	"sort"

	"engram/adapters/localembed"
	"engram/adapters/textanalysis"
	"engram/domain/conversation"
	"engram/domain/ranking"
)

// hybridConfig is every knob of the product method, so the ablation can turn each
// one off. The product's values are productConfig.
type hybridConfig struct {
	Analyzer   textanalysis.Options
	Plain      bool // use the baseline's plain tokens instead of the analyzer
	BM25       ranking.BM25
	AppendDate bool // append the session date to each turn's text

	Window          int     // neighbours on each side, within the same session (lexical)
	NeighbourWeight float64 // their weight (lexical)

	Dense                bool // fuse with the local embedder
	DenseOnly            bool // rank by the embedder alone
	Dimension            int
	NGramWeight          float64
	DenseWindow          int
	DenseNeighbourWeight float64

	Fusion      string  // "rrf" or "minmax"
	DenseWeight float64 // weight of the dense list (lexical has 1)
	RRFK        float64
	Depth       int // how many results of each list are fused

	SpeakerBoost      float64 // lexical score × (1+boost) for turns by a speaker the question names
	NoSpeaker         bool    // leave the speaker's name out of the indexed text
	SessionWeight     float64 // add this × the session's normalised BM25 score to each turn's
	DenseSpeakerBoost bool
	PRFDocs           int     // pseudo-relevance feedback: results read
	PRFTerms          int     // terms added
	PRFWeight         float64 // their weight
}

// productConfig is the method the product should reproduce; docs/BENCHMARKS.md
// explains each value. Every value was chosen on general grounds among few
// candidates, and the -generalise run checks that tuning on other conversations
// would not have chosen much better.
var productConfig = hybridConfig{
	BM25:                 ranking.DefaultRecipe.BM25,
	AppendDate:           true,
	Window:               ranking.DefaultRecipe.NeighbourWindow,
	NeighbourWeight:      ranking.DefaultRecipe.NeighbourWeight,
	SpeakerBoost:         0.5, // a × 1.5 boost; the app's calibrated lift is ranking.DefaultRecipe.SpeakerBoost
	Dense:                true,
	Dimension:            localembed.DefaultDimension,
	DenseWindow:          ranking.DefaultRecipe.NeighbourWindow,
	DenseNeighbourWeight: ranking.DefaultRecipe.NeighbourWeight,
	DenseSpeakerBoost:    true,
	Fusion:               "minmax",
	DenseWeight:          0.3, // of min-max fusion; the app fuses calibrated evidence (ranking.DenseScale)
	RRFK:                 ranking.DefaultRRFK,
	Depth:                ranking.DefaultRecipe.Depth,
}

type hybrid struct {
	cfg      hybridConfig
	analyzer *textanalysis.Analyzer
	embedder *localembed.Embedder

	index    *ranking.Index
	sessions *ranking.Index
	ids      []string
	speaker  map[string]string // turn id → speaker term
	session  map[string]string // turn id → session id
	own      map[string][]string
	vectors  [][]float32
}

func newHybrid(cfg hybridConfig) func() Retriever {
	return func() Retriever {
		a := textanalysis.New(cfg.Analyzer)
		h := &hybrid{cfg: cfg, analyzer: a}
		if cfg.Dense || cfg.DenseOnly {
			e, err := localembed.New(localembed.Options{Dimension: cfg.Dimension, NGramWeight: cfg.NGramWeight, Analyzer: a})
			if err != nil {
				panic(err) // a programming error in a config below
			}
			h.embedder = e
		}
		return h
	}
}

func (h *hybrid) terms(text string) []string {
	if h.cfg.Plain {
		return plainTokens(text)
	}
	return h.analyzer.Terms(text)
}

func (h *hybrid) docText(t Turn) string {
	text := t.Text()
	if h.cfg.NoSpeaker {
		text = t.Content
	}
	if h.cfg.AppendDate {
		text += " " + t.At.Format(conversation.DateLayout)
	}
	return text
}

func (h *hybrid) Index(ctx context.Context, turns []Turn) error {
	h.index = ranking.NewIndex(h.cfg.BM25)
	h.sessions = ranking.NewIndex(h.cfg.BM25)
	h.ids = h.ids[:0]
	h.vectors = nil
	h.speaker = map[string]string{}
	h.session = map[string]string{}
	h.own = map[string][]string{}
	for _, session := range bySession(turns) {
		sid := fmt.Sprint(session[0].Session)
		var all []string
		terms := make([][]string, len(session))
		texts := make([]string, len(session))
		for i, t := range session {
			texts[i] = h.docText(t)
			terms[i] = h.terms(texts[i])
		}
		for i, t := range session {
			h.index.Add(t.ID, ranking.ContextFields(terms, i, h.cfg.Window, h.cfg.NeighbourWeight)...)
			h.ids = append(h.ids, t.ID)
			if st := h.terms(t.Speaker); len(st) > 0 {
				h.speaker[t.ID] = st[0]
			}
			h.session[t.ID] = sid
			h.own[t.ID] = terms[i]
			all = append(all, terms[i]...)
		}
		h.sessions.Add(sid, ranking.Field{Terms: all, Weight: 1})
		if h.embedder != nil {
			vecs, err := h.embedder.Embed(ctx, texts)
			if err != nil {
				return err
			}
			h.vectors = append(h.vectors, ranking.ContextVectors(vecs, h.cfg.DenseWindow, h.cfg.DenseNeighbourWeight)...)
		}
	}
	return nil
}

func (h *hybrid) Search(ctx context.Context, question string, k int) ([]string, error) {
	depth := max(h.cfg.Depth, k)
	if h.cfg.DenseOnly {
		return ids(h.dense(question, k)), nil
	}
	qterms := h.terms(question)
	lexical := h.index.Search(qterms, depth)
	if h.cfg.PRFDocs > 0 {
		expanded := ranking.ExpandQuery(qterms, cut(lexical, h.cfg.PRFDocs), func(id string) []string { return h.own[id] }, h.index.IDF, h.cfg.PRFTerms, h.cfg.PRFWeight)
		lexical = h.index.SearchWeighted(expanded, depth)
	}
	speakerOf := func(id string) string { return h.speaker[id] }
	ranking.BoostNamed(lexical, qterms, speakerOf, h.cfg.SpeakerBoost)
	if h.cfg.SessionWeight > 0 {
		ss := h.sessions.Search(qterms, 0)
		top := 0.0
		if len(ss) > 0 {
			top = ss[0].Score
		}
		sscore := map[string]float64{}
		for _, s := range ss {
			sscore[s.ID] = s.Score / top
		}
		ltop := 0.0
		if len(lexical) > 0 {
			ltop = lexical[0].Score
		}
		for i := range lexical {
			lexical[i].Score = lexical[i].Score/ltop + h.cfg.SessionWeight*sscore[h.session[lexical[i].ID]]
		}
		ranking.SortScored(lexical)
	}
	if !h.cfg.Dense {
		return ids(cut(lexical, k)), nil
	}
	dense := h.dense(question, depth)
	if h.cfg.DenseSpeakerBoost {
		ranking.BoostNamed(dense, qterms, speakerOf, h.cfg.SpeakerBoost)
	}
	lists := []ranking.List{{Items: lexical, Weight: 1}, {Items: dense, Weight: h.cfg.DenseWeight}}
	var fused []ranking.Scored
	switch h.cfg.Fusion {
	case "minmax":
		fused = ranking.FuseMinMax(lists...)
	default:
		fused = ranking.FuseRRF(h.cfg.RRFK, lists...)
	}
	return ids(cut(fused, k)), nil
}

// dense is brute-force cosine search, standing in for the vector index.
func (h *hybrid) dense(question string, k int) []ranking.Scored {
	q := h.embedder.EmbedOne(question)
	out := make([]ranking.Scored, len(h.vectors))
	for i, v := range h.vectors {
		s := 0.0
		for d := range v {
			s += float64(v[d]) * float64(q[d])
		}
		out[i] = ranking.Scored{ID: h.ids[i], Score: s}
	}
	ranking.SortScored(out)
	return cut(out, k)
}

func cut(s []ranking.Scored, k int) []ranking.Scored {
	if len(s) > k {
		return s[:k]
	}
	return s
}

// bySession groups turns by session, in session order, keeping turn order.
func bySession(turns []Turn) [][]Turn {
	groups := map[int][]Turn{}
	var order []int
	for _, t := range turns {
		if _, ok := groups[t.Session]; !ok {
			order = append(order, t.Session)
		}
		groups[t.Session] = append(groups[t.Session], t)
	}
	sort.Ints(order)
	out := make([][]Turn, 0, len(order))
	for _, s := range order {
		out = append(out, groups[s])
	}
	return out
}
