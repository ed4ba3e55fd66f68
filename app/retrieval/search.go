package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"engram/domain/conversation"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/ranking"
	"engram/ports"
)

// What a search looks through (API.md's "scope").
const (
	WithinMemories = "memories"
	WithinMessages = "messages"
	WithinAll      = "all"
)

// Search is POST /v1/users/{user}/search.
type Search struct {
	Scope memory.Scope
	Query string
	// Summary is the session summary; it joins the question in the text embedded
	// for dense retrieval (seed 000: "query = question + session summary").
	Summary string
	// Within is memories (default), messages or all.
	Within string
	// Mode is auto, dense, lexical or full_inject; empty: the configured default.
	Mode string
	// Limit is 1..100; 0: the configured default (full_inject: every live memory up
	// to the scan limit).
	Limit int
	// Types keeps memories of these types (memories only).
	Types []string
	// ConversationID keeps messages of this conversation (messages only).
	ConversationID string
	// Since (inclusive) and Until (exclusive) bound when a message was said or a
	// memory last changed; zero: unbounded.
	Since, Until time.Time
}

// Item is one result: a memory or a message with its score and breakdown.
type Item struct {
	Kind      ports.LexicalKind
	Memory    *memory.Memory
	Message   *conversation.Message
	Score     float64
	Breakdown ranking.Breakdown
}

// Result is a search's answer. FallbackReason says why a search that asked for
// vectors answered from lexical search (ModeUsed is then lexical).
type Result struct {
	Items          []Item
	ModeUsed       Mode
	FallbackReason string
}

// plan is a validated search.
type plan struct {
	Search
	mode  Mode
	kinds []ports.LexicalKind
	types []memory.Type
	limit int
	now   time.Time
	terms []string // the analysed query
}

// Search finds the user's memories and messages that best answer the query.
// Expired, inactive and noise-key memories are never returned. When the vector
// side fails, times out or is switched off by the breaker, dense and auto answer
// from lexical search with ModeUsed lexical and the reason: a search only fails
// when the truth store does.
func (s *Service) Search(ctx context.Context, q Search) (Result, error) {
	p, err := s.parse(q)
	if err != nil {
		return Result{}, err
	}
	var res Result
	if p.mode == ModeFullInject {
		res, err = s.fullInject(ctx, p)
	} else {
		res, err = s.retrieve(ctx, p)
	}
	if err != nil {
		return Result{}, err
	}
	s.recordAccess(p, res)
	return res, nil
}

