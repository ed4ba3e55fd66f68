package retrieval

import (
	"context"
	"fmt"
	"slices"
	"time"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/domain/secret"
)

// rank reads the truth of the gathered candidates, drops what is not live (or no
// longer matches the filters), scores the rest (ranking.Score) and keeps the best
// p.limit that reach p.minScore.
//
// A score never exceeds its item's relevance, so candidates less relevant than
// min_score are never read, and the truth is read in rounds, most relevant first,
// only as far as a candidate could still enter the top limit: once the next
// candidate's relevance is at most the limit-th best score already read, no later
// one can make the cut. The result is the one reading every candidate would give,
// for a fraction of the rows.
func (s *Service) rank(ctx context.Context, p plan, cands []candidate) ([]Item, error) {
	cut := len(cands)
	for cut > 0 && cands[cut-1].relevance.Total() < p.minScore {
		cut--
	}
	p.explain.unreadN(DropBelowMinScore, len(cands)-cut)
	cands = cands[:cut]
	var scored []ranking.Candidate
	var scores []float64
	items := map[string]Item{}
	chunk := max(2*p.limit, 16)
	for pos := 0; pos < len(cands); {
		end := min(len(cands), pos+chunk)
		if err := s.readCandidates(ctx, p, cands[pos:end], &scored, items); err != nil {
			return nil, err
		}
		for _, c := range scored[len(scores):] {
			scores = append(scores, ranking.Score(c, p.now, s.opts.Weights).Total())
		}
		pos, chunk = end, chunk*2
		if pos < len(cands) && len(scores) >= p.limit && cands[pos].relevance.Total() <= kthLargest(scores, p.limit) {
			p.explain.unreadN(DropLimit, len(cands)-pos)
			break
		}
	}
	return s.cutRanked(p, ranking.Rerank(scored, p.now, s.opts.Weights), items), nil
}

// cutRanked keeps the best p.limit of the ranked candidates that reach
// p.minScore; the others are explained when the search asked.
func (s *Service) cutRanked(p plan, ranked []ranking.Ranked, items map[string]Item) []Item {
	out := make([]Item, 0, p.limit)
	for _, r := range ranked {
		reason := ""
		switch {
		case r.Score < p.minScore || r.Score <= 0:
			reason = DropBelowMinScore
		case len(out) == p.limit:
			reason = DropLimit
		}
		it := items[r.ID]
		if reason == "" {
			it.Score, it.Breakdown = r.Score, r.Breakdown
			out = append(out, it)
			continue
		}
		if p.explain == nil {
			break // ranked best first: nothing later is kept either
		}
		p.explain.drop(it, r.Score, reason)
	}
	return out
}

// readCandidates reads the truth of one round of candidates (most relevant first)
// and appends the live ones that still match the filters.
func (s *Service) readCandidates(ctx context.Context, p plan, round []candidate, scored *[]ranking.Candidate, items map[string]Item) error {
	mems, msgs, err := s.readTruth(ctx, p, round)
	if err != nil {
		return err
	}
	for _, c := range round {
		if c.kind == memory.KindMessage {
			m, ok := msgs[c.id]
			if !ok {
				p.explain.unreadN(DropMissing, 1)
				continue
			}
			if (p.ConversationID != "" && m.ConversationID != p.ConversationID) || !inRange(p, m.CreatedAt) {
				p.explain.drop(Item{Kind: memory.KindMessage, Message: &m}, c.relevance.Total(), DropFiltered)
				continue
			}
			if s.hidesSecrets(p) && secret.Contains(m.Content) {
				p.explain.drop(Item{Kind: memory.KindMessage, Message: &m}, c.relevance.Total(), DropSecret)
				continue
			}
			*scored = append(*scored, ranking.Candidate{ID: c.id, Evidence: c.relevance, Confidence: -1, ExactKey: -1, At: m.CreatedAt})
			items[c.id] = Item{Kind: memory.KindMessage, Message: &m}
			continue
		}
		m, ok := mems[c.id]
		switch {
		case !ok:
			p.explain.unreadN(DropMissing, 1)
			continue
		case !m.IsLive(p.now):
			p.explain.drop(Item{Kind: memory.KindMemory, Memory: &m}, c.relevance.Total(), deadReason(m, p.now))
			continue
		case !s.memoryMatches(p, m):
			p.explain.drop(Item{Kind: memory.KindMemory, Memory: &m}, c.relevance.Total(), DropFiltered)
			continue
		case s.hidesSecrets(p) && m.State().Flags.Has(memory.FlagSecret):
			p.explain.drop(Item{Kind: memory.KindMemory, Memory: &m}, c.relevance.Total(), DropSecret)
			continue
		}
		*scored = append(*scored, s.memoryCandidate(p, m, c.relevance))
		items[c.id] = Item{Kind: memory.KindMemory, Memory: &m}
	}
	return nil
}

func (s *Service) readTruth(ctx context.Context, p plan, round []candidate) (map[string]memory.Memory, map[string]conversation.Message, error) {
	var memIDs, msgIDs []string
	for _, c := range round {
		if c.kind == memory.KindMessage {
			msgIDs = append(msgIDs, c.id)
		} else {
			memIDs = append(memIDs, c.id)
		}
	}
	mems := map[string]memory.Memory{}
	if len(memIDs) > 0 {
		ms, err := s.deps.Memories.MemoriesByID(ctx, p.Scope, memIDs)
		if err != nil {
			return nil, nil, fmt.Errorf("read memories: %w", err)
		}
		for _, m := range ms {
			mems[m.ID()] = m
		}
	}
	msgs := map[string]conversation.Message{}
	if len(msgIDs) > 0 {
		ms, err := s.deps.Messages.MessagesBySeq(ctx, p.Scope, msgIDs)
		if err != nil {
			return nil, nil, fmt.Errorf("read messages: %w", err)
		}
		for _, m := range ms {
			msgs[m.Seq] = m
		}
	}
	return mems, msgs, nil
}

// hidesSecrets reports whether the search leaves out what holds a secret.
func (s *Service) hidesSecrets(p plan) bool { return s.opts.Secrets.Screens() && !p.IncludeSecrets }

// kthLargest is the k-th largest value (k ≥ 1, k ≤ len(values)).
func kthLargest(values []float64, k int) float64 {
	sorted := slices.Clone(values)
	slices.SortFunc(sorted, func(a, b float64) int { return cmpFloat(b, a) })
	return sorted[k-1]
}

func (s *Service) memoryMatches(p plan, m memory.Memory) bool {
	if len(p.types) > 0 && !slices.Contains(p.types, m.Type()) {
		return false
	}
	return inRange(p, m.UpdatedAt()) && idsMatch(p.Search, m.Attributes())
}

// idsMatch reports whether the memory has every agent, app and run id asked for.
func idsMatch(q Search, a memory.Attributes) bool {
	return (q.AgentID == "" || q.AgentID == a.AgentID) && (q.AppID == "" || q.AppID == a.AppID) &&
		(q.RunID == "" || q.RunID == a.RunID)
}

func inRange(p plan, at time.Time) bool {
	return (p.Since.IsZero() || !at.Before(p.Since)) && (p.Until.IsZero() || at.Before(p.Until))
}

func (s *Service) memoryCandidate(p plan, m memory.Memory, relevance ranking.Evidence) ranking.Candidate {
	return ranking.Candidate{
		ID: m.ID(), Evidence: relevance, Importance: m.Importance(), Confidence: m.Confidence(),
		At: m.UpdatedAt(), ExactKey: ranking.KeyMatch(p.terms, s.deps.Analyzer.Terms(m.Key().String())),
	}
}
