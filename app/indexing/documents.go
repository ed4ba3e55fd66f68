package indexing

import (
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// MemoryText is what lexical search indexes of a memory: its key (whose words a
// question may name: "diet-preference") and its content. The type is left out: it
// is a filter, and a word shared by a fifth of a user's memories only costs time.
func MemoryText(m memory.Memory) string {
	return m.Key().String() + " " + m.Content()
}

// speakerTerm is the analysed first word of a speaker's name ("Melanie" → "melani"),
// which a question naming the speaker contains.
func speakerTerm(a ports.TextAnalyzer, name string) string {
	if name == "" {
		return ""
	}
	if terms := a.Terms(name); len(terms) > 0 {
		return terms[0]
	}
	return ""
}

func messageDoc(a ports.TextAnalyzer, m conversation.Message) ports.LexicalDoc {
	return ports.LexicalDoc{
		Tenant:         m.Scope.Tenant,
		User:           m.Scope.User,
		Kind:           memory.KindMessage,
		ID:             m.Seq,
		ConversationID: m.ConversationID,
		At:             m.CreatedAt,
		Speaker:        speakerTerm(a, m.Name),
		Terms:          a.Terms(m.IndexText()),
	}
}

func memoryDoc(a ports.TextAnalyzer, m memory.Memory) ports.LexicalDoc {
	return ports.LexicalDoc{
		Tenant:     m.Scope().Tenant,
		User:       m.Scope().User,
		Kind:       memory.KindMemory,
		ID:         m.ID(),
		MemoryType: string(m.Type()),
		At:         m.UpdatedAt(),
		ExpiresAt:  m.ExpiresAt(),
		Terms:      a.Terms(MemoryText(m)),
		Version:    m.Version(),
	}
}

// indexable reports whether a memory belongs in the lexical index: active and not
// in a noise family. Expired memories stay indexed and are filtered at query time
// by their expiry, so expiry needs no write at the instant it happens.
func indexable(m memory.Memory) bool {
	return m.Active() && !memory.IsNoise(m.Key())
}

// MemoryDocument is a memory's lexical document and whether the memory belongs in
// the index at all (false: its document must go). Stores that keep the document in
// the memory's own transaction call it (adapters/sqlstore MemoryStore.IndexLexically).
func MemoryDocument(a ports.TextAnalyzer, m memory.Memory) (ports.LexicalDoc, bool) {
	if !indexable(m) {
		return ports.LexicalDoc{}, false
	}
	return memoryDoc(a, m), true
}
