package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"engram/domain/memory"
	"engram/domain/profile"
	"engram/ports"
)

// ProfileStore keeps user profiles in user_profiles and their pending refreshes in
// profile_refreshes.
type ProfileStore struct {
	db *DB
}

var (
	_ ports.ProfileStore        = (*ProfileStore)(nil)
	_ ports.ProfileRefreshQueue = (*ProfileStore)(nil)
)

// NewProfileStore serves ports.ProfileStore and ports.ProfileRefreshQueue from db.
func NewProfileStore(db *DB) *ProfileStore { return &ProfileStore{db: db} }

// Profile returns the user's profile.
func (s *ProfileStore) Profile(ctx context.Context, scope memory.Scope) (profile.Profile, error) {
	var row profileRow
	err := s.db.bun.NewSelect().Model(&row).
		Where("up.tenant_id = ?", scope.Tenant).
		Where("up.user_id = ?", scope.User).
		Scan(ctx)
	if err != nil {
		return profile.Profile{}, wrapErr("get profile", err)
	}
	return row.toProfile()
}

// ProfilesOf returns the stored profiles of these users.
func (s *ProfileStore) ProfilesOf(ctx context.Context, tenant string, users []string) (map[string]profile.Profile, error) {
	out := map[string]profile.Profile{}
	if len(users) == 0 {
		return out, nil
	}
	var rows []profileRow
	err := s.db.bun.NewSelect().Model(&rows).
		Where("up.tenant_id = ?", tenant).
		Where("up.user_id IN (?)", bun.List(users)).
		Scan(ctx)
	if err != nil {
		return nil, wrapErr("get profiles", err)
	}
	for i := range rows {
		p, err := rows[i].toProfile()
		if err != nil {
			return nil, err
		}
		out[rows[i].UserID] = p
	}
	return out, nil
}

// UpdateProfile reads the profile (locked on PostgreSQL), lets fn decide and
// writes the result only over the version it read. A user being erased is
// refused (*ports.ErasingError), in the transaction, as every write of the truth:
// a PATCH, an identity slot or a refresh cannot bring a profile back that the
// purge has removed, or is about to.
func (s *ProfileStore) UpdateProfile(ctx context.Context, scope memory.Scope,
	fn func(current *profile.Profile) (profile.Profile, error),
) (profile.Profile, error) {
	var out profile.Profile
	err := s.db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.db.guardWrite(ctx, tx, scope); err != nil {
			return err
		}
		var rows []profileRow
		q := tx.NewSelect().Model(&rows).
			Where("up.tenant_id = ?", scope.Tenant).
			Where("up.user_id = ?", scope.User)
		if s.db.dialect == DialectPostgres {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return wrapErr("get profile", err)
		}
		var cur *profile.Profile
		var stored int64
		if len(rows) > 0 {
			p, err := rows[0].toProfile()
			if err != nil {
				return err
			}
			cur, stored = &p, p.Version()
		}
		next, err := fn(cur)
		if err != nil {
			return err
		}
		if next.Scope() != scope {
			return errors.New("sqlstore: update profile: the new profile is of another user")
		}
		if next.Version() <= stored {
			return fmt.Errorf("sqlstore: update profile: version %d after %d; a stored change advances the version", next.Version(), stored)
		}
		row, err := writeProfile(ctx, tx, next, cur != nil, stored)
		if err != nil {
			return err
		}
		out, err = row.toProfile()
		return err
	})
	return out, err
}

// writeProfile inserts the profile, or updates it over the version read (another
// writer's change in between is a conflict).
func writeProfile(ctx context.Context, tx bun.Tx, p profile.Profile, exists bool, readVersion int64) (profileRow, error) {
	row, err := toProfileRow(p.State())
	if err != nil {
		return profileRow{}, err
	}
	if !exists {
		_, err := tx.NewInsert().Model(&row).Exec(ctx)
		return row, wrapErr("insert profile", err)
	}
	res, err := tx.NewUpdate().Model(&row).WherePK().Where("profile_version = ?", readVersion).Exec(ctx)
	if err != nil {
		return profileRow{}, wrapErr("update profile", err)
	}
	if n, err := res.RowsAffected(); err == nil && n != 1 {
		return profileRow{}, fmt.Errorf("sqlstore: update profile: changed meanwhile: %w", ports.ErrConflict)
	}
	return row, nil
}

// PurgeUser removes the user's profile and pending refresh.
func (s *ProfileStore) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	return purgeScope(ctx, s.db, scope, map[string]string{"profiles": "user_profiles", "profile_refreshes": "profile_refreshes"})
}

// purgeScope deletes one user's rows of each table in one transaction and says how
// many went, by the name counts gives each table.
func purgeScope(ctx context.Context, db *DB, scope memory.Scope, tables map[string]string) (map[string]int64, error) {
	counts := map[string]int64{}
	err := db.WriteTx(ctx, func(ctx context.Context, tx bun.Tx) error { return purgeScopeTx(ctx, tx, scope, tables, counts) })
	return counts, err
}

