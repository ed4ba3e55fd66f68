package httpapi

import (
	"time"

	"engram/domain/org"
	"engram/domain/profile"
)

// Profile is a user profile as clients see it: the stored profile fields,
// the identity slots, where each declared value came from, and the prompt block.
type Profile struct {
	UserID              string                 `json:"user_id"`
	DisplayName         string                 `json:"display_name"`
	Department          string                 `json:"department"`
	Position            string                 `json:"position"`
	RoleTags            []string               `json:"role_tags"`
	TotalConversations  int                    `json:"total_conversations"`
	TotalWorkflowsUsed  int                    `json:"total_workflows_used"`
	FavoriteWorkflows   []FavoriteWorkflow     `json:"favorite_workflows"`
	PreferredWorkHours  []string               `json:"preferred_work_hours" doc:"Hour ranges in the user's time_zone, e.g. 09:00-12:00."`
	WorkStyleTags       []string               `json:"work_style_tags" doc:"Declared tags, then the ones derived from behaviour (in the profile's language)."`
	CommonTopics        []TopicCount           `json:"common_topics"`
	ExpertiseAreas      []string               `json:"expertise_areas"`
	TotalTasksAssigned  int                    `json:"total_tasks_assigned"`
	TotalTasksCreated   int                    `json:"total_tasks_created"`
	TotalTasksCompleted int                    `json:"total_tasks_completed"`
	AvgTaskCompletionH  float64                `json:"avg_task_completion_h"`
	TaskCompletionRate  float64                `json:"task_completion_rate" minimum:"0" maximum:"1"`
	PreferredModel      string                 `json:"preferred_model"`
	Language            string                 `json:"language" doc:"The effective language: the declared one, else zh."`
	Tone                string                 `json:"tone"`
	TimeZone            string                 `json:"time_zone"`
	Nickname            string                 `json:"nickname"`
	PreferredName       string                 `json:"preferred_name"`
	AIName              string                 `json:"ai_name"`
	Emoji               string                 `json:"emoji"`
	Sources             map[string]FieldSource `json:"sources" doc:"Where each declared value came from: api (PATCH), org (PUT /v1/org/users), extraction (said in a conversation)."`
	ProfileVersion      int64                  `json:"profile_version" doc:"0 while nothing is stored yet (the profile is built from the org entry)."`
	CreatedAt           time.Time              `json:"created_at"`
	LastUpdatedAt       time.Time              `json:"last_updated_at"`
	LastConversationAt  *time.Time             `json:"last_conversation_at" nullable:"true"`
	DerivedAt           *time.Time             `json:"derived_at" nullable:"true" doc:"When the worker last changed the derived fields."`
	Prompt              string                 `json:"prompt" doc:"The 用户画像 block injected into prompts (English when the context language is en)."`
	ReadAs              string                 `json:"read_as" enum:"self,manager" doc:"How X-Acting-User stands to the user."`
}

// FavoriteWorkflow is one of the user's most used workflows.
type FavoriteWorkflow struct {
	FlowID   string `json:"flow_id"`
	FlowName string `json:"flow_name,omitempty"`
	Count    int    `json:"count"`
}

// TopicCount is a common topic and in how many messages and memories it came up.
type TopicCount struct {
	Topic string `json:"topic"`
	Count int    `json:"count"`
}

// FieldSource says where a declared value came from.
type FieldSource struct {
	Channel        string    `json:"channel" enum:"api,org,extraction"`
	ConversationID string    `json:"conversation_id,omitempty"`
	MessageID      string    `json:"message_id,omitempty"`
	At             time.Time `json:"at"`
}

