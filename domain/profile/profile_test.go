package profile

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/domain/invalid"
	"engram/domain/memory"
)

var alice = memory.Scope{Tenant: "acme", User: "alice"}

func fieldsOf(err error) []string {
	var ve *invalid.Error
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	for _, f := range ve.Fields {
		out = append(out, f.Field)
	}
	return out
}

func TestApply_mergePatchSemantics(t *testing.T) {
	t.Parallel()
	src := Source{Channel: ChannelAPI, At: testNow}
	p, changed, err := New(alice, testNow).Apply(Patch{
		DisplayName:   Value(" 王小明 "),
		Language:      Value("en-US"),
		TimeZone:      Value("Asia/Shanghai"),
		WorkStyleTags: Value([]string{" 注重细节 ", "注重细节", "", "Fast"}),
	}, src)
	if err != nil {
		t.Fatal(err)
	}
	st := p.State()
	if st.Declared.DisplayName != "王小明" || !slices.Equal(st.Declared.WorkStyleTags, []string{"注重细节", "Fast"}) || st.Version != 1 {
		t.Errorf("state %+v", st)
	}
	if !slices.Equal(changed, []Field{FieldDisplayName, FieldLanguage, FieldTimeZone, FieldWorkStyleTags}) || st.Sources[FieldLanguage] != src {
		t.Errorf("changed %v sources %v", changed, st.Sources)
	}

	// Absent fields stay; a set empty value (JSON null) clears; the same value is no change.
	later := Source{Channel: ChannelAPI, At: testNow.Add(time.Hour)}
	p2, changed, err := p.Apply(Patch{Language: Value(""), DisplayName: Value("王小明")}, later)
	if err != nil || !slices.Equal(changed, []Field{FieldLanguage}) {
		t.Fatalf("changed %v err %v", changed, err)
	}
	st2 := p2.State()
	if st2.Declared.Language != "" || p2.Language() != DefaultLanguage || st2.Declared.TimeZone != "Asia/Shanghai" || st2.Version != 2 || !st2.UpdatedAt.Equal(later.At) {
		t.Errorf("after clearing: %+v", st2)
	}
	if st2.Sources[FieldDisplayName] != src {
		t.Error("an unchanged field keeps its source")
	}
	same, changed, err := p2.Apply(Patch{DisplayName: Value("王小明")}, later)
	if err != nil || changed != nil || same.Version() != 2 {
		t.Errorf("no-op patch: changed %v version %d err %v", changed, same.Version(), err)
	}
	if st.Declared.Language != "en-US" {
		t.Error("Apply changed the profile it was called on")
	}
}

