package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2/humatest"

	"engram/adapters/httpapi"
	"engram/adapters/pinyin"
	"engram/adapters/sqlstore"
	"engram/adapters/textanalysis"
	"engram/app/auth"
	"engram/app/memories"
	apporg "engram/app/org"
	"engram/app/profiles"
	"engram/domain/conversation"
	"engram/domain/memory"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// profileHarness serves the profile, org and audit API over the SQLite stores, with
// keys for two tenants.
type profileHarness struct {
	api       humatest.TestAPI
	clock     *fakeclock.Clock
	profiles  *profiles.Service
	refresher *profiles.Refresher
	memories  *sqlstore.MemoryStore
	messages  *sqlstore.MessageStore
}

func newProfileHarness(t *testing.T) *profileHarness {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	ids := &seqIDs{}
	stores := teststore.New(t)
	authn := auth.New(auth.Options{Configured: map[string]string{acmeKey: "acme", globexKey: "globex"}}, stores.APIKeys, clk, ids)
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20}, authn)
	mem, msgs := stores.Memories, stores.Messages
	profileStore, graph, activity, reports := stores.Profiles, stores.Org, stores.Activity, stores.Reports
	audit := stores.Reports // the audit log is kept beside the reports
	roman := pinyin.New()
	svc := profiles.New(profiles.Deps{
		Profiles: profileStore, Refreshes: profileStore, Activity: activity, Org: graph, Reports: reports, Audit: audit,
		Memories: mem, Messages: msgs, Analyzer: textanalysis.New(textanalysis.Options{}), Romanizer: roman, Clock: clk, IDs: ids,
		Purgers: []profiles.UserPurger{profileStore, activity, reports, graph},
	}, profiles.Options{RefreshDebounce: time.Minute})
	httpapi.RegisterProfiles(api, svc)
	httpapi.RegisterOrg(api, apporg.New(apporg.Deps{Graph: graph, Profiles: profileStore, Romanizer: roman, Clock: clk}))
	httpapi.RegisterAudit(api, svc)
	httpapi.RegisterMemories(api, memories.New(mem, clk, ids, memory.Policy{}))
	return &profileHarness{
		api: humatest.Wrap(t, api.Root), clock: clk, profiles: svc, memories: mem, messages: msgs,
		refresher: profiles.NewRefresher(svc, profiles.RefresherOptions{Worker: "test"}),
	}
}

func as(key, actor string) []any {
	out := []any{"Authorization: Bearer " + key}
	if actor != "" {
		out = append(out, "X-Acting-User: "+actor)
	}
	return out
}

// orgChart: ceo → director → lead → {dev 王小明, peer 李雷}; dev → intern;
// ceo → sales (another department).
func (h *profileHarness) orgChart(t *testing.T) {
	t.Helper()
	for _, m := range []struct{ user, name, dept, pos, manager string }{
		{"ceo", "陈总", "总裁办", "CEO", ""},
		{"director", "Dana Director", "研发中心", "Director", "ceo"},
		{"lead", "刘组长", "研发中心", "技术主管", "director"},
		{"dev", "王小明", "研发中心", "工程师", "lead"},
		{"peer", "李雷", "研发中心", "工程师", "lead"},
		{"intern", "Ivy", "研发中心", "Intern", "dev"},
		{"sales", "Sam Sales", "销售部", "Sales manager", "ceo"},
	} {
		body := map[string]any{"display_name": m.name, "department": m.dept, "position": m.pos}
		if m.manager != "" {
			body["manager_id"] = m.manager
		}
		resp := h.api.Put("/v1/org/users/"+m.user, append(as(acmeKey, ""), body)...)
		if resp.Code != http.StatusCreated {
			t.Fatalf("put %s: %d %s", m.user, resp.Code, resp.Body.String())
		}
	}
}

type auditPage struct {
	Items []struct {
		Actor, Action, TargetUser string
	} `json:"items"`
}

