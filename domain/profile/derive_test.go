package profile

import (
	"reflect"
	"testing"
	"time"
)

func TestWorkHours(t *testing.T) {
	t.Parallel()
	shanghai := mustZone("Asia/Shanghai")
	msgsAt := func(loc *time.Location, daysAgo int, hours ...int) []MessageFact {
		var out []MessageFact
		for i, h := range hours {
			out = append(out, MessageFact{At: at(daysAgo+i%3, h, 15, loc), Text: "x"})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		msgs []MessageFact
		zone *time.Location
		want []HourRange
	}{
		{"too few messages say nothing", msgsAt(shanghai, 1, 9, 10, 11, 14), shanghai, nil},
		{"office hours in the user's zone, merged into ranges",
			msgsAt(shanghai, 1, 9, 9, 10, 10, 11, 14, 14, 15, 15, 16, 22), shanghai,
			[]HourRange{{9, 12}, {14, 16}}},
		{"the same instants read in UTC are other hours",
			msgsAt(shanghai, 1, 9, 9, 10, 10, 11, 14, 14, 15, 15, 16, 22), time.UTC,
			[]HourRange{{1, 4}, {6, 8}}},
		{"a late shift wraps past midnight",
			msgsAt(time.UTC, 1, 22, 22, 23, 23, 0, 0, 1, 1, 12), time.UTC,
			[]HourRange{{22, 2}}},
		{"messages older than the window and in the future are ignored",
			append(msgsAt(time.UTC, 1, 8, 8, 8, 8, 8), append(msgsAt(time.UTC, 100, 20, 20, 20, 20, 20), MessageFact{At: testNow.Add(time.Hour)})...), time.UTC,
			[]HourRange{{8, 9}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := WorkHours(tc.msgs, testNow, tc.zone); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if got := (HourRange{22, 2}).String(); got != "22:00-02:00" {
		t.Errorf("String = %q", got)
	}
}

func TestTopics(t *testing.T) {
	t.Parallel()
	recent := func(texts ...string) []MessageFact {
		var out []MessageFact
		for i, s := range texts {
			out = append(out, MessageFact{At: testNow.Add(-time.Duration(i+1) * time.Hour), Text: s})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		msgs     []MessageFact
		memories []MemoryFact
		want     []TopicCount
	}{
		{"English: stems counted once per message, shown as written, generic words dropped",
			recent("Please help me with the quarterly report", "The report for the board", "Reports again, and the board deck", "I need help today"),
			nil,
			[]TopicCount{{"report", 3}, {"board", 2}}},
		{"Chinese: request verbs and function words cut the run",
			recent("记住，我擅长数据分析。帮我整理周报生成的模板", "记住，我擅长数据分析。帮我整理周报生成的模板", "周报生成的格式再改一下"),
			nil,
			[]TopicCount{{"周报生成", 3}, {"数据分析", 2}, {"模板", 2}}},
		{"Chinese: the phrase that always occurs whole wins over its pieces",
			recent("帮我做任务管理的方案", "任务管理系统怎么配置", "周报生成一下", "下周的任务分配", "任务分配和周报生成"),
			nil,
			[]TopicCount{{"任务", 4}, {"任务分配", 2}, {"任务管理", 2}, {"周报生成", 2}}},
		{"work memories count double, personal ones not at all, one mention is not a topic",
			recent("talk about kubernetes"),
			[]MemoryFact{
				{Key: "work.stack", Type: "fact", Content: "Runs Kubernetes clusters", Importance: 4},
				{Key: "health.allergy", Type: "fact", Content: "Allergic to peanuts peanuts", Importance: 5},
				{Key: "hobby.likes", Type: "preference", Content: "likes kubernetes memes", Importance: 2},
			},
			[]TopicCount{{"kubernetes", 2}}},
		{"messages older than the window do not count",
			[]MessageFact{{At: testNow.AddDate(0, 0, -40), Text: "budget budget"}, {At: testNow.AddDate(0, 0, -41), Text: "budget"}},
			nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Topics(tc.msgs, tc.memories, testNow, fakeTerms); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestExpertise(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		memories []MemoryFact
		tallies  []ActivityTally
		want     []string
	}{
		{"English and Chinese cues in work memories, lists split",
			[]MemoryFact{
				{Key: "work.skills", Type: "fact", Content: "Alice is good at SQL, Go and data modelling. She hates meetings."},
				{Key: "工作.擅长", Type: "fact", Content: "擅长项目管理、数据分析，但不喜欢写文档"},
				{Key: "family.cooking", Type: "fact", Content: "good at cooking"},
			}, nil,
			[]string{"SQL", "Go", "data modelling", "项目管理", "数据分析"}},
		{"any memory but a personal one says what the user is good at",
			[]MemoryFact{
				{Key: "note.h1", Type: "fact", Content: "用户精通 Excel。"},
				{Key: "hobby.chess", Type: "fact", Content: "good at chess"},
				{Key: "health.x", Type: "fact", Content: "skilled at hiding pain"},
			}, nil,
			[]string{"Excel"}},
		{"workflows with repeated completed tasks, by name, heaviest first",
			nil,
			[]ActivityTally{
				{Kind: ActivityTaskCompleted, FlowID: "f1", FlowName: "周报生成", Count: 4},
				{Kind: ActivityTaskCompleted, FlowID: "f2", FlowName: "Code review", Count: 9},
				{Kind: ActivityTaskCompleted, FlowID: "f3", Count: 2},
				{Kind: ActivityWorkflowUsed, FlowID: "f4", FlowName: "Chat", Count: 50},
			},
			[]string{"Code review", "周报生成"}},
		{"the same area twice adds up and is listed once",
			[]MemoryFact{
				{Key: "skill.a", Type: "fact", Content: "expert in Kubernetes"},
				{Key: "project.b", Type: "project", Content: "proficient with kubernetes and Terraform"},
			}, nil,
			[]string{"Kubernetes", "Terraform"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Expertise(tc.memories, tc.tallies); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTaskStatisticsAndFavouriteWorkflows(t *testing.T) {
	t.Parallel()
	tallies := []ActivityTally{
		{Kind: ActivityTaskAssigned, Count: 8},
		{Kind: ActivityTaskAssigned, FlowID: "f1", Count: 2},
		{Kind: ActivityTaskCreated, Count: 3},
		{Kind: ActivityTaskCompleted, FlowID: "f1", Count: 6, DurationSum: 20, DurationCount: 4},
		{Kind: ActivityTaskCompleted, Count: 3, DurationSum: 1, DurationCount: 2},
		{Kind: ActivityWorkflowUsed, FlowID: "weekly", FlowName: "周报生成", Count: 12},
		{Kind: ActivityWorkflowUsed, FlowID: "assign", FlowName: "任务分配", Count: 23},
		{Kind: ActivityWorkflowUsed, FlowID: "a", Count: 1},
	}
	got := TaskStatistics(tallies)
	want := TaskStats{Assigned: 10, Created: 3, Completed: 9, AvgCompletionHours: 3.5, CompletionRate: 0.9}
	if got != want {
		t.Errorf("tasks = %+v, want %+v", got, want)
	}
	if st := TaskStatistics([]ActivityTally{{Kind: ActivityTaskCompleted, Count: 5}, {Kind: ActivityTaskAssigned, Count: 2}}); st.CompletionRate != 1 || st.AvgCompletionHours != 0 {
		t.Errorf("rate is capped at 1 and no durations average nothing: %+v", st)
	}
	if st := TaskStatistics(nil); st != (TaskStats{}) {
		t.Errorf("nothing: %+v", st)
	}
	favs, runs := FavouriteWorkflows(tallies, nil)
	wantFavs := []WorkflowCount{{"assign", "任务分配", 23}, {"weekly", "周报生成", 12}, {"a", "", 1}}
	if runs != 36 || !reflect.DeepEqual(favs, wantFavs) {
		t.Errorf("favourites = %v (%d runs), want %v (36)", favs, runs, wantFavs)
	}
}

func TestWorkStyle(t *testing.T) {
	t.Parallel()
	var early, late []MessageFact
	for i := range 10 {
		early = append(early, MessageFact{At: at(i%5+1, 7, 0, time.UTC)})
		late = append(late, MessageFact{At: at(i%5+1, 23, 0, time.UTC)})
	}
	for _, tc := range []struct {
		name  string
		tasks TaskStats
		runs  int
		msgs  []MessageFact
		want  []StyleTag
	}{
		{"not enough evidence", TaskStats{Assigned: 2, Completed: 2, CompletionRate: 1, AvgCompletionHours: 1}, 3, early[:5], nil},
		{"fast, reliable, early, workflow-driven", TaskStats{Assigned: 10, Completed: 9, CompletionRate: 0.9, AvgCompletionHours: 4}, 12, early,
			[]StyleTag{StyleFastTurnaround, StyleReliable, StyleEarlyBird, StyleWorkflowDriven}},
		{"slow tasks and late nights", TaskStats{Assigned: 10, Completed: 5, CompletionRate: 0.5, AvgCompletionHours: 30}, 0, late,
			[]StyleTag{StyleNightOwl}},
	} {
		if got := WorkStyle(tc.tasks, tc.runs, tc.msgs, testNow, time.UTC); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	if StyleNightOwl.Label("en-GB") != "night owl" || StyleNightOwl.Label("") != "常在夜间工作" {
		t.Error("labels follow the language")
	}
}

func TestDerive_fixedClockGivesTheWholeProfile(t *testing.T) {
	t.Parallel()
	shanghai := mustZone("Asia/Shanghai")
	var msgs []MessageFact
	for i, h := range []int{9, 9, 10, 10, 11, 14, 15} {
		msgs = append(msgs, MessageFact{At: at(i%3+1, h, 30, shanghai), Text: "周报生成和任务分配"})
	}
	in := Inputs{
		Now: testNow, TimeZone: "Asia/Shanghai", Messages: msgs, Conversations: 4, LastConversationAt: at(1, 15, 30, shanghai),
		Memories: []MemoryFact{{Key: "work.skill", Type: "fact", Content: "擅长数据分析", Importance: 4}},
		Activity: []ActivityTally{
			{Kind: ActivityWorkflowUsed, FlowID: "weekly", FlowName: "周报生成", Count: 3},
			{Kind: ActivityTaskAssigned, Count: 4},
			{Kind: ActivityTaskCompleted, Count: 2, DurationSum: 6, DurationCount: 2},
		},
	}
	got := Derive(in, fakeTerms)
	want := Derived{
		Conversations:      4,
		WorkflowsUsed:      3,
		FavouriteWorkflows: []WorkflowCount{{"weekly", "周报生成", 3}},
		WorkHours:          []HourRange{{9, 12}, {14, 15}},
		Topics:             []TopicCount{{"任务分配", 7}, {"周报生成", 7}},
		Expertise:          []string{"数据分析"},
		Tasks:              TaskStats{Assigned: 4, Completed: 2, AvgCompletionHours: 3, CompletionRate: 0.5},
		LastConversationAt: at(1, 15, 30, shanghai).UTC(),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if again := Derive(in, fakeTerms); !reflect.DeepEqual(again, got) {
		t.Error("Derive is not deterministic")
	}
}
