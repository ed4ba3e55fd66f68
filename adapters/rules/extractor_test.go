package rules_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"engram/adapters/rules"
	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

type want struct {
	typ     memory.Type
	key     string
	content string // a substring the content must contain
}

var asciiKey = regexp.MustCompile(`^[a-z0-9_.]+$`)

func TestExtractMessage_learnsWhatUsersStatePlainly(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want []want
	}{
		// The brief's three anchors.
		{"Please remember that I am allergic to peanuts.", []want{{memory.TypeFact, "allergy.peanuts", "User is allergic to peanuts"}}},
		// A standing reply-language rule stays a constraint and sets the profile's language.
		{"记住，以后都用中文回复我。", []want{{memory.TypeConstraint, "reply.language", "以后都用中文回复用户"}, {candidate.TypeProfile, "profile.language", "中文"}}},
		// English.
		{"My name is Emily.", []want{{memory.TypeFact, "name", "User's name is Emily"}}},
		{"Hello, I'm Gary. Nice to meet you.", []want{{memory.TypeFact, "name", "Gary"}}},
		{"You can call me Bob.", []want{{candidate.TypeProfile, "profile.nickname", "Bob"}}}, // a nickname is a profile slot (SPEC F1), not a memory
		{"I prefer concise answers.", []want{{memory.TypePreference, "reply.length", "User prefers concise answers"}}},
		{"I prefer tea over coffee.", []want{{memory.TypePreference, "drink.prefers.tea", "User prefers tea over coffee"}}},
		{"I really like Sichuan food.", []want{{memory.TypePreference, "food.likes.sichuan_food", "User likes Sichuan food"}}},
		{"I love jazz, especially Miles Davis.", []want{{memory.TypePreference, "music.likes.jazz", "User loves jazz"}}},
		{"I don't like horror movies.", []want{{memory.TypePreference, "film.dislikes.horror_movies", "User doesn't like horror movies"}}},
		{"I hate cilantro, it tastes like soap.", []want{{memory.TypePreference, "food.dislikes.cilantro", "User hates cilantro"}}},
		{"I'm vegetarian, what should I cook tonight?", []want{{memory.TypeFact, "diet", "User is vegetarian"}}},
		{"I live in Berlin and I work at Siemens.", []want{
			{memory.TypeFact, "home.city", "User lives in Berlin"},
			{memory.TypeFact, "work.place", "User works at Siemens"}}},
		{"I work as a nurse.", []want{{memory.TypeFact, "work.role", "User works as a nurse"}}},
		{"I'm a software engineer.", []want{{memory.TypeFact, "work.role", "User is a software engineer"}}},
		{"My birthday is March 3rd.", []want{{memory.TypeFact, "birthday", "User's birthday is March 3rd"}}},
		{"I have a dog named Max.", []want{{memory.TypeFact, "pet.dog", "User has a dog named Max"}}},
		{"From now on, call me Bob.", []want{{candidate.TypeProfile, "profile.nickname", "Bob"}}},
		{"From now on, answer me in English.", []want{{memory.TypeConstraint, "reply.language", "From now on, answer the user in English"}, {candidate.TypeProfile, "profile.language", "English"}}},
		{"Always use metric units.", []want{{memory.TypeConstraint, "rule.use_metric_units", "Always use metric units"}}},
		{"Never use emojis in your answers.", []want{{memory.TypeConstraint, "reply.style.emoji", "Never use emojis"}}},
		{"When it rains, remind me to take an umbrella.", []want{{memory.TypeConstraint, "rule.remind.take_umbrella", "remind the user to take an umbrella"}}},
		{"My goal is to pass the JLPT N1 by the end of the year.", []want{{memory.TypeGoal, "goal.pass_jlpt_n1_end", "pass the JLPT N1"}}},
		{"I'm working on a project called Engram.", []want{{memory.TypeProject, "project.engram", "project called Engram"}}},
		{"I enjoy painting, playing piano and tea tasting.", []want{
			{memory.TypePreference, "hobby.likes.painting", "User enjoys painting"},
			{memory.TypePreference, "music.likes.playing_piano", "playing piano"},
			{memory.TypePreference, "drink.likes.tea_tasting", "tea tasting"}}},
		{"Remember that my locker code is 4512.", []want{{memory.TypeFact, "note.locker_code", "my locker code is 4512"}}},
		// Retractions are deletions of the key the statement once filled.
		{"I no longer like jazz.", []want{{memory.TypePreference, "music.likes.jazz", "User no longer likes jazz"}}},
		{"I don't like jazz anymore.", []want{{memory.TypePreference, "music.likes.jazz", "User no longer likes jazz"}}},
		{"I'm no longer vegetarian.", []want{{memory.TypeFact, "diet", "User is no longer vegetarian"}}},
		{"我不再喜欢爵士乐了", []want{{memory.TypePreference, "music.likes.jazz", "用户不再喜欢爵士乐"}}},
		{"我现在不吃素了", []want{{memory.TypeFact, "diet", "用户现在不吃素"}}},
		// Chinese.
		{"我叫张曼婷，很高兴认识你。", []want{{memory.TypeFact, "name", "用户叫张曼婷"}}},
		{"你好，我是姚国栋。", []want{{memory.TypeFact, "name", "用户叫姚国栋"}}},
		{"以后叫我小王", []want{{candidate.TypeProfile, "profile.nickname", "小王"}}},
		{"我很喜欢绘画、弹钢琴和品茶，你觉得有什么好的书可以推荐给我吗？", []want{
			{memory.TypePreference, "hobby.likes.painting", "用户很喜欢绘画"},
			{memory.TypePreference, "music.likes.piano", "用户很喜欢弹钢琴"},
			{memory.TypePreference, "drink.likes.tea_tasting", "用户很喜欢品茶"}}},
		{"我不喜欢看喜剧片", []want{{memory.TypePreference, "film.dislikes.comedies", "用户不喜欢看喜剧片"}}},
		{"我讨厌香菜", []want{{memory.TypePreference, "food.dislikes.cilantro", "用户讨厌香菜"}}},
		{"我对花生过敏", []want{{memory.TypeFact, "allergy.peanuts", "用户对花生过敏"}}},
		{"我是素食主义者", []want{{memory.TypeFact, "diet", "用户是素食主义者"}}},
		{"我住在武汉", []want{{memory.TypeFact, "home.city", "用户住在武汉"}}},
		{"我在腾讯工作", []want{{memory.TypeFact, "work.place", "用户在腾讯工作"}}},
		{"我是一名程序员", []want{{memory.TypeFact, "work.role", "用户是一名程序员"}}},
		{"我是北京人", []want{{memory.TypeFact, "hometown", "用户是北京人"}}},
		{"我养了一只猫", []want{{memory.TypeFact, "pet.cat", "用户养了一只猫"}}},
		{"我的目标是年底前考过N1", []want{{memory.TypeGoal, "goal.n1", "年底前考过N1"}}},
		{"我正在做PAI项目", []want{{memory.TypeProject, "project.pai", "用户正在做PAI项目"}}},
		{"以后不要用表情符号", []want{{memory.TypeConstraint, "reply.style.emoji", "以后不要用表情符号"}}},
		{"以后每天提醒我喝水", []want{{memory.TypeConstraint, "rule.h", "以后每天提醒用户喝水"}}},
		{"以后回答我的问题时，请用中文", []want{{memory.TypeConstraint, "reply.language", "以后回答用户的问题时，请用中文"}}},
		{"下雨时提醒我带伞", []want{{memory.TypeConstraint, "rule.remind.h", "下雨时提醒用户带伞"}}},
		{"我最喜欢的水果是芒果", []want{{memory.TypePreference, "favorite.fruit", "用户最喜欢的水果是芒果"}}},
		// Stable facts that a date, a second clause or a relative's taste used to hide.
		{"I moved to Berlin.", []want{{memory.TypeFact, "home.city", "User moved to Berlin."}}},
		{"I moved to Berlin last year.", []want{{memory.TypeFact, "home.city", "User moved to Berlin."}}},
		{"I moved to Berlin last year and I work as a nurse at the Charité.", []want{
			{memory.TypeFact, "home.city", "User moved to Berlin."},
			{memory.TypeFact, "work.role", "User works as a nurse."},
			{memory.TypeFact, "work.place", "User works at the Charité."}}},
		{"I'm a software engineer at Google.", []want{
			{memory.TypeFact, "work.role", "User is a software engineer."},
			{memory.TypeFact, "work.place", "User works at Google."}}},
		{"I have been a vegetarian for ten years.", []want{{memory.TypeFact, "diet", "User has been a vegetarian"}}},
		{"My wife is called Anna.", []want{{memory.TypeFact, "family.wife", "User's wife is Anna."}}},
		{"My daughter Emma loves horses.", []want{{memory.TypeFact, "family.daughter.emma", "User has a daughter named Emma."}}},
		{"We have two cats.", []want{{memory.TypeFact, "pet.cat", "User has two cats."}}},
		{"I'm training for a marathon in April.", []want{{memory.TypeGoal, "goal.marathon", "User is training for a marathon in April."}}},
		{"I'm a nurse and tomorrow I start a new shift.", []want{{memory.TypeFact, "work.role", "User is a nurse."}}},
		{"I love jazz and tonight I'm going to a concert.", []want{{memory.TypePreference, "music.likes.jazz", "User loves jazz."}}},
		{"I live in Berlin and work at Siemens.", []want{
			{memory.TypeFact, "home.city", "User lives in Berlin."},
			{memory.TypeFact, "work.place", "User works at Siemens."}}},
		{"Hi, I'm Susan, nice to meet you.", []want{{memory.TypeFact, "name", "User's name is Susan."}}},
		{"I'm allergic to penicillin and latex.", []want{
			{memory.TypeFact, "allergy.penicillin", "User is allergic to penicillin."},
			{memory.TypeFact, "allergy.latex", "User is allergic to latex."}}},
		{"I have type 2 diabetes.", []want{{memory.TypeFact, "health.diabetes", "User has type 2 diabetes."}}},
		{"我搬到了深圳", []want{{memory.TypeFact, "home.city", "用户搬到了深圳。"}}},
		{"我是谷歌的软件工程师", []want{
			{memory.TypeFact, "work.role", "用户是谷歌的软件工程师。"},
			{memory.TypeFact, "work.place", "用户在谷歌工作。"}}},
		{"我吃素十年了", []want{{memory.TypeFact, "diet", "用户吃素"}}},
		{"我老婆叫安娜", []want{{memory.TypeFact, "family.wife", "用户的老婆叫安娜。"}}},
		{"我女儿叫小美，她喜欢马", []want{{memory.TypeFact, "family.daughter.h", "用户的女儿叫小美。"}}},
		{"我女儿叫小美，喜欢马", []want{{memory.TypeFact, "family.daughter.h", "用户的女儿叫小美。"}}},
		{"我们家养了两只猫", []want{{memory.TypeFact, "pet.cat", "用户家养了两只猫。"}}},
		{"我在准备四月的马拉松", []want{{memory.TypeGoal, "goal.marathon", "用户在准备四月的马拉松。"}}},
		{"我结婚了，有两个孩子", []want{
			{memory.TypeFact, "family.marital", "用户结婚"},
			{memory.TypeFact, "family.child", "用户有两个孩子。"}}},
		{"我是护士明天要上夜班", []want{{memory.TypeFact, "work.role", "用户是护士。"}}},
		{"My son is 4 and my daughter is 7.", []want{
			{memory.TypeFact, "family.son", "User's son is 4."},
			{memory.TypeFact, "family.daughter", "User's daughter is 7."}}},
		{"我儿子四岁，女儿七岁", []want{
			{memory.TypeFact, "family.son", "用户的儿子四岁。"},
			{memory.TypeFact, "family.daughter", "用户的女儿七岁。"}}},
		{"我女儿叫小美，儿子叫小明", []want{
			{memory.TypeFact, "family.daughter.h", "用户的女儿叫小美。"},
			{memory.TypeFact, "family.son.h", "用户的儿子叫小明。"}}},
		{"I have two kids and a dog.", []want{
			{memory.TypeFact, "family.kid", "User has two kids."},
			{memory.TypeFact, "pet.dog", "User has a dog."}}},
		{"我有两个孩子和一条狗", []want{
			{memory.TypeFact, "family.child", "用户有两个孩子。"},
			{memory.TypeFact, "pet.dog", "用户有一条狗。"}}},
		{"I prefer short, direct answers.", []want{{memory.TypePreference, "reply.length", "User prefers short, direct answers."}}},
		{"我喜欢简短直接的回答", []want{{memory.TypePreference, "reply.length", "用户喜欢简短直接的回答。"}}},
		{"I'm learning to play the cello.", []want{{memory.TypeGoal, "learning.play_cello", "User is learning to play the cello."}}},
		{"I've been a nurse for fifteen years.", []want{{memory.TypeFact, "work.role", "User has been a nurse for fifteen years."}}},
		{"我周五一般在家办公", []want{{memory.TypePreference, "habit.h", "用户周五一般在家办公。"}}},
		{"跟我聊天的时候别用列表", []want{{memory.TypeConstraint, "reply.style.lists", "跟用户聊天的时候别用列表"}}},
		{"From now on, please keep your answers under 100 words.", []want{{memory.TypeConstraint, "reply.length", "From now on, please keep your answers under 100 words."}}},
		{"其实最近我还在学习攀岩，感觉进步很慢。", []want{{memory.TypeGoal, "learning.rock_climbing", "用户还在学习攀岩。"}}},
		{"We live in Austin.", []want{{memory.TypeFact, "home.city", "User lives in Austin."}}},
		{"我们住在杭州，养了两条狗", []want{
			{memory.TypeFact, "home.city", "用户一家住在杭州。"},
			{memory.TypeFact, "pet.dog", "用户养了两条狗。"}}},
		{"我是加拿大人，但现在住在首尔", []want{
			{memory.TypeFact, "hometown", "用户是加拿大人。"},
			{memory.TypeFact, "home.city", "用户现在住在首尔。"}}},
		{"我喜欢川菜，但不能吃辣", []want{
			{memory.TypePreference, "food.likes.sichuan_food", "用户喜欢川菜。"},
			{memory.TypeConstraint, "food.avoids.spicy_food", "用户不能吃辣。"}}},
		{"I've got three brothers.", []want{{memory.TypeFact, "family.brother", "User has got three brothers."}}},
		{"I have a peanut allergy and a cat allergy.", []want{
			{memory.TypeFact, "allergy.peanut", "User is allergic to peanut."},
			{memory.TypeFact, "allergy.cat", "User is allergic to cat."}}},
		{"I'm not a fan of spicy food.", []want{{memory.TypePreference, "food.dislikes.spicy_food", "User is not a fan of spicy food."}}},
		{"I'm on a low-carb diet.", []want{{memory.TypeFact, "diet", "User is on a low-carb diet."}}},
		{"Please use British spelling in all your replies.", []want{{memory.TypeConstraint, "rule.", "Please use British spelling in all your replies."}}},
		{"所有回复都请用繁体字", []want{{memory.TypeConstraint, "reply.language", "所有回复都请用繁体字。"}}},
		{"I just started learning Portuguese.", []want{{memory.TypeGoal, "learning.portuguese", "User just started learning Portuguese."}}},
		{"我现在单身，挺开心的", []want{{memory.TypeFact, "family.marital", "用户现在单身。"}}},
		{"Our twins start kindergarten this fall.", []want{{memory.TypeFact, "family.twin", "User has twins."}}},
		{"我对青霉素和花粉过敏", []want{
			{memory.TypeFact, "allergy.penicillin", "用户对青霉素过敏。"},
			{memory.TypeFact, "allergy.pollen", "用户对花粉过敏。"}}},
	}
	e := rules.NewExtractor(rules.ExtractorOptions{})
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			t.Parallel()
			got := e.ExtractMessage("msg-1", tc.text)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d candidates, want %d:\n%s", len(got), len(tc.want), dump(got))
			}
			for i, w := range tc.want {
				c := got[i]
				if c.Type != w.typ || !strings.HasPrefix(c.Key, w.key) || !strings.Contains(c.Content, w.content) {
					t.Errorf("candidate %d = %s, want type %s, key %s…, content containing %q", i, dump(got[i:i+1]), w.typ, w.key, w.content)
				}
				checkWellFormed(t, c)
				if c.SourceMessageID != "msg-1" {
					t.Errorf("source message = %q, want msg-1", c.SourceMessageID)
				}
			}
		})
	}
}

