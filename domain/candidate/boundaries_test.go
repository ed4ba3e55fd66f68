package candidate_test

import (
	"strings"
	"testing"

	"engram/domain/candidate"
	"engram/domain/memory"
)

func cand(t memory.Type, key, content string) candidate.Candidate {
	return candidate.Candidate{Op: candidate.OpAdd, Type: t, Key: key, Content: content, Importance: 3, Confidence: 0.9}
}

func TestScreen_keepsStableMemories(t *testing.T) {
	t.Parallel()
	cases := []candidate.Candidate{
		cand(memory.TypeFact, "allergy.peanuts", "User is allergic to peanuts."),
		cand(memory.TypePreference, "food.likes.sichuan", "User likes Sichuan food."),
		cand(memory.TypeFact, "home.city", "User lives in Wuhan."),
		cand(memory.TypeFact, "home.city", "用户常住武汉。"),
		cand(memory.TypeGoal, "goal.jlpt_n1", "用户的目标是年底前考过 N1。"),
		cand(memory.TypeProject, "project.pai", "用户正在开发 PAI 项目。"),
		cand(memory.TypeConstraint, "reply.language", "用户要求以后都用中文回复。"),
		cand(memory.TypeConstraint, "reply.length", "回复尽量中文、输出不超过 200 字"),
		// Seed 000: a conditional rule without a window is a long-term constraint.
		cand(memory.TypeConstraint, "rule.remind.umbrella", "下雨时提醒我带伞"),
		cand(memory.TypeConstraint, "rule.remind.umbrella", "Remind the user to take an umbrella when it rains."),
		cand(memory.TypeConstraint, "rule.remind.water", "以后每天提醒用户喝水。"),
		cand(memory.TypeConstraint, "rule.remind.stretch", "Remind the user to stretch every morning."),
		cand(memory.TypeConstraint, "reply.style.emoji", "Never use emojis in answers."),
		cand(memory.TypePreference, "weather.likes.sunny", "User likes sunny and warm weather."),
		cand(memory.TypeFact, "diet", "From today on, the user is vegetarian."),
		cand(memory.TypeFact, "diet", "用户从今天起吃素。"),
		cand(memory.TypePreference, "habit.hiking", "用户周末喜欢去爬山。"),
		cand(memory.TypePreference, "habit.swimming", "User goes swimming on Fridays."),
		cand(memory.TypeFact, "birthday", "User's birthday is May 3."),
		cand(memory.TypeFact, "finance.budget", "User's monthly budget is 3000 yuan."),
		cand(memory.TypeFact, "name", "User's name is Emily."),
		cand(memory.TypeFact, "work.role", "User works as a database administrator."),
		{Op: candidate.OpDelete, Key: "diet"}, // deletions need only a key
	}
	for _, c := range cases {
		t.Run(c.Content, func(t *testing.T) {
			t.Parallel()
			ok, reason := candidate.DefaultBoundaries().Screen(c)
			if !ok {
				t.Fatalf("dropped (%s: %s), want kept", reason, candidate.DefaultBoundaries().Check(c).Detail)
			}
		})
	}
}

