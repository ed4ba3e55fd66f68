package sqlstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/domain/promptctx"
	"engram/ports"
)

// TraceStore keeps the traces of context calls in context_traces, each trace's
// content as JSON (ports.TraceStore).
type TraceStore struct {
	db *DB
}

var (
	_ ports.TraceStore  = (*TraceStore)(nil)
	_ ports.TraceEraser = (*TraceStore)(nil)
)

// NewTraceStore serves ports.TraceStore from db.
func NewTraceStore(db *DB) *TraceStore { return &TraceStore{db: db} }

// SaveTraces inserts the traces in one transaction, leaving out those of users
// being erased (each user's write guard, as every write of user data takes it)
// and ids already stored.
func (s *TraceStore) SaveTraces(ctx context.Context, traces []promptctx.Trace) error {
	if len(traces) == 0 {
		return nil
	}
	rows := make([]traceRow, 0, len(traces))
	for _, t := range traces {
		row, err := toTraceRow(t)
		if err != nil {
			return err
		}
		rows = append(rows, row)
	}
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		kept, err := s.withoutErasing(ctx, tx, rows)
		if err != nil || len(kept) == 0 {
			return err
		}
		_, err = tx.NewInsert().Model(&kept).On("CONFLICT (id) DO NOTHING").Exec(ctx)
		return wrapErr("insert traces", err)
	})
}