// checkWellFormed asserts what every rule candidate must be: an ASCII key that
// survives normalisation and is no noise, content the boundaries keep.
func checkWellFormed(t *testing.T, c candidate.Candidate) {
	t.Helper()
	if !asciiKey.MatchString(c.Key) {
		t.Errorf("key %q is not lower-case ASCII", c.Key)
	}
	k, err := memory.ParseKey(c.Key)
	if err != nil || k.String() != c.Key {
		t.Errorf("key %q changes under ParseKey (%q, %v)", c.Key, k, err)
	}
	if memory.IsNoise(k) {
		t.Errorf("key %q is a noise key", c.Key)
	}
	if ok, reason := candidate.DefaultBoundaries().Screen(c); !ok {
		t.Errorf("candidate %q would be screened out: %s", c.Content, reason)
	}
	if c.Op != candidate.OpAdd && c.Op != candidate.OpDelete || c.Importance < 1 || c.Importance > 5 || c.Confidence < 0.75 || c.Confidence > 1 {
		t.Errorf("op/importance/confidence out of range: %+v", c)
	}
}

func TestExtractMessage_explicitRememberIsSurer(t *testing.T) {
	t.Parallel()
	e := rules.NewExtractor(rules.ExtractorOptions{})
	plain := e.ExtractMessage("a", "I am allergic to peanuts.")
	remembered := e.ExtractMessage("b", "Please remember that I am allergic to peanuts.")
	if len(plain) != 1 || len(remembered) != 1 {
		t.Fatalf("plain %d, remembered %d candidates", len(plain), len(remembered))
	}
	if remembered[0].Confidence <= plain[0].Confidence || remembered[0].Key != plain[0].Key {
		t.Errorf("remember should keep the key and raise confidence: plain %+v, remembered %+v", plain[0], remembered[0])
	}
}