func fromProfile(p profile.Profile, access org.Access) Profile {
	st := p.State()
	d, v := st.Declared, st.Derived
	out := Profile{
		UserID: st.Scope.User, DisplayName: d.DisplayName, Department: d.Department, Position: d.Position,
		RoleTags: orEmptyList(d.RoleTags), TotalConversations: v.Conversations, TotalWorkflowsUsed: v.WorkflowsUsed,
		FavoriteWorkflows: []FavoriteWorkflow{}, PreferredWorkHours: []string{}, WorkStyleTags: orEmptyList(profile.WorkStyleTags(st)),
		CommonTopics: []TopicCount{}, ExpertiseAreas: orEmptyList(v.Expertise),
		TotalTasksAssigned: v.Tasks.Assigned, TotalTasksCreated: v.Tasks.Created, TotalTasksCompleted: v.Tasks.Completed,
		AvgTaskCompletionH: v.Tasks.AvgCompletionHours, TaskCompletionRate: v.Tasks.CompletionRate,
		PreferredModel: d.PreferredModel, Language: p.Language(), Tone: d.Tone, TimeZone: d.TimeZone,
		Nickname: d.Nickname, PreferredName: d.PreferredName, AIName: d.AIName, Emoji: d.Emoji,
		Sources: map[string]FieldSource{}, ProfileVersion: st.Version, CreatedAt: st.CreatedAt.UTC(), LastUpdatedAt: st.UpdatedAt.UTC(),
		LastConversationAt: timePtr(v.LastConversationAt), DerivedAt: timePtr(st.DerivedAt), Prompt: profile.Format(st),
		ReadAs: "self",
	}
	if access.Relation == org.RelationManager {
		out.ReadAs = "manager"
	}
	for _, w := range v.FavouriteWorkflows {
		out.FavoriteWorkflows = append(out.FavoriteWorkflows, FavoriteWorkflow{FlowID: w.FlowID, FlowName: w.FlowName, Count: w.Count})
	}
	for _, h := range v.WorkHours {
		out.PreferredWorkHours = append(out.PreferredWorkHours, h.String())
	}
	for _, t := range v.Topics {
		out.CommonTopics = append(out.CommonTopics, TopicCount{Topic: t.Topic, Count: t.Count})
	}
	for f, src := range st.Sources {
		out.Sources[string(f)] = FieldSource{Channel: string(src.Channel), ConversationID: src.ConversationID, MessageID: src.MessageID, At: src.At.UTC()}
	}
	return out
}

func orEmptyList(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// Report is an evaluation report with the facts it rests on and every fact it was
// given.
type Report struct {
	ReportID       string       `json:"report_id"`
	UserID         string       `json:"user_id"`
	Actor          string       `json:"actor" doc:"The manager who asked for it."`
	Report         string       `json:"report"`
	FactsUsed      []ReportFact `json:"facts_used" doc:"The facts the report rests on."`
	Facts          []ReportFact `json:"facts" doc:"Every fact the writer was given: what the report was based on."`
	Generator      string       `json:"generator" enum:"llm,rules"`
	Model          string       `json:"model,omitempty"`
	FallbackReason string       `json:"fallback_reason,omitempty" enum:"llm_timeout,llm_bad_output,llm_unavailable" doc:"Why rules wrote it although a model is configured."`
	Language       string       `json:"language"`
	GeneratedAt    time.Time    `json:"generated_at"`
}

// ReportFact is one input of a report.
type ReportFact struct {
	ID     string `json:"id"`
	Source string `json:"source" enum:"profile,task_stats,workflows,memory"`
	Key    string `json:"key,omitempty" doc:"The memory key or profile field."`
	Text   string `json:"text"`
}

func fromReport(r profile.Report) Report {
	conv := func(fs []profile.Fact) []ReportFact {
		out := make([]ReportFact, 0, len(fs))
		for _, f := range fs {
			out = append(out, ReportFact{ID: f.ID, Source: string(f.Source), Key: f.Key, Text: f.Text})
		}
		return out
	}
	return Report{
		ReportID: r.ID, UserID: r.Scope.User, Actor: r.Actor, Report: r.Text, FactsUsed: conv(r.UsedFacts()), Facts: conv(r.Facts),
		Generator: string(r.Generator), Model: r.Model, FallbackReason: r.FallbackReason, Language: r.Language, GeneratedAt: r.GeneratedAt.UTC(),
	}
}

// OrgMember is a user's place in the organisation.
type OrgMember struct {
	UserID      string    `json:"user_id"`
	DisplayName string    `json:"display_name"`
	Department  string    `json:"department"`
	Position    string    `json:"position"`
	ManagerID   string    `json:"manager_id,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func fromMember(m org.Member) OrgMember {
	return OrgMember{UserID: m.UserID, DisplayName: m.DisplayName, Department: m.Department, Position: m.Position,
		ManagerID: m.ManagerID, CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
}

// strengthName names a match strength for clients.
func strengthName(s org.Strength) string {
	switch s {
	case org.StrengthName:
		return "name"
	case org.StrengthAlias:
		return "alias"
	default:
		return "phonetic"
	}
}
