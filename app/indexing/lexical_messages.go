package indexing

import (
	"context"
	"fmt"
	"strings"
	"time"

	"engram/ports"
)

// IndexMessages indexes messages stored since the last pass, batch by batch, until
// it has caught up (or ctx ends). It returns how many it indexed. Of several
// indexer processes only the one holding the cursor's lease runs the pass; the
// others return at once (the work is idempotent, but need not be done twice).
func (ix *LexicalIndexer) IndexMessages(ctx context.Context) (int, error) {
	if ix.messages == nil {
		return 0, nil
	}
	cursor, ok, err := ix.cursors.Claim(ctx, LexicalMessagesCursor, ix.opts.Holder, ix.clock.Now(), ix.opts.CursorLease)
	if err != nil {
		return 0, fmt.Errorf("claim the message cursor: %w", err)
	}
	if !ok {
		return 0, nil
	}
	upTo := maxSeq
	if ix.opts.MessageLag > 0 {
		upTo = ulidPrefix(ix.clock.Now().Add(-ix.opts.MessageLag)) + strings.Repeat("Z", 16)
	}
	done := 0
	for ctx.Err() == nil {
		began := time.Now()
		msgs, err := ix.messages.MessagesAfter(ctx, cursor, upTo, ix.opts.MessageBatch)
		if err != nil {
			return done, fmt.Errorf("read messages: %w", err)
		}
		if len(msgs) == 0 {
			return done, nil
		}
		docs := make([]ports.LexicalDoc, len(msgs))
		for i, m := range msgs {
			docs[i] = messageDoc(ix.analyzer, m)
		}
		if err := ix.docs.Put(ctx, docs); err != nil {
			return done, fmt.Errorf("index messages: %w", err)
		}
		cursor = msgs[len(msgs)-1].Seq
		if err := ix.cursors.Set(ctx, LexicalMessagesCursor, cursor); err != nil {
			return done, fmt.Errorf("store the message cursor: %w", err)
		}
		done += len(msgs)
		ix.observe(LexicalReport{Pass: LexicalPassMessages, Read: len(msgs), Indexed: len(docs), Duration: time.Since(began)})
		if len(msgs) < ix.opts.MessageBatch {
			return done, nil
		}
		// A long catch-up renews the lease; a process that lost it stops.
		if _, ok, err := ix.cursors.Claim(ctx, LexicalMessagesCursor, ix.opts.Holder, ix.clock.Now(), ix.opts.CursorLease); err != nil || !ok {
			return done, err
		}
	}
	return done, ctx.Err()
}

// maxSeq is above every arrival id: no lag.
const maxSeq = "\U0010FFFF"

// ulidPrefix is the 10-character time part of a ULID for t (Crockford base32 of
// the Unix milliseconds), so that ids made before t sort below prefix+"ZZ…".
func ulidPrefix(t time.Time) string {
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	ms := uint64(max(t.UnixMilli(), 0))
	var b [10]byte
	for i := 9; i >= 0; i-- {
		b[i] = alphabet[ms&31]
		ms >>= 5
	}
	return string(b[:])
}
