package profile

import (
	"cmp"
	"strconv"
	"strings"
)

// IsEnglish reports whether a profile in lang is shown in English. Chinese (and an
// undeclared language: the default is zh) is shown in Chinese; every other
// language in English, the more widely read of the two.
func IsEnglish(lang string) bool {
	lang = strings.ToLower(strings.TrimSpace(lang))
	return lang != "" && lang != "zh" && !strings.HasPrefix(lang, "zh-")
}

type labels struct {
	header, name, position, department, style, expertise, topics, workflows, hours, address, aiName, tone string
	count                                                                                                 func(n int) string
	sep                                                                                                   string
}

var (
	zhLabels = labels{
		header: "[用户画像]", name: "姓名", position: "职位", department: "部门", style: "工作风格",
		expertise: "擅长领域", topics: "最近话题", workflows: "常用流程", hours: "常用工作时间",
		address: "称呼", aiName: "助手名", tone: "沟通语气",
		count: func(n int) string { return "(" + strconv.Itoa(n) + "次)" }, sep: ", ",
	}
	enLabels = labels{
		header: "[User profile]", name: "Name", position: "Position", department: "Department", style: "Work style",
		expertise: "Expertise", topics: "Recent topics", workflows: "Frequent workflows", hours: "Usual work hours",
		address: "Address as", aiName: "Assistant name", tone: "Tone",
		count: func(n int) string { return " (" + strconv.Itoa(n) + ")" }, sep: ", ",
	}
)

// Format renders a profile in the prompt format of docs/CONTEXT.md, in Chinese or English
// (IsEnglish of the profile's language):
//
//	[用户画像]
//	姓名: 张三 | 职位: 技术主管 | 部门: 研发中心
//	工作风格: 注重细节, 快速响应
//	擅长领域: 项目管理, 数据分析
//	最近话题: 任务管理(15次), 文档处理(8次)
//	常用流程: 任务分配(23次), 周报生成(12次)
//
// Lines (and parts of the first line) with nothing to say are left out; work hours
// and the identity slots (how to address the user, the assistant's name, the
// tone) follow when known. A profile with nothing to say renders as "".
func Format(s State) string {
	l := zhLabels
	if IsEnglish(EffectiveLanguage(s.Declared.Language)) {
		l = enLabels
	}
	var lines []string
	line := func(label string, items []string) {
		if len(items) > 0 {
			lines = append(lines, label+": "+strings.Join(items, l.sep))
		}
	}
	if who := labelled(l.name, s.Declared.DisplayName, l.position, s.Declared.Position, l.department, s.Declared.Department); who != "" {
		lines = append(lines, who)
	}
	line(l.style, WorkStyleTags(s))
	line(l.expertise, s.Derived.Expertise)
	var topics, flows, hours []string
	for _, t := range s.Derived.Topics {
		topics = append(topics, t.Topic+l.count(t.Count))
	}
	for _, w := range s.Derived.FavouriteWorkflows {
		flows = append(flows, cmp.Or(w.FlowName, w.FlowID)+l.count(w.Count))
	}
	for _, h := range s.Derived.WorkHours {
		hours = append(hours, h.String())
	}
	line(l.topics, topics)
	line(l.workflows, flows)
	line(l.hours, hours)
	slots := labelled(l.address, cmp.Or(s.Declared.Nickname, s.Declared.PreferredName), l.aiName, s.Declared.AIName, l.tone, s.Declared.Tone)
	if e := s.Declared.Emoji; e != "" {
		slots = strings.TrimPrefix(slots+" | "+e, " | ")
	}
	if slots != "" {
		lines = append(lines, slots)
	}
	if len(lines) == 0 {
		return ""
	}
	return l.header + "\n" + strings.Join(lines, "\n")
}

// labelled joins "label: value" pairs with " | ", leaving out empty values.
func labelled(pairs ...string) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			parts = append(parts, pairs[i]+": "+pairs[i+1])
		}
	}
	return strings.Join(parts, " | ")
}

// WorkStyleTags are the declared tags followed by the derived ones in the profile's
// language, each once.
func WorkStyleTags(s State) []string {
	lang := EffectiveLanguage(s.Declared.Language)
	out := append([]string(nil), s.Declared.WorkStyleTags...)
	for _, t := range s.Derived.WorkStyle {
		label := t.Label(lang)
		dup := false
		for _, o := range out {
			dup = dup || strings.EqualFold(o, label)
		}
		if !dup {
			out = append(out, label)
		}
	}
	return out
}
