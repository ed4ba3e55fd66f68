// Package prompts holds the LLM prompts of engram as text/template files: the
// stage-1 extraction prompt (extract.tmpl), the stage-2 refine prompt (refine.tmpl),
// the recursive session summary (summarize.tmpl) and the evaluation report of a
// user for their manager (report.tmpl). The files are embedded in the
// binary; an operator can tune any of them without a rebuild by pointing Options.Dir
// at a directory holding files of the same names, which replace the embedded ones.
//
// Each file defines two templates, "system" (instructions) and "user" (the data of
// one call). Text that came from users or assistants is inserted with the quote
// function, which renders it as a JSON string literal: it cannot end its block or
// pose as a new section, so it stays data and never becomes instructions.
//
// The package imports only the standard library; it knows nothing about the LLM
// client or the domain, only the data shapes below.
package prompts

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"engram/domain/profile"
)

//go:embed *.tmpl
var embedded embed.FS

// Name is one prompt; its file is Name + ".tmpl".
type Name string

const (
	Extract   Name = "extract"
	Refine    Name = "refine"
	Summarize Name = "summarize"
	Report    Name = "report"
)

// Names lists every prompt.
var Names = []Name{Extract, Refine, Summarize, Report}

// FileName is the file that holds the prompt.
func (n Name) FileName() string { return string(n) + ".tmpl" }

// Line is one message of a conversation as a prompt shows it.
type Line struct {
	N    int    // its number in the prompt (M1, C3, …), from 1
	Role string // user, assistant or system
	Name string // the speaker's name when the client sent one
	Text string
}

// ExtractData is what extract.tmpl renders.
type ExtractData struct {
	Today          string // YYYY-MM-DD
	Summary        string
	Context        []Line // judgement only, oldest first
	ContextOmitted int    // older context messages left out for the size budget
	Messages       []Line // the user messages that are the only source of facts
	MaxCandidates  int
	NoisePrefixes  []string // key prefixes the store refuses
}

// RefineCandidate is one candidate as refine.tmpl shows it.
type RefineCandidate struct {
	Index      int     `json:"index"`
	Op         string  `json:"op"`
	MemoryType string  `json:"memory_type"`
	Key        string  `json:"key"`
	Content    string  `json:"content"`
	Importance int     `json:"importance"`
	Confidence float64 `json:"confidence"`
	TTLDays    int     `json:"ttl_days"`
}

// RefineExisting is one stored memory as refine.tmpl shows it.
type RefineExisting struct {
	Key        string `json:"key"`
	MemoryType string `json:"memory_type"`
	Content    string `json:"content"`
}

// RefineData is what refine.tmpl renders.
type RefineData struct {
	Today      string
	Candidates []RefineCandidate
	Existing   []RefineExisting
}

// SummarizeData is what summarize.tmpl renders.
type SummarizeData struct {
	Previous string
	Messages []Line
	MaxChars int
}

// ReportFact is one numbered fact an evaluation report may rest on.
type ReportFact struct {
	ID     string // the fact's number as the report cites it (domain/profile.FactID)
	Source string // profile, task_stats, workflows, memory
	Text   string
}

// ReportData is what report.tmpl renders.
type ReportData struct {
	Today    string
	Subject  string // how the report names the user
	English  bool   // write in English; else Chinese
	Facts    []ReportFact
	MaxChars int
}

// Prompt is one rendered prompt: the system message and the user message.
type Prompt struct {
	System string
	User   string
}

// Options says where prompts come from.
type Options struct {
	// Dir, when set, is a directory whose extract.tmpl, refine.tmpl,
	// summarize.tmpl and report.tmpl replace the embedded files of the same name; absent files keep
	// the embedded version. Other *.tmpl files are refused, so a misspelt override
	// cannot be silently ignored.
	Dir string
}

// Set is a loaded, validated set of prompts. It is safe for concurrent use.
type Set struct {
	prompts map[Name]loaded
}

type loaded struct {
	tmpl    *template.Template
	origin  string // "embedded:extract.tmpl" or the override's path
	version string // short hash of the source, for traces
}

// Load parses every prompt, taking overrides from opts.Dir, and renders each once
// with sample data so that a broken override fails at start-up, not on the first
// message.
func Load(opts Options) (*Set, error) {
	sources := make(map[Name]source, len(Names))
	for _, n := range Names {
		b, err := embedded.ReadFile(n.FileName())
		if err != nil {
			return nil, fmt.Errorf("prompts: embedded %s: %w", n.FileName(), err)
		}
		sources[n] = source{text: string(b), origin: "embedded:" + n.FileName()}
	}
	if opts.Dir != "" {
		if err := readOverrides(opts.Dir, sources); err != nil {
			return nil, err
		}
	}
	s := &Set{prompts: make(map[Name]loaded, len(Names))}
	for _, n := range Names {
		src := sources[n]
		t, err := parse(n, src.text)
		if err != nil {
			return nil, fmt.Errorf("prompts: %s: %w", src.origin, err)
		}
		sum := sha256.Sum256([]byte(src.text))
		s.prompts[n] = loaded{tmpl: t, origin: src.origin, version: hex.EncodeToString(sum[:6])}
		if _, err := s.Render(n, sample(n)); err != nil {
			return nil, fmt.Errorf("prompts: %s does not render: %w", src.origin, err)
		}
	}
	return s, nil
}