func (h *profileHarness) audit(t *testing.T, query string) []string {
	t.Helper()
	resp := h.api.Get("/v1/audit?"+query, as(acmeKey, "")...)
	if resp.Code != http.StatusOK {
		t.Fatalf("audit: %d %s", resp.Code, resp.Body.String())
	}
	var out []string
	for _, e := range decode[struct {
		Items []struct {
			Actor      string `json:"actor"`
			Action     string `json:"action"`
			TargetUser string `json:"target_user"`
		} `json:"items"`
	}](t, resp).Items {
		out = append(out, e.Actor+" "+e.Action+" "+e.TargetUser)
	}
	return out
}

func TestProfile_authorisationMatrix(t *testing.T) {
	t.Parallel()
	h := newProfileHarness(t)
	h.orgChart(t)
	for _, tc := range []struct {
		name    string
		key     string
		actor   string
		profile int // GET …/profile
		report  int // POST …/profile/report
	}{
		{"self", acmeKey, "dev", http.StatusOK, http.StatusForbidden},
		{"direct manager", acmeKey, "lead", http.StatusOK, http.StatusOK},
		{"skip-level manager", acmeKey, "director", http.StatusOK, http.StatusOK},
		{"top of the chain", acmeKey, "ceo", http.StatusOK, http.StatusOK},
		{"peer", acmeKey, "peer", http.StatusForbidden, http.StatusForbidden},
		{"the user's own report", acmeKey, "intern", http.StatusForbidden, http.StatusForbidden},
		{"other department", acmeKey, "sales", http.StatusForbidden, http.StatusForbidden},
		{"unknown actor", acmeKey, "stranger", http.StatusForbidden, http.StatusForbidden},
		{"other tenant, same actor id", globexKey, "lead", http.StatusNotFound, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := h.api.Get("/v1/users/dev/profile", as(tc.key, tc.actor)...)
			if resp.Code != tc.profile {
				t.Fatalf("GET profile: %d, want %d: %s", resp.Code, tc.profile, resp.Body.String())
			}
			if tc.profile == http.StatusOK {
				p := decode[httpapi.Profile](t, resp)
				want := "manager"
				if tc.actor == "dev" {
					want = "self"
				}
				if p.UserID != "dev" || p.DisplayName != "王小明" || p.Department != "研发中心" || p.ReadAs != want {
					t.Errorf("profile %+v", p)
				}
			} else {
				expectProblem(t, resp, tc.profile, "")
			}
			resp = h.api.Post("/v1/users/dev/profile/report", as(tc.key, tc.actor)...)
			if resp.Code != tc.report {
				t.Fatalf("POST report: %d, want %d: %s", resp.Code, tc.report, resp.Body.String())
			}
			if tc.report != http.StatusOK {
				expectProblem(t, resp, tc.report, "")
			}
		})
	}
	got := h.audit(t, "target_user=dev")
	want := []string{
		"dev report.create.denied dev",
		"lead profile.read dev", "lead report.create dev",
		"director profile.read dev", "director report.create dev",
		"ceo profile.read dev", "ceo report.create dev",
		"peer profile.read.denied dev", "peer report.create.denied dev",
		"intern profile.read.denied dev", "intern report.create.denied dev",
		"sales profile.read.denied dev", "sales report.create.denied dev",
		"stranger profile.read.denied dev", "stranger report.create.denied dev",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit log\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The other tenant's log has nothing of acme's user; acme's reads are not in it.
	resp := h.api.Get("/v1/audit", as(globexKey, "")...)
	if n := len(decode[auditPage](t, resp).Items); n != 0 {
		t.Errorf("globex audit has %d entries", n)
	}
}