func TestScreen_dropsWhatSeed000Excludes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		c    candidate.Candidate
		want candidate.Reason
	}{
		{cand(memory.TypeConstraint, "reminder.umbrella", "Remind me to bring an umbrella tomorrow."), candidate.ReasonReminder},
		{cand(memory.TypeConstraint, "reminder.meeting", "提醒用户参加会议"), candidate.ReasonReminder},
		{cand(memory.TypeConstraint, "rule.umbrella", "明后天有雨时提醒我带伞"), candidate.ReasonShortTermCondition},
		{cand(memory.TypeConstraint, "rule.umbrella", "If it rains tomorrow, remind the user to take an umbrella."), candidate.ReasonShortTermCondition},
		{cand(memory.TypeFact, "plan.dinner", "User is having dinner with friends tonight."), candidate.ReasonTimeWindow},
		{cand(memory.TypeFact, "plan.trip", "User travels to Paris next week."), candidate.ReasonTimeWindow},
		{cand(memory.TypeFact, "plan.trip", "User will visit the museum this weekend."), candidate.ReasonTimeWindow},
		{cand(memory.TypeFact, "plan.call", "User has a call in 20 minutes."), candidate.ReasonTimeWindow},
		{cand(memory.TypeFact, "plan.call", "User has a meeting this Friday."), candidate.ReasonTimeWindow},
		{cand(memory.TypeFact, "plan.exam", "用户明天有考试。"), candidate.ReasonTimeWindow},
		{cand(memory.TypeFact, "plan.trip", "用户下周去上海出差"), candidate.ReasonTimeWindow},
		{cand(memory.TypeFact, "plan.trip", "用户这个月要搬家"), candidate.ReasonTimeWindow},
		{cand(memory.TypeFact, "plan.trip", "用户这周末去爬山"), candidate.ReasonTimeWindow},
		{cand(memory.TypeFact, "plan.trip", "用户周五要开会"), candidate.ReasonTimeWindow},
		{cand(memory.TypeFact, "plan.trip", "用户两小时后出门"), candidate.ReasonTimeWindow},
		{cand(memory.TypeFact, "weather.today", "It is 25 degrees and sunny."), candidate.ReasonWeatherSnapshot},
		{cand(memory.TypeFact, "weather.wuhan", "武汉今天天气晴，气温25度"), candidate.ReasonWeatherSnapshot},
		{cand(memory.TypeFact, "weather.forecast", "The forecast says rain."), candidate.ReasonWeatherSnapshot},
		{cand(memory.TypeFact, "spending", "User spent 3200 yuan this month."), candidate.ReasonPeriodFinance},
		{cand(memory.TypeFact, "spending", "用户本月支出 3200 元"), candidate.ReasonPeriodFinance},
		{cand(memory.TypeFact, "summary.week", "Weekly summary: user finished three reports."), candidate.ReasonPeriodSummary},
		{cand(memory.TypeFact, "summary.day", "今日总结：完成了两个任务"), candidate.ReasonPeriodSummary},
		{cand(memory.TypeFact, "tasks", "User needs to buy milk."), candidate.ReasonTodo},
		{cand(memory.TypeFact, "tasks", "用户要去交水电费"), candidate.ReasonTodo},
		{cand(memory.TypeFact, "tasks", "Add call the plumber to the to-do list."), candidate.ReasonTodo},
		{cand(memory.TypeFact, "setup", "Step 1: install Go. Step 2: run the tests."), candidate.ReasonSteps},
		{cand(memory.TypeFact, "setup", "首先打开终端，然后运行脚本"), candidate.ReasonSteps},
		{cand(memory.TypeFact, "setup", "Run npm install before starting."), candidate.ReasonSteps},
		{cand(memory.TypeFact, "assistant.tools", "Available tools: search, calculator, memory_save."), candidate.ReasonToolList},
		{cand(memory.TypeFact, "tools.list", "search and calculator"), candidate.ReasonToolList},
		{cand(memory.TypeFact, "assistant.caps", "可用工具包括搜索和计算器"), candidate.ReasonToolList},
		{cand(memory.TypeFact, "status", "The system status is degraded."), candidate.ReasonSystemState},
		{cand(memory.TypeFact, "system.mode", "degraded"), candidate.ReasonNoiseKey}, // seed's system-* read with '.' as '-'
		{cand(memory.TypeFact, "sys.mode", "degraded"), candidate.ReasonSystemState},
		{cand(memory.TypeConstraint, "output.mode", "Streaming output is turned off."), candidate.ReasonStreaming},
		{cand(memory.TypeConstraint, "output.mode", "关闭流式输出"), candidate.ReasonStreaming},
		{cand(memory.TypeFact, "nickname", "User's nickname is Xiao Wang."), candidate.ReasonProfileSlot},
		{cand(memory.TypeFact, "ai.name", "The assistant is called Jarvis."), candidate.ReasonProfileSlot},
		{cand(memory.TypeFact, "assistant_name", "Jarvis"), candidate.ReasonProfileSlot},
		{cand(memory.TypePreference, "profile.emoji", "🐱"), candidate.ReasonProfileSlot},
		{cand(memory.TypePreference, "昵称", "小王"), candidate.ReasonProfileSlot},
		{cand(memory.TypeFact, "assistant.identity", "用户叫你小爱"), candidate.ReasonProfileSlot},
		{cand(memory.TypeFact, "home.city", "User lives in 12345."), candidate.ReasonWrongSlotValue},
		{cand(memory.TypeFact, "home.city", "用户住在 100086"), candidate.ReasonWrongSlotValue},
		{cand(memory.TypeFact, "country", "country: 42"), candidate.ReasonWrongSlotValue},
		{cand(memory.TypeFact, "name", "User's name is 007."), candidate.ReasonWrongSlotValue},
		{cand(memory.TypeFact, "weather-date_2024_05_01", "Sunny"), candidate.ReasonNoiseKey},
		{cand(memory.TypeFact, "finance-monthly_2024_05", "Spent a lot"), candidate.ReasonNoiseKey},
		{cand(memory.TypeFact, "reminder.last_run", "Reminded at noon"), candidate.ReasonNoiseKey},
		{cand(memory.TypeFact, "weather.date.2024", "Cloudy"), candidate.ReasonNoiseKey},
		{cand(memory.TypeFact, "question", "What is the user's favourite colour?"), candidate.ReasonNotStatement},
		{cand(memory.TypeFact, "music.likes.jazz", "User likes jazz."), ""}, // control for the next ones
		{candidate.Candidate{Op: candidate.OpAdd, Type: memory.TypePreference, Key: "music.likes.jazz", Content: "User likes jazz.", Confidence: 0.6}, candidate.ReasonLowConfidence},
		{candidate.Candidate{Op: candidate.OpAdd, Type: memory.TypePreference, Key: "music.likes.jazz", Content: "User likes jazz."}, candidate.ReasonLowConfidence},
		{candidate.Candidate{Op: "MERGE", Type: memory.TypePreference, Key: "x", Content: "User likes jazz.", Confidence: 0.9}, candidate.ReasonInvalid},
		{candidate.Candidate{Op: candidate.OpAdd, Type: "profile", Key: "x", Content: "User likes jazz.", Confidence: 0.9}, candidate.ReasonInvalid},
		{candidate.Candidate{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "!!!", Content: "User likes jazz.", Confidence: 0.9}, candidate.ReasonInvalid},
		{candidate.Candidate{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "x", Content: "User likes jazz.", Confidence: 0.9, Importance: 9}, candidate.ReasonInvalid},
		{cand(memory.TypeFact, "x", "  . "), candidate.ReasonEmptyContent},
		{cand(memory.TypeFact, "x", strings.Repeat("长", memory.MaxContentLen+1)), candidate.ReasonContentTooLong},
	}
	for _, tc := range cases {
		t.Run(string(tc.want)+"/"+tc.c.Content, func(t *testing.T) {
			t.Parallel()
			s := candidate.DefaultBoundaries().Check(tc.c)
			if s.Reason != tc.want {
				t.Fatalf("Check(%q, key %q) = %q (%s), want %q", tc.c.Content, tc.c.Key, s.Reason, s.Detail, tc.want)
			}
			if s.Kept != (tc.want == "") {
				t.Fatalf("Kept = %v with reason %q", s.Kept, s.Reason)
			}
			if !s.Kept && (s.Detail == "" || s.Reason.Describe() == string(s.Reason)) {
				t.Fatalf("reason %q lacks a detail or a description", s.Reason)
			}
		})
	}
}

