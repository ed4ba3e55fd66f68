package messages

import (
	"context"

	"engram/domain/conversation"
	"engram/domain/memory"
)

// RecordTurn stores the messages of one recorded turn (a session's exchange, see
// app/sessions) like a batch: all or nothing, ids already stored with the same
// content are kept as they are. It makes Service the sessions' extraction channel.
func (s *Service) RecordTurn(ctx context.Context, scope memory.Scope, msgs []conversation.Input) error {
	_, err := s.PostBatch(ctx, PostBatch{Scope: scope, Messages: msgs})
	return err
}
