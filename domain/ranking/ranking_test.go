package ranking

import (
	"math"
	"reflect"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func idsOf(s []Scored) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.ID
	}
	return out
}

func TestIDF(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		df, n int
		want  float64
	}{
		{"rare term", 1, 100, math.Log(1 + 99.5/1.5)},
		{"term in every text stays positive", 100, 100, math.Log(1 + 0.5/100.5)},
		{"absent term", 0, 10, math.Log(1 + 10.5/0.5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := IDF(tt.df, tt.n); !near(got, tt.want) || got <= 0 {
				t.Errorf("IDF(%d, %d) = %v, want %v (> 0)", tt.df, tt.n, got, tt.want)
			}
		})
	}
}

func TestBM25TermScore(t *testing.T) {
	t.Parallel()
	p := BM25{K1: 1.2, B: 0.75}
	tests := []struct {
		name               string
		tf, docLen, avgLen float64
		want               float64
	}{
		{"absent term scores nothing", 0, 10, 10, 0},
		{"one occurrence at average length", 1, 10, 10, 1 * 2.2 / (1 + 1.2)},
		{"repeats saturate", 3, 10, 10, 3 * 2.2 / (3 + 1.2)},
		{"long texts are held back", 1, 20, 10, 2.2 / (1 + 1.2*(0.25+0.75*2))},
		{"fractional tf from weighted fields", 0.5, 10, 10, 0.5 * 2.2 / (0.5 + 1.2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := p.TermScore(1, tt.tf, tt.docLen, tt.avgLen); !near(got, tt.want) {
				t.Errorf("TermScore = %v, want %v", got, tt.want)
			}
		})
	}
	if p.TermScore(1, 5, 10, 10) >= p.K1+1 {
		t.Error("TermScore must stay below idf·(k1+1)")
	}
}

func TestIndexSearch(t *testing.T) {
	t.Parallel()
	ix := NewIndex(DefaultBM25)
	ix.Add("hike", Field{Terms: []string{"hike", "mountain", "weekend"}, Weight: 1})
	ix.Add("paint", Field{Terms: []string{"paint", "sunris", "lake"}, Weight: 1})
	ix.Add("answer", Field{Terms: []string{"yes", "twice"}, Weight: 1}, Field{Terms: []string{"paint", "often"}, Weight: 0.3})
	ix.Add("other", Field{Terms: []string{"dog", "walk"}, Weight: 1})
	tests := []struct {
		name  string
		query []string
		limit int
		want  []string
	}{
		{"own words beat neighbours' words", []string{"paint"}, 0, []string{"paint", "answer"}},
		{"neighbour words still find a message", []string{"often"}, 0, []string{"answer"}},
		{"limit cuts", []string{"paint"}, 1, []string{"paint"}},
		{"unknown terms find nothing", []string{"zebra"}, 0, []string{}},
		{"more matched terms rank higher", []string{"hike", "weekend", "walk"}, 0, []string{"hike", "other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := idsOf(ix.Search(tt.query, tt.limit)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Search(%q) = %q, want %q", tt.query, got, tt.want)
			}
		})
	}
	if got := NewIndex(DefaultBM25).Search([]string{"x"}, 5); got != nil {
		t.Errorf("empty index returned %v", got)
	}
}

func TestIndexSearch_tiesKeepInsertionOrder(t *testing.T) {
	t.Parallel()
	ix := NewIndex(DefaultBM25)
	for _, id := range []string{"c", "a", "b"} {
		ix.Add(id, Field{Terms: []string{"same"}, Weight: 1})
	}
	if got := idsOf(ix.Search([]string{"same"}, 0)); !reflect.DeepEqual(got, []string{"c", "a", "b"}) {
		t.Errorf("ties = %q, want insertion order c a b", got)
	}
}

func TestSearchWeighted_weightScalesContribution(t *testing.T) {
	t.Parallel()
	ix := NewIndex(DefaultBM25)
	ix.Add("x", Field{Terms: []string{"alpha"}, Weight: 1})
	ix.Add("y", Field{Terms: []string{"beta"}, Weight: 1})
	got := ix.SearchWeighted([]QueryTerm{{"alpha", 0.2}, {"beta", 1}}, 0)
	if len(got) != 2 || got[0].ID != "y" || !near(got[1].Score, 0.2*got[0].Score) {
		t.Errorf("SearchWeighted = %+v, want y first and x at 0.2 of its score", got)
	}
}

func TestFuseRRF(t *testing.T) {
	t.Parallel()
	lex := List{Items: []Scored{{"a", 9}, {"b", 5}, {"c", 1}}, Weight: 1}
	dense := List{Items: []Scored{{"c", 0.9}, {"b", 0.8}, {"d", 0.1}}, Weight: 1}
	got := FuseRRF(60, lex, dense)
	want := map[string]float64{"a": 1.0 / 61, "b": 1.0/62 + 1.0/62, "c": 1.0/63 + 1.0/61, "d": 1.0 / 63}
	// c (ranks 3 and 1) edges out b (2 and 2): agreement near the top counts most.
	if ids := idsOf(got); !reflect.DeepEqual(ids, []string{"c", "b", "a", "d"}) {
		t.Errorf("order = %q, want c b a d", ids)
	}
	for _, s := range got {
		if !near(s.Score, want[s.ID]) {
			t.Errorf("%s = %v, want %v", s.ID, s.Score, want[s.ID])
		}
	}
	weighted := FuseRRF(60, lex, List{Items: dense.Items, Weight: 0})
	if ids := idsOf(weighted); ids[0] != "a" {
		t.Errorf("a list of weight 0 changed the order: %q", ids)
	}
}