// withoutErasing takes each user's write guard, in one order so that two
// batches never wait on each other, and leaves out the rows of users being erased.
func (s *TraceStore) withoutErasing(ctx context.Context, tx bun.Tx, rows []traceRow) ([]traceRow, error) {
	var scopes []memory.Scope
	for _, r := range rows {
		if sc := (memory.Scope{Tenant: r.TenantID, User: r.UserID}); !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	slices.SortFunc(scopes, func(a, b memory.Scope) int {
		return cmp.Or(strings.Compare(a.Tenant, b.Tenant), strings.Compare(a.User, b.User))
	})
	erasing := map[memory.Scope]bool{}
	for _, sc := range scopes {
		var refused *ports.ErasingError
		switch err := s.db.guardWrite(ctx, tx, sc); {
		case errors.As(err, &refused):
			erasing[sc] = true
		case err != nil:
			return nil, err
		}
	}
	if len(erasing) == 0 {
		return rows, nil
	}
	kept := rows[:0:0]
	for _, r := range rows {
		if !erasing[memory.Scope{Tenant: r.TenantID, User: r.UserID}] {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// Trace returns one trace of the tenant.
func (s *TraceStore) Trace(ctx context.Context, tenant, id string) (promptctx.Trace, error) {
	var row traceRow
	err := s.db.bun.NewSelect().Model(&row).Where("ct.id = ?", id).Where("ct.tenant_id = ?", tenant).Scan(ctx)
	if err != nil {
		return promptctx.Trace{}, wrapErr("get trace", err)
	}
	return row.toTrace()
}

// LatestTrace returns the user's trace with the greatest id.
func (s *TraceStore) LatestTrace(ctx context.Context, scope memory.Scope) (promptctx.Trace, error) {
	var row traceRow
	err := s.db.bun.NewSelect().Model(&row).
		Where("ct.tenant_id = ?", scope.Tenant).Where("ct.user_id = ?", scope.User).
		OrderExpr("ct.id DESC").Limit(1).Scan(ctx)
	if err != nil {
		return promptctx.Trace{}, wrapErr("latest trace", err)
	}
	return row.toTrace()
}

// ListTraces returns a page of the user's traces, greatest id first.
func (s *TraceStore) ListTraces(ctx context.Context, scope memory.Scope, before string, limit int) ([]promptctx.Trace, error) {
	var rows []traceRow
	q := s.db.bun.NewSelect().Model(&rows).
		Where("ct.tenant_id = ?", scope.Tenant).Where("ct.user_id = ?", scope.User).
		OrderExpr("ct.id DESC").Limit(int64(max(limit, 0)))
	if before != "" {
		q = q.Where("ct.id < ?", before)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, wrapErr("list traces", err)
	}
	out := make([]promptctx.Trace, 0, len(rows))
	for i := range rows {
		t, err := rows[i].toTrace()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// DeleteTracesBefore removes up to limit traces made before cutoff, oldest first.
func (s *TraceStore) DeleteTracesBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	var n int64
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		old := tx.NewSelect().TableExpr("context_traces").Column("id").
			Where("at < ?", dbTime(cutoff)).OrderExpr("at").Limit(int64(max(limit, 0)))
		res, err := tx.NewDelete().TableExpr("context_traces").Where("id IN (?)", old).Exec(ctx)
		if err != nil {
			return wrapErr("sweep traces", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}

// PurgeUser removes the user's traces.
func (s *TraceStore) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	return purgeScope(ctx, s.db, scope, map[string]string{ports.PurgedTraces: "context_traces"})
}

type traceRow struct {
	bun.BaseModel `bun:"table:context_traces,alias:ct"`

	ID       string    `bun:"id,pk"`
	TenantID string    `bun:"tenant_id"`
	UserID   string    `bun:"user_id"`
	At       time.Time `bun:"at"`
	Body     string    `bun:"body"`
}

// traceJSON is the body of a trace row.
type traceJSON struct {
	Query          string           `json:"query"`
	QueryChars     int              `json:"query_chars,omitempty"`
	QueryTruncated bool             `json:"query_truncated,omitempty"`
	StandingOver   int              `json:"standing_over_share,omitempty"`
	SessionID      string           `json:"session_id,omitempty"`
	FlowID         string           `json:"flow_id,omitempty"`
	ModeUsed       string           `json:"mode_used,omitempty"`
	FallbackReason string           `json:"fallback_reason,omitempty"`
	Budget         int              `json:"budget"`
	InjectedChars  int              `json:"injected_chars"`
	SourceCount    map[string]int   `json:"source_count,omitempty"`
	Items          []traceItemJSON  `json:"items,omitempty"`
	RawHits        []rawHitJSON     `json:"raw_hits,omitempty"`
	Omitted        map[string]int   `json:"omitted,omitempty"`
	TimingsNS      map[string]int64 `json:"timings_ns,omitempty"`
}

type traceItemJSON struct {
	ID        string  `json:"id"`
	Kind      string  `json:"kind"`
	Section   string  `json:"section"`
	Source    string  `json:"source"`
	Score     float64 `json:"score"`
	Snippet   string  `json:"snippet"`
	Truncated bool    `json:"truncated,omitempty"`
	Purged    bool    `json:"purged,omitempty"`
}

type rawHitJSON struct {
	ID      string  `json:"id"`
	Kind    string  `json:"kind"`
	Section string  `json:"section"`
	Source  string  `json:"source"`
	Score   float64 `json:"score"`
	Kept    bool    `json:"kept,omitempty"`
	Reason  string  `json:"reason,omitempty"`
	Purged  bool    `json:"purged,omitempty"`
}

func toTraceRow(t promptctx.Trace) (traceRow, error) {
	body := traceJSON{
		Query: t.Query, SessionID: t.SessionID, FlowID: t.FlowID, ModeUsed: t.ModeUsed, FallbackReason: t.FallbackReason,
		Budget: t.Budget, InjectedChars: t.InjectedChars, Omitted: t.Omitted,
		QueryChars: t.QueryChars, QueryTruncated: t.QueryTruncated, StandingOver: t.StandingOverShare,
	}
	if t.SourceCount != nil {
		body.SourceCount = make(map[string]int, len(t.SourceCount))
		for s, n := range t.SourceCount {
			body.SourceCount[string(s)] = n
		}
	}
	if t.Timings != nil {
		body.TimingsNS = make(map[string]int64, len(t.Timings))
		for stage, d := range t.Timings {
			body.TimingsNS[stage] = int64(d)
		}
	}
	for _, it := range t.Items {
		body.Items = append(body.Items, traceItemJSON{ID: it.ID, Kind: it.Kind, Section: string(it.Section), Source: it.Source,
			Score: it.Score, Snippet: it.Snippet, Truncated: it.Truncated, Purged: it.Purged})
	}
	for _, h := range t.RawHits {
		body.RawHits = append(body.RawHits, rawHitJSON{ID: h.ID, Kind: h.Kind, Section: string(h.Section), Source: h.Source,
			Score: h.Score, Kept: h.Kept, Reason: h.Reason, Purged: h.Purged})
	}
	b, err := json.Marshal(body)
	if err != nil {
		return traceRow{}, fmt.Errorf("sqlstore: trace %s: %w", t.ID, err)
	}
	return traceRow{ID: t.ID, TenantID: t.Scope.Tenant, UserID: t.Scope.User, At: dbTime(t.At), Body: string(b)}, nil
}

func (r *traceRow) toTrace() (promptctx.Trace, error) {
	var body traceJSON
	if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
		return promptctx.Trace{}, fmt.Errorf("sqlstore: trace %s: %w", r.ID, err)
	}
	t := promptctx.Trace{
		ID: r.ID, Scope: memory.Scope{Tenant: r.TenantID, User: r.UserID}, At: dbTime(r.At),
		Query: body.Query, SessionID: body.SessionID, FlowID: body.FlowID, ModeUsed: body.ModeUsed, FallbackReason: body.FallbackReason,
		Budget: body.Budget, InjectedChars: body.InjectedChars, Omitted: body.Omitted,
		QueryChars: body.QueryChars, QueryTruncated: body.QueryTruncated, StandingOverShare: body.StandingOver,
	}
	if body.SourceCount != nil {
		t.SourceCount = make(map[promptctx.Section]int, len(body.SourceCount))
		for s, n := range body.SourceCount {
			t.SourceCount[promptctx.Section(s)] = n
		}
	}
	if body.TimingsNS != nil {
		t.Timings = make(map[string]time.Duration, len(body.TimingsNS))
		for stage, ns := range body.TimingsNS {
			t.Timings[stage] = time.Duration(ns)
		}
	}
	for _, it := range body.Items {
		t.Items = append(t.Items, promptctx.TraceItem{ID: it.ID, Kind: it.Kind, Section: promptctx.Section(it.Section), Source: it.Source,
			Score: it.Score, Snippet: it.Snippet, Truncated: it.Truncated, Purged: it.Purged})
	}
	for _, h := range body.RawHits {
		t.RawHits = append(t.RawHits, promptctx.RawHit{ID: h.ID, Kind: h.Kind, Section: promptctx.Section(h.Section), Source: h.Source,
			Score: h.Score, Kept: h.Kept, Reason: h.Reason, Purged: h.Purged})
	}
	return t, nil
}
