package sqlstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/domain/org"
	"engram/ports"
)

// OrgStore keeps the organisation graph in org_members and name keys in
// org_name_keys.
type OrgStore struct {
	db *DB
}

var _ ports.OrgStore = (*OrgStore)(nil)

// NewOrgStore serves ports.OrgStore from db.
func NewOrgStore(db *DB) *OrgStore { return &OrgStore{db: db} }

// PutMember checks for an open erasure of the user (guardWrite) and for a cycle,
// and writes the member and its keys in one transaction. On PostgreSQL the
// transaction then takes a lock for the tenant's graph (an advisory lock, released at commit), so two writes that would together
// close a cycle run one after the other and the second sees the first; on SQLite
// the single writer does the same.
func (s *OrgStore) PutMember(ctx context.Context, tenant string, m org.Member, keys []org.NameKey) (org.Member, bool, error) {
	row := toMemberRow(tenant, m)
	var (
		out     org.Member
		created bool
	)
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.db.guardWrite(ctx, tx, memory.Scope{Tenant: tenant, User: m.UserID}); err != nil {
			return err
		}
		if s.db.dialect == DialectPostgres {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext(?))", "engram.org:"+tenant); err != nil {
				return wrapErr("lock org graph", err)
			}
		}
		chain, err := managerChain(ctx, tx, tenant, m.ManagerID)
		if err != nil {
			return err
		}
		if m.ManagerID != "" {
			chain = chain[1:] // managerChain starts at the manager itself
		}
		if err := org.CheckManager(m.UserID, m.ManagerID, chain); err != nil {
			return err
		}
		var existing []memberRow
		if err := tx.NewSelect().Model(&existing).Where("om.tenant_id = ?", tenant).Where("om.user_id = ?", m.UserID).Scan(ctx); err != nil {
			return wrapErr("get member", err)
		}
		if len(existing) > 0 {
			row.CreatedAt = existing[0].CreatedAt
			if _, err := tx.NewUpdate().Model(&row).WherePK().Exec(ctx); err != nil {
				return wrapErr("update member", err)
			}
		} else {
			if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
				return wrapErr("insert member", err)
			}
			created = true
		}
		if err := setNameKeys(ctx, tx, memory.Scope{Tenant: tenant, User: m.UserID}, ports.NameSourceOrg, keys); err != nil {
			return err
		}
		out = row.toMember()
		return nil
	})
	return out, created, err
}

// managerChain returns start and the managers above it, start first, cut at
// org.MaxChainDepth; empty for "". The recursion stops at a user seen before, so
// even a loop in stored data ends.
func managerChain(ctx context.Context, db bun.IDB, tenant, start string) ([]string, error) {
	if start == "" {
		return nil, nil
	}
	var rows []struct {
		UserID string `bun:"user_id"`
		Depth  int    `bun:"depth"`
	}
	err := db.NewRaw(`
		WITH RECURSIVE chain(user_id, depth) AS (
			SELECT CAST(?1 AS VARCHAR(128)), 0
			UNION ALL
			SELECT m.manager_id, c.depth + 1
			FROM chain AS c JOIN org_members AS m ON m.tenant_id = ?0 AND m.user_id = c.user_id
			WHERE m.manager_id IS NOT NULL AND c.depth < ?2
		)
		SELECT user_id, depth FROM chain ORDER BY depth`, tenant, start, org.MaxChainDepth).Scan(ctx, &rows)
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("follow manager chain", err)
	}
	out := make([]string, 0, len(rows))
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.UserID] {
			break
		}
		seen[r.UserID] = true
		out = append(out, r.UserID)
	}
	return out, nil
}

// Member returns one member.
func (s *OrgStore) Member(ctx context.Context, tenant, user string) (org.Member, error) {
	var row memberRow
	if err := s.db.bun.NewSelect().Model(&row).Where("om.tenant_id = ?", tenant).Where("om.user_id = ?", user).Scan(ctx); err != nil {
		return org.Member{}, wrapErr("get member", err)
	}
	return row.toMember(), nil
}

// MembersOf returns the org entries of these users.
func (s *OrgStore) MembersOf(ctx context.Context, tenant string, users []string) (map[string]org.Member, error) {
	out := map[string]org.Member{}
	if len(users) == 0 {
		return out, nil
	}
	var rows []memberRow
	if err := s.db.bun.NewSelect().Model(&rows).Where("om.tenant_id = ?", tenant).Where("om.user_id IN (?)", bun.List(users)).Scan(ctx); err != nil {
		return nil, wrapErr("get members", err)
	}
	for i := range rows {
		out[rows[i].UserID] = rows[i].toMember()
	}
	return out, nil
}

// ListMembers pages through the tenant's members by user id.
func (s *OrgStore) ListMembers(ctx context.Context, tenant, afterUser string, limit int) ([]org.Member, error) {
	var rows []memberRow
	err := s.db.bun.NewSelect().Model(&rows).
		Where("om.tenant_id = ?", tenant).Where("om.user_id > ?", afterUser).
		OrderExpr("om.user_id ASC").Limit(int64(max(limit, 0))).Scan(ctx)
	if err != nil {
		return nil, wrapErr("list members", err)
	}
	out := make([]org.Member, len(rows))
	for i := range rows {
		out[i] = rows[i].toMember()
	}
	return out, nil
}

