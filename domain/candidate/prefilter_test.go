package candidate_test

import (
	"testing"

	"engram/domain/candidate"
)

func TestPrefilter_passesMessagesThatMayStateSomething(t *testing.T) {
	t.Parallel()
	cases := []string{
		"I'm vegetarian, what should I cook?",
		"Since I'm allergic to peanuts, which snacks are safe?",
		"Please remember that I am allergic to peanuts.",
		"Remind me to take an umbrella whenever it rains.",
		"Remind me to stretch every morning.",
		"From now on, answer in English.",
		"Always use metric units.",
		"My name is Emily.",
		"I love traveling and watching movies. How about you?",
		"Hi, I live in Berlin.",
		"Thanks! By the way, I work at a hospital.",
		"Okay, my wife is a nurse.",
		"Berlin.", // an answer may complete the assistant's question
		"记住，以后都用中文回复我。",
		"我对花生过敏，有什么零食推荐吗？",
		"我叫张曼婷，很高兴认识你。",
		"下雨时提醒我带伞",
		"明后天有雨时提醒我带伞", // passes here; Screen drops what it yields
		"我很喜欢绘画、弹钢琴和品茶，你觉得有什么好的书可以推荐给我吗？",
		"文艺作品吧，像《了不起的盖茨比》这种充满情调的。",
		"好的，我是一名程序员。",
		"我周末喜欢去爬山",
		"Thanks, I will check out these movies. I'm having some difficulty studying Chinese lately, can you think of any ways?",
		"你知道吗？我最近开始学做菜了，你也喜欢做菜吗？",
		// Identity slots read like requests but set the profile.
		"use 🐱 as my emoji",
		"stop calling me Captain",
		"I'll call you Jarvis",
		"请称呼我陈博士",
		"你就叫小助手吧",
	}
	for _, text := range cases {
		t.Run(text, func(t *testing.T) {
			t.Parallel()
			if worth, reason := candidate.Prefilter(text); !worth {
				t.Fatalf("skipped as %q, want passed", reason)
			}
		})
	}
}

func TestPrefilter_skipsMessagesThatCannot(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want candidate.Reason
	}{
		{"", candidate.ReasonEmptyMessage},
		{"   ", candidate.ReasonEmptyMessage},
		{"?", candidate.ReasonTooShort},
		{"👍", candidate.ReasonTooShort},
		{"嗯", candidate.ReasonTooShort},
		{"Hi!", candidate.ReasonGreeting},
		{"Hello there, my friend.", candidate.ReasonGreeting},
		{"Hi, I'm back again for a chat with you.", candidate.ReasonGreeting},
		{"你好啊AI伴侣", candidate.ReasonGreeting},
		{"你好，今天又来找你聊天啦。", candidate.ReasonGreeting},
		{"Thanks a lot!", candidate.ReasonThanks},
		{"Thank you for your recommendations, very helpful.", candidate.ReasonThanks},
		{"谢谢你的推荐", candidate.ReasonThanks},
		{"ok", candidate.ReasonAck},
		{"Okay, I'll try those methods.", candidate.ReasonAck},
		{"That sounds great!", candidate.ReasonAck},
		{"好的", candidate.ReasonAck},
		{"好的，我会认真考虑你的建议。", candidate.ReasonAck},
		{"Yes, I will do my best to find more suitable learning resources.", candidate.ReasonAck},
		{"Okay, I will try that. Thank you for your advice.", candidate.ReasonThanks},
		{"Okay, I will try my best. By the way, I'm curious, how many languages can you speak?", candidate.ReasonQuestion},
		{"我想找一些电影观看，有什么好的推荐吗？", candidate.ReasonQuestion},
		{"Goodbye!", candidate.ReasonFarewell},
		{"再见！", candidate.ReasonFarewell},
		{"What's the weather?", candidate.ReasonQuestion},
		{"How do I sort a list in Go?", candidate.ReasonQuestion},
		{"how do i sort a list in go", candidate.ReasonQuestion},
		{"Do you like music?", candidate.ReasonQuestion},
		{"Thank you for your advice. How do you view the concept of emotional release?", candidate.ReasonQuestion},
		{"这个怎么用？", candidate.ReasonQuestion},
		{"你有什么好的书推荐吗", candidate.ReasonQuestion},
		{"Translate this paragraph into French.", candidate.ReasonCommand},
		{"Please write a haiku about autumn.", candidate.ReasonCommand},
		{"Remind me to bring an umbrella tomorrow.", candidate.ReasonCommand},
		{"帮我写一封邮件", candidate.ReasonCommand},
		{"请用中文回答", candidate.ReasonCommand},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			t.Parallel()
			worth, reason := candidate.Prefilter(tc.text)
			if worth || reason != string(tc.want) {
				t.Fatalf("Prefilter = (%v, %q), want skipped as %q", worth, reason, tc.want)
			}
		})
	}
}
