package memories

import (
	"context"
	"encoding/base64"
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// Page sizes of memory_list.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// List is memory_list.
type List struct {
	Scope           memory.Scope
	Types           []string
	IncludeInactive bool
	Contains        string
	Limit           int    // 0: DefaultListLimit
	Cursor          string // opaque, from the previous page
}

// ListResult is one page; NextCursor is empty on the last.
type ListResult struct {
	Items      []memory.Memory
	NextCursor string
}

// List pages through the user's memories in key order.
func (s *Service) List(ctx context.Context, q List) (ListResult, error) {
	query := ports.MemoryQuery{IncludeInactive: q.IncludeInactive, Contains: strings.TrimSpace(q.Contains), Limit: q.Limit, Now: s.clock.Now()}
	var errs []error
	for _, t := range q.Types {
		for _, part := range strings.Split(t, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			typ, err := memory.ParseType(part)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			query.Types = append(query.Types, typ)
		}
	}
	if query.Limit == 0 {
		query.Limit = DefaultListLimit
	}
	if query.Limit < 1 || query.Limit > MaxListLimit {
		errs = append(errs, invalid.FieldValue("limit", q.Limit, "must be between 1 and %d", MaxListLimit))
	}
	if q.Cursor != "" {
		after, err := decodeCursor(q.Cursor)
		errs = append(errs, err)
		query.AfterKey = after
	}
	if err := invalid.Join(errs...); err != nil {
		return ListResult{}, err
	}
	page, err := s.store.List(ctx, q.Scope, query)
	if err != nil {
		return ListResult{}, err
	}
	res := ListResult{Items: page.Items}
	if !page.NextKey.IsZero() {
		res.NextCursor = encodeCursor(page.NextKey)
	}
	return res, nil
}

// The cursor is the last key of the page, opaque so that its form can change.
func encodeCursor(k memory.Key) string {
	return base64.RawURLEncoding.EncodeToString([]byte("k:" + k.String()))
}

func decodeCursor(c string) (memory.Key, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(raw), "k:") {
		return memory.Key{}, invalidCursor()
	}
	// A cursor is compared with stored keys, never stored: any key this server could
	// have issued is accepted, including one written by an older key rule.
	last := strings.TrimPrefix(string(raw), "k:")
	if last == "" || !utf8.ValidString(last) || strings.ContainsFunc(last, unicode.IsControl) {
		return memory.Key{}, invalidCursor()
	}
	return memory.RestoreKey(last), nil
}

func invalidCursor() error {
	return invalid.Field("cursor", "is not a cursor this server issued; pass next_cursor from the previous page unchanged")
}
