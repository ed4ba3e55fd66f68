package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"engram/configs/prompts"
	"engram/domain/profile"
	"engram/ports"
)

// DefaultReportMaxChars is the report length the prompt asks for.
const DefaultReportMaxChars = 1200

// ReportWriterOptions configures evaluation reports.
type ReportWriterOptions struct {
	Prompts  *prompts.Set // nil: the embedded prompts
	MaxChars int          // asked of the model; answers are cut at twice this. 0: DefaultReportMaxChars
}

// ReportWriter writes evaluation reports with the model (ports.ReportWriter). The
// answer must cite the facts it rests on; citations of facts it was not given are
// dropped, and an answer that cites none is unusable.
type ReportWriter struct {
	chat     Chatter
	model    string
	prompts  *prompts.Set
	maxChars int
}

var _ ports.ReportWriter = (*ReportWriter)(nil)

// NewReportWriter builds a writer over a chat client; model names it in reports.
func NewReportWriter(chat Chatter, model string, opts ReportWriterOptions) *ReportWriter {
	w := &ReportWriter{chat: chat, model: model, prompts: opts.Prompts, maxChars: opts.MaxChars}
	if w.prompts == nil {
		w.prompts = prompts.Default()
	}
	if w.maxChars <= 0 {
		w.maxChars = DefaultReportMaxChars
	}
	return w
}

// WriteReport asks the model for the report of req's facts.
func (w *ReportWriter) WriteReport(ctx context.Context, req ports.ReportRequest) (ports.ReportDraft, ports.LLMUsage, error) {
	data := prompts.ReportData{
		Today: req.Now.UTC().Format("2006-01-02"), Subject: req.Subject,
		English: profile.IsEnglish(profile.EffectiveLanguage(req.Language)), MaxChars: w.maxChars,
	}
	for _, f := range req.Facts {
		data.Facts = append(data.Facts, prompts.ReportFact{ID: f.ID, Source: string(f.Source), Text: f.Text})
	}
	p, err := w.prompts.Render(prompts.Report, data)
	if err != nil {
		return ports.ReportDraft{}, ports.LLMUsage{}, fmt.Errorf("llm: report: %w", err)
	}
	reply, err := w.chat.Chat(ctx, ChatRequest{JSON: true, Messages: []ChatMessage{
		{Role: RoleSystem, Content: p.System},
		{Role: RoleUser, Content: p.User},
	}})
	if err != nil {
		return ports.ReportDraft{}, reply.Usage, err
	}
	draft, err := parseReport(reply.Content, req.Facts, 2*w.maxChars)
	if err != nil {
		return ports.ReportDraft{}, reply.Usage, err
	}
	draft.Model = w.model
	return draft, reply.Usage, nil
}

// reportAnswer is the answer's shape; facts_used may hold a fact label in either case, or its number.
type reportAnswer struct {
	Report    field   `json:"report"`
	FactsUsed []field `json:"facts_used"`
}

func parseReport(answer string, facts []profile.Fact, maxChars int) (ports.ReportDraft, error) {
	text := cleanAnswer(answer)
	if m := codeFence.FindStringSubmatch(text); m != nil {
		text = m[1]
	}
	start := strings.IndexByte(text, '{')
	if start < 0 {
		return ports.ReportDraft{}, badOutput("report", answer, "the answer holds no JSON object")
	}
	var a reportAnswer
	if err := json.NewDecoder(strings.NewReader(text[start:])).Decode(&a); err != nil {
		return ports.ReportDraft{}, badOutput("report", answer, "the answer is not valid JSON: %v", err)
	}
	report, ok := a.Report.text()
	report = strings.TrimSpace(report)
	if !ok || report == "" {
		return ports.ReportDraft{}, badOutput("report", answer, `"report" is missing or empty`)
	}
	if utf8.RuneCountInString(report) > maxChars {
		report = string([]rune(report)[:maxChars-1]) + "…"
	}
	known := make([]string, len(facts))
	for i, f := range facts {
		known[i] = f.ID
	}
	var used []string
	for _, f := range a.FactsUsed {
		id, ok := f.text()
		if !ok {
			continue
		}
		id = strings.ToUpper(strings.TrimSpace(id))
		if n, err := strconv.Atoi(id); err == nil {
			id = profile.FactID(n)
		}
		if slices.Contains(known, id) && !slices.Contains(used, id) {
			used = append(used, id)
		}
	}
	if len(used) == 0 {
		return ports.ReportDraft{}, badOutput("report", answer, "the report cites none of the facts it was given")
	}
	slices.SortFunc(used, func(x, y string) int { return slices.Index(known, x) - slices.Index(known, y) })
	return ports.ReportDraft{Text: report, FactsUsed: used}, nil
}
