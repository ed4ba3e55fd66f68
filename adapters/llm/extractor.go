package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"engram/configs/prompts"
	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// Defaults of the extractor.
const (
	DefaultContextMaxChars = 8000 // LONG_TERM_MEMORY_EXTRACT_CONTEXT_MAX_CHARS
	DefaultMaxCandidates   = 12
)

// ExtractorOptions configures stage 1.
type ExtractorOptions struct {
	Prompts *prompts.Set // nil: the embedded prompts
	// ContextMaxChars bounds the context messages shown to the model (the most
	// recent are kept) and, separately, the summary. 0: DefaultContextMaxChars.
	ContextMaxChars int
	// MaxCandidates bounds the candidates taken from one answer per new user
	// message in it (the model is told the same), so ten messages extracted
	// together are not held to one message's share. The pipeline's write limit
	// (LONG_TERM_MEMORY_MAX_WRITE_ITEMS, per message; what is over it is carried
	// to the next run) applies later. 0: DefaultMaxCandidates.
	MaxCandidates int
	Logger        *slog.Logger // rejected candidates are logged here; nil: not logged
}

// Extractor is the LLM extractor of stage 1.
type Extractor struct {
	chat            Chatter
	prompts         *prompts.Set
	contextMaxChars int
	maxCandidates   int
	log             *slog.Logger
}

var _ ports.Extractor = (*Extractor)(nil)

