package session

// Merging joins two copies of one session kept by two stores: while Redis was
// unreachable the SQL fallback recorded the session's turns, Redis holds what came
// before and after, and the two are read together, then moved into one store. A
// merge loses nothing: every message of either side is kept once (an exchange
// written to both, after a timeout whose write did land, is recognised by its
// message ids), and two different summaries are both kept, the older first, for the
// next fold to compress.

// MergeViews joins two views of one session (a is the primary store's).
func MergeViews(a, b View) View {
	msgs, dup := mergeMessages(a.Messages, b.Messages)
	return View{
		Meta:     mergeMeta(a.Meta, b.Meta, dup, len(msgs)),
		Summary:  mergeSummaries(a.Summary, b.Summary),
		Messages: msgs,
	}
}

// MergeStates joins two whole copies of one session; Rev is left to the store
// that writes the result.
func MergeStates(a, b State) State {
	return State{View: MergeViews(a.View, b.View), ExchangeIDs: mergeExchangeIDs(a.ExchangeIDs, b.ExchangeIDs)}
}

// mergeMessages interleaves two runs, each in its own order, by time; a tie keeps
// a's message first. A message id seen before is dropped. dup counts the drops.
func mergeMessages(a, b []Message) (out []Message, dup int64) {
	seen := make(map[string]bool, len(a)+len(b))
	out = make([]Message, 0, len(a)+len(b))
	add := func(m Message) {
		if seen[m.ID] {
			dup++
			return
		}
		seen[m.ID] = true
		out = append(out, m)
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j >= len(b) || (i < len(a) && !b[j].At.Before(a[i].At)) {
			add(a[i])
			i++
		} else {
			add(b[j])
			j++
		}
	}
	for k := range out {
		out[k].Seq = int64(k + 1)
	}
	return out, dup
}

// mergeMeta keeps the earliest creation, the latest activity and its flow name,
// and counts each message once.
func mergeMeta(a, b Meta, dup int64, held int) Meta {
	switch {
	case !b.Live():
		a.Held = held
		return a
	case !a.Live():
		b.Held = held
		return b
	}
	out := a
	if b.LastActiveAt.After(a.LastActiveAt) {
		out.LastActiveAt, out.FlowName = b.LastActiveAt, b.FlowName
	}
	if b.CreatedAt.Before(a.CreatedAt) {
		out.CreatedAt = b.CreatedAt
	}
	out.MessageCount = max(a.MessageCount+b.MessageCount-dup, int64(held))
	out.Held = held
	return out
}

// mergeSummaries keeps both texts when they differ, the older first. A result
// other than a's text gets a version above both, so a fold made from a's summary
// no longer applies over it.
func mergeSummaries(a, b Summary) Summary {
	if b.Text == "" || b.Text == a.Text {
		a.Version = max(a.Version, b.Version)
		if b.UpdatedAt.After(a.UpdatedAt) {
			a.UpdatedAt = b.UpdatedAt
		}
		return a
	}
	out := b
	if a.Text != "" {
		older, newer := a, b
		if b.UpdatedAt.Before(a.UpdatedAt) {
			older, newer = b, a
		}
		out = Summary{Text: older.Text + "\n" + newer.Text, UpdatedAt: newer.UpdatedAt}
	}
	out.Version = max(a.Version, b.Version) + 1
	return out
}

// mergeExchangeIDs keeps every id once, a's first, and the most recent
// MaxExchangeIDs of them.
func mergeExchangeIDs(a, b []string) []string {
	seen := make(map[string]bool, len(a)+len(b))
	var out []string
	for _, id := range append(append([]string(nil), a...), b...) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	if len(out) > MaxExchangeIDs {
		out = out[len(out)-MaxExchangeIDs:]
	}
	return out
}