func TestProfile_actingUserIsRequiredForReads(t *testing.T) {
	t.Parallel()
	h := newProfileHarness(t)
	h.orgChart(t)
	resp := h.api.Get("/v1/users/dev/profile", as(acmeKey, "")...)
	p := expectProblem(t, resp, http.StatusUnprocessableEntity, "header.X-Acting-User")
	if !strings.Contains(p.Detail, "X-Acting-User") {
		t.Errorf("detail %q", p.Detail)
	}
	resp = h.api.Post("/v1/users/dev/profile/report", as(acmeKey, "")...)
	expectProblem(t, resp, http.StatusUnprocessableEntity, "header.X-Acting-User")
	resp = h.api.Get("/v1/users/nobody/profile", as(acmeKey, "nobody")...)
	if p := expectProblem(t, resp, http.StatusNotFound, ""); !strings.Contains(p.Detail, `"nobody"`) || strings.Contains(p.Detail, "sqlstore") {
		t.Errorf("404 detail %q must name the user, not a layer", p.Detail)
	}
}

func TestOrg_nameResolution(t *testing.T) {
	t.Parallel()
	h := newProfileHarness(t)
	h.orgChart(t)
	// 李晓明 sounds like 小明; dev's nickname is declared on the profile.
	resp := h.api.Put("/v1/org/users/li2", append(as(acmeKey, ""), map[string]any{"display_name": "李晓明", "department": "销售部"})...)
	if resp.Code != http.StatusCreated {
		t.Fatal(resp.Body.String())
	}
	resp = h.api.Patch("/v1/users/dev/profile", append(as(acmeKey, "dev"), map[string]any{"nickname": "Captain"})...)
	if resp.Code != http.StatusOK {
		t.Fatal(resp.Body.String())
	}
	type user struct {
		UserID string `json:"user_id"`
		Match  struct {
			Key      string `json:"key"`
			Strength string `json:"strength"`
		} `json:"match"`
	}
	find := func(name string) []string {
		t.Helper()
		resp := h.api.Get("/v1/org/users?name="+urlQuery(name), as(acmeKey, "")...)
		if resp.Code != http.StatusOK {
			t.Fatalf("find %q: %d %s", name, resp.Code, resp.Body.String())
		}
		var out []string
		for _, u := range decode[struct {
			Items []user `json:"items"`
		}](t, resp).Items {
			out = append(out, u.UserID+":"+u.Match.Strength)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		want string
	}{
		{"王小明", "dev:name"},
		{"小明", "dev:alias,li2:phonetic"},
		{"Xiao Ming", "dev:phonetic,li2:phonetic"},
		{"wangxiaoming", "dev:phonetic"},
		{"CAPTAIN", "dev:name"},
		{"dana", "director:alias"},
		{"Dana Director", "director:name"},
		{"ｓａｍ ｓａｌｅｓ", "sales:name"},
		{"老王", "dev:phonetic"},
		{"李雷", "peer:name"},
		{"Nobody", ""},
	} {
		if got := strings.Join(find(tc.name), ","); got != tc.want {
			t.Errorf("name %q: got %q, want %q", tc.name, got, tc.want)
		}
	}
	// Another tenant's directory is separate.
	resp = h.api.Get("/v1/org/users?name="+urlQuery("小明"), as(globexKey, "")...)
	if n := len(decode[struct {
		Items []user `json:"items"`
	}](t, resp).Items); n != 0 {
		t.Errorf("globex found %d users", n)
	}
	resp = h.api.Get("/v1/org/users?name="+urlQuery("--"), as(acmeKey, "")...)
	expectProblem(t, resp, http.StatusUnprocessableEntity, "query.name")
}

func urlQuery(s string) string {
	r := strings.NewReplacer(" ", "%20", "+", "%2B", "&", "%26", "#", "%23")
	return r.Replace(s)
}

func TestOrg_cyclesAreRefusedAndChainsAreTransitive(t *testing.T) {
	t.Parallel()
	h := newProfileHarness(t)
	h.orgChart(t)
	resp := h.api.Put("/v1/org/users/ceo", append(as(acmeKey, ""), map[string]any{"display_name": "陈总", "manager_id": "intern"})...)
	p := expectProblem(t, resp, http.StatusUnprocessableEntity, "body.manager_id")
	if !strings.Contains(p.Detail, "ceo → intern → dev → lead → director → ceo") {
		t.Errorf("detail %q should show the loop", p.Detail)
	}
	resp = h.api.Put("/v1/org/users/dev", append(as(acmeKey, ""), map[string]any{"display_name": "王小明", "manager_id": "dev"})...)
	expectProblem(t, resp, http.StatusUnprocessableEntity, "body.manager_id")
	resp = h.api.Get("/v1/org/users/intern", as(acmeKey, "")...)
	placed := decode[httpapi.PlacedMember](t, resp)
	if strings.Join(placed.Managers, ",") != "dev,lead,director,ceo" {
		t.Errorf("managers %v", placed.Managers)
	}
	resp = h.api.Put("/v1/org/users/dev", append(as(acmeKey, ""), map[string]any{"display_name": "王小明", "position": "高级工程师", "manager_id": "lead"})...)
	if resp.Code != http.StatusOK {
		t.Fatalf("replace: %d %s", resp.Code, resp.Body.String())
	}
	resp = h.api.Put("/v1/org/users/x", append(as(acmeKey, ""), map[string]any{"display_name": ""})...)
	expectProblem(t, resp, http.StatusUnprocessableEntity, "body.display_name")
	// The profile mirrors the org entry.
	resp = h.api.Get("/v1/users/dev/profile", as(acmeKey, "dev")...)
	if pr := decode[httpapi.Profile](t, resp); pr.Position != "高级工程师" || pr.Sources["position"].Channel != "org" {
		t.Errorf("profile %+v", pr)
	}
}

func TestProfile_patchIsAMergePatch(t *testing.T) {
	t.Parallel()
	h := newProfileHarness(t)
	resp := h.api.Patch("/v1/users/ann/profile", append(as(acmeKey, ""), map[string]any{
		"display_name": "Ann Lee", "language": "en", "time_zone": "Europe/Paris", "role_tags": []string{"engineer"}, "tone": "casual"})...)
	if resp.Code != http.StatusOK {
		t.Fatalf("%d %s", resp.Code, resp.Body.String())
	}
	p := decode[httpapi.Profile](t, resp)
	if p.DisplayName != "Ann Lee" || p.Language != "en" || p.ProfileVersion != 1 || p.Sources["tone"].Channel != "api" ||
		!strings.HasPrefix(p.Prompt, "[User profile]\nName: Ann Lee") {
		t.Errorf("profile %+v", p)
	}
	// null clears, absent stays; application/merge-patch+json is accepted.
	req := httptest.NewRequest(http.MethodPatch, "/v1/users/ann/profile", strings.NewReader(`{"tone": null, "nickname": "Annie"}`))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	req.Header.Set("Authorization", "Bearer "+acmeKey)
	rec := httptest.NewRecorder()
	h.api.Adapter().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("merge-patch+json: %d %s", rec.Code, rec.Body.String())
	}
	p = decode[httpapi.Profile](t, rec)
	if p.Tone != "" || p.Nickname != "Annie" || p.TimeZone != "Europe/Paris" || len(p.RoleTags) != 1 || p.ProfileVersion != 2 {
		t.Errorf("after null/absent: %+v", p)
	}
	for _, tc := range []struct {
		body     map[string]any
		location string
	}{
		{map[string]any{"time_zone": "Mars/Base"}, "body.time_zone"},
		{map[string]any{"language": "english!"}, "body.language"},
		{map[string]any{"display_name": strings.Repeat("x", 101)}, "body.display_name"},
		{map[string]any{"total_conversations": 5}, ""},
		{map[string]any{}, "body"},
	} {
		resp := h.api.Patch("/v1/users/ann/profile", append(as(acmeKey, ""), tc.body)...)
		expectProblem(t, resp, http.StatusUnprocessableEntity, tc.location)
	}
	// A peer may not change someone's profile; nothing changed.
	h.orgChart(t)
	resp = h.api.Patch("/v1/users/dev/profile", append(as(acmeKey, "peer"), map[string]any{"nickname": "x"})...)
	expectProblem(t, resp, http.StatusForbidden, "")
	resp = h.api.Get("/v1/users/ann/profile", as(acmeKey, "ann")...)
	if got := decode[httpapi.Profile](t, resp); got.ProfileVersion != 2 {
		t.Errorf("refused patches changed the profile: version %d", got.ProfileVersion)
	}
}

