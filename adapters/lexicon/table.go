package lexicon

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"unicode/utf8"
)

//go:generate go run ./gen -out data/lexicon.bin.gz

//go:embed data/lexicon.bin.gz
var tableGz []byte

//go:embed data/intents.txt
var intentsText string

//go:embed data/zh_stopwords.txt
var zhStopText string

const tableMagic = "engram-lexicon-1"

// lists is many lists of numbers in one array: list i is at[off[i]:off[i+1]].
type lists struct {
	off []uint32
	at  []int32
}

func (l *lists) of(i int32) []int32 { return l.at[l.off[i]:l.off[i+1]] }

// table is the concept table of the package doc, as the generator wrote it
// (gen/main.go): sorted vocabularies and lists of numbers into them, held in a
// few large arrays so that reading it allocates little.
type table struct {
	stems    []string // English index terms, sorted
	words    []string // simplified Chinese words, sorted
	members  lists    // synset → its stems
	broader  lists    // synset → hypernyms
	related  lists    // synset → derived forms, pertainyms, similar, attributes
	narrower lists    // synset → hyponyms (the inverse of broader, built at load)
	senses   lists    // stem → synsets, most frequent sense first
	zhStems  lists    // word → stems of its first senses
	zhExact  lists    // word → stems a whole sense of it is
	enZH     lists    // stem → words that translate it, the best first
	maxZH    int      // the longest word, in runes
}

func (t *table) stem(s string) (int32, bool) { return find(t.stems, s) }
func (t *table) word(s string) (int32, bool) { return find(t.words, s) }

func find(sorted []string, s string) (int32, bool) {
	i := sort.SearchStrings(sorted, s)
	if i < len(sorted) && sorted[i] == s {
		return int32(i), true
	}
	return 0, false
}

var errTable = errors.New("lexicon: malformed table")

// reader decodes the table's varints.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uint() int {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = errTable, nil
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

// strings reads n strings into one backing string, so that they cost one
// allocation.
func (r *reader) strings() []string {
	n := r.uint()
	if r.err != nil || n > len(r.b) {
		r.err = errTable
		return nil
	}
	bounds := make([]int, 0, n+1)
	var all []byte
	for range n {
		l := r.uint()
		if r.err != nil || l > len(r.b) {
			r.err = errTable
			return nil
		}
		bounds = append(bounds, len(all))
		all = append(all, r.b[:l]...)
		r.b = r.b[l:]
	}
	bounds = append(bounds, len(all))
	s := string(all)
	out := make([]string, n)
	for i := range out {
		out[i] = s[bounds[i]:bounds[i+1]]
	}
	return out
}

// list appends one list to l.
func (r *reader) list(l *lists, bound int) {
	n := r.uint()
	for range n {
		v := r.uint()
		if v >= bound {
			r.err = errTable
		}
		l.at = append(l.at, int32(v))
	}
	l.off = append(l.off, uint32(len(l.at)))
}

func newLists(n int) lists { return lists{off: append(make([]uint32, 0, n+1), 0)} }

func parseTable(gz []byte) (*table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	if !bytes.HasPrefix(raw, []byte(tableMagic)) {
		return nil, errTable
	}
	r := &reader{b: raw[len(tableMagic):]}
	t := &table{stems: r.strings(), words: r.strings()}
	nSyn := r.uint()
	if r.err != nil || nSyn > len(r.b) {
		return nil, errTable
	}
	t.members, t.broader, t.related = newLists(nSyn), newLists(nSyn), newLists(nSyn)
	for range nSyn {
		r.list(&t.members, len(t.stems))
		r.list(&t.broader, nSyn)
		r.list(&t.related, nSyn)
	}
	t.senses = newLists(len(t.stems))
	for range t.stems {
		r.list(&t.senses, nSyn)
	}
	t.zhStems, t.zhExact = newLists(len(t.words)), newLists(len(t.words))
	for _, w := range t.words {
		r.list(&t.zhStems, len(t.stems))
		r.list(&t.zhExact, len(t.stems))
		t.maxZH = max(t.maxZH, utf8.RuneCountInString(w))
	}
	t.enZH = newLists(len(t.stems))
	for range t.stems {
		r.list(&t.enZH, len(t.words))
	}
	if r.err != nil {
		return nil, r.err
	}
	t.narrower = invert(t.broader, nSyn)
	return t, nil
}

// invert builds the inverse of l (whose lists hold numbers below n).
func invert(l lists, n int) lists {
	counts := make([]uint32, n+1)
	for _, v := range l.at {
		counts[v+1]++
	}
	for i := 1; i <= n; i++ {
		counts[i] += counts[i-1]
	}
	out := lists{off: counts, at: make([]int32, len(l.at))}
	fill := make([]uint32, n)
	copy(fill, counts[:n])
	for i := range n {
		for _, v := range l.of(int32(i)) {
			out.at[fill[v]] = int32(i)
			fill[v]++
		}
	}
	return out
}
