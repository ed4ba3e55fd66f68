package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	apporg "engram/app/org"
	"engram/domain/memory"
	"engram/domain/org"
	"engram/ports"
)

// PutOrgMemberRequest is a user's place in the organisation.
type PutOrgMemberRequest struct {
	DisplayName string `json:"display_name" minLength:"1" maxLength:"100" doc:"The name colleagues know the user by (王小明, John Smith); names are found case-insensitively, by given name and by pinyin."`
	Department  string `json:"department,omitempty" maxLength:"100" doc:"The user's department (研发中心); mirrored into the profile."`
	Position    string `json:"position,omitempty" maxLength:"100" doc:"The user's position (工程师, Director); mirrored into the profile."`
	ManagerID   string `json:"manager_id,omitempty" maxLength:"128" doc:"The user's direct manager. Managers see the profiles of everyone below them; a manager that would make a cycle is 422."`
}

type putOrgMemberInput struct {
	UserPath
	Body PutOrgMemberRequest
}

type orgMemberOutput struct {
	Status int
	Body   OrgMember
}

// PlacedMember is a member with the chain of managers above them.
type PlacedMember struct {
	OrgMember
	Managers []string `json:"managers" doc:"The managers above the user, direct manager first."`
}

type placedOutput struct {
	Body PlacedMember
}

type orgListInput struct {
	Name   string `query:"name" maxLength:"100" doc:"Resolve this name (display name, Chinese name, given name, nickname, pinyin); without it, list the members by user id."`
	Limit  int    `query:"limit" minimum:"1" maximum:"1000" doc:"Default 20 with name (at most 100), 100 without."`
	Cursor string `query:"cursor" maxLength:"128" doc:"next_cursor of the previous page (listing only)."`
}

// OrgUser is a user a name resolved to, or a member of the listing.
type OrgUser struct {
	UserID      string    `json:"user_id"`
	DisplayName string    `json:"display_name"`
	Department  string    `json:"department"`
	Position    string    `json:"position"`
	ManagerID   string    `json:"manager_id,omitempty"`
	Nickname    string    `json:"nickname,omitempty"`
	InOrg       bool      `json:"in_org" doc:"False for a user known only from their profile."`
	Match       *OrgMatch `json:"match,omitempty" doc:"How the name matched; absent in a listing."`
}

// OrgMatch is the key a name query met and how strong a match it is.
type OrgMatch struct {
	Key      string `json:"key"`
	Strength string `json:"strength" enum:"name,alias,phonetic" doc:"name: a whole name or nickname; alias: a given name or one word of a name; phonetic: the pinyin of a Chinese name, or 小王/老王."`
}

// OrgUsers is the answer of GET /v1/org/users.
type OrgUsers struct {
	Items      []OrgUser `json:"items"`
	NextCursor string    `json:"next_cursor,omitempty"`
}

type orgUsersOutput struct {
	Body OrgUsers
}

// Org is what the organisation operations need.
type Org interface {
	Put(ctx context.Context, cmd apporg.Put) (org.Member, bool, error)
	Get(ctx context.Context, scope memory.Scope) (apporg.Placed, error)
	List(ctx context.Context, tenant, cursor string, limit int) ([]org.Member, string, error)
	Find(ctx context.Context, tenant, name string, limit int) ([]apporg.Found, error)
}