func (s *Service) parse(q Search) (plan, error) {
	p := plan{Search: q, now: s.deps.Clock.Now()}
	var errs []error
	p.mode = s.opts.DefaultMode
	if m := strings.ToLower(strings.TrimSpace(q.Mode)); m != "" {
		p.mode = Mode(m)
		if !validMode(p.mode) {
			errs = append(errs, invalid.FieldValue("mode", q.Mode, "must be one of auto, dense, lexical, full_inject"))
		}
	}
	switch strings.ToLower(strings.TrimSpace(q.Within)) {
	case "", WithinMemories:
		p.kinds = []ports.LexicalKind{ports.LexicalMemory}
	case WithinMessages:
		p.kinds = []ports.LexicalKind{ports.LexicalMessage}
		if p.mode == ModeFullInject {
			errs = append(errs, invalid.FieldValue("scope", q.Within, "full_inject returns memories; use scope memories or all, or another mode"))
		}
	case WithinAll:
		p.kinds = []ports.LexicalKind{ports.LexicalMemory, ports.LexicalMessage}
		if p.mode == ModeFullInject {
			p.kinds = p.kinds[:1]
		}
	default:
		errs = append(errs, invalid.FieldValue("scope", q.Within, "must be one of memories, messages, all"))
	}
	if s.deps.Messages == nil {
		p.kinds = removeKind(p.kinds, ports.LexicalMessage)
	}
	p.Query = strings.TrimSpace(q.Query)
	if p.Query == "" && p.mode != ModeFullInject {
		errs = append(errs, invalid.Field("query", "must not be empty (only full_inject works without a query)"))
	}
	if n := utf8.RuneCountInString(p.Query); n > MaxQueryLen {
		errs = append(errs, invalid.Field("query", "must be at most %d characters, got %d", MaxQueryLen, n))
	}
	if !utf8.ValidString(p.Query) {
		errs = append(errs, invalid.Field("query", "must be valid UTF-8"))
	}
	switch {
	case q.Limit < 0 || q.Limit > MaxLimit:
		errs = append(errs, invalid.FieldValue("limit", q.Limit, "must be between 1 and %d", MaxLimit))
	case q.Limit > 0:
		p.limit = q.Limit
	case p.mode == ModeFullInject:
		p.limit = s.opts.ScanLimit
	default:
		p.limit = s.opts.DefaultLimit
	}
	for _, t := range q.Types {
		for _, part := range strings.Split(t, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			typ, err := memory.ParseType(part)
			if err != nil {
				errs = append(errs, invalid.FieldValue("types", part, "must be one of preference, fact, goal, project, constraint"))
				continue
			}
			p.types = append(p.types, typ)
		}
	}
	if q.ConversationID != "" {
		errs = append(errs, conversation.ValidateID("conversation_id", q.ConversationID))
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Since.After(q.Until) {
		errs = append(errs, invalid.Field("since", "must not be after until"))
	}
	if err := invalid.Join(errs...); err != nil {
		return plan{}, err
	}
	p.terms = s.deps.Analyzer.Terms(p.Query)
	return p, nil
}

func validMode(m Mode) bool {
	for _, known := range Modes {
		if m == known {
			return true
		}
	}
	return false
}

func removeKind(kinds []ports.LexicalKind, k ports.LexicalKind) []ports.LexicalKind {
	out := kinds[:0:0]
	for _, x := range kinds {
		if x != k {
			out = append(out, x)
		}
	}
	return out
}

// retrieve is the lexical, dense and auto modes.
func (s *Service) retrieve(ctx context.Context, p plan) (Result, error) {
	res := Result{ModeUsed: p.mode}
	var vectors chan vectorOutcome
	if p.mode != ModeLexical {
		vectors = make(chan vectorOutcome, 1)
		go func() { vectors <- s.vectorSide(ctx, p) }()
	}
	var lexical map[ports.LexicalKind][]ranking.Scored
	speakers := map[string]string{}
	var err error
	if p.mode != ModeDense {
		if lexical, err = s.lexicalSide(ctx, p, speakers); err != nil {
			return Result{}, err
		}
	}
	var dense map[ports.LexicalKind][]ranking.Scored
	if vectors != nil {
		out := <-vectors
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("search: %w", err)
		}
		if out.reason != "" {
			res.ModeUsed, res.FallbackReason = ModeLexical, out.reason
		} else {
			dense = out.lists
		}
	}
	if lexical == nil && res.ModeUsed == ModeLexical {
		if lexical, err = s.lexicalSide(ctx, p, speakers); err != nil {
			return Result{}, err
		}
	}
	if dense != nil {
		if err := s.boostDense(ctx, p, dense, speakers); err != nil {
			return Result{}, err
		}
	}
	// One fusion over both kinds (scope all): min-max normalises each retriever's
	// list, not each kind's, so a weak memory is not lifted to the level of the best
	// message just because it is the best memory.
	kindOf := map[string]ports.LexicalKind{}
	joint := func(lists map[ports.LexicalKind][]ranking.Scored) []ranking.Scored {
		if len(p.kinds) == 1 {
			for _, it := range lists[p.kinds[0]] {
				kindOf[it.ID] = p.kinds[0]
			}
			return lists[p.kinds[0]]
		}
		var all []ranking.Scored
		for _, kind := range p.kinds {
			for _, it := range lists[kind] {
				kindOf[it.ID] = kind
				all = append(all, it)
			}
		}
		sortScored(all)
		return all
	}
	var fused []ranking.Scored
	switch res.ModeUsed {
	case ModeLexical:
		fused = joint(lexical)
	case ModeDense:
		fused = joint(dense)
	default:
		fused = s.opts.Recipe.Fuse(joint(lexical), joint(dense))
	}
	items, err := s.rank(ctx, p, fused, kindOf)
	if err != nil {
		return Result{}, err
	}
	res.Items = items[:min(len(items), p.limit)]
	return res, nil
}

// lexicalSide runs BM25 for each kind (depth: the recipe's, at least the limit)
// and the speaker boost; it records the speakers it saw.
func (s *Service) lexicalSide(ctx context.Context, p plan, speakers map[string]string) (map[ports.LexicalKind][]ranking.Scored, error) {
	out := map[ports.LexicalKind][]ranking.Scored{}
	for _, kind := range p.kinds {
		items, speakerOf, err := s.lexical.search(ctx, p.Scope, s.lexicalQuery(p, kind, max(s.opts.Recipe.Depth, p.limit)))
		if err != nil {
			return nil, fmt.Errorf("lexical search: %w", err)
		}
		if kind == ports.LexicalMessage {
			ranking.BoostNamed(items, p.terms, speakerOf, s.opts.Recipe.SpeakerBoost)
			for _, it := range items {
				if sp := speakerOf(it.ID); sp != "" {
					speakers[it.ID] = sp
				}
			}
		}
		out[kind] = items
	}
	return out, nil
}

