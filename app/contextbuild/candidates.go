package contextbuild

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/domain/ranking"
	"engram/domain/session"
)

// Sources of the trace's items.
const (
	SourceProfile  = "profile"
	SourceStanding = "standing" // the user's standing memories, read whatever the question
	SourceSession  = "session"  // the summary and the recent messages
	SourceMemories = "memories" // the long-term memory search
	SourceMessages = "messages" // the past-message search (episodes)
)

// Kinds of the trace's items.
const (
	KindProfile  = "profile"
	KindSummary  = "summary"
	KindMessage  = "message"
	KindMemory   = "memory"
	KindExternal = "external"
)

// origin is what a candidate was made from, for the response's sections.
type origin struct {
	recent   *session.Message
	memory   *memory.Memory
	message  *conversation.Message
	external *ExternalInput
}

// candidates are the items offered to the packer, each with its origin and
// whether its text must be screened for instructions (a memory was screened
// when it was saved), and the candidates dropped before packing.
type candidates struct {
	items   []promptctx.Item
	origins []origin
	screen  []bool
	early   []promptctx.RawHit
	seen    map[string]bool // normalised texts offered so far
}

// add offers an item. A memory, an episode or an external item whose text an
// earlier candidate already has is dropped as a duplicate; the profile, the
// summary and the recent messages are what they are (a session may hold two
// equal answers).
func (c *candidates) add(it promptctx.Item, o origin, screen bool) {
	key := strings.ToLower(strings.Join(strings.Fields(promptctx.Clean(it.Text)), " "))
	pooled := it.Section == promptctx.Memories || it.Section == promptctx.Episodes || it.Section == promptctx.External
	if pooled && c.seen[key] {
		c.drop(it, promptctx.ReasonDuplicate)
		return
	}
	// A standing memory the search finds too is told apart by the packer
	// (promptctx: twins go in once), so that one its share cannot hold may still
	// go in as a relevant memory.
	if it.Section != promptctx.Standing {
		c.seen[key] = true
	}
	c.items, c.origins, c.screen = append(c.items, it), append(c.origins, o), append(c.screen, screen)
}

func (c *candidates) drop(it promptctx.Item, reason string) {
	c.early = append(c.early, promptctx.RawHit{ID: it.ID, Kind: it.Kind, Section: it.Section, Source: it.Source, Score: it.Score, Reason: reason})
}

// candidates turns what was gathered into the packer's items, in priority order
// (profile lines, summary, recent messages newest first, memories, episodes,
// external items), so that of two equal texts the earlier is kept.
func (s *Service) candidates(p plan, g gathered, external []float64) *candidates {
	c := &candidates{seen: map[string]bool{}}
	lang := s.opts.Layout.Language
	if p.wants(promptctx.Profile) {
		for i, line := range profileLines(g.profile) {
			c.add(promptctx.Item{ID: "profile:" + strconv.Itoa(i+1), Section: promptctx.Profile, Kind: KindProfile, Source: SourceProfile,
				Text: line, Score: 1}, origin{}, true)
		}
	}
	s.standingCandidates(c, p, g.standing)
	if p.wants(promptctx.Summary) && g.view.Summary.Text != "" {
		c.add(promptctx.Item{ID: "summary", Section: promptctx.Summary, Kind: KindSummary, Source: SourceSession,
			Text: g.view.Summary.Text, Score: 1, Parts: s.sentences(p.Query, g.view.Summary.Text)}, origin{}, true)
	}
	if p.wants(promptctx.Recent) {
		asked := map[string]bool{} // exchanges whose user message was read
		for _, m := range g.view.Messages {
			if m.Role != conversation.RoleAssistant {
				asked[m.ExchangeID] = true
			}
		}
		for i := len(g.view.Messages) - 1; i >= 0; i-- { // newest first
			m := g.view.Messages[i]
			it := promptctx.Item{ID: m.ID, Section: promptctx.Recent, Kind: KindMessage, Source: SourceSession,
				Label: lang.RoleLabel(m.Role == conversation.RoleAssistant), Text: m.Content, Score: 1, Group: m.ExchangeID}
			if m.Role == conversation.RoleAssistant && !asked[m.ExchangeID] {
				c.drop(it, ReasonUnpaired) // never an answer without its question
				continue
			}
			c.add(it, origin{recent: &m}, true)
		}
	}
	s.memoryCandidates(c, p, g.memories)
	s.episodeCandidates(c, p, g)
	s.externalCandidates(c, p, external)
	return c
}

// profileLines are the profile block's lines without its own header
// ("[用户画像]"): the block's section heading takes its place.
func profileLines(text string) []string {
	var out []string
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || (i == 0 && strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]")) {
			continue
		}
		out = append(out, line)
	}
	return out
}

// ReasonUnpaired: an answer of the session whose question was not read (the
// session's read limit fell between them); recent messages go in as pairs.
const ReasonUnpaired = "unpaired"