func TestActivity_idempotentOnEventID(t *testing.T) {
	t.Parallel()
	h := newProfileHarness(t)
	ev := map[string]any{"event_id": "e1", "kind": "task_completed", "at": "2026-12-01T08:00:00Z", "flow_id": "weekly", "duration_h": 2.5}
	for i, want := range []bool{true, false} {
		resp := h.api.Post("/v1/users/dev/activity", append(as(acmeKey, ""), ev)...)
		if resp.Code != http.StatusAccepted {
			t.Fatalf("post %d: %d %s", i, resp.Code, resp.Body.String())
		}
		if got := decode[httpapi.ActivityAccepted](t, resp); got.Created != want || got.EventID != "e1" {
			t.Errorf("post %d: %+v", i, got)
		}
	}
	ev["duration_h"] = 3
	resp := h.api.Post("/v1/users/dev/activity", append(as(acmeKey, ""), ev)...)
	if p := expectProblem(t, resp, http.StatusConflict, ""); !strings.Contains(p.Detail, `"e1"`) {
		t.Errorf("conflict detail %q", p.Detail)
	}
	for _, tc := range []struct {
		body     map[string]any
		location string
	}{
		{map[string]any{"event_id": "e2", "kind": "task_done", "at": "2026-12-01T08:00:00Z"}, "body.kind"},
		{map[string]any{"event_id": "e2", "kind": "workflow_used", "at": "2026-12-01T08:00:00Z"}, "body.flow_id"},
		{map[string]any{"event_id": "e2", "kind": "task_created", "at": "2026-12-03T08:00:00Z"}, "body.at"},
		{map[string]any{"event_id": "e2", "kind": "task_created", "at": "2026-12-01T08:00:00Z", "duration_h": 1}, "body.duration_h"},
		{map[string]any{"event_id": " ", "kind": "task_created", "at": "2026-12-01T08:00:00Z"}, "body.event_id"},
	} {
		resp := h.api.Post("/v1/users/dev/activity", append(as(acmeKey, ""), tc.body)...)
		expectProblem(t, resp, http.StatusUnprocessableEntity, tc.location)
	}
}