// ManagerChain returns the managers above user, direct first.
func (s *OrgStore) ManagerChain(ctx context.Context, tenant, user string) ([]string, error) {
	chain, err := managerChain(ctx, s.db.bun, tenant, user)
	if err != nil || len(chain) == 0 {
		return nil, err
	}
	return chain[1:], nil
}

// SetNameKeys replaces the user's keys of one source.
func (s *OrgStore) SetNameKeys(ctx context.Context, scope memory.Scope, source string, keys []org.NameKey) error {
	return s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		return setNameKeys(ctx, tx, scope, source, keys)
	})
}

func setNameKeys(ctx context.Context, tx bun.Tx, scope memory.Scope, source string, keys []org.NameKey) error {
	_, err := tx.NewDelete().TableExpr("org_name_keys").
		Where("tenant_id = ?", scope.Tenant).Where("user_id = ?", scope.User).Where("source = ?", source).Exec(ctx)
	if err != nil {
		return wrapErr("delete name keys", err)
	}
	if len(keys) == 0 {
		return nil
	}
	rows := make([]nameKeyRow, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if k.Key == "" || seen[k.Key] {
			continue
		}
		seen[k.Key] = true
		rows = append(rows, nameKeyRow{TenantID: scope.Tenant, UserID: scope.User, Source: source, NameKey: k.Key, Strength: int(k.Strength)})
	}
	_, err = tx.NewInsert().Model(&rows).Exec(ctx)
	return wrapErr("insert name keys", err)
}

// FindByNameKeys returns each user's matching keys at their strongest, strongest
// first, for the limit users with the strongest keys.
func (s *OrgStore) FindByNameKeys(ctx context.Context, tenant string, keys []string, limit int) ([]org.KeyHit, error) {
	if len(keys) == 0 || limit <= 0 {
		return nil, nil
	}
	// No GROUP BY: grouped, SQLite walks the primary key (tenant, user, …) of the
	// whole tenant to save a sort; plain, it looks the keys up by their index. A
	// name's keys are few, so TopHits ranks them here.
	var rows []struct {
		UserID   string `bun:"user_id"`
		NameKey  string `bun:"name_key"`
		Strength int    `bun:"strength"`
	}
	err := s.db.bun.NewRaw(`SELECT k.user_id, k.name_key, k.strength FROM org_name_keys AS k
		WHERE k.tenant_id = ? AND k.name_key IN (?)`, tenant, bun.List(keys)).Scan(ctx, &rows)
	if err != nil && classify(err) != classNotFound {
		return nil, wrapErr("find name keys", err)
	}
	hits := make([]org.KeyHit, 0, len(rows))
	for _, r := range rows {
		hits = append(hits, org.KeyHit{UserID: r.UserID, Key: r.NameKey, Strength: org.Strength(r.Strength)})
	}
	return org.TopHits(hits, limit), nil
}

// PurgeUser removes the user's org entry and name keys and detaches their reports.
func (s *OrgStore) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	counts := map[string]int64{}
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := purgeScopeTx(ctx, tx, scope, map[string]string{"org_members": "org_members", "org_name_keys": "org_name_keys"}, counts); err != nil {
			return err
		}
		res, err := tx.NewUpdate().TableExpr("org_members").Set("manager_id = NULL").
			Where("tenant_id = ?", scope.Tenant).Where("manager_id = ?", scope.User).Exec(ctx)
		if err != nil {
			return wrapErr("detach reports", err)
		}
		counts["org_reports_detached"], _ = res.RowsAffected()
		return nil
	})
	return counts, err
}

type memberRow struct {
	bun.BaseModel `bun:"table:org_members,alias:om"`

	TenantID    string    `bun:"tenant_id,pk"`
	UserID      string    `bun:"user_id,pk"`
	DisplayName string    `bun:"display_name"`
	Department  string    `bun:"department,nullzero"`
	Position    string    `bun:"position,nullzero"`
	ManagerID   string    `bun:"manager_id,nullzero"`
	CreatedAt   time.Time `bun:"created_at"`
	UpdatedAt   time.Time `bun:"updated_at"`
}

func toMemberRow(tenant string, m org.Member) memberRow {
	return memberRow{TenantID: tenant, UserID: m.UserID, DisplayName: m.DisplayName, Department: m.Department,
		Position: m.Position, ManagerID: m.ManagerID, CreatedAt: dbTime(m.CreatedAt), UpdatedAt: dbTime(m.UpdatedAt)}
}

func (r *memberRow) toMember() org.Member {
	return org.Member{UserID: r.UserID, DisplayName: r.DisplayName, Department: r.Department, Position: r.Position,
		ManagerID: r.ManagerID, CreatedAt: dbTime(r.CreatedAt), UpdatedAt: dbTime(r.UpdatedAt)}
}

type nameKeyRow struct {
	bun.BaseModel `bun:"table:org_name_keys,alias:nk"`

	TenantID string `bun:"tenant_id,pk"`
	UserID   string `bun:"user_id,pk"`
	Source   string `bun:"source,pk"`
	NameKey  string `bun:"name_key,pk"`
	Strength int    `bun:"strength"`
}