func TestFuseMinMax(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lists []List
		want  map[string]float64
		order []string
	}{
		{
			"normalises each list then sums with weights",
			[]List{
				{Items: []Scored{{"a", 10}, {"b", 6}, {"c", 2}}, Weight: 1},
				{Items: []Scored{{"c", 0.9}, {"b", 0.5}, {"d", 0.1}}, Weight: 0.5},
			},
			map[string]float64{"a": 1, "b": 0.5 + 0.25, "c": 0 + 0.5, "d": 0},
			[]string{"a", "b", "c", "d"},
		},
		{
			"a list of equal scores gives full weight",
			[]List{{Items: []Scored{{"a", 3}, {"b", 3}}, Weight: 0.4}},
			map[string]float64{"a": 0.4, "b": 0.4},
			[]string{"a", "b"},
		},
		{"no lists", nil, map[string]float64{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := FuseMinMax(tt.lists...)
			if ids := idsOf(got); !reflect.DeepEqual(ids, tt.order) {
				t.Errorf("order = %q, want %q", ids, tt.order)
			}
			for _, s := range got {
				if !near(s.Score, tt.want[s.ID]) {
					t.Errorf("%s = %v, want %v", s.ID, s.Score, tt.want[s.ID])
				}
			}
		})
	}
}

func TestContextFields(t *testing.T) {
	t.Parallel()
	terms := [][]string{{"a"}, {"b"}, {"c"}, {"d"}}
	tests := []struct {
		name      string
		i, window int
		weight    float64
		want      []Field
	}{
		{"no window is the message alone", 1, 0, 0.3, []Field{{[]string{"b"}, 1, false}}},
		{"zero weight is the message alone", 1, 2, 0, []Field{{[]string{"b"}, 1, false}}},
		{"window 1 in the middle", 1, 1, 0.3, []Field{{[]string{"b"}, 1, false}, {[]string{"a"}, 0.3, true}, {[]string{"c"}, 0.3, true}}},
		{"window clipped at the start", 0, 2, 0.5, []Field{{[]string{"a"}, 1, false}, {[]string{"b"}, 0.5, true}, {[]string{"c"}, 0.5, true}}},
		{"window clipped at the end", 3, 1, 0.5, []Field{{[]string{"d"}, 1, false}, {[]string{"c"}, 0.5, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ContextFields(terms, tt.i, tt.window, tt.weight); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ContextFields = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestContextVectors(t *testing.T) {
	t.Parallel()
	in := [][]float32{{1, 0}, {0, 1}, {0, 0}}
	got := ContextVectors(in, 1, 1)
	s := float32(1 / math.Sqrt2)
	want := [][]float32{{s, s}, {s, s}, {0, 1}}
	for i := range want {
		for d := range want[i] {
			if math.Abs(float64(got[i][d]-want[i][d])) > 1e-6 {
				t.Fatalf("ContextVectors = %v, want %v", got, want)
			}
		}
	}
	if in[0][1] != 0 {
		t.Error("ContextVectors changed its input")
	}
	alone := ContextVectors([][]float32{{3, 4}}, 2, 0.5)
	if math.Abs(float64(alone[0][0])-0.6) > 1e-6 || math.Abs(float64(alone[0][1])-0.8) > 1e-6 {
		t.Errorf("a lone vector is only normalised, got %v", alone[0])
	}
}

func TestBoostNamed(t *testing.T) {
	t.Parallel()
	speakers := map[string]string{"m1": "melani", "c1": "carolin", "m2": "melani"}
	tests := []struct {
		name  string
		items []Scored
		query []string
		boost float64
		want  []string
	}{
		{"named speaker moves up", []Scored{{"c1", 1}, {"m1", 0.8}}, []string{"melani", "paint"}, 0.5, []string{"m1", "c1"}},
		{"not enough to pass a much better hit", []Scored{{"c1", 1}, {"m1", 0.5}}, []string{"melani"}, 0.5, []string{"c1", "m1"}},
		{"no name in the query changes nothing", []Scored{{"c1", 1}, {"m1", 0.8}}, []string{"paint"}, 0.5, []string{"c1", "m1"}},
		{"negative scores are left alone", []Scored{{"c1", -0.1}, {"m1", -0.2}}, []string{"melani"}, 0.5, []string{"c1", "m1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			items := append([]Scored(nil), tt.items...)
			BoostNamed(items, tt.query, func(id string) string { return speakers[id] }, tt.boost)
			if got := idsOf(items); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("order = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExpandQuery(t *testing.T) {
	t.Parallel()
	docs := map[string][]string{"a": {"camp", "beach", "marshmallow"}, "b": {"camp", "forest"}}
	idf := func(term string) float64 {
		return map[string]float64{"beach": 2, "marshmallow": 3, "forest": 2, "camp": 1}[term]
	}
	got := ExpandQuery([]string{"camp"}, []Scored{{"a", 10}, {"b", 5}}, func(id string) []string { return docs[id] }, idf, 2, 0.3)
	want := []QueryTerm{{"camp", 1}, {"marshmallow", 0.3}, {"beach", 0.3 * 2.0 / 3.0}}
	if len(got) != len(want) {
		t.Fatalf("ExpandQuery = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Term != want[i].Term || !near(got[i].Weight, want[i].Weight) {
			t.Errorf("term %d = %v, want %v", i, got[i], want[i])
		}
	}
	if plain := ExpandQuery([]string{"camp"}, nil, nil, idf, 5, 0.3); len(plain) != 1 {
		t.Errorf("no feedback should keep the query alone, got %v", plain)
	}
}