func TestExtractMessage_staysSilent(t *testing.T) {
	t.Parallel()
	cases := []string{
		// time-bound requests and reminders
		"Remind me to bring an umbrella tomorrow.",
		"明后天有雨时提醒我带伞",
		"I'm going to Paris next week.",
		"I will go to the cinema tonight, I love it.",
		"提醒我明天早上八点开会",
		"Remember to buy milk.",
		"别忘了去买牛奶",
		// questions, greetings, thanks, commands
		"How do I sort a list in Go?",
		"What's the weather?",
		"这个怎么用？",
		"Do you like jazz?",
		"我喜欢什么类型的音乐？",
		"Hi!",
		"你好啊AI伴侣",
		"Thank you for your recommendations.",
		"好的，我会认真考虑你的建议。",
		"Translate this into French.",
		"帮我写一封邮件",
		// third parties
		"My friend likes jazz.",
		"My wife loves jazz.",
		"My sister lives in Paris.",
		"我朋友喜欢爵士乐",
		"我的同事住在上海",
		// hypotheticals, hedges, references back
		"If I like it I will buy it.",
		"I don't know if I like jazz.",
		"I think I like jazz.",
		"我觉得我可能喜欢爵士乐",
		"I like it.",
		"I really like the actors and the plot, especially the ending.",
		"我喜欢你",
		"我爱人是医生",
		"我叫了外卖",
		// states, not facts
		"I'm a bit tired.",
		"I'm fine, thanks.",
		"我今天很开心",
		// wrong slot values
		"I live in 12345.",
		// conversation remarks that look like rules
		"以后再说吧",
		"Never mind.",
		"每次和你聊天都很开心",
		// statements a window makes short-lived, and plans
		"I'm vegetarian this week.",
		"I live in Paris for now.",
		"I live in Berlin this month.",
		"I'm living in Rome for two months.",
		"I'm moving to Berlin next month.",
		"我下个月搬到柏林",
		"我暂时住在朋友家",
		"I'm preparing for the exam tomorrow.",
		"I'm preparing for the bar exam in two weeks.",
		// moves and names that are not the user's home or relatives
		"I moved the meeting to Friday.",
		"We moved to a new office last week.",
		"我搬到了新的办公室",
		"我老公叫我早点睡",
		"我家的狗叫个不停",
		"My mom and I went shopping.",
		"I love my wife.",
		"I'm married to my job, haha.",
		"My colleague is vegan.",
		"My brother loves football.",
		"我同事是素食主义者",
		// sarcasm and remarks
		"Oh great, I just love waiting in line for two hours.",
		"哈哈，我最喜欢排两个小时的队了",
		"我讲个笑话",
		"I teach my kids to swim.",
		"I run a marathon every year.",
		"I'm 5 minutes away.",
		"I'm saving for a rainy day.",
		"If I were rich, I would live in Paris.",
		"Okay, in the future, can I ask you to help me find recipes?",
		"When you talk to me about politics I get upset.",
		"I'm learning to be patient.",
		"I have a question and a suggestion.",
		"我最喜欢的是《听妈妈的话》，那首歌非常有感觉。",
		"My son is sick.",
		"We live in a bubble.",
		"I live in fear of losing my job.",
		"Our baby is due in May.",
		"我开始学着放下",
		"我总是做不好",
		"我儿子今天很开心",
		"如果我很有钱，我会住在巴黎",
	}
	e := rules.NewExtractor(rules.ExtractorOptions{})
	for _, text := range cases {
		t.Run(text, func(t *testing.T) {
			t.Parallel()
			if got := e.ExtractMessage("m", text); len(got) != 0 {
				t.Fatalf("want nothing, got:\n%s", dump(got))
			}
		})
	}
}