// standingCandidates offers the user's standing memories, in their order
// (most important, then most recent, first), whatever the question, by the
// flag rules of every memory (addMemory).
func (s *Service) standingCandidates(c *candidates, p plan, standing []memory.Memory) {
	for i := range standing {
		m := &standing[i]
		s.addMemory(c, p, promptctx.Item{ID: m.Key().String(), Section: promptctx.Standing, Kind: KindMemory, Source: SourceStanding,
			Label: fmt.Sprintf("[%s] %s", m.Type(), m.Key()), Text: m.Content(), Score: 1}, m)
	}
}

// addMemory offers a memory by its flags: one flagged secret is left out (unless
// secrets are off), one flagged instruction_like is left out or, when the call
// asks for such text, marked.
func (s *Service) addMemory(c *candidates, p plan, it promptctx.Item, m *memory.Memory) {
	if s.opts.Secrets.Screens() && slices.Contains(m.Flags(), memory.FlagSecret) {
		c.drop(it, promptctx.ReasonSecret)
		return
	}
	if slices.Contains(m.Flags(), memory.FlagInstructionLike) {
		if !p.instructionLikeToo {
			c.drop(it, promptctx.ReasonInstructionLike)
			return
		}
		it.Label += " " + s.opts.Layout.Language.InstructionLikeMark()
	}
	c.add(it, origin{memory: m}, false)
}

// sentences cuts the summary into sentences scored by their lexical evidence
// for the question (the matched share of its IDF mass), so that a cut keeps
// the most relevant ones.
func (s *Service) sentences(query, text string) []promptctx.Part {
	split := promptctx.SplitSentences(text)
	if len(split) < 2 || s.deps.Analyzer == nil {
		return nil
	}
	ix := ranking.NewIndex(s.opts.Recipe.BM25)
	for i, sentence := range split {
		ix.Add(strconv.Itoa(i), ranking.Field{Terms: s.deps.Analyzer.Terms(sentence), Weight: 1})
	}
	parts := make([]promptctx.Part, len(split))
	for i, sentence := range split {
		parts[i].Text = sentence
	}
	for _, m := range ix.Match(s.deps.Analyzer.Terms(query), s.opts.Recipe, 0) {
		i, _ := strconv.Atoi(m.ID)
		parts[i].Score = m.Evidence.Total()
	}
	return parts
}

func (s *Service) memoryCandidates(c *candidates, p plan, f Found) {
	for _, h := range f.Hits {
		m := h.Memory
		s.addMemory(c, p, promptctx.Item{ID: m.Key().String(), Section: promptctx.Memories, Kind: KindMemory, Source: SourceMemories,
			Label: fmt.Sprintf("[%s] %s", m.Type(), m.Key()), Text: m.Content(), Score: h.Score}, m)
	}
	for _, h := range f.Dropped {
		if h.Memory != nil {
			c.drop(promptctx.Item{ID: h.Memory.Key().String(), Section: promptctx.Memories, Kind: KindMemory, Source: SourceMemories, Score: h.Score}, h.Reason)
		}
	}
}

// episodeCandidates offers the past messages found, except those of the session
// itself: its recent messages are in already (duplicate), its older ones are what
// its summary stands for (current_session).
func (s *Service) episodeCandidates(c *candidates, p plan, g gathered) {
	recent := map[string]bool{}
	for _, m := range g.view.Messages {
		recent[strings.TrimSpace(m.Content)] = true
	}
	for _, h := range g.episodes.Hits {
		m := h.Message
		it := promptctx.Item{ID: m.ID, Section: promptctx.Episodes, Kind: KindMessage, Source: SourceMessages,
			Label: s.episodeLabel(*m), Text: m.Content, Score: h.Score}
		switch {
		case p.SessionID != "" && m.ConversationID == p.SessionID && recent[strings.TrimSpace(m.Content)]:
			c.drop(it, promptctx.ReasonDuplicate)
		case p.SessionID != "" && m.ConversationID == p.SessionID:
			c.drop(it, promptctx.ReasonCurrentSession)
		default:
			c.add(it, origin{message: m}, true)
		}
	}
	for _, h := range g.episodes.Dropped {
		if h.Message != nil {
			c.drop(promptctx.Item{ID: h.Message.ID, Section: promptctx.Episodes, Kind: KindMessage, Source: SourceMessages, Score: h.Score}, h.Reason)
		}
	}
}

// episodeLabel is when and by whom: "2023-05-08 Caroline", or the role without a
// name.
func (s *Service) episodeLabel(m conversation.Message) string {
	who := m.Name
	if who == "" {
		who = s.opts.Layout.Language.RoleLabel(m.Role == conversation.RoleAssistant)
	}
	return m.CreatedAt.UTC().Format("2006-01-02") + " " + who
}

// externalCandidates offers the caller's items that reach min_score.
func (s *Service) externalCandidates(c *candidates, p plan, scores []float64) {
	for i := range p.External {
		x := &p.External[i]
		it := promptctx.Item{ID: "external:" + strconv.Itoa(i), Section: promptctx.External, Kind: KindExternal,
			Source: strings.TrimSpace(x.Source), Label: strings.TrimSpace(x.Source), Text: x.Text, Score: scores[i]}
		if scores[i] < s.opts.MinScore || scores[i] <= 0 {
			c.drop(it, promptctx.ReasonBelowMinScore)
			continue
		}
		c.add(it, origin{external: x}, true)
	}
}
