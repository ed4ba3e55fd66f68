package profile

import (
	"strconv"
	"strings"
)

// IsEnglish reports whether a profile in lang is shown in English. Chinese (and an
// undeclared language: seed 003's default is zh) is shown in Chinese; every other
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

// Format renders a profile in seed 003's prompt format, in Chinese or English
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
	lang := EffectiveLanguage(s.Declared.Language)
	l := zhLabels
	if IsEnglish(lang) {
		l = enLabels
	}
	var lines []string
	line := func(label string, items []string, sep string) {
		if len(items) > 0 {
			lines = append(lines, label+": "+strings.Join(items, sep))
		}
	}
	var who []string
	for _, part := range [][2]string{{l.name, s.Declared.DisplayName}, {l.position, s.Declared.Position}, {l.department, s.Declared.Department}} {
		if part[1] != "" {
			who = append(who, part[0]+": "+part[1])
		}
	}
	if len(who) > 0 {
		lines = append(lines, strings.Join(who, " | "))
	}
	line(l.style, WorkStyleTags(s), l.sep)
	line(l.expertise, s.Derived.Expertise, l.sep)
	var topics []string
	for _, t := range s.Derived.Topics {
		topics = append(topics, t.Topic+l.count(t.Count))
	}
	line(l.topics, topics, l.sep)
	var flows []string
	for _, w := range s.Derived.FavouriteWorkflows {
		name := w.FlowName
		if name == "" {
			name = w.FlowID
		}
		flows = append(flows, name+l.count(w.Count))
	}
	line(l.workflows, flows, l.sep)
	var hours []string
	for _, h := range s.Derived.WorkHours {
		hours = append(hours, h.String())
	}
	line(l.hours, hours, l.sep)
	var slots []string
	if addr := firstNonEmpty(s.Declared.Nickname, s.Declared.PreferredName); addr != "" {
		slots = append(slots, l.address+": "+addr)
	}
	if s.Declared.AIName != "" {
		slots = append(slots, l.aiName+": "+s.Declared.AIName)
	}
	if s.Declared.Tone != "" {
		slots = append(slots, l.tone+": "+s.Declared.Tone)
	}
	if s.Declared.Emoji != "" {
		slots = append(slots, s.Declared.Emoji)
	}
	if len(slots) > 0 {
		lines = append(lines, strings.Join(slots, " | "))
	}
	if len(lines) == 0 {
		return ""
	}
	return l.header + "\n" + strings.Join(lines, "\n")
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

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
