package profile

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"engram/domain/memory"
)

// FactSource says where a report fact comes from.
type FactSource string

const (
	FactProfile   FactSource = "profile"
	FactTasks     FactSource = "task_stats"
	FactWorkflows FactSource = "workflows"
	FactMemory    FactSource = "memory"
)

// FactID is the id of the n-th fact (from 1): the letter F and n, the form the
// report writer cites.
func FactID(n int) string { return "F" + strconv.Itoa(n) }

// Fact is one input of an evaluation report, numbered so the writer can cite it.
type Fact struct {
	ID     string // "F" and the fact's position, from 1 (FactID)
	Source FactSource
	Key    string // the memory key, or the profile field
	Text   string
}

// Generator is what wrote a report.
type Generator string

const (
	GeneratorLLM   Generator = "llm"
	GeneratorRules Generator = "rules"
)

// Report is an evaluation report of a user, written for a manager, stored with the
// facts it was based on so a later reader can see them.
type Report struct {
	ID             string
	Scope          memory.Scope
	Actor          string // the manager who asked
	Text           string
	Facts          []Fact   // every fact the writer was given
	FactsUsed      []string // the ids of the facts the report rests on
	Generator      Generator
	Model          string // the LLM's model; "" for rules
	FallbackReason string // why rules wrote it although an LLM is configured
	Language       string
	GeneratedAt    time.Time
}

// UsedFacts returns the facts the report cites, in the order of its Facts.
func (r Report) UsedFacts() []Fact {
	var out []Fact
	for _, f := range r.Facts {
		if slices.Contains(r.FactsUsed, f.ID) {
			out = append(out, f)
		}
	}
	return out
}

// DefaultReportMemories bounds how many memories a report is given.
const DefaultReportMemories = 40

// ReportFacts lists what an evaluation may rest on: the profile's work facts, the
// task statistics, the favourite workflows, and the user's work memories (most
// important and most recent first, at most maxMemories). Personal memories never
// reach a report (see IsWorkMemory). Facts are written in the profile's language.
func ReportFacts(s State, memories []MemoryFact, maxMemories int) []Fact {
	if maxMemories <= 0 {
		maxMemories = DefaultReportMemories
	}
	en := IsEnglish(EffectiveLanguage(s.Declared.Language))
	var facts []Fact
	add := func(src FactSource, key, text string) {
		facts = append(facts, Fact{ID: FactID(len(facts) + 1), Source: src, Key: key, Text: text})
	}
	profileFacts(s, en, add)
	for _, m := range reportMemories(memories, maxMemories) {
		add(FactMemory, m.Key, m.Content)
	}
	return facts
}

// profileFacts adds the profile's work facts, task statistics and favourite
// workflows, in Chinese or English.
func profileFacts(s State, en bool, add func(src FactSource, key, text string)) {
	pick := func(zh, enText string) string {
		if en {
			return enText
		}
		return zh
	}
	d, v := s.Declared, s.Derived
	if d.Position != "" {
		add(FactProfile, string(FieldPosition), pick("职位："+d.Position, "Position: "+d.Position))
	}
	if d.Department != "" {
		add(FactProfile, string(FieldDepartment), pick("部门："+d.Department, "Department: "+d.Department))
	}
	if tags := WorkStyleTags(s); len(tags) > 0 {
		add(FactProfile, string(FieldWorkStyleTags), pick("工作风格：", "Work style: ")+strings.Join(tags, ", "))
	}
	if len(v.Expertise) > 0 {
		add(FactProfile, "expertise_areas", pick("擅长领域：", "Expertise: ")+strings.Join(v.Expertise, ", "))
	}
	if len(v.Topics) > 0 {
		var ts []string
		for _, t := range v.Topics {
			ts = append(ts, fmt.Sprintf("%s (%d)", t.Topic, t.Count))
		}
		add(FactProfile, "common_topics", pick("最近话题：", "Recent topics: ")+strings.Join(ts, ", "))
	}
	if v.Conversations > 0 {
		add(FactProfile, "total_conversations", pick(fmt.Sprintf("与助手对话 %d 次", v.Conversations), fmt.Sprintf("%d conversations with the assistant", v.Conversations)))
	}
	if t := v.Tasks; t.Assigned+t.Created+t.Completed > 0 {
		add(FactTasks, "task_stats", taskSentence(t, en))
	}
	for _, w := range v.FavouriteWorkflows {
		name := cmp.Or(w.FlowName, w.FlowID)
		add(FactWorkflows, w.FlowID, pick(fmt.Sprintf("常用流程「%s」，使用 %d 次", name, w.Count), fmt.Sprintf("Workflow %q used %d times", name, w.Count)))
	}
}

