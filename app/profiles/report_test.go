package profiles_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"engram/adapters/llm"
	apporg "engram/app/org"
	"engram/app/profiles"
	"engram/domain/org"
	"engram/domain/profile"
	"engram/ports"
	"engram/test/fakellm"
)

// llmWriter is the real langchaingo-backed writer pointed at the scripted server.
func llmWriter(t *testing.T, srv *fakellm.Server) ports.ReportWriter {
	t.Helper()
	c, err := llm.NewClient(llm.Options{Provider: llm.ProviderOpenAI, BaseURL: srv.OpenAIBaseURL(), Model: "eval-model", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return llm.NewReportWriter(c, c.Model(), llm.ReportWriterOptions{})
}

// orgWithReport sets up lead → dev with a work memory, a personal one and tasks.
func orgWithReport(t *testing.T, f *fixture) {
	t.Helper()
	ctx := context.Background()
	f.put(t, "lead", "刘组长", "技术主管", "")
	f.put(t, "dev", "王小明", "工程师", "lead")
	f.remember(t, dev, "project.crm", "project", "负责 CRM 系统迁移项目")
	f.remember(t, dev, "family.son", "fact", "儿子今年上小学")
	for i, kind := range []string{"task_assigned", "task_assigned", "task_completed"} {
		if _, _, err := f.svc.RecordActivity(ctx, profiles.RecordActivity{Scope: dev,
			Event: profile.ActivityInput{EventID: string(rune('a' + i)), Kind: kind, At: t0}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.svc.Refresh(ctx, dev); err != nil {
		t.Fatal(err)
	}
}

func factTexts(r profile.Report) string {
	var out []string
	for _, f := range r.Facts {
		out = append(out, f.ID+" "+f.Text)
	}
	return strings.Join(out, "\n")
}

func TestRequestReport_scriptedModelCitesItsFacts(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	f := newFixture(t, llmWriter(t, srv), profiles.Options{})
	orgWithReport(t, f)
	srv.HandleChat(func(req fakellm.Request) fakellm.Reply {
		user := req.Text("user")
		if !strings.Contains(user, "负责 CRM 系统迁移项目") || strings.Contains(user, "儿子") {
			return fakellm.Fail(http.StatusBadRequest, "unexpected prompt: "+user)
		}
		return fakellm.AnswerJSON(map[string]any{"report": "王小明负责 CRM 迁移，任务完成率 50%。", "facts_used": []string{"F1", "F4"}})
	})
	r, err := f.svc.RequestReport(context.Background(), profiles.RequestReport{Scope: dev, Actor: "lead"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Generator != profile.GeneratorLLM || r.Model != "openai/eval-model" || r.Text != "王小明负责 CRM 迁移，任务完成率 50%。" || !slices.Equal(r.FactsUsed, []string{"F1", "F4"}) || r.FallbackReason != "" {
		t.Errorf("report %+v", r)
	}
	stored, err := f.reports.Report(context.Background(), dev, r.ID)
	if err != nil || stored.Text != r.Text || len(stored.Facts) != len(r.Facts) || len(r.Facts) < 4 {
		t.Errorf("stored %+v %v", stored, err)
	}
	if strings.Contains(factTexts(r), "儿子") {
		t.Error("a personal memory reached the report's facts")
	}
}

func TestRequestReport_fallsBackToRulesWithTheReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		reply  fakellm.Reply
		reason string
	}{
		{"malformed answer", fakellm.Answer("He is doing fine, I think."), profiles.FallbackLLMBadOutput},
		{"no citations", fakellm.AnswerJSON(map[string]any{"report": "Great.", "facts_used": []string{}}), profiles.FallbackLLMBadOutput},
		{"timeout", fakellm.Hang(), profiles.FallbackLLMTimeout},
		{"endpoint down", fakellm.Fail(http.StatusInternalServerError, "boom"), profiles.FallbackLLMUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakellm.New(t)
			srv.HandleChat(func(fakellm.Request) fakellm.Reply { return tc.reply })
			f := newFixture(t, llmWriter(t, srv), profiles.Options{ReportTimeout: 300 * time.Millisecond})
			orgWithReport(t, f)
			r, err := f.svc.RequestReport(context.Background(), profiles.RequestReport{Scope: dev, Actor: "lead"})
			if err != nil {
				t.Fatal(err)
			}
			want, used := profile.RuleReport(mustProfile(t, f).State(), r.Facts)
			if r.Generator != profile.GeneratorRules || r.FallbackReason != tc.reason || r.Text != want || !slices.Equal(r.FactsUsed, used) {
				t.Errorf("report %+v, want the rule report with reason %s", r, tc.reason)
			}
		})
	}
}

func TestRequestReport_offlineIsTheDeterministicRuleReport(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, profiles.Options{})
	orgWithReport(t, f)
	ctx := context.Background()
	first, err := f.svc.RequestReport(ctx, profiles.RequestReport{Scope: dev, Actor: "lead"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.svc.RequestReport(ctx, profiles.RequestReport{Scope: dev, Actor: "lead"})
	if err != nil {
		t.Fatal(err)
	}
	if first.Generator != profile.GeneratorRules || first.FallbackReason != "" || first.Text != second.Text || first.ID == second.ID {
		t.Errorf("offline reports %+v / %+v", first, second)
	}
	for _, want := range []string{"王小明 的综合评估", "任务：被指派 2 个，创建 0 个，完成 1 个，完成率 50%", "负责 CRM 系统迁移项目 ["} {
		if !strings.Contains(first.Text, want) {
			t.Errorf("report lacks %q:\n%s", want, first.Text)
		}
	}
	list, _, err := f.svc.Reports(ctx, profiles.ListReports{Scope: dev, Actor: "lead"})
	if err != nil || len(list) != 2 || list[0].ID != second.ID {
		t.Errorf("list %v %v", list, err)
	}
}

func TestRequestReport_aUserWithoutFactsGetsNoModelCall(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t) // any chat request fails the test: nothing is scripted
	f := newFixture(t, llmWriter(t, srv), profiles.Options{})
	ctx := context.Background()
	for user, manager := range map[string]string{"lead": "", "new": "lead"} {
		if _, _, err := f.org.Put(ctx, apporg.Put{Scope: scopeOf(user), Member: org.MemberInput{DisplayName: user, ManagerID: manager}}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := f.svc.RequestReport(ctx, profiles.RequestReport{Scope: scopeOf("new"), Actor: "lead"})
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.ChatRequests()) != 0 || r.Generator != profile.GeneratorRules || !strings.Contains(r.Text, "暂无足够数据") {
		t.Errorf("report %+v after %d calls", r, len(srv.ChatRequests()))
	}
}

func TestRequestReport_refusalsAreAuditedAndWriteNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, profiles.Options{})
	orgWithReport(t, f)
	f.put(t, "peer", "李雷", "工程师", "lead")
	ctx := context.Background()
	for _, actor := range []string{"dev", "peer"} {
		_, err := f.svc.RequestReport(ctx, profiles.RequestReport{Scope: dev, Actor: actor})
		if !errors.Is(err, ports.ErrForbidden) {
			t.Errorf("%s: err = %v, want ErrForbidden", actor, err)
		}
	}
	if list, _ := f.reports.Reports(ctx, dev, "", 10); len(list) != 0 {
		t.Errorf("a refused request stored %d reports", len(list))
	}
	entries, err := f.audit.Audit(ctx, ports.AuditQuery{Tenant: "acme", Limit: 10})
	if err != nil || len(entries) != 2 || entries[0].Action != "report.create.denied" || entries[1].Actor != "peer" {
		t.Errorf("audit %+v %v", entries, err)
	}
}

func mustProfile(t *testing.T, f *fixture) profile.Profile {
	t.Helper()
	p, err := f.profiles.Profile(context.Background(), dev)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