// purgeScopeTx is purgeScope inside tx, counting into counts.
func purgeScopeTx(ctx context.Context, tx bun.Tx, scope memory.Scope, tables map[string]string, counts map[string]int64) error {
	for name, table := range tables {
		res, err := tx.NewDelete().TableExpr(table).
			Where("tenant_id = ?", scope.Tenant).Where("user_id = ?", scope.User).Exec(ctx)
		if err != nil {
			return wrapErr("purge "+table, err)
		}
		counts[name], _ = res.RowsAffected()
	}
	return nil
}

// profileRow is one row of user_profiles; lists and sources are JSON.
type profileRow struct {
	bun.BaseModel `bun:"table:user_profiles,alias:up"`

	TenantID            string    `bun:"tenant_id,pk"`
	UserID              string    `bun:"user_id,pk"`
	DisplayName         string    `bun:"display_name,nullzero"`
	DepartmentName      string    `bun:"department_name,nullzero"`
	Position            string    `bun:"position,nullzero"`
	RoleTags            string    `bun:"role_tags"`
	TotalConversations  int       `bun:"total_conversations"`
	TotalWorkflowsUsed  int       `bun:"total_workflows_used"`
	FavoriteWorkflows   string    `bun:"favorite_workflows"`
	PreferredWorkHours  string    `bun:"preferred_work_hours"`
	WorkStyleTags       string    `bun:"work_style_tags"`
	DerivedWorkStyle    string    `bun:"derived_work_style"`
	CommonTopics        string    `bun:"common_topics"`
	ExpertiseAreas      string    `bun:"expertise_areas"`
	TotalTasksAssigned  int       `bun:"total_tasks_assigned"`
	TotalTasksCreated   int       `bun:"total_tasks_created"`
	TotalTasksCompleted int       `bun:"total_tasks_completed"`
	AvgTaskCompletionH  float64   `bun:"avg_task_completion_h"`
	TaskCompletionRate  float64   `bun:"task_completion_rate"`
	PreferredLLMModel   string    `bun:"preferred_llm_model,nullzero"`
	PreferredLanguage   string    `bun:"preferred_language,nullzero"`
	CommunicationTone   string    `bun:"communication_tone,nullzero"`
	TimeZone            string    `bun:"time_zone,nullzero"`
	Nickname            string    `bun:"nickname,nullzero"`
	PreferredName       string    `bun:"preferred_name,nullzero"`
	AIName              string    `bun:"ai_name,nullzero"`
	Emoji               string    `bun:"emoji,nullzero"`
	FieldSources        string    `bun:"field_sources"`
	ProfileVersion      int64     `bun:"profile_version"`
	CreatedAt           time.Time `bun:"created_at"`
	LastUpdatedAt       time.Time `bun:"last_updated_at"`
	LastConversationAt  time.Time `bun:"last_conversation_at,nullzero"`
	DerivedAt           time.Time `bun:"derived_at,nullzero"`
}

// The JSON shapes of the list columns: the profile's field names.
type (
	workflowJSON struct {
		FlowID   string `json:"flow_id"`
		FlowName string `json:"flow_name,omitempty"`
		Count    int    `json:"count"`
	}
	hourRangeJSON struct {
		From int `json:"from"`
		To   int `json:"to"`
	}
	topicJSON struct {
		Topic string `json:"topic"`
		Count int    `json:"count"`
	}
	fieldSourceJSON struct {
		Channel        string    `json:"channel"`
		ConversationID string    `json:"conversation_id,omitempty"`
		MessageID      string    `json:"message_id,omitempty"`
		At             time.Time `json:"at"`
	}
)

func toProfileRow(st profile.State) (profileRow, error) {
	d, v := st.Declared, st.Derived
	row := profileRow{
		TenantID: st.Scope.Tenant, UserID: st.Scope.User,
		DisplayName: d.DisplayName, DepartmentName: d.Department, Position: d.Position,
		TotalConversations: v.Conversations, TotalWorkflowsUsed: v.WorkflowsUsed,
		TotalTasksAssigned: v.Tasks.Assigned, TotalTasksCreated: v.Tasks.Created, TotalTasksCompleted: v.Tasks.Completed,
		AvgTaskCompletionH: v.Tasks.AvgCompletionHours, TaskCompletionRate: v.Tasks.CompletionRate,
		PreferredLLMModel: d.PreferredModel, PreferredLanguage: d.Language, CommunicationTone: d.Tone, TimeZone: d.TimeZone,
		Nickname: d.Nickname, PreferredName: d.PreferredName, AIName: d.AIName, Emoji: d.Emoji,
		ProfileVersion: st.Version, CreatedAt: dbTime(st.CreatedAt), LastUpdatedAt: dbTime(st.UpdatedAt),
		LastConversationAt: dbTime(v.LastConversationAt), DerivedAt: dbTime(st.DerivedAt),
	}
	var flows []workflowJSON
	for _, w := range v.FavouriteWorkflows {
		flows = append(flows, workflowJSON{FlowID: w.FlowID, FlowName: w.FlowName, Count: w.Count})
	}
	var hours []hourRangeJSON
	for _, h := range v.WorkHours {
		hours = append(hours, hourRangeJSON{From: h.From, To: h.To})
	}
	var topics []topicJSON
	for _, t := range v.Topics {
		topics = append(topics, topicJSON{Topic: t.Topic, Count: t.Count})
	}
	sources := map[string]fieldSourceJSON{}
	for f, src := range st.Sources {
		sources[string(f)] = fieldSourceJSON{Channel: string(src.Channel), ConversationID: src.ConversationID, MessageID: src.MessageID, At: dbTime(src.At)}
	}
	for _, c := range []struct {
		dst *string
		v   any
	}{
		{&row.RoleTags, orEmpty(d.RoleTags)}, {&row.WorkStyleTags, orEmpty(d.WorkStyleTags)},
		{&row.FavoriteWorkflows, orEmpty(flows)}, {&row.PreferredWorkHours, orEmpty(hours)},
		{&row.DerivedWorkStyle, orEmpty(v.WorkStyle)}, {&row.CommonTopics, orEmpty(topics)},
		{&row.ExpertiseAreas, orEmpty(v.Expertise)}, {&row.FieldSources, sources},
	} {
		b, err := json.Marshal(c.v)
		if err != nil {
			return profileRow{}, fmt.Errorf("sqlstore: profile: %w", err)
		}
		*c.dst = string(b)
	}
	return row, nil
}