// The done-when path: a manager resolves a report by name, reads the derived
// profile and gets an evaluation with the facts it used; a peer is refused; every
// manager read is in the audit log.
func TestProfile_managerResolvesReadsAndEvaluates(t *testing.T) {
	t.Parallel()
	h := newProfileHarness(t)
	h.orgChart(t)
	ctx := context.Background()
	dev := memory.Scope{Tenant: "acme", User: "dev"}
	resp := h.api.Patch("/v1/users/dev/profile", append(as(acmeKey, "dev"), map[string]any{"time_zone": "Asia/Shanghai", "work_style_tags": []string{"注重细节"}})...)
	if resp.Code != http.StatusOK {
		t.Fatal(resp.Body.String())
	}
	// Conversations in office hours (Shanghai), a work memory, tasks and workflow runs.
	var inputs []conversation.Message
	for i, at := range []string{"01:10", "01:40", "02:20", "02:50", "06:15", "06:45", "07:30"} { // 09:10… in Shanghai
		ts, _ := time.Parse("2006-01-02 15:04", "2026-11-30 "+at)
		m, err := conversation.New(dev, conversation.Input{ConversationID: fmt.Sprintf("c%d", i%3), MessageID: fmt.Sprintf("m%d", i),
			Role: "user", Content: "帮我整理周报生成的模板，还有任务分配的规则", CreatedAt: ts}, fmt.Sprintf("seq%02d", i), h.clock.Now(), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, m)
	}
	if _, err := h.messages.Ingest(ctx, dev, inputs); err != nil {
		t.Fatal(err)
	}
	saveMemory(t, h, dev, "project.crm", "project", "负责 CRM 系统迁移项目")
	saveMemory(t, h, dev, "work.skill", "fact", "擅长数据分析和 SQL")
	saveMemory(t, h, dev, "health.allergy", "fact", "对花生过敏")
	for i, kind := range []string{"task_assigned", "task_assigned", "task_assigned", "task_assigned", "task_completed", "task_completed", "task_completed", "workflow_used", "workflow_used"} {
		ev := map[string]any{"event_id": fmt.Sprintf("a%d", i), "kind": kind, "at": "2026-12-01T07:00:00Z"}
		if kind == "task_completed" {
			ev["duration_h"] = 4
			ev["flow_id"] = "weekly"
			ev["flow_name"] = "周报生成"
		}
		if kind == "workflow_used" {
			ev["flow_id"] = "weekly"
			ev["flow_name"] = "周报生成"
		}
		if resp := h.api.Post("/v1/users/dev/activity", append(as(acmeKey, ""), ev)...); resp.Code != http.StatusAccepted {
			t.Fatal(resp.Body.String())
		}
	}
	// Nothing is derived on the request path, nor before the debounce.
	if n, err := h.refresher.Tick(ctx); err != nil || n != 0 {
		t.Fatalf("refreshed %d before the debounce (%v)", n, err)
	}
	h.clock.Advance(2 * time.Minute)
	if n, err := h.refresher.Tick(ctx); err != nil || n != 1 {
		t.Fatalf("refreshed %d after the debounce (%v)", n, err)
	}

	resp = h.api.Get("/v1/org/users?name="+urlQuery("Xiao Ming"), as(acmeKey, "")...)
	found := decode[httpapi.OrgUsers](t, resp)
	if len(found.Items) == 0 || found.Items[0].UserID != "dev" {
		t.Fatalf("Xiao Ming resolved to %+v", found.Items)
	}
	resp = h.api.Get("/v1/users/"+found.Items[0].UserID+"/profile", as(acmeKey, "lead")...)
	p := decode[httpapi.Profile](t, resp)
	if p.TotalConversations != 3 || p.TotalTasksAssigned != 4 || p.TotalTasksCompleted != 3 || p.TaskCompletionRate != 0.75 ||
		p.AvgTaskCompletionH != 4 || p.TotalWorkflowsUsed != 2 || len(p.FavoriteWorkflows) != 1 || p.FavoriteWorkflows[0].FlowName != "周报生成" {
		t.Errorf("derived profile %+v", p)
	}
	if len(p.PreferredWorkHours) == 0 || !strings.HasPrefix(p.PreferredWorkHours[0], "09:00") {
		t.Errorf("work hours %v, want them in Shanghai time", p.PreferredWorkHours)
	}
	if !strings.Contains(strings.Join(p.ExpertiseAreas, ","), "数据分析") || !strings.Contains(strings.Join(p.ExpertiseAreas, ","), "周报生成") {
		t.Errorf("expertise %v", p.ExpertiseAreas)
	}
	var topics []string
	for _, tc := range p.CommonTopics {
		topics = append(topics, tc.Topic)
	}
	if !strings.Contains(strings.Join(topics, ","), "周报生成") || !strings.Contains(strings.Join(topics, ","), "任务分配") {
		t.Errorf("topics %v", topics)
	}
	for _, want := range []string{"[用户画像]", "姓名: 王小明 | 职位: 工程师 | 部门: 研发中心", "工作风格: 注重细节", "常用流程: 周报生成(2次)"} {
		if !strings.Contains(p.Prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p.Prompt)
		}
	}

	resp = h.api.Post("/v1/users/dev/profile/report", as(acmeKey, "director")...)
	r := decode[httpapi.Report](t, resp)
	if r.Generator != "rules" || r.Report == "" || len(r.FactsUsed) == 0 || len(r.FactsUsed) != len(r.Facts) || r.Actor != "director" {
		t.Fatalf("report %+v", r)
	}
	var facts []string
	for _, f := range r.Facts {
		facts = append(facts, f.Text)
	}
	all := strings.Join(facts, "\n")
	if !strings.Contains(all, "负责 CRM 系统迁移项目") || !strings.Contains(all, "完成率 75%") || strings.Contains(all, "花生") {
		t.Errorf("facts:\n%s", all)
	}
	// The stored report reads back with its facts.
	resp = h.api.Get("/v1/users/dev/profile/reports/"+r.ReportID, as(acmeKey, "lead")...)
	if back := decode[httpapi.Report](t, resp); back.Report != r.Report || len(back.Facts) != len(r.Facts) {
		t.Errorf("read back %+v", back)
	}
	resp = h.api.Get("/v1/users/dev/profile/reports", as(acmeKey, "ceo")...)
	if list := decode[httpapi.ReportList](t, resp); len(list.Items) != 1 || list.Items[0].ReportID != r.ReportID {
		t.Errorf("list %+v", list)
	}
	resp = h.api.Get("/v1/users/dev/profile", as(acmeKey, "peer")...)
	expectProblem(t, resp, http.StatusForbidden, "")
	resp = h.api.Get("/v1/users/dev/profile/reports/"+r.ReportID, as(acmeKey, "peer")...)
	expectProblem(t, resp, http.StatusForbidden, "")

	got := h.audit(t, "target_user=dev")
	want := []string{"lead profile.read dev", "director report.create dev", "lead report.read dev", "ceo report.read dev",
		"peer profile.read.denied dev", "peer report.read.denied dev"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := h.audit(t, "actor=lead&limit=1"); len(got) != 1 || got[0] != "lead profile.read dev" {
		t.Errorf("actor filter with limit: %v", got)
	}
}