// Default returns the embedded prompts. The embedded files are tested, so a failure
// here is a build defect.
func Default() *Set {
	s, err := Load(Options{})
	if err != nil {
		panic(err)
	}
	return s
}

// Render executes the prompt's "system" and "user" templates with data, which must
// be the prompt's data type (ExtractData for Extract, …).
func (s *Set) Render(name Name, data any) (Prompt, error) {
	p, ok := s.prompts[name]
	if !ok {
		return Prompt{}, fmt.Errorf("prompts: unknown prompt %q", name)
	}
	var out Prompt
	for _, part := range []struct {
		name string
		dst  *string
	}{{"system", &out.System}, {"user", &out.User}} {
		var buf bytes.Buffer
		if err := p.tmpl.ExecuteTemplate(&buf, part.name, data); err != nil {
			return Prompt{}, fmt.Errorf("prompts: render %s/%s: %w", name, part.name, err)
		}
		*part.dst = strings.TrimSpace(buf.String())
		if *part.dst == "" {
			return Prompt{}, fmt.Errorf("prompts: %s/%s rendered empty", name, part.name)
		}
	}
	return out, nil
}

// Origin says where the prompt came from: "embedded:extract.tmpl" or a file path.
func (s *Set) Origin(name Name) string { return s.prompts[name].origin }

// Version is a short hash of the prompt's source, so a trace can say which prompt
// produced a memory.
func (s *Set) Version(name Name) string { return s.prompts[name].version }

type source struct {
	text   string
	origin string
}

func readOverrides(dir string, sources map[Name]source) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("prompts: override directory: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".tmpl" {
			continue
		}
		name := Name(strings.TrimSuffix(e.Name(), ".tmpl"))
		if !slices.Contains(Names, name) {
			return fmt.Errorf("prompts: %s: unknown prompt file; expected one of %s",
				filepath.Join(dir, e.Name()), strings.Join(fileNames(), ", "))
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("prompts: override: %w", err)
		}
		sources[name] = source{text: string(b), origin: path}
	}
	return nil
}

func fileNames() []string {
	out := make([]string, len(Names))
	for i, n := range Names {
		out[i] = n.FileName()
	}
	return out
}

var funcs = template.FuncMap{
	"quote": quote,
	"json":  toJSON,
	"join":  strings.Join,
}

func parse(name Name, text string) (*template.Template, error) {
	t, err := template.New(string(name)).Option("missingkey=error").Funcs(funcs).Parse(text)
	if err != nil {
		return nil, err
	}
	for _, part := range []string{"system", "user"} {
		if t.Lookup(part) == nil {
			return nil, fmt.Errorf("must define the template %q ({{define %q}}…{{end}})", part, part)
		}
	}
	return t, nil
}

// quote renders s as a JSON string literal. Newlines, quotes and control characters
// are escaped, so quoted text stays on one line inside its block; non-ASCII text
// (Chinese) stays readable.
func quote(s string) (string, error) { return toJSON(s) }

func toJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// sample is data that exercises every field of a prompt's data type.
func sample(n Name) any {
	lines := []Line{{N: 1, Role: "user", Text: "sample"}, {N: 2, Role: "assistant", Text: "sample"}}
	switch n {
	case Extract:
		return ExtractData{Today: "2026-01-01", Summary: "sample", Context: lines, ContextOmitted: 1,
			Messages: lines[:1], MaxCandidates: 6, NoisePrefixes: []string{"tool-"}}
	case Refine:
		return RefineData{Today: "2026-01-01",
			Candidates: []RefineCandidate{{Index: 0, Op: "ADD", MemoryType: "fact", Key: "k", Content: "c", Importance: 3, Confidence: 0.9}},
			Existing:   []RefineExisting{{Key: "k", MemoryType: "fact", Content: "c"}}}
	case Summarize:
		return SummarizeData{Previous: "sample", Messages: lines, MaxChars: 600}
	case Report:
		return ReportData{Today: "2026-01-01", Subject: "sample", Facts: []ReportFact{{ID: profile.FactID(1), Source: "profile", Text: "sample"}}, MaxChars: 1200}
	}
	return nil
}
