package messages

import (
	"context"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// Post is one posted message.
type Post struct {
	Scope   memory.Scope
	Message conversation.Input
}

// Posted is a message as stored. Created is false when the message_id was already
// stored: the stored message is returned unchanged (an idempotent retry).
type Posted struct {
	Message conversation.Message
	Created bool
}

// Post stores one message durably before it returns; a user message is extracted
// after the debounce.
func (s *Service) Post(ctx context.Context, cmd Post) (Posted, error) {
	out, err := s.ingest(ctx, cmd.Scope, []conversation.Input{cmd.Message}, "", s.opts.Debounce)
	if err != nil {
		return Posted{}, err
	}
	return out[0], nil
}
