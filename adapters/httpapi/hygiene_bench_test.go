package httpapi

import (
	"strings"
	"testing"
)

// What the edge's body check costs per request, next to huma's own decoding (which
// parses a body twice: once into a map to validate, once into the input struct).
func BenchmarkBadJSONText(b *testing.B) {
	for _, tc := range []struct{ name, body string }{
		{"memory_save 1 KB", `{"type":"fact","content":"` + strings.Repeat("用户喜欢川菜 ", 100) + `","importance":4}`},
		{"message_post 32 KB", `{"conversation_id":"c1","role":"user","name":"Ann","content":"` + strings.Repeat("I moved to Berlin last spring. ", 1000) + `"}`},
		{"messages:batch 500 x 200 B", `{"messages":[` + strings.TrimSuffix(strings.Repeat(`{"conversation_id":"c1","role":"user","content":"`+strings.Repeat("x", 150)+`"},`, 500), ",") + `]}`},
	} {
		body := []byte(tc.body)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if d := badJSONText(body); d != nil {
					b.Fatal(d)
				}
			}
		})
	}
}
