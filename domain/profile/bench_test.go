package profile

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkDerive measures one profile refresh's pure part for a heavy user: the
// refresh's sample of 2,000 messages (English and Chinese), 500 memories and 40
// activity tallies. The analyser is the test stand-in; the real one's cost is in
// adapters/textanalysis's benchmarks.
func BenchmarkDerive(b *testing.B) {
	texts := []string{
		"Please help me prepare the quarterly budget report for the board meeting",
		"帮我整理一下本周的周报，重点是任务分配和进度",
		"Can you review the deployment checklist for the payment service?",
		"任务管理系统的权限配置需要再检查一遍",
	}
	in := Inputs{Now: testNow, TimeZone: "Asia/Shanghai", Conversations: 300, LastConversationAt: testNow}
	for i := range 2000 {
		in.Messages = append(in.Messages, MessageFact{At: testNow.Add(-time.Duration(i) * 53 * time.Minute), Text: texts[i%len(texts)]})
	}
	for i := range 500 {
		in.Memories = append(in.Memories, MemoryFact{Key: fmt.Sprintf("work.k%d", i), Type: "fact", Content: "Expert in data analysis and 擅长项目管理", Importance: 3})
	}
	for i := range 40 {
		in.Activity = append(in.Activity, ActivityTally{Kind: ActivityWorkflowUsed, FlowID: fmt.Sprintf("f%d", i), Count: i + 1})
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Derive(in, fakeTerms)
	}
}