// reportMemories are the work memories a report may use: most important first,
// then most recent, at most max.
func reportMemories(memories []MemoryFact, max int) []MemoryFact {
	work := make([]MemoryFact, 0, len(memories))
	for _, m := range memories {
		if IsWorkMemory(m) {
			work = append(work, m)
		}
	}
	slices.SortStableFunc(work, func(a, b MemoryFact) int {
		if c := cmp.Compare(b.Importance, a.Importance); c != 0 {
			return c
		}
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return work[:min(len(work), max)]
}

func taskSentence(t TaskStats, en bool) string {
	if en {
		s := fmt.Sprintf("Tasks: %d assigned, %d created, %d completed", t.Assigned, t.Created, t.Completed)
		if t.Assigned > 0 {
			s += fmt.Sprintf(", completion rate %.0f%%", t.CompletionRate*100)
		}
		if t.AvgCompletionHours > 0 {
			s += fmt.Sprintf(", %.1f h on average per task", t.AvgCompletionHours)
		}
		return s
	}
	s := fmt.Sprintf("任务：被指派 %d 个，创建 %d 个，完成 %d 个", t.Assigned, t.Created, t.Completed)
	if t.Assigned > 0 {
		s += fmt.Sprintf("，完成率 %.0f%%", t.CompletionRate*100)
	}
	if t.AvgCompletionHours > 0 {
		s += fmt.Sprintf("，平均每个任务 %.1f 小时", t.AvgCompletionHours)
	}
	return s
}

// RuleReport writes a report without a model: one sentence per group of facts, in
// the profile's language, citing every fact it uses. It is deterministic, so the
// same facts always read the same.
func RuleReport(s State, facts []Fact) (text string, used []string) {
	en := IsEnglish(EffectiveLanguage(s.Declared.Language))
	name := cmp.Or(s.Declared.DisplayName, s.Scope.User)
	if len(facts) == 0 {
		if en {
			return fmt.Sprintf("There is not enough data about %s yet for an evaluation: no tasks, workflows, conversations or work memories are recorded.", name), nil
		}
		return fmt.Sprintf("暂无足够数据评估%s：尚未记录任务、工作流、对话或工作相关记忆。", name), nil
	}
	groups := []struct {
		src    FactSource
		zh, en string
	}{
		{FactProfile, "概况", "Overview"},
		{FactTasks, "任务情况", "Tasks"},
		{FactWorkflows, "工作流", "Workflows"},
		{FactMemory, "工作相关记忆", "From their work memories"},
	}
	var b strings.Builder
	if en {
		fmt.Fprintf(&b, "Evaluation of %s, from %d recorded facts.", name, len(facts))
	} else {
		fmt.Fprintf(&b, "%s 的综合评估（依据 %d 条记录）。", name, len(facts))
	}
	for _, g := range groups {
		var parts []string
		for _, f := range facts {
			if f.Source == g.src {
				parts = append(parts, f.Text+" ["+f.ID+"]")
				used = append(used, f.ID)
			}
		}
		if len(parts) == 0 {
			continue
		}
		if en {
			fmt.Fprintf(&b, "\n%s: %s.", g.en, strings.Join(parts, "; "))
		} else {
			fmt.Fprintf(&b, "\n%s：%s。", g.zh, strings.Join(parts, "；"))
		}
	}
	return b.String(), used
}