func TestApply_invalidFieldsAreAllNamedAndNothingChanges(t *testing.T) {
	t.Parallel()
	p := New(alice, testNow)
	_, _, err := p.Apply(Patch{
		DisplayName: Value(strings.Repeat("名", 101)),
		Language:    Value("english please"),
		TimeZone:    Value("Mars/Olympus"),
		Emoji:       Value("🙂\x07"),
		RoleTags:    Value([]string{"ok", strings.Repeat("t", 51)}),
		Tone:        Value("casual"),
	}, Source{Channel: ChannelAPI, At: testNow})
	want := []string{"display_name", "language", "time_zone", "emoji", "role_tags[1]"}
	if got := fieldsOf(err); !slices.Equal(got, want) {
		t.Errorf("fields %v, want %v (err %v)", got, want, err)
	}
	if p.State().Declared.Tone != "" {
		t.Error("a valid field was applied although the patch failed")
	}
	for _, ok := range []string{"zh", "en", "en-US", "zh-Hans-CN"} {
		if _, _, err := p.Apply(Patch{Language: Value(ok)}, Source{}); err != nil {
			t.Errorf("language %q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"Local", "/etc/passwd", "Asia/../../x"} {
		if _, _, err := p.Apply(Patch{TimeZone: Value(bad)}, Source{}); err == nil {
			t.Errorf("time zone %q accepted", bad)
		}
	}
	var many []string
	for i := range 21 {
		many = append(many, string(rune('a'+i)))
	}
	if got := fieldsOf(second(p.Apply(Patch{RoleTags: Value(many)}, Source{}))); !slices.Equal(got, []string{"role_tags"}) {
		t.Errorf("21 tags: %v", got)
	}
}

func second[A, B, C any](_ A, _ B, c C) C { return c }

func TestApplySlots_eachSlotKeepsItsSourceAndOneVersion(t *testing.T) {
	t.Parallel()
	m1 := Source{Channel: ChannelExtraction, ConversationID: "c1", MessageID: "m1", At: testNow}
	m2 := Source{Channel: ChannelExtraction, ConversationID: "c1", MessageID: "m2", At: testNow.Add(time.Minute)}
	p, changed, err := New(alice, testNow).ApplySlots([]SlotUpdate{
		{Slot: SlotNickname, Value: "Captain", Source: m1},
		{Slot: SlotAIName, Value: "Jarvis", Source: m1},
		{Slot: SlotNickname, Value: "Skipper", Source: m2},
	})
	if err != nil {
		t.Fatal(err)
	}
	st := p.State()
	if st.Declared.Nickname != "Skipper" || st.Declared.AIName != "Jarvis" || st.Sources[FieldNickname] != m2 || st.Sources[FieldAIName] != m1 {
		t.Errorf("state %+v", st)
	}
	if !slices.Equal(changed, []Field{FieldNickname, FieldAIName}) || st.Version != 1 {
		t.Errorf("changed %v version %d", changed, st.Version)
	}
	_, _, err = p.ApplySlots([]SlotUpdate{{Slot: SlotTone, Value: "warm"}, {Slot: SlotLanguage, Value: "klingon!"}})
	if got := fieldsOf(err); !slices.Equal(got, []string{"slots[1].language"}) {
		t.Errorf("fields %v (err %v)", got, err)
	}
	if _, err := ParseSlot(" AI_Name "); err != nil {
		t.Error(err)
	}
	if _, err := ParseSlot("birthday"); err == nil {
		t.Error("unknown slot accepted")
	}
}

func TestNewActivity(t *testing.T) {
	t.Parallel()
	dur := func(h float64) *float64 { return &h }
	ok, err := NewActivity(alice, ActivityInput{EventID: "e1", Kind: "task_completed", At: testNow.Add(-time.Hour), FlowID: "f1", DurationH: dur(2.5)}, testNow)
	if err != nil || !ok.HasDuration || ok.DurationH != 2.5 || !ok.ReceivedAt.Equal(testNow) {
		t.Fatalf("%+v %v", ok, err)
	}
	for _, tc := range []struct {
		in     ActivityInput
		fields []string
	}{
		{ActivityInput{}, []string{"event_id", "kind", "at"}},
		{ActivityInput{EventID: "  ", Kind: "task_done", At: testNow}, []string{"event_id", "kind"}},
		{ActivityInput{EventID: "e", Kind: "workflow_used", At: testNow}, []string{"flow_id"}},
		{ActivityInput{EventID: "e", Kind: "task_assigned", At: testNow, DurationH: dur(1)}, []string{"duration_h"}},
		{ActivityInput{EventID: "e", Kind: "task_completed", At: testNow, DurationH: dur(-1)}, []string{"duration_h"}},
		{ActivityInput{EventID: "e", Kind: "task_completed", At: testNow, DurationH: dur(math.NaN())}, []string{"duration_h"}},
		{ActivityInput{EventID: "e", Kind: "task_created", At: testNow.Add(25 * time.Hour)}, []string{"at"}},
		{ActivityInput{EventID: "e", Kind: "task_created", At: time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC)}, []string{"at"}},
	} {
		_, err := NewActivity(alice, tc.in, testNow)
		if got := fieldsOf(err); !slices.Equal(got, tc.fields) {
			t.Errorf("%+v: fields %v, want %v", tc.in, got, tc.fields)
		}
	}
	again := ok
	again.ReceivedAt = testNow.Add(time.Hour)
	other := ok
	other.DurationH = 3
	if !ok.SameAs(again) || ok.SameAs(other) {
		t.Error("SameAs compares content, not arrival")
	}
}

func TestNextMark_debouncesButNeverPastMaxWait(t *testing.T) {
	t.Parallel()
	debounce, maxWait := time.Minute, 10*time.Minute
	first := NextMark(nil, testNow, debounce, maxWait)
	if !first.FirstMarked.Equal(testNow) || !first.Due.Equal(testNow.Add(time.Minute)) {
		t.Errorf("first %+v", first)
	}
	pushed := NextMark(&first, testNow.Add(30*time.Second), debounce, maxWait)
	if !pushed.FirstMarked.Equal(testNow) || !pushed.Due.Equal(testNow.Add(90*time.Second)) {
		t.Errorf("pushed %+v", pushed)
	}
	capped := NextMark(&pushed, testNow.Add(9*time.Minute+30*time.Second), debounce, maxWait)
	if !capped.Due.Equal(testNow.Add(maxWait)) {
		t.Errorf("capped %+v", capped)
	}
	overdue := NextMark(&pushed, testNow.Add(20*time.Minute), debounce, maxWait)
	if !overdue.Due.Equal(testNow.Add(20 * time.Minute)) {
		t.Errorf("a mark long overdue is due now: %+v", overdue)
	}
}

func sampleState(lang string) State {
	return State{
		Scope: alice,
		Declared: Declared{
			DisplayName: "张三", Position: "技术主管", Department: "研发中心", Language: lang,
			WorkStyleTags: []string{"注重细节"}, Nickname: "三哥", AIName: "小助",
		},
		Derived: Derived{
			WorkStyle:          []StyleTag{StyleFastTurnaround},
			Expertise:          []string{"项目管理", "数据分析"},
			Topics:             []TopicCount{{"任务管理", 15}, {"文档处理", 8}},
			FavouriteWorkflows: []WorkflowCount{{"assign", "任务分配", 23}, {"weekly", "周报生成", 12}},
			WorkHours:          []HourRange{{9, 12}},
			Tasks:              TaskStats{Assigned: 10, Created: 2, Completed: 9, CompletionRate: 0.9, AvgCompletionHours: 5},
			Conversations:      30,
		},
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		s    State
		want string
	}{
		{"seed 003's format in Chinese", sampleState(""), `[用户画像]
姓名: 张三 | 职位: 技术主管 | 部门: 研发中心
工作风格: 注重细节, 快速响应
擅长领域: 项目管理, 数据分析
最近话题: 任务管理(15次), 文档处理(8次)
常用流程: 任务分配(23次), 周报生成(12次)
常用工作时间: 09:00-12:00
称呼: 三哥 | 助手名: 小助`},
		{"English when the profile's language is English", sampleState("en-GB"), `[User profile]
Name: 张三 | Position: 技术主管 | Department: 研发中心
Work style: 注重细节, fast turnaround
Expertise: 项目管理, 数据分析
Recent topics: 任务管理 (15), 文档处理 (8)
Frequent workflows: 任务分配 (23), 周报生成 (12)
Usual work hours: 09:00-12:00
Address as: 三哥 | Assistant name: 小助`},
		{"missing parts are left out", State{Declared: Declared{Position: "Engineer", Language: "en"}, Derived: Derived{FavouriteWorkflows: []WorkflowCount{{FlowID: "f9", Count: 2}}}},
			"[User profile]\nPosition: Engineer\nFrequent workflows: f9 (2)"},
		{"nothing known renders nothing", State{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Format(tc.s); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestReportFacts_andRuleReport(t *testing.T) {
	t.Parallel()
	s := sampleState("")
	memories := []MemoryFact{
		{Key: "health.allergy", Type: "fact", Content: "对花生过敏", Importance: 5},
		{Key: "project.crm", Type: "project", Content: "负责 CRM 迁移项目", Importance: 4, UpdatedAt: testNow},
		{Key: "work.role", Type: "fact", Content: "带一个 6 人团队", Importance: 4, UpdatedAt: testNow.Add(-time.Hour)},
		{Key: "family.son", Type: "fact", Content: "儿子上小学", Importance: 3},
	}
	facts := ReportFacts(s, memories, 0)
	var texts []string
	for _, f := range facts {
		texts = append(texts, f.ID+" "+string(f.Source)+" "+f.Text)
	}
	want := []string{
		"F1 profile 职位：技术主管",
		"F2 profile 部门：研发中心",
		"F3 profile 工作风格：注重细节, 快速响应",
		"F4 profile 擅长领域：项目管理, 数据分析",
		"F5 profile 最近话题：任务管理 (15), 文档处理 (8)",
		"F6 profile 与助手对话 30 次",
		"F7 task_stats 任务：被指派 10 个，创建 2 个，完成 9 个，完成率 90%，平均每个任务 5.0 小时",
		"F8 workflows 常用流程「任务分配」，使用 23 次",
		"F9 workflows 常用流程「周报生成」，使用 12 次",
		"F10 memory 负责 CRM 迁移项目",
		"F11 memory 带一个 6 人团队",
	}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("facts\n%s\nwant\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
	if got := ReportFacts(s, memories, 1); len(got) != 10 {
		t.Errorf("maxMemories 1: %d facts", len(got))
	}

	text, used := RuleReport(s, facts)
	if len(used) != len(facts) || !strings.HasPrefix(text, "张三 的综合评估（依据 11 条记录）。") || !strings.Contains(text, "负责 CRM 迁移项目 [F10]") {
		t.Errorf("report %q used %v", text, used)
	}
	if strings.Contains(text, "花生") || strings.Contains(text, "儿子") {
		t.Error("a personal memory reached the report")
	}
	again, _ := RuleReport(s, facts)
	if again != text {
		t.Error("RuleReport is not deterministic")
	}
	en := sampleState("en")
	enText, _ := RuleReport(en, ReportFacts(en, nil, 0))
	if !strings.HasPrefix(enText, "Evaluation of 张三, from 9 recorded facts.") || !strings.Contains(enText, "Tasks: 10 assigned, 2 created, 9 completed, completion rate 90%, 5.0 h on average per task [F7]") {
		t.Errorf("english report %q", enText)
	}
	empty, used := RuleReport(State{Scope: alice}, nil)
	if used != nil || !strings.Contains(empty, "alice") {
		t.Errorf("empty report %q %v", empty, used)
	}
	r := Report{Facts: facts, FactsUsed: []string{"F10", "F2"}}
	if got := r.UsedFacts(); len(got) != 2 || got[0].ID != "F2" || got[1].ID != "F10" {
		t.Errorf("used facts %v", got)
	}
}

func TestWithDerived_versionMovesOnlyOnChange(t *testing.T) {
	t.Parallel()
	p := New(alice, testNow)
	if !p.IsEmpty() {
		t.Error("a new profile is empty")
	}
	d := Derived{Conversations: 2}
	p1, changed := p.WithDerived(d, testNow.Add(time.Minute))
	if !changed || p1.Version() != 1 || !p1.State().DerivedAt.Equal(testNow.Add(time.Minute)) || p1.IsEmpty() {
		t.Fatalf("p1 %+v", p1.State())
	}
	p2, changed := p1.WithDerived(Derived{Conversations: 2}, testNow.Add(2*time.Minute))
	if changed || p2.Version() != 1 || !p2.State().DerivedAt.Equal(testNow.Add(time.Minute)) {
		t.Errorf("p2 %+v", p2.State())
	}
}
