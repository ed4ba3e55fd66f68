package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"engram/app/profiles"
	"engram/domain/org"
	"engram/domain/profile"
)

// ActingUserHeader is the required X-Acting-User of the profile and report reads.
type ActingUserHeader struct {
	ActingUser string `header:"X-Acting-User" required:"true" minLength:"1" maxLength:"128" doc:"The user on whose behalf the call is made: the user themselves or a manager above them in the organisation graph. Required: engram never guesses who is asking."`
}

type profileGetInput struct {
	UserPath
	ActingUserHeader
}

type profileOutput struct {
	Body Profile
}

// PatchField is one field of a JSON merge patch (RFC 7386): absent leaves the
// field alone, null clears it, a value replaces it.
type PatchField[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON records that the field was sent, and whether as null.
func (f *PatchField[T]) UnmarshalJSON(b []byte) error {
	f.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		f.Null = true
		return nil
	}
	return json.Unmarshal(b, &f.Value)
}

// Schema is T's schema, nullable.
func (PatchField[T]) Schema(r huma.Registry) *huma.Schema {
	var zero T
	s := *r.Schema(reflect.TypeOf(zero), false, "")
	s.Nullable = true
	return &s
}

func (f PatchField[T]) opt() profile.Opt[T] {
	if !f.Set {
		return profile.Opt[T]{}
	}
	if f.Null {
		var zero T
		return profile.Value(zero)
	}
	return profile.Value(f.Value)
}

// PatchProfileRequest is a merge patch of the declared fields.
type PatchProfileRequest struct {
	DisplayName    PatchField[string]   `json:"display_name,omitempty" maxLength:"100" doc:"The name colleagues know the user by."`
	Department     PatchField[string]   `json:"department,omitempty" maxLength:"100" doc:"The user's department."`
	Position       PatchField[string]   `json:"position,omitempty" maxLength:"100" doc:"The user's position."`
	RoleTags       PatchField[[]string] `json:"role_tags,omitempty" maxItems:"20" doc:"Replaces the list; at most 20 tags of 50 characters."`
	WorkStyleTags  PatchField[[]string] `json:"work_style_tags,omitempty" maxItems:"20" doc:"Declared tags; derived ones are added when the profile is read."`
	PreferredModel PatchField[string]   `json:"preferred_model,omitempty" maxLength:"50" doc:"The model the user prefers."`
	Language       PatchField[string]   `json:"language,omitempty" maxLength:"20" doc:"A language tag such as zh, en or en-US; the prompt block is English for any language but Chinese."`
	Tone           PatchField[string]   `json:"tone,omitempty" maxLength:"50" doc:"The tone the user wants answers in."`
	TimeZone       PatchField[string]   `json:"time_zone,omitempty" maxLength:"64" doc:"An IANA zone such as Asia/Shanghai; work hours are derived in it (default UTC)."`
	Nickname       PatchField[string]   `json:"nickname,omitempty" maxLength:"50" doc:"What the user wants to be called."`
	PreferredName  PatchField[string]   `json:"preferred_name,omitempty" maxLength:"50" doc:"The name the user prefers."`
	AIName         PatchField[string]   `json:"ai_name,omitempty" maxLength:"50" doc:"What the user calls the assistant."`
	Emoji          PatchField[string]   `json:"emoji,omitempty" maxLength:"16" doc:"The user's emoji."`
}

func (r PatchProfileRequest) toPatch() profile.Patch {
	return profile.Patch{
		DisplayName: r.DisplayName.opt(), Department: r.Department.opt(), Position: r.Position.opt(),
		RoleTags: r.RoleTags.opt(), WorkStyleTags: r.WorkStyleTags.opt(), PreferredModel: r.PreferredModel.opt(),
		Language: r.Language.opt(), Tone: r.Tone.opt(), TimeZone: r.TimeZone.opt(), Nickname: r.Nickname.opt(),
		PreferredName: r.PreferredName.opt(), AIName: r.AIName.opt(), Emoji: r.Emoji.opt(),
	}
}

type patchProfileInput struct {
	UserPath
	ActingUser string `header:"X-Acting-User" maxLength:"128" doc:"Optional. When sent, it must be the user or a manager above them."`
	Body       PatchProfileRequest
}

