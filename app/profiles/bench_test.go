package profiles_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"engram/app/profiles"
	"engram/domain/conversation"
	"engram/domain/profile"
)

// BenchmarkRefresh is one profile refresh of a heavy user over the SQLite stores
// with the real text analyser: 2,000 messages in the work-hours window (English
// and Chinese), 500 memories, 40 workflows. It measures the worker's CPU per
// refresh with the reads and the write of one embedded database.
func BenchmarkRefresh(b *testing.B) {
	f := newFixture(b, nil, profiles.Options{})
	ctx := context.Background()
	texts := []string{
		"Please help me prepare the quarterly budget report for the board meeting",
		"帮我整理一下本周的周报，重点是任务分配和进度",
		"Can you review the deployment checklist for the payment service?",
		"任务管理系统的权限配置需要再检查一遍",
	}
	var msgs []conversation.Message
	for i := range 2000 {
		seq := fmt.Sprintf("s%05d", i)
		m, err := conversation.New(dev, conversation.Input{ConversationID: fmt.Sprintf("c%d", i/20), MessageID: seq, Role: "user",
			Content: texts[i%len(texts)], CreatedAt: t0.Add(-time.Duration(i) * 53 * time.Minute)}, seq, t0, 0)
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	if _, err := f.messages.Ingest(ctx, dev, msgs); err != nil {
		b.Fatal(err)
	}
	for i := range 500 {
		f.remember(b, dev, fmt.Sprintf("work.k%d", i), "fact", fmt.Sprintf("Expert in data analysis, project %d; 擅长项目管理", i))
	}
	for i := range 40 {
		if _, _, err := f.svc.RecordActivity(ctx, profiles.RecordActivity{Scope: dev, Event: profile.ActivityInput{
			EventID: fmt.Sprintf("e%d", i), Kind: "workflow_used", At: t0.Add(-time.Hour), FlowID: fmt.Sprintf("f%d", i%8)}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := f.svc.Refresh(ctx, dev); err != nil {
			b.Fatal(err)
		}
	}
}