// NewExtractor builds an extractor over a chat client.
func NewExtractor(chat Chatter, opts ExtractorOptions) *Extractor {
	e := &Extractor{chat: chat, prompts: opts.Prompts, contextMaxChars: opts.ContextMaxChars,
		maxCandidates: opts.MaxCandidates, log: opts.Logger}
	if e.prompts == nil {
		e.prompts = prompts.Default()
	}
	if e.contextMaxChars <= 0 {
		e.contextMaxChars = DefaultContextMaxChars
	}
	if e.maxCandidates <= 0 {
		e.maxCandidates = DefaultMaxCandidates
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	return e
}

// Extraction is everything stage 1 learned from one call, for the trace.
type Extraction struct {
	Candidates    []candidate.Candidate
	Rejected      []Rejection // answer items left out, with the reason
	Usage         ports.LLMUsage
	Answer        string // the model's raw answer
	PromptVersion string // which extract.tmpl produced it
}

// Extract implements ports.Extractor. Rejected candidates are logged, not returned.
func (e *Extractor) Extract(ctx context.Context, in ports.ExtractionInput) ([]candidate.Candidate, ports.LLMUsage, error) {
	x, err := e.ExtractDetailed(ctx, in)
	for _, r := range x.Rejected {
		e.log.InfoContext(ctx, "llm extractor dropped a candidate",
			"conversation", in.ConversationID, "item", r.Index, "key", r.Key, "reason", r.Reason)
	}
	return x.Candidates, x.Usage, err
}

// ExtractDetailed is Extract with the rejected items and the raw answer. The usage
// is filled in even when err is not nil.
func (e *Extractor) ExtractDetailed(ctx context.Context, in ports.ExtractionInput) (Extraction, error) {
	data, sources := e.extractData(in)
	x := Extraction{PromptVersion: e.prompts.Version(prompts.Extract)}
	if len(sources) == 0 {
		return x, nil // no user message, nothing can be a fact
	}
	p, err := e.prompts.Render(prompts.Extract, data)
	if err != nil {
		return x, fmt.Errorf("llm: extract: %w", err)
	}
	reply, err := e.chat.Chat(ctx, ChatRequest{JSON: true, Messages: []ChatMessage{
		{Role: RoleSystem, Content: p.System},
		{Role: RoleUser, Content: p.User},
	}})
	x.Usage, x.Answer = reply.Usage, reply.Content
	if err != nil {
		return x, err
	}
	items, err := findItems(reply.Content, []string{"candidates", "memories"}, []string{"content", "memory_type"})
	if err != nil {
		return x, badOutput("extract", reply.Content, "%v", err)
	}
	x.Candidates, x.Rejected = e.validate(items, sources, data.MaxCandidates)
	return x, nil
}

// extractData builds the prompt data and the IDs of the numbered user messages.
func (e *Extractor) extractData(in ports.ExtractionInput) (prompts.ExtractData, []string) {
	data := prompts.ExtractData{MaxCandidates: e.maxCandidates, Today: "unknown"}
	if !in.Now.IsZero() {
		data.Today = in.Now.UTC().Format(time.DateOnly)
	}
	for _, r := range memory.NoiseRules {
		data.NoisePrefixes = append(data.NoisePrefixes, r.Prefix)
	}
	data.Summary = clipHead(strings.TrimSpace(in.Summary), e.contextMaxChars)

	// Only user messages are sources; anything else among the new messages is
	// context, after the older context so the order stays roughly chronological.
	judgement := append([]conversation.Message(nil), in.Context...)
	var sources []string
	for _, m := range in.Messages {
		if m.Role != conversation.RoleUser {
			judgement = append(judgement, m)
			continue
		}
		if strings.TrimSpace(m.Content) == "" {
			continue
		}
		sources = append(sources, m.ID)
		data.Messages = append(data.Messages, prompts.Line{N: len(sources), Role: string(m.Role), Name: m.Name, Text: m.Content})
	}
	data.Context, data.ContextOmitted = trimContext(judgement, e.contextMaxChars)
	data.MaxCandidates = e.maxCandidates * max(1, len(sources))
	return data, sources
}

// trimContext keeps the most recent messages whose text fits in maxChars; when even
// the newest one does not fit, its end is kept.
func trimContext(msgs []conversation.Message, maxChars int) ([]prompts.Line, int) {
	budget := maxChars
	first := len(msgs)
	var newestClipped string
	for i := len(msgs) - 1; i >= 0; i-- {
		n := utf8.RuneCountInString(msgs[i].Content)
		if n > budget {
			if i == len(msgs)-1 && budget > 0 {
				newestClipped = "…" + string([]rune(msgs[i].Content)[n-budget+1:])
				first = i
			}
			break
		}
		budget -= n
		first = i
	}
	lines := make([]prompts.Line, 0, len(msgs)-first)
	for i := first; i < len(msgs); i++ {
		text := msgs[i].Content
		if i == len(msgs)-1 && newestClipped != "" {
			text = newestClipped
		}
		lines = append(lines, prompts.Line{N: len(lines) + 1, Role: string(msgs[i].Role), Name: msgs[i].Name, Text: text})
	}
	return lines, first
}

// clipHead keeps the first n characters of s.
func clipHead(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// rawCandidate is one item of the answer, read leniently.
type rawCandidate struct {
	Op            field `json:"op"`
	MemoryType    field `json:"memory_type"`
	Type          field `json:"type"`
	Key           field `json:"key"`
	Content       field `json:"content"`
	Importance    field `json:"importance"`
	Confidence    field `json:"confidence"`
	TTLDays       field `json:"ttl_days"`
	SourceMessage field `json:"source_message"`
}

func (e *Extractor) validate(items []json.RawMessage, sources []string, limit int) ([]candidate.Candidate, []Rejection) {
	var (
		out      []candidate.Candidate
		rejected []Rejection
		seen     = map[string]bool{}
	)
	for i, item := range items {
		var raw rawCandidate
		if err := json.Unmarshal(item, &raw); err != nil {
			rejected = append(rejected, Rejection{Index: i, Reason: "not a JSON object: " + snippet(string(item), 40)})
			continue
		}
		c, problem := toCandidate(raw, sources)
		if problem != "" {
			key, _ := raw.Key.text()
			rejected = append(rejected, Rejection{Index: i, Key: key, Reason: problem})
			continue
		}
		if dup := c.Key + "\x00" + c.Content; seen[dup] {
			rejected = append(rejected, Rejection{Index: i, Key: c.Key, Reason: "repeats an earlier candidate"})
			continue
		}
		seen[c.Key+"\x00"+c.Content] = true
		if len(out) >= limit {
			rejected = append(rejected, Rejection{Index: i, Key: c.Key, Reason: fmt.Sprintf("over the limit of %d candidates per call", limit)})
			continue
		}
		out = append(out, c)
	}
	return out, rejected
}

// toCandidate validates one item field by field; problem says what is wrong with
// the first field that is.
func toCandidate(raw rawCandidate, sources []string) (c candidate.Candidate, problem string) {
	if c.Op, problem = opOf(raw.Op); problem != "" {
		return c, problem
	}
	if problem = keyAndContent(&c, raw); problem != "" {
		return c, problem
	}
	if c.Importance, problem = wholeNumber(raw.Importance, "importance", memory.MinImportance, memory.MaxImportance, memory.DefaultImportance); problem != "" {
		return c, problem
	}
	if c.Confidence, problem = fraction(raw.Confidence, "confidence", memory.DefaultConfidence); problem != "" {
		return c, problem
	}
	if c.TTLDays, problem = wholeNumber(raw.TTLDays, "ttl_days", 0, memory.MaxTTLDays, 0); problem != "" {
		return c, problem
	}
	c.SourceMessageID = sources[sourceIndex(raw.SourceMessage, len(sources))]
	return c, ""
}

// opOf reads the op in any case; none means ADD.
func opOf(f field) (candidate.Op, string) {
	op, ok := f.text()
	if !ok {
		return "", "op " + f.rawText() + " is not a string"
	}
	switch o := candidate.Op(strings.ToUpper(strings.TrimSpace(op))); o {
	case "":
		return candidate.OpAdd, ""
	case candidate.OpAdd, candidate.OpUpdate, candidate.OpAppend, candidate.OpDelete:
		return o, ""
	}
	return "", fmt.Sprintf("op %q is not ADD, UPDATE, APPEND or DELETE", op)
}

// keyAndContent reads the type (memory_type, or type as older prompts named it)
// and then the key and content that type calls for: an identity slot or a memory.
func keyAndContent(c *candidate.Candidate, raw rawCandidate) (problem string) {
	typeField := raw.MemoryType
	if !typeField.set {
		typeField = raw.Type
	}
	typ, _ := typeField.text()
	if strings.EqualFold(strings.TrimSpace(typ), string(candidate.TypeProfile)) {
		return slotKeyAndValue(c, raw)
	}
	return memoryKeyAndContent(c, raw, typ)
}

// wholeNumber reads an optional whole number in [lo, hi]; absent, it is def.
func wholeNumber(f field, name string, lo, hi, def int) (int, string) {
	if !f.set {
		return def, ""
	}
	n, ok := f.integer()
	if !ok || n < lo || n > hi {
		return 0, fmt.Sprintf("%s %s is not a whole number from %d to %d", name, f.rawText(), lo, hi)
	}
	return n, ""
}

// fraction reads an optional number in [0, 1]; absent, it is def.
func fraction(f field, name string, def float64) (float64, string) {
	if !f.set {
		return def, ""
	}
	x, ok := f.number()
	if !ok || x < 0 || x > 1 {
		return 0, fmt.Sprintf("%s %s is not a number from 0 to 1", name, f.rawText())
	}
	return x, ""
}

// memoryKeyAndContent reads the type, key and content of a memory candidate.
func memoryKeyAndContent(c *candidate.Candidate, raw rawCandidate, typ string) (problem string) {
	t, err := memory.ParseType(typ)
	if err != nil {
		return fmt.Sprintf("memory_type %q is not one of preference, fact, goal, project, constraint, profile", typ)
	}
	c.Type = t

	rawKey, _ := raw.Key.text()
	key, err := candidate.ParseProposedKey(rawKey)
	if err != nil {
		return fmt.Sprintf("key %q is refused: %v", snippet(rawKey, 40), err)
	}
	if rule, noisy := memory.NoiseRuleFor(key); noisy {
		return fmt.Sprintf("key %q is in the noise family %s*: %s", key, rule.Prefix, rule.Reason)
	}
	c.Key = key.String()

	content, ok := raw.Content.text()
	if !ok {
		return "content " + raw.Content.rawText() + " is not a string"
	}
	c.Content = strings.TrimSpace(content)
	if err := memory.ValidateContent("content", c.Content); err != nil {
		return err.Error()
	}
	return ""
}

// slotKeyAndValue reads an identity slot (memory_type "profile"): the key names the
// slot ("profile.nickname"), the content is its value ("Captain"), empty for a
// DELETE, which clears it. Whether the value fits the slot is the screen's call
// (candidate.Boundaries), as for every extractor.
func slotKeyAndValue(c *candidate.Candidate, raw rawCandidate) (problem string) {
	rawKey, _ := raw.Key.text()
	slot, ok := candidate.ParseSlotKey(rawKey)
	if !ok {
		return fmt.Sprintf("key %q of a profile item names no identity slot (profile.nickname, profile.preferred_name, "+
			"profile.ai_name, profile.emoji, profile.language, profile.tone)", snippet(rawKey, 40))
	}
	c.Type, c.Key = candidate.TypeProfile, candidate.SlotKey(slot)
	value, ok := raw.Content.text()
	if !ok {
		return "content " + raw.Content.rawText() + " is not a string"
	}
	c.Content = strings.TrimSpace(value)
	if c.Op == candidate.OpDelete {
		c.Content = ""
		return ""
	}
	if err := memory.ValidateContent("content", c.Content); err != nil {
		return err.Error()
	}
	return ""
}

// sourceIndex reads "source_message" (2, "2", "M2") into an index of sources; a
// missing or impossible value means the last message, the one that triggered the run.
func sourceIndex(f field, n int) int {
	last := n - 1
	s, ok := f.text()
	if !f.set || !ok {
		return last
	}
	s = strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(s)), "M")
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 || k > n {
		return last
	}
	return k - 1
}