// ActivityRequest is one activity event of a user.
type ActivityRequest struct {
	EventID   string    `json:"event_id" minLength:"1" maxLength:"128" doc:"The client's id of the event; posting it again is idempotent."`
	Kind      string    `json:"kind" enum:"task_assigned,task_created,task_completed,workflow_used" doc:"What happened; workflow_used needs flow_id, and only task_completed carries duration_h."`
	At        time.Time `json:"at" doc:"When it happened."`
	FlowID    string    `json:"flow_id,omitempty" maxLength:"128" doc:"The workflow; required for workflow_used."`
	FlowName  string    `json:"flow_name,omitempty" maxLength:"100" doc:"The workflow's name, shown in favourite workflows."`
	DurationH *float64  `json:"duration_h,omitempty" minimum:"0" maximum:"8760" doc:"task_completed only: hours the task took."`
}

type activityInput struct {
	UserPath
	Body ActivityRequest
}

// ActivityAccepted says what became of a posted event.
type ActivityAccepted struct {
	EventID string `json:"event_id"`
	Created bool   `json:"created" doc:"False when the event_id was already stored with the same content."`
}

type activityOutput struct {
	Body ActivityAccepted
}

type reportOutput struct {
	Body Report
}

type reportsInput struct {
	UserPath
	ActingUserHeader
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Most reports in one page, newest first."`
	Cursor string `query:"cursor" maxLength:"64" doc:"next_cursor of the previous page."`
}

// ReportList is a page of a user's reports, newest first.
type ReportList struct {
	Items      []Report `json:"items"`
	NextCursor string   `json:"next_cursor,omitempty"`
}

type reportsOutput struct {
	Body ReportList
}

type reportGetInput struct {
	UserPath
	ActingUserHeader
	ReportID string `path:"report_id" minLength:"1" maxLength:"64" doc:"The report_id a report request returned."`
}

// Profiles is what the profile operations need.
type Profiles interface {
	Get(ctx context.Context, q profiles.Get) (profiles.View, error)
	Patch(ctx context.Context, cmd profiles.Patch) (profile.Profile, error)
	RecordActivity(ctx context.Context, cmd profiles.RecordActivity) (profile.Activity, bool, error)
	RequestReport(ctx context.Context, cmd profiles.RequestReport) (profile.Report, error)
	Reports(ctx context.Context, q profiles.ListReports) ([]profile.Report, string, error)
	Report(ctx context.Context, q profiles.GetReport) (profile.Report, error)
}

// RegisterProfiles adds the profile routes (README "Profiles and
// organisation"): profiles, reports and
// activity.
func RegisterProfiles(api *API, svc Profiles) {
	tags := []string{"profiles"}
	describeTag(api.Root, "profiles", "User profiles (declared and derived fields), activity events, manager-only evaluation reports and the audit of manager reads.")
	readErrors := []int{http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity}
	registerProfileReadWrite(api, svc, tags, readErrors)
	registerReports(api, svc, tags, readErrors)
	registerActivity(api, svc, tags)
}

// registerProfileReadWrite adds the profile's read and its merge patch.
func registerProfileReadWrite(api *API, svc Profiles, tags []string, readErrors []int) {
	log := api.opts.Logger
	register(api, huma.Operation{
		OperationID: "profile_get", Method: http.MethodGet, Path: "/users/{user}/profile",
		Summary: "Read a user's profile (the user, or a manager above them)", Tags: tags, Errors: readErrors,
		Description: "X-Acting-User must be the user or a manager above them at any level (403 otherwise). Every read by a " +
			"manager, and every refused read, is written to the audit log (GET /v1/audit). A user the tenant does not know " +
			"(no profile, no org entry) is 404, as is every user of another tenant.",
	}, func(ctx context.Context, in *profileGetInput) (*profileOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		v, err := svc.Get(ctx, profiles.Get{Scope: sc, Actor: in.ActingUser})
		if err != nil {
			return nil, problem(ctx, log, err, "header")
		}
		return &profileOutput{Body: fromProfile(v.Profile, v.Access)}, nil
	})

	register(api, huma.Operation{
		OperationID: "profile_patch", Method: http.MethodPatch, Path: "/users/{user}/profile",
		Summary: "Declare profile fields (JSON merge patch)", Tags: tags,
		Errors: []int{http.StatusBadRequest, http.StatusForbidden, refusedWhileErasing, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity},
		Description: "RFC 7386 semantics: a field left out stays as it is, null clears it, a value replaces it (lists " +
			"whole). Unknown fields are refused. The first PATCH creates the profile. Derived fields (topics, work hours, " +
			"task statistics…) cannot be set: the worker derives them. Display name, department and position are " +
			"overwritten by the next PUT /v1/org/users/{user}. 409 while the user is being erased, naming the erasure job.",
	}, func(ctx context.Context, in *patchProfileInput) (*profileOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		p, err := svc.Patch(ctx, profiles.Patch{Scope: sc, Actor: in.ActingUser, Patch: in.Body.toPatch()})
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		readAs := org.Access{Relation: org.RelationSelf}
		if in.ActingUser != "" && in.ActingUser != in.User {
			readAs = org.Access{Relation: org.RelationManager}
		}
		return &profileOutput{Body: fromProfile(p, readAs)}, nil
	})
}