func (s *Service) lexicalQuery(p plan, kind ports.LexicalKind, limit int) lexicalQuery {
	q := lexicalQuery{Kind: kind, Terms: p.terms, Since: p.Since, Until: p.Until, Now: p.now, Limit: limit}
	if kind == ports.LexicalMemory {
		for _, t := range p.types {
			q.Types = append(q.Types, string(t))
		}
	} else {
		q.ConversationID = p.ConversationID
	}
	return q
}

// boostDense applies the speaker boost to the dense message list, as the measured
// method does; speakers not seen by the lexical side are read from its index.
func (s *Service) boostDense(ctx context.Context, p plan, dense map[ports.LexicalKind][]ranking.Scored, speakers map[string]string) error {
	items := dense[ports.LexicalMessage]
	if len(items) == 0 || s.opts.Recipe.SpeakerBoost == 0 {
		return nil
	}
	var missing []string
	for _, it := range items {
		if _, ok := speakers[it.ID]; !ok {
			missing = append(missing, it.ID)
		}
	}
	if len(missing) > 0 {
		found, err := s.lexical.speakersOf(ctx, p.Scope, missing)
		if err != nil {
			return fmt.Errorf("lexical search: %w", err)
		}
		for id, sp := range found {
			speakers[id] = sp
		}
	}
	ranking.BoostNamed(items, p.terms, func(id string) string { return speakers[id] }, s.opts.Recipe.SpeakerBoost)
	return nil
}

type vectorOutcome struct {
	lists  map[ports.LexicalKind][]ranking.Scored
	reason string // non-empty: vectors gave nothing, and why
}

// vectorSide embeds the query and searches the vector index for each kind within
// the vector timeout, through the breaker.
func (s *Service) vectorSide(ctx context.Context, p plan) vectorOutcome {
	if s.deps.Embedder == nil || s.deps.Vectors == nil {
		return vectorOutcome{reason: FallbackVectorsDisabled}
	}
	ok, probe := s.breaker.allow()
	if !ok {
		return vectorOutcome{reason: FallbackBreakerOpen}
	}
	vctx, cancel := context.WithTimeout(ctx, s.opts.VectorTimeout)
	defer cancel()
	type answer struct {
		lists map[ports.LexicalKind][]ranking.Scored
		err   error
	}
	done := make(chan answer, 1)
	go func() {
		lists, err := s.denseSearch(vctx, p)
		done <- answer{lists, err}
	}()
	select {
	case out := <-done:
		searchErr := out.err
		switch {
		case searchErr == nil:
			s.breaker.success()
			return vectorOutcome{lists: out.lists}
		case ctx.Err() != nil:
			s.breaker.abandon(probe)
			return vectorOutcome{reason: FallbackVectorError}
		case errors.Is(searchErr, context.DeadlineExceeded):
			s.breaker.failure()
			return vectorOutcome{reason: FallbackVectorTimeout}
		default:
			s.breaker.failure()
			return vectorOutcome{reason: FallbackVectorError}
		}
	case <-vctx.Done():
		// The vector side ignores its deadline (a hung connection): answer without
		// it; its goroutine ends when the call does.
		if ctx.Err() != nil {
			s.breaker.abandon(probe)
			return vectorOutcome{reason: FallbackVectorError}
		}
		s.breaker.failure()
		return vectorOutcome{reason: FallbackVectorTimeout}
	}
}

// DenseQueryText is what is embedded for a search: the question, then the session
// summary when there is one.
func DenseQueryText(question, summary string) string {
	if summary = strings.TrimSpace(summary); summary != "" {
		return question + "\n" + summary
	}
	return question
}

