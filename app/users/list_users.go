package users

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"

	"engram/domain/invalid"
	"engram/domain/memory"
)

// ListUsers is GET /v1/users.
type ListUsers struct {
	Tenant string
	Limit  int    // 0: DefaultLimit
	Cursor string // next_cursor of the previous page
	// Only keeps the listing to this user (what a key that reaches one user may
	// see): a page of that user when anything of them is stored, else none.
	Only string
}

// UserSummary is one user of the tenant: what each kind of store holds of them
// (every registered kind, 0 when none) and when the latest of it changed.
type UserSummary struct {
	User         string
	Counts       map[string]int64
	LastActiveAt time.Time
}

// UserPage is one page of users in id order; NextCursor is empty on the last.
type UserPage struct {
	Items      []UserSummary
	NextCursor string
}

// ListUsers pages through the tenant's users that have anything stored. A page may
// hold fewer items than the limit when some of its users are being erased.
func (s *Service) ListUsers(ctx context.Context, q ListUsers) (UserPage, error) {
	limit, err := pageLimit(q.Limit)
	after, cerr := decodeUserCursor(q.Cursor)
	if err := invalid.Join(err, cerr); err != nil {
		return UserPage{}, err
	}
	page, more, err := s.pageOfUsers(ctx, q, after, limit)
	if err != nil {
		return UserPage{}, err
	}
	if len(page) == 0 {
		return UserPage{}, nil
	}
	summaries, err := s.summaries(ctx, q.Tenant, page)
	if err != nil {
		return UserPage{}, err
	}
	// Asked after the reads, so a read that began before an erasure was requested
	// cannot return after it.
	erasing, err := s.erasing.ErasingUsers(ctx, q.Tenant, page)
	if err != nil {
		return UserPage{}, fmt.Errorf("users being erased: %w", err)
	}
	out := UserPage{Items: shownUsers(page, summaries, erasing, q.Only != "")}
	if more {
		out.NextCursor = encodeUserCursor(page[len(page)-1])
	}
	return out, nil
}

// summaries sums what every kind of store holds of each user of the page, and
// when it last changed; every registered kind is counted, 0 when none.
func (s *Service) summaries(ctx context.Context, tenant string, page []string) (map[string]*UserSummary, error) {
	summaries := make(map[string]*UserSummary, len(page))
	for _, u := range page {
		summaries[u] = &UserSummary{User: u, Counts: map[string]int64{KindMemories: 0, KindMessages: 0, KindSessions: 0}}
	}
	for _, src := range s.sources {
		act, err := src.Activity.Activity(ctx, tenant, page)
		if err != nil {
			return nil, fmt.Errorf("activity of %s: %w", src.Kind, err)
		}
		for u, a := range act {
			if sum := summaries[u]; sum != nil {
				sum.add(src.Kind, a.Count, a.LastActiveAt)
			}
		}
	}
	return summaries, nil
}

func (u *UserSummary) add(kind string, count int64, lastActive time.Time) {
	u.Counts[kind] += count
	if lastActive.After(u.LastActiveAt) {
		u.LastActiveAt = lastActive
	}
}

// shownUsers is the page as the caller sees it, in order: without the users being
// erased, and, for a listing kept to one user, without that user when nothing of
// them is stored (the page was made from the name, not from the stores).
func shownUsers(page []string, summaries map[string]*UserSummary, erasing map[string]string, only bool) []UserSummary {
	out := make([]UserSummary, 0, len(page))
	for _, u := range page {
		if only && !summaries[u].holdsAnything() || erasing[u] != "" {
			continue
		}
		out = append(out, *summaries[u])
	}
	return out
}

// holdsAnything reports whether any store holds something of the user.
func (u *UserSummary) holdsAnything() bool {
	for _, n := range u.Counts {
		if n > 0 {
			return true
		}
	}
	return !u.LastActiveAt.IsZero()
}

// pageOfUsers is the users of the page after the cursor: the one user of Only
// (on the first page), or the next page of every store's users.
func (s *Service) pageOfUsers(ctx context.Context, q ListUsers, after string, limit int) ([]string, bool, error) {
	if q.Only != "" {
		if after != "" {
			return nil, false, nil
		}
		return []string{q.Only}, false, nil
	}
	lists := make([][]string, len(s.sources))
	for i, src := range s.sources {
		users, err := src.Activity.UsersAfter(ctx, q.Tenant, after, limit+1)
		if err != nil {
			return nil, false, fmt.Errorf("users with %s: %w", src.Kind, err)
		}
		lists[i] = users
	}
	page, more := mergeUsers(lists, limit)
	return page, more, nil
}

// mergeUsers is the next page of a listing over several stores, each of which
// returned its first limit+1 users after the cursor: their union in order, cut at
// limit, and whether more follow. The first limit+1 users overall are in that
// union, since each is among the first limit+1 of its own store.
func mergeUsers(lists [][]string, limit int) ([]string, bool) {
	var all []string
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) > limit {
		return all[:limit], true
	}
	return all, false
}

func pageLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultLimit, nil
	case limit < 1 || limit > MaxLimit:
		return 0, invalid.FieldValue("limit", limit, "must be between 1 and %d", MaxLimit)
	}
	return limit, nil
}

// The user cursor is the last user id of the page, opaque so its form can change.
func encodeUserCursor(user string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("u:" + user))
}

func decodeUserCursor(c string) (string, error) {
	if c == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	user, ok := strings.CutPrefix(string(raw), "u:")
	if err != nil || !ok || memory.ValidateUserID("cursor", user) != nil {
		return "", invalid.Field("cursor", "is not a cursor this server issued; pass next_cursor from the previous page unchanged")
	}
	return user, nil
}