// orEmpty makes a nil slice an empty JSON array rather than null.
func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

func (r *profileRow) toProfile() (profile.Profile, error) {
	var (
		roleTags, styleTags, expertise []string
		derivedStyle                   []profile.StyleTag
		flows                          []workflowJSON
		hours                          []hourRangeJSON
		topics                         []topicJSON
		sources                        map[string]fieldSourceJSON
	)
	for _, c := range []struct {
		name, src string
		dst       any
	}{
		{"role_tags", r.RoleTags, &roleTags}, {"work_style_tags", r.WorkStyleTags, &styleTags},
		{"favorite_workflows", r.FavoriteWorkflows, &flows}, {"preferred_work_hours", r.PreferredWorkHours, &hours},
		{"derived_work_style", r.DerivedWorkStyle, &derivedStyle}, {"common_topics", r.CommonTopics, &topics},
		{"expertise_areas", r.ExpertiseAreas, &expertise}, {"field_sources", r.FieldSources, &sources},
	} {
		if err := json.Unmarshal([]byte(c.src), c.dst); err != nil {
			return profile.Profile{}, fmt.Errorf("sqlstore: profile of %s: %s: %w", r.UserID, c.name, err)
		}
	}
	st := profile.State{
		Scope: memory.Scope{Tenant: r.TenantID, User: r.UserID},
		Declared: profile.Declared{
			DisplayName: r.DisplayName, Department: r.DepartmentName, Position: r.Position,
			RoleTags: nilIfEmpty(roleTags), WorkStyleTags: nilIfEmpty(styleTags),
			PreferredModel: r.PreferredLLMModel, Language: r.PreferredLanguage, Tone: r.CommunicationTone, TimeZone: r.TimeZone,
			Nickname: r.Nickname, PreferredName: r.PreferredName, AIName: r.AIName, Emoji: r.Emoji,
		},
		Derived: profile.Derived{
			Conversations: r.TotalConversations, WorkflowsUsed: r.TotalWorkflowsUsed,
			WorkStyle: nilIfEmpty(derivedStyle), Expertise: nilIfEmpty(expertise),
			Tasks: profile.TaskStats{Assigned: r.TotalTasksAssigned, Created: r.TotalTasksCreated, Completed: r.TotalTasksCompleted,
				AvgCompletionHours: r.AvgTaskCompletionH, CompletionRate: r.TaskCompletionRate},
			LastConversationAt: dbTime(r.LastConversationAt),
		},
		Sources:   map[profile.Field]profile.Source{},
		Version:   r.ProfileVersion,
		CreatedAt: dbTime(r.CreatedAt), UpdatedAt: dbTime(r.LastUpdatedAt), DerivedAt: dbTime(r.DerivedAt),
	}
	for _, w := range flows {
		st.Derived.FavouriteWorkflows = append(st.Derived.FavouriteWorkflows, profile.WorkflowCount{FlowID: w.FlowID, FlowName: w.FlowName, Count: w.Count})
	}
	for _, h := range hours {
		st.Derived.WorkHours = append(st.Derived.WorkHours, profile.HourRange{From: h.From, To: h.To})
	}
	for _, t := range topics {
		st.Derived.Topics = append(st.Derived.Topics, profile.TopicCount{Topic: t.Topic, Count: t.Count})
	}
	for f, src := range sources {
		st.Sources[profile.Field(f)] = profile.Source{Channel: profile.Channel(src.Channel), ConversationID: src.ConversationID,
			MessageID: src.MessageID, At: dbTime(src.At)}
	}
	return profile.Restore(st), nil
}

func nilIfEmpty[T any](xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	return xs
}