func (s *Service) denseSearch(ctx context.Context, p plan) (map[ports.LexicalKind][]ranking.Scored, error) {
	vecs, err := s.deps.Embedder.Embed(ctx, []string{DenseQueryText(p.Query, p.Summary)})
	if err != nil {
		return nil, fmt.Errorf("embed the query: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embed the query: %d vectors for 1 text", len(vecs))
	}
	out := map[ports.LexicalKind][]ranking.Scored{}
	for _, kind := range p.kinds {
		q := ports.VectorQuery{
			Tenant: p.Scope.Tenant, User: p.Scope.User, Kinds: []ports.VectorKind{vectorKind(kind)},
			Since: p.Since, Until: p.Until, Vector: vecs[0], Limit: max(s.opts.Recipe.Depth, p.limit),
		}
		if kind == ports.LexicalMemory {
			for _, t := range p.types {
				q.MemoryTypes = append(q.MemoryTypes, string(t))
			}
		} else {
			q.ConversationID = p.ConversationID
		}
		hits, err := s.deps.Vectors.Search(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		items := make([]ranking.Scored, 0, len(hits))
		for _, h := range hits {
			if h.Kind == "" || h.Kind == vectorKind(kind) {
				items = append(items, ranking.Scored{ID: h.ID, Score: h.Score})
			}
		}
		out[kind] = items
	}
	return out, nil
}

func vectorKind(k ports.LexicalKind) ports.VectorKind {
	if k == ports.LexicalMessage {
		return ports.VectorKindMessage
	}
	return ports.VectorKindMemory
}

// rank reads the truth of the fused candidates, drops what is not live (or no
// longer matches the filters), and re-ranks with retrieval = the fused score
// normalised by the best one.
//
// The truth is read in rounds, best retrieval first, and only as far as a
// candidate could still enter the top limit: a candidate's total is at most its
// retrieval contribution plus the most the other signals can give its kind, so
// once that bound falls to the limit-th best total already read, no later (less
// relevant) candidate can make the cut. The result is the one reading every candidate
// would give, for a fraction of the rows.
func (s *Service) rank(ctx context.Context, p plan, fused []ranking.Scored, kindOf map[string]ports.LexicalKind) ([]Item, error) {
	if len(fused) == 0 {
		return nil, nil
	}
	fused = fused[:min(len(fused), max(s.opts.Recipe.Depth, p.limit)*len(p.kinds))]
	retrieval := ranking.Normalize(fused)
	w := s.opts.Weights
	// The most the signals besides retrieval can add, per kind: a message has no
	// importance (the midpoint), no confidence (counts as 1) and no key.
	others := map[ports.LexicalKind]float64{
		ports.LexicalMemory:  ranking.Score(ranking.Candidate{Importance: memory.MaxImportance, Confidence: 1, At: p.now, ExactKey: 1}, p.now, w).Total(),
		ports.LexicalMessage: ranking.Score(ranking.Candidate{Confidence: -1, At: p.now}, p.now, w).Total(),
	}
	cands := make([]ranking.Candidate, 0, len(fused))
	totals := make([]float64, 0, len(fused))
	items := map[string]Item{}
	chunk := max(2*p.limit, 16)
	for pos := 0; pos < len(retrieval); {
		end := min(len(retrieval), pos+chunk)
		if err := s.readCandidates(ctx, p, retrieval[pos:end], kindOf, &cands, items); err != nil {
			return nil, err
		}
		for _, c := range cands[len(totals):] {
			totals = append(totals, ranking.Score(c, p.now, w).Total())
		}
		pos, chunk = end, chunk*2
		if pos < len(retrieval) && len(totals) >= p.limit {
			kth := kthLargest(totals, p.limit)
			bound := 0.0
			for _, r := range retrieval[pos:] {
				bound = max(bound, w.Retrieval*r.Score+others[kindOf[r.ID]])
			}
			if bound <= kth {
				break
			}
		}
	}
	ranked := ranking.Rerank(cands, p.now, w)
	out := make([]Item, 0, len(ranked))
	for _, r := range ranked {
		it := items[r.ID]
		it.Score, it.Breakdown = r.Score, r.Breakdown
		out = append(out, it)
	}
	return out, nil
}

// readCandidates reads the truth of one round of candidates (in retrieval order)
// and appends the live ones that still match the filters.
func (s *Service) readCandidates(ctx context.Context, p plan, round []ranking.Scored, kindOf map[string]ports.LexicalKind,
	cands *[]ranking.Candidate, items map[string]Item,
) error {
	var memIDs, msgIDs []string
	for _, f := range round {
		if kindOf[f.ID] == ports.LexicalMessage {
			msgIDs = append(msgIDs, f.ID)
		} else {
			memIDs = append(memIDs, f.ID)
		}
	}
	mems := map[string]memory.Memory{}
	if len(memIDs) > 0 {
		ms, err := s.deps.Memories.MemoriesByID(ctx, p.Scope, memIDs)
		if err != nil {
			return fmt.Errorf("read memories: %w", err)
		}
		for _, m := range ms {
			mems[m.ID()] = m
		}
	}
	msgs := map[string]conversation.Message{}
	if len(msgIDs) > 0 {
		ms, err := s.deps.Messages.MessagesBySeq(ctx, p.Scope, msgIDs)
		if err != nil {
			return fmt.Errorf("read messages: %w", err)
		}
		for _, m := range ms {
			msgs[m.Seq] = m
		}
	}
	for _, r := range round {
		if kindOf[r.ID] == ports.LexicalMessage {
			m, ok := msgs[r.ID]
			if !ok || (p.ConversationID != "" && m.ConversationID != p.ConversationID) || !inRange(p, m.CreatedAt) {
				continue
			}
			*cands = append(*cands, ranking.Candidate{ID: r.ID, Retrieval: r.Score, Confidence: -1, At: m.CreatedAt})
			items[r.ID] = Item{Kind: ports.LexicalMessage, Message: &m}
			continue
		}
		m, ok := mems[r.ID]
		if !ok || !m.IsLive(p.now) || !s.memoryMatches(p, m) {
			continue
		}
		*cands = append(*cands, s.memoryCandidate(p, m, r.Score))
		items[r.ID] = Item{Kind: ports.LexicalMemory, Memory: &m}
	}
	return nil
}

// kthLargest is the k-th largest value (k ≥ 1, k ≤ len(values)).
func kthLargest(values []float64, k int) float64 {
	s := slices.Clone(values)
	slices.SortFunc(s, func(a, b float64) int { return cmp.Compare(b, a) })
	return s[k-1]
}

func (s *Service) memoryMatches(p plan, m memory.Memory) bool {
	if len(p.types) > 0 && !typeIn(p.types, m.Type()) {
		return false
	}
	return inRange(p, m.UpdatedAt())
}

func typeIn(types []memory.Type, t memory.Type) bool {
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}

func inRange(p plan, at time.Time) bool {
	return (p.Since.IsZero() || !at.Before(p.Since)) && (p.Until.IsZero() || at.Before(p.Until))
}

func (s *Service) memoryCandidate(p plan, m memory.Memory, retrieval float64) ranking.Candidate {
	return ranking.Candidate{
		ID: m.ID(), Retrieval: retrieval, Importance: m.Importance(), Confidence: m.Confidence(),
		At: m.UpdatedAt(), ExactKey: ranking.KeyMatch(p.terms, s.deps.Analyzer.Terms(m.Key().String())),
	}
}

// fullInject is every live memory of the user up to the scan limit (the most
// important and most recently changed first), re-ranked; a query, when given,
// supplies the retrieval signal through lexical search.
func (s *Service) fullInject(ctx context.Context, p plan) (Result, error) {
	ms, err := s.deps.Memories.TopMemories(ctx, p.Scope, p.types, p.now, s.opts.ScanLimit)
	if err != nil {
		return Result{}, fmt.Errorf("read memories: %w", err)
	}
	relevance := map[string]float64{}
	if len(p.terms) > 0 && len(ms) > 0 {
		q := s.lexicalQuery(p, ports.LexicalMemory, 0)
		q.Only = make(map[string]bool, len(ms))
		for _, m := range ms {
			q.Only[m.ID()] = true
		}
		items, _, err := s.lexical.search(ctx, p.Scope, q)
		if err != nil {
			return Result{}, fmt.Errorf("lexical search: %w", err)
		}
		for _, r := range ranking.Normalize(items) {
			relevance[r.ID] = r.Score
		}
	}
	cands := make([]ranking.Candidate, 0, len(ms))
	byID := make(map[string]memory.Memory, len(ms))
	for _, m := range ms {
		if !m.IsLive(p.now) || !inRange(p, m.UpdatedAt()) {
			continue
		}
		byID[m.ID()] = m
		cands = append(cands, s.memoryCandidate(p, m, relevance[m.ID()]))
	}
	ranked := ranking.Rerank(cands, p.now, s.opts.Weights)
	items := make([]Item, 0, min(len(ranked), p.limit))
	for _, r := range ranked[:min(len(ranked), p.limit)] {
		m := byID[r.ID]
		items = append(items, Item{Kind: ports.LexicalMemory, Memory: &m, Score: r.Score, Breakdown: r.Breakdown})
	}
	return Result{Items: items, ModeUsed: ModeFullInject}, nil
}

// recordAccess queues the returned memories' last access; it never blocks.
func (s *Service) recordAccess(p plan, res Result) {
	if s.deps.Access == nil {
		return
	}
	var ids []string
	for _, it := range res.Items {
		if it.Memory != nil {
			ids = append(ids, it.Memory.ID())
		}
	}
	s.deps.Access.Record(p.Scope.Tenant, ids, p.now)
}
