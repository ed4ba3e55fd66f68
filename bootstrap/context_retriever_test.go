package bootstrap

import (
	"context"
	"testing"
	"time"

	"engram/adapters/lexical"
	"engram/adapters/textanalysis"
	"engram/adapters/ulids"
	"engram/app/contextbuild"
	"engram/app/indexing"
	"engram/app/memories"
	"engram/app/messages"
	"engram/app/retrieval"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// Under full_inject (memories only) past messages are still searched (auto), and
// what the search explains reaches the context call with its reason.
func TestContextRetriever_fullInjectStillSearchesMessagesAndExplains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := fakeclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	an := textanalysis.New(textanalysis.Options{})
	stores := teststore.New(t)
	store, lex, msgs := stores.IndexLexically(an), stores.Lexical, stores.Messages
	ix := indexing.NewLexicalIndexer(an, lex, stores.Cursors, store, msgs, clk, indexing.LexicalOptions{MessageLag: -1})
	ids := ulids.New()
	mem := memories.New(store, clk, ids, memory.Policy{})
	scope := memory.Scope{Tenant: "t", User: "u"}
	for key, content := range map[string]string{"tea": "Drinks oolong tea", "diet": "Is vegetarian", "city": "Lives in Wuhan"} {
		if _, err := mem.Save(ctx, memories.Save{Scope: scope, Key: key, Draft: memory.DraftInput{Type: "fact", Content: content}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := messages.New(msgs, clk, ids, messages.Options{}).PostBatch(ctx, messages.PostBatch{Scope: scope, Messages: []conversation.Input{
		{ConversationID: "c1", Role: "user", Content: "I bought oolong tea in Hangzhou"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.IndexMessages(ctx); err != nil {
		t.Fatal(err)
	}
	search := retrieval.New(retrieval.Deps{Analyzer: an, Lexical: lexical.New(lex, lexical.Options{}), Memories: store, Messages: msgs, Clock: clk},
		retrieval.Options{DefaultMode: retrieval.ModeFullInject})
	r := ContextRetriever{Search: search, MessagesMode: MessagesModeFor("full_inject")}

	found, err := r.Retrieve(ctx, contextbuild.Query{Scope: scope, Text: "oolong tea", Within: contextbuild.WithinMessages, Limit: 5})
	if err != nil || len(found.Hits) != 1 || found.Hits[0].Message == nil || found.ModeUsed == string(retrieval.ModeFullInject) {
		t.Fatalf("messages under full_inject: %+v %v", found, err)
	}
	found, err = r.Retrieve(ctx, contextbuild.Query{Scope: scope, Text: "oolong tea", Within: contextbuild.WithinMemories, Limit: 2})
	if err != nil || len(found.Hits) != 2 || found.ModeUsed != string(retrieval.ModeFullInject) || found.Hits[0].Memory.Key().String() != "tea" {
		t.Fatalf("memories: %+v %v", found, err)
	}
	if len(found.Dropped) != 1 || found.Dropped[0].Reason != retrieval.DropLimit || found.Dropped[0].Memory == nil {
		t.Errorf("dropped %+v", found.Dropped)
	}
	if got := MessagesModeFor("lexical"); got != "" {
		t.Errorf("messages mode under lexical: %q", got)
	}
}
