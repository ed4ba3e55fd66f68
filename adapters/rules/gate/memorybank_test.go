package gate_test

import (
	"testing"

	"engram/adapters/rules"
	"engram/domain/candidate"
	"engram/test/memorybank"
)

// BenchmarkMemoryBankGate reports, over every MemoryBank user query, the share
// the prefilter lets through and the share the gate then still sends to the
// model, how many of the messages the offline rule extractor finds something in
// the gate holds back (what the benchmark's scripted model would have found and
// now never sees), and the gate's time per message.
func BenchmarkMemoryBankGate(b *testing.B) {
	g := newGate(b)
	ext := rules.NewExtractor(rules.ExtractorOptions{})
	for _, file := range []string{memorybank.English, memorybank.Chinese} {
		b.Run(file, func(b *testing.B) {
			queries := memorybank.Queries(memorybank.ForTest(b, file))
			prefiltered, sent, found, lost := 0, 0, 0, 0
			for _, q := range queries {
				if len(ext.ExtractMessage("x", q)) > 0 {
					found++
					if !g.Passes(q) {
						lost++
					}
				}
				if candidate.PrefilterReason(q) != "" {
					continue
				}
				prefiltered++
				if g.Passes(q) {
					sent++
				}
			}
			b.ResetTimer()
			for i := range b.N {
				g.Passes(queries[i%len(queries)])
			}
			b.ReportMetric(100*float64(prefiltered)/float64(len(queries)), "%past_prefilter")
			b.ReportMetric(100*float64(sent)/float64(len(queries)), "%sent_to_model")
			b.ReportMetric(float64(len(queries)), "queries")
			b.ReportMetric(float64(found), "rules_find")
			b.ReportMetric(float64(lost), "rules_find_gate_holds")
		})
	}
}
