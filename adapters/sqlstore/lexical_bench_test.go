package sqlstore

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/indexing"
	"engram/app/memories"
	"engram/domain/memory"
	"engram/ports"
)

// BenchmarkMemorySave_lexicalIndex is memory_save on SQLite with 8 writers: with
// no lexical index and with the document written in the save's own transaction.
//
//	go test ./adapters/sqlstore -run '^$' -bench MemorySave_lexicalIndex -benchtime 5000x
func BenchmarkMemorySave_lexicalIndex(b *testing.B) {
	for _, index := range []string{"none", "in-transaction"} {
		b.Run("index="+index, func(b *testing.B) {
			db := openSQLiteForTest(b)
			clk := fixedClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
			an := textanalysis.New(textanalysis.Options{})
			sqlMemories := NewMemoryStore(db)
			if index == "in-transaction" {
				sqlMemories.IndexLexically(func(m memory.Memory) (ports.LexicalDoc, bool) { return indexing.MemoryDocument(an, m) })
			}
			svc := memories.New(sqlMemories, clk, ulids.New(), memory.Policy{})
			var n atomic.Int64
			b.SetParallelism(4) // 8 writers on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					_, err := svc.Save(context.Background(), memories.Save{Scope: memory.Scope{Tenant: "t", User: "u"}, Key: fmt.Sprintf("k%d", i),
						Draft: memory.DraftInput{Type: "fact", Content: fmt.Sprintf("User likes item number %d and tea", i)}})
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "saves/s")
		})
	}
}