func saveMemory(t *testing.T, h *profileHarness, scope memory.Scope, key, typ, content string) {
	t.Helper()
	resp := h.api.Put("/v1/users/"+scope.User+"/memories/"+key, append(as(acmeKey, ""), map[string]any{"type": typ, "content": content, "importance": 4})...)
	if resp.Code != http.StatusCreated {
		t.Fatalf("save %s: %d %s", key, resp.Code, resp.Body.String())
	}
}

func TestOrg_listingPagesByUserIDAndUnknownUsersAreNotFound(t *testing.T) {
	t.Parallel()
	h := newProfileHarness(t)
	h.orgChart(t)
	var ids []string
	cursor := ""
	for page := 0; page < 10; page++ {
		resp := h.api.Get("/v1/org/users?limit=3&cursor="+cursor, as(acmeKey, "")...)
		if resp.Code != http.StatusOK {
			t.Fatalf("list: %d %s", resp.Code, resp.Body.String())
		}
		got := decode[httpapi.OrgUsers](t, resp)
		for _, u := range got.Items {
			if u.Match != nil || !u.InOrg {
				t.Errorf("a listed member: %+v", u)
			}
			ids = append(ids, u.UserID)
		}
		if got.NextCursor == "" {
			break
		}
		cursor = got.NextCursor
	}
	if strings.Join(ids, ",") != "ceo,dev,director,intern,lead,peer,sales" {
		t.Errorf("listed %v", ids)
	}
	resp := h.api.Get("/v1/org/users/nobody", as(acmeKey, "")...)
	if p := expectProblem(t, resp, http.StatusNotFound, ""); !strings.Contains(p.Detail, `"nobody"`) {
		t.Errorf("detail %q", p.Detail)
	}
	resp = h.api.Get("/v1/org/users/dev", as(globexKey, "")...)
	expectProblem(t, resp, http.StatusNotFound, "")
	resp = h.api.Get("/v1/org/users?limit=5000", as(acmeKey, "")...)
	expectProblem(t, resp, http.StatusUnprocessableEntity, "query.limit")
}