func TestExtract_onlyUserMessagesAreSources(t *testing.T) {
	t.Parallel()
	e := rules.NewExtractor(rules.ExtractorOptions{})
	in := ports.ExtractionInput{
		Scope: memory.Scope{Tenant: "t", User: "u"},
		Messages: []conversation.Message{
			{ID: "a1", Role: conversation.RoleAssistant, Content: "I love jazz and I live in Paris."},
			{ID: "s1", Role: conversation.RoleSystem, Content: "Remember that the user is allergic to peanuts."},
			{ID: "u1", Role: conversation.RoleUser, Content: "I live in Berlin."},
			{ID: "u2", Role: conversation.RoleUser, Content: "Actually, I live in Munich."},
		},
		Context: []conversation.Message{{ID: "c1", Role: conversation.RoleUser, Content: "My name is Emily."}},
		Now:     time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	got, usage, err := e.Extract(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if usage != (ports.LLMUsage{}) {
		t.Errorf("usage = %+v, want zero", usage)
	}
	// Context is judgement only. Each user message keeps its own statement, in
	// order, so the later one is the later write (the update) and each message
	// shows what it taught.
	if len(got) != 2 || got[0].SourceMessageID != "u1" || got[1].Key != "home.city" || got[1].SourceMessageID != "u2" ||
		!strings.Contains(got[1].Content, "Munich") {
		t.Fatalf("got:\n%s\nwant home.city from u1 (Berlin), then from u2 (Munich)", dump(got))
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := e.Extract(ctx, in); err == nil {
		t.Error("a cancelled context should stop the extraction")
	}
}

func TestExtract_respectsBoundariesAndLimit(t *testing.T) {
	t.Parallel()
	strict := rules.NewExtractor(rules.ExtractorOptions{Boundaries: candidate.Boundaries{MinConfidence: 0.88}})
	if got := strict.ExtractMessage("m", "I like jazz."); len(got) != 0 {
		t.Errorf("a 0.8 preference passed a 0.88 minimum:\n%s", dump(got))
	}
	if got := strict.ExtractMessage("m", "I'm allergic to peanuts."); len(got) != 1 {
		t.Errorf("a 0.9 allergy should pass a 0.88 minimum, got %d", len(got))
	}
	limited := rules.NewExtractor(rules.ExtractorOptions{MaxCandidates: 2})
	got, _, err := limited.Extract(context.Background(), ports.ExtractionInput{Messages: []conversation.Message{
		{ID: "u1", Role: conversation.RoleUser, Content: "I like hiking, running, basketball and chess."},
	}})
	if err != nil || len(got) != 2 {
		t.Fatalf("got %d candidates (%v), want the limit of 2", len(got), err)
	}
}

func dump(cs []candidate.Candidate) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString("  ")
		b.WriteString(string(c.Type) + " " + c.Key + " " + c.Content)
		b.WriteString("\n")
	}
	return b.String()
}

func BenchmarkExtractMessage(b *testing.B) {
	e := rules.NewExtractor(rules.ExtractorOptions{})
	msgs := map[string]string{
		"en":         "Hi! I really enjoy painting, playing piano and tea tasting. Do you have any good book recommendations for me?",
		"zh":         "我很喜欢绘画、弹钢琴和品茶，你觉得有什么好的书可以推荐给我吗？",
		"en-nothing": "Okay, I'll try those methods. Thank you for your help, AI companion. How do you view the concept of emotional release?",
	}
	for name, text := range msgs {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.ExtractMessage("m", text)
			}
		})
	}
}

func TestExtractMessage_retractionsAreDeletes(t *testing.T) {
	t.Parallel()
	e := rules.NewExtractor(rules.ExtractorOptions{})
	for text, key := range map[string]string{
		"I no longer like jazz.":     "music.likes.jazz",
		"I don't like jazz anymore.": "music.likes.jazz",
		"I'm no longer vegetarian.":  "diet",
		"我不再喜欢爵士乐了":                  "music.likes.jazz",
		"我现在不吃素了":                    "diet",
	} {
		got := e.ExtractMessage("m", text)
		if len(got) != 1 || got[0].Op != candidate.OpDelete || got[0].Key != key {
			t.Errorf("%q: want one DELETE of %s, got:\n%s", text, key, dump(got))
		}
	}
	// The same key stated positively is an ADD, so the refiner can tell them apart.
	if got := e.ExtractMessage("m", "I like jazz."); len(got) != 1 || got[0].Op != candidate.OpAdd || got[0].Key != "music.likes.jazz" {
		t.Errorf("want one ADD of music.likes.jazz, got:\n%s", dump(got))
	}
}
