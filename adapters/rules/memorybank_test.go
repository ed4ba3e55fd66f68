package rules_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"engram/adapters/rules"
	"engram/domain/candidate"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/memorybank"
)

type bankMessage struct {
	id, user, day, text, reply string
}

// loadBank returns every user query of a memorybank file in a stable order
// (user, then date, then turn).
func loadBank(t *testing.T, file string) []bankMessage {
	t.Helper()
	var out []bankMessage
	for _, day := range memorybank.ForTest(t, file) {
		for i, turn := range day.Turns {
			out = append(out, bankMessage{
				id:   fmt.Sprintf("%s/%s/%d", day.User, day.Date, i),
				user: day.User, day: day.Date, text: turn.Query, reply: turn.Response,
			})
		}
	}
	return out
}

func TestMemoryBank(t *testing.T) {
	expectations := map[string][]struct{ text, key, content string }{
		"memory_bank_en.json": {
			{"Hello, my name is Emily. Nice to meet you.", "name", "User's name is Emily."},
			{"I really enjoy painting, playing piano and tea tasting. Do you have any good book recommendations for me?", "hobby.likes.painting", "User enjoys painting."},
			{"Well, we can talk about my hobbies. I like hiking, long-distance running, basketball, military history research, and rock climbing.", "sport.likes.basketball", "User likes basketball."},
			{"I like sunny and warm weather. Did you have any new tasks yesterday?", "interest.likes.sunny_warm_weather", "User likes sunny and warm weather."},
			{"I like action and comedy movies. They always make me feel excited and happy.", "film.likes.action_comedy_movies", "User likes action and comedy movies."},
		},
		"memory_bank_cn.json": {
			{"你好，我叫张曼婷，很高兴认识你。", "name", "用户叫张曼婷。"},
			{"我很喜欢绘画、弹钢琴和品茶，你觉得有什么好的书可以推荐给我吗？", "hobby.likes.painting", "用户很喜欢绘画。"},
			{"我比较喜欢川菜和粤菜。", "food.prefers.sichuan_food", "用户比较喜欢川菜。"},
			{"确实如此，每个人的音乐喜好也不同。我最喜欢的音乐类型是摇滚和流行音乐。你听过哪些摇滚和流行音乐的歌手或乐队吗？", "favorite.music_genre", "用户最喜欢的音乐类型是摇滚和流行音乐。"},
			{"嗯，我们可以聊聊我的兴趣爱好吧。我喜欢徒步、长跑、打篮球、军事史研究和攀岩。", "sport.likes.basketball", "用户喜欢打篮球。"},
			{"你好，朋友。今天我想问一个关于编程的问题。我最近在学习编程，但是遇到了一些困难，不太好理解一些概念。你可以帮我解答一下吗？", "learning.programming", "用户最近在学习编程。"},
		},
	}
	e := rules.NewExtractor(rules.ExtractorOptions{})
	for _, file := range []string{"memory_bank_en.json", "memory_bank_cn.json"} {
		t.Run(file, func(t *testing.T) {
			msgs := loadBank(t, file)
			if len(msgs) == 0 {
				t.Fatal("no messages loaded")
			}
			byText := map[string]bankMessage{}
			userIDs := map[string]bool{}
			skips := map[string]int{}
			passed := 0
			for _, m := range msgs {
				byText[m.text] = m
				userIDs[m.id] = true
				if ok, reason := candidate.Prefilter(m.text); ok {
					passed++
				} else {
					skips[reason]++
				}
			}

			// One extraction per user and day, replies included as they would be posted.
			var all []candidate.Candidate
			for i := 0; i < len(msgs); {
				j := i
				var conv []conversation.Message
				for ; j < len(msgs) && msgs[j].user == msgs[i].user && msgs[j].day == msgs[i].day; j++ {
					conv = append(conv,
						conversation.Message{ID: msgs[j].id, Role: conversation.RoleUser, Content: msgs[j].text},
						conversation.Message{ID: msgs[j].id + "/reply", Role: conversation.RoleAssistant, Content: msgs[j].reply})
				}
				got, _, err := e.Extract(context.Background(), ports.ExtractionInput{
					Scope: memory.Scope{Tenant: "bench", User: msgs[i].user}, ConversationID: msgs[i].user + "/" + msgs[i].day, Messages: conv})
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, got...)
				i = j
			}
			for _, c := range all {
				checkWellFormed(t, c)
				if !userIDs[c.SourceMessageID] {
					t.Errorf("candidate %q comes from %q, not a user message", c.Content, c.SourceMessageID)
				}
			}

			for _, x := range expectations[file] {
				m, ok := byText[x.text]
				if !ok {
					t.Errorf("expected message not in the data: %q", x.text)
					continue
				}
				found := false
				for _, c := range e.ExtractMessage(m.id, m.text) {
					found = found || strings.HasPrefix(c.Key, x.key) && c.Content == x.content
				}
				if !found {
					t.Errorf("%q: want %s = %q, got:\n%s", x.text, x.key, x.content, dump(e.ExtractMessage(m.id, m.text)))
				}
			}

			perHundred := 100 * float64(len(all)) / float64(len(msgs))
			t.Logf("%s: %d user messages, %.1f%% pass the pre-filter (skipped: %v)", file, len(msgs), 100*float64(passed)/float64(len(msgs)), skips)
			t.Logf("%s: %d candidates, %.1f per 100 user messages", file, len(all), perHundred)
			// It must learn (users state hobbies and names on day one) and stay
			// mostly silent (most of this chat is feelings, plans and questions).
			if perHundred < 5 || perHundred > 60 {
				t.Errorf("%.1f candidates per 100 messages is outside the plausible 5..60", perHundred)
			}
			for i, c := range all {
				if i%(len(all)/8+1) == 0 {
					t.Logf("  sample: [%s] %s: %s (imp %d, conf %.2f, from %s)", c.Type, c.Key, c.Content, c.Importance, c.Confidence, c.SourceMessageID)
				}
			}
		})
	}
}
