package indexing

import (
	"context"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/ports"
)

// IndexImported indexes memories and messages written around the stores' own
// writes (a user's import): their rows keep the ids and times they had, behind
// the message pass's cursor and the repair pass's horizon, so neither pass would
// ever see them.
func (ix *LexicalIndexer) IndexImported(ctx context.Context, memories []memory.Memory, messages []conversation.Message) error {
	var docs []ports.LexicalDoc
	for _, m := range memories {
		if indexable(m) {
			docs = append(docs, memoryDoc(ix.analyzer, m))
		}
	}
	for _, m := range messages {
		docs = append(docs, messageDoc(ix.analyzer, m))
	}
	for start := 0; start < len(docs); start += ix.opts.MessageBatch {
		if err := ix.docs.Put(ctx, docs[start:min(start+ix.opts.MessageBatch, len(docs))]); err != nil {
			return err
		}
	}
	return nil
}
