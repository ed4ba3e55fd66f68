package messages

import (
	"context"
	"fmt"
	"time"

	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
)

// PostBatch is up to MaxBatch messages of one user, stored together.
type PostBatch struct {
	Scope    memory.Scope
	Messages []conversation.Input
	// Immediate makes the batch's user messages due at once, without the
	// debounce: a client that posts a whole exchange in one call (mem0's add)
	// has nothing more to wait for.
	Immediate bool
}

// PostBatch stores every message or none: a message that fails validation, or an
// id already stored with other content, refuses the whole batch. The results
// follow the input's order.
func (s *Service) PostBatch(ctx context.Context, cmd PostBatch) ([]Posted, error) {
	if n := len(cmd.Messages); n == 0 || n > MaxBatch {
		return nil, invalid.Field("messages", "must hold 1 to %d messages, got %d", MaxBatch, n)
	}
	debounce := s.opts.Debounce
	if cmd.Immediate {
		debounce = 0
	}
	return s.ingest(ctx, cmd.Scope, cmd.Messages, "messages", debounce)
}

// ingest validates, stores and wakes the worker. field prefixes validation errors
// ("messages" → "messages[3].content"); empty for a single message.
func (s *Service) ingest(ctx context.Context, scope memory.Scope, inputs []conversation.Input, field string, debounce time.Duration) ([]Posted, error) {
	now := s.clock.Now()
	msgs := make([]conversation.Message, 0, len(inputs))
	firstOf := make(map[string]int, len(inputs)) // message_id → index of its first occurrence
	var errs []error
	for i, in := range inputs {
		in.Content = s.opts.Secrets.Stored(in.Content)
		m, err := conversation.New(scope, in, s.ids.New(), now, debounce)
		if err != nil {
			errs = append(errs, prefix(field, i, err))
			continue
		}
		if in.MessageID != "" {
			if j, seen := firstOf[in.MessageID]; seen && !msgs[j].SameAs(m) {
				errs = append(errs, prefix(field, i, invalid.FieldValue("message_id", in.MessageID,
					"repeats the message_id of messages[%d] with a different conversation, role, name or content", j)))
				continue
			} else if !seen {
				firstOf[in.MessageID] = len(msgs)
			}
		}
		msgs = append(msgs, m)
	}
	if err := invalid.Join(errs...); err != nil {
		return nil, err
	}
	stored, err := s.store.Ingest(ctx, scope, msgs)
	if err != nil {
		return nil, fmt.Errorf("store messages: %w", err)
	}
	out := make([]Posted, len(stored))
	var due time.Time
	for i, st := range stored {
		out[i] = Posted{Message: st.Message, Created: st.Created}
		if st.Created && st.Message.Status == conversation.StatusPending && st.Message.ProcessAfter.After(due) {
			due = st.Message.ProcessAfter
		}
	}
	if !due.IsZero() && s.opts.Notifier != nil {
		s.opts.Notifier.Notify(due)
	}
	return out, nil
}

func prefix(field string, i int, err error) error {
	if field == "" {
		return err
	}
	return invalid.Prefix(fmt.Sprintf("%s[%d]", field, i), err)
}
