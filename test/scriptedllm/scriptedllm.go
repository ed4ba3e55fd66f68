// Package scriptedllm makes test/fakellm answer engram's extraction prompts
// realistically without a model: stage 1 with what the offline rule extractor
// finds in the prompt's numbered user messages ([M1] user: "…"), stage 2 by keeping
// every candidate it is shown. The same message always gets the same answer.
package scriptedllm

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"engram/adapters/rules"
	"engram/test/fakellm"
)

var (
	promptLine = regexp.MustCompile(`(?m)^\[M(\d+)\] user: (".*")$`)
	refineItem = regexp.MustCompile(`(?m)^\{"index":(\d+),`)
	extractor  = rules.NewExtractor(rules.ExtractorOptions{})
)

// IsRefine reports whether a chat request is stage 2's.
func IsRefine(r fakellm.Request) bool { return strings.Contains(r.Text("user"), "CANDIDATES") }

// IsExtract reports whether a chat request is stage 1's.
func IsExtract(r fakellm.Request) bool {
	return !IsRefine(r) && strings.Contains(r.Text("user"), "[M1] user:")
}

// Answer answers an extraction prompt (see the package comment).
func Answer(r fakellm.Request) fakellm.Reply {
	user := r.Text("user")
	if IsRefine(r) {
		decisions := []map[string]any{}
		for _, g := range refineItem.FindAllStringSubmatch(user, -1) {
			n, _ := strconv.Atoi(g[1])
			decisions = append(decisions, map[string]any{"index": n, "verdict": "keep", "reason": "scripted: keep"})
		}
		return fakellm.AnswerJSON(map[string]any{"decisions": decisions})
	}
	type item struct {
		Op         string  `json:"op"`
		Type       string  `json:"memory_type"`
		Key        string  `json:"key"`
		Content    string  `json:"content"`
		Importance int     `json:"importance"`
		Confidence float64 `json:"confidence"`
		TTLDays    int     `json:"ttl_days"`
		Source     int     `json:"source_message"`
	}
	items := []item{}
	for _, g := range promptLine.FindAllStringSubmatch(user, -1) {
		n, _ := strconv.Atoi(g[1])
		var text string
		if json.Unmarshal([]byte(g[2]), &text) != nil {
			continue
		}
		for _, c := range extractor.ExtractMessage("x", text) {
			items = append(items, item{string(c.Op), string(c.Type), c.Key, c.Content, c.Importance, c.Confidence, c.TTLDays, n})
		}
	}
	return fakellm.AnswerJSON(map[string]any{"candidates": items})
}