func TestScreen_minConfidenceIsConfigurable(t *testing.T) {
	t.Parallel()
	c := cand(memory.TypePreference, "music.likes.jazz", "User likes jazz.")
	c.Confidence = 0.7
	if ok, _ := candidate.DefaultBoundaries().Screen(c); ok {
		t.Fatal("0.7 kept with the default minimum 0.75")
	}
	if ok, reason := (candidate.Boundaries{MinConfidence: 0.6}).Screen(c); !ok {
		t.Fatalf("0.7 dropped (%s) with minimum 0.6", reason)
	}
	c.Content = strings.Repeat("a", 50)
	if ok, reason := (candidate.Boundaries{MaxContentLen: 20}).Screen(c); ok || reason != string(candidate.ReasonContentTooLong) {
		t.Fatalf("50 characters with a limit of 20: ok=%v reason=%q", ok, reason)
	}
}

func TestTimeWindow(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"Remind me tomorrow":            "tomorrow",
		"the day after tomorrow":        "tomorrow",
		"later today":                   "today",
		"in an hour":                    "in an hour",
		"see you this weekend":          "this weekend",
		"明后天有雨":                         "明后天",
		"本周五之前":                         "本周",
		"周末去哪":                          "周末",
		"I go hiking on weekends":       "",
		"I swim on Mondays":             "",
		"每周五游泳":                         "",
		"我周末都去爬山":                       "",
		"from today on I am vegetarian": "",
		"从明天开始我要早睡":                     "",
		"年底前考过N1":                       "",
		"I'm learning Go these days":    "",
		// A few weeks is as short as next week; a date months away is a goal's.
		"the bar exam in two weeks":                          "in two weeks",
		"两周后的考试":                                             "两周后",
		"within a couple of weeks":                           "within a couple of weeks",
		"I'm temporarily living in Madrid":                   "temporarily",
		"answer in French this time":                         "this time",
		"用户周五一般在家办公":                                         "",
		"周五要开会":                                              "周五",
		"我暂时住在朋友家":                                           "暂时",
		"a marathon in April":                                "",
		"buy a house in the next few years":                  "",
		"我吃素十年了":                                             "",
		"User goes swimming every Saturday morning":          "",
		"I've been a vegetarian for ten years":               "",
		"User has been working as a pharmacist for 12 years": "",
	}
	for text, want := range cases {
		if got := candidate.TimeWindow(text); got != want {
			t.Errorf("TimeWindow(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestReasons_allDescribed(t *testing.T) {
	t.Parallel()
	seen := map[candidate.Reason]bool{}
	for _, r := range candidate.Reasons {
		if seen[r] {
			t.Errorf("%q listed twice", r)
		}
		seen[r] = true
		if r.Describe() == string(r) {
			t.Errorf("%q has no description", r)
		}
	}
}