// registerReports adds the evaluation reports: write one, list them, read one.
func registerReports(api *API, svc Profiles, tags []string, readErrors []int) {
	log := api.opts.Logger
	register(api, huma.Operation{
		OperationID: "profile_report", Method: http.MethodPost, Path: "/users/{user}/profile/report",
		Summary: "Write an evaluation report of a user (managers above them only)", Tags: tags, Errors: readErrors,
		Description: "The model writes it from the profile, the task statistics and the user's work memories (never " +
			"personal ones: health, family, diet…) and cites the facts it used; offline (ENGRAM_LLM_PROVIDER=rules), or " +
			"when the model fails, a deterministic report is written from the same facts and fallback_reason says why. " +
			"The report is stored with every fact it was given. The request is audited; the user themselves and anyone " +
			"not above them get 403 (audited too).",
	}, func(ctx context.Context, in *profileGetInput) (*reportOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		r, err := svc.RequestReport(ctx, profiles.RequestReport{Scope: sc, Actor: in.ActingUser})
		if err != nil {
			return nil, problem(ctx, log, err, "header")
		}
		return &reportOutput{Body: fromReport(r)}, nil
	})

	register(api, huma.Operation{
		OperationID: "profile_reports", Method: http.MethodGet, Path: "/users/{user}/profile/reports",
		Summary: "List a user's evaluation reports, newest first (managers above them only)", Tags: tags, Errors: readErrors,
		Description: "An addition to the v1 contract: what earlier reports said and the facts they were based on. Audited.",
	}, func(ctx context.Context, in *reportsInput) (*reportsOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		rs, next, err := svc.Reports(ctx, profiles.ListReports{Scope: sc, Actor: in.ActingUser, Before: in.Cursor, Limit: in.Limit})
		if err != nil {
			return nil, problem(ctx, log, err, "header")
		}
		out := &reportsOutput{Body: ReportList{Items: make([]Report, 0, len(rs)), NextCursor: next}}
		for _, r := range rs {
			out.Body.Items = append(out.Body.Items, fromReport(r))
		}
		return out, nil
	})

	register(api, huma.Operation{
		OperationID: "profile_report_get", Method: http.MethodGet, Path: "/users/{user}/profile/reports/{report_id}",
		Summary: "Read one evaluation report with its facts (managers above the user only)", Tags: tags, Errors: readErrors,
		Description: "An addition to the v1 contract. Audited.",
	}, func(ctx context.Context, in *reportGetInput) (*reportOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		r, err := svc.Report(ctx, profiles.GetReport{Scope: sc, Actor: in.ActingUser, ID: in.ReportID})
		if err != nil {
			return nil, problem(ctx, log, err, "header")
		}
		return &reportOutput{Body: fromReport(r)}, nil
	})
}

// registerActivity adds the activity feed the task statistics are derived from.
func registerActivity(api *API, svc Profiles, tags []string) {
	log := api.opts.Logger
	register(api, huma.Operation{
		OperationID: "activity_post", Method: http.MethodPost, Path: "/users/{user}/activity",
		Summary: "Record an activity event (task or workflow run)", Tags: tags, DefaultStatus: http.StatusAccepted,
		Errors: []int{http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity},
		Description: "Idempotent on event_id: the same event again is 202 with created false; the same event_id with " +
			"other content is 409, as is any event while the user is being erased. The task statistics and favourite workflows are derived by the worker after a short " +
			"debounce (ENGRAM_PROFILE_REFRESH_DEBOUNCE_SEC), never on this request.",
	}, func(ctx context.Context, in *activityInput) (*activityOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		b := in.Body
		a, created, err := svc.RecordActivity(ctx, profiles.RecordActivity{Scope: sc, Event: profile.ActivityInput{
			EventID: b.EventID, Kind: b.Kind, At: b.At, FlowID: b.FlowID, FlowName: b.FlowName, DurationH: b.DurationH,
		}})
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		return &activityOutput{Body: ActivityAccepted{EventID: a.EventID, Created: created}}, nil
	})
}