// RegisterOrg adds the organisation graph (README "Profiles and organisation").
func RegisterOrg(api *API, svc Org) {
	log := api.opts.Logger
	tags := []string{"organisation"}
	describeTag(api.Root, "organisation", "The tenant's organisation graph: members, departments, positions and manager chains, with name resolution.")

	register(api, huma.Operation{
		OperationID: "org_user_put", Method: http.MethodPut, Path: "/org/users/{user}",
		Summary: "Put a user's place in the organisation", Tags: tags, DefaultStatus: http.StatusOK,
		Responses: map[string]*huma.Response{"201": {Description: "Created"}},
		Errors:    []int{http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity},
		Description: "201 when new, 200 when replaced. The manager need not be in the graph yet; a manager that would " +
			"make a cycle (checked in the same transaction as the write, so concurrent writes cannot build one) is 422 " +
			"naming the loop. Display name, department and position are mirrored into the user's profile. While the " +
			"user is being erased (DELETE /v1/users/{user}) the write is 409 naming the erasure job; send it again once " +
			"the job is DONE.",
	}, func(ctx context.Context, in *putOrgMemberInput) (*orgMemberOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		b := in.Body
		m, created, err := svc.Put(ctx, apporg.Put{Scope: sc, Member: org.MemberInput{
			DisplayName: b.DisplayName, Department: b.Department, Position: b.Position, ManagerID: b.ManagerID}})
		if err != nil {
			return nil, problem(ctx, log, err, "body")
		}
		status := http.StatusOK
		if created {
			status = http.StatusCreated
		}
		return &orgMemberOutput{Status: status, Body: fromMember(m)}, nil
	})

	register(api, huma.Operation{
		OperationID: "org_user_get", Method: http.MethodGet, Path: "/org/users/{user}",
		Summary: "Read a user's place in the organisation and the managers above them", Tags: tags,
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity},
		Description: "An addition to the v1 contract. A user being erased is 404, and the chain stops below a " +
			"manager being erased.",
	}, func(ctx context.Context, in *UserPath) (*placedOutput, error) {
		sc, err := in.scope(ctx, log)
		if err != nil {
			return nil, err
		}
		p, err := svc.Get(ctx, sc)
		if err != nil {
			return nil, problem(ctx, log, err, "path")
		}
		managers := p.Managers
		if managers == nil {
			managers = []string{}
		}
		return &placedOutput{Body: PlacedMember{OrgMember: fromMember(p.Member), Managers: managers}}, nil
	})

	register(api, huma.Operation{
		OperationID: "org_users", Method: http.MethodGet, Path: "/org/users",
		Metadata: map[string]any{reachMetadata: reachFiltered},
		Summary:  "Resolve a name to users of the tenant, or list the organisation", Tags: tags,
		Errors: []int{http.StatusUnprocessableEntity},
		Description: "With name: the users it may mean, best first — a whole display name or nickname, then a given name " +
			"(小明 for 王小明) or one word of a Latin name, then pinyin (\"Xiao Ming\" finds 小明) and 小王/老王; case, " +
			"spaces and full-width letters do not matter. Without name: the members by user id, with a cursor (a page " +
			"may hold fewer than limit). Users being erased are left out either way.",
	}, func(ctx context.Context, in *orgListInput) (*orgUsersOutput, error) {
		tenant := tenantFrom(ctx)
		out := &orgUsersOutput{Body: OrgUsers{Items: []OrgUser{}}}
		if only := onlyUser(ctx); only != "" {
			return onlyOrgUser(ctx, svc, in, only, log)
		}
		if in.Name == "" {
			members, next, err := svc.List(ctx, tenant, in.Cursor, in.Limit)
			if err != nil {
				return nil, problem(ctx, log, err, "query")
			}
			for _, m := range members {
				out.Body.Items = append(out.Body.Items, OrgUser{UserID: m.UserID, DisplayName: m.DisplayName, Department: m.Department,
					Position: m.Position, ManagerID: m.ManagerID, InOrg: true})
			}
			out.Body.NextCursor = next
			return out, nil
		}
		found, err := svc.Find(ctx, tenant, in.Name, in.Limit)
		if err != nil {
			return nil, problem(ctx, log, err, "query")
		}
		for _, f := range found {
			out.Body.Items = append(out.Body.Items, fromFound(f))
		}
		return out, nil
	})
}

// onlyOrgUser is the organisation as a user-scoped key sees it: its own user's
// entry, when it is one of the members (listing) or the name means it.
func onlyOrgUser(ctx context.Context, svc Org, in *orgListInput, only string, log *slog.Logger) (*orgUsersOutput, error) {
	out := &orgUsersOutput{Body: OrgUsers{Items: []OrgUser{}}}
	if in.Name != "" {
		found, err := svc.Find(ctx, tenantFrom(ctx), in.Name, apporg.MaxFindLimit)
		if err != nil {
			return nil, problem(ctx, log, err, "query")
		}
		for _, f := range found {
			if f.UserID == only {
				out.Body.Items = append(out.Body.Items, fromFound(f))
			}
		}
		return out, nil
	}
	if in.Cursor != "" {
		return out, nil // the one entry was on the first page
	}
	placed, err := svc.Get(ctx, memory.Scope{Tenant: tenantFrom(ctx), User: only})
	if errors.Is(err, ports.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, problem(ctx, log, err, "query")
	}
	m := placed.Member
	out.Body.Items = append(out.Body.Items, OrgUser{UserID: m.UserID, DisplayName: m.DisplayName, Department: m.Department,
		Position: m.Position, ManagerID: m.ManagerID, InOrg: true})
	return out, nil
}

func fromFound(f apporg.Found) OrgUser {
	return OrgUser{UserID: f.UserID, DisplayName: f.DisplayName, Department: f.Department,
		Position: f.Position, ManagerID: f.ManagerID, Nickname: f.Nickname, InOrg: f.InOrg,
		Match: &OrgMatch{Key: f.Match.Key, Strength: strengthName(f.Match.Strength)}}
}
