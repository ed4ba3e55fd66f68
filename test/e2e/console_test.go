package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"engram/test/wait"
)

// The console's browser tests drive headless Chromium through the DevTools
// protocol: every page is loaded as an operator would, its content read from the
// rendered DOM, and each action clicked, then checked through the API.
// Screenshots go to ENGRAM_TEST_ARTIFACTS_DIR (a temporary directory if unset).

func TestConsole_everyPageOnTheEmbeddedDefault(t *testing.T) {
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(), consoleSecrets)
	runConsole(t, srv, "embedded")
	srv.Stop()
}

func TestConsole_everyPageOnPostgresAndRedis_Postgres_Redis(t *testing.T) {
	srv, _, _ := startOnPostgresAndRedis(t, consoleSecrets)
	runConsole(t, srv, "postgres-redis")
	srv.Stop()
}

// With API keys the console asks for one, keeps it for the tab, and shows the
// key's tenant only.
func TestConsole_signsInWithAnAPIKeyAndShowsItsTenantOnly(t *testing.T) {
	const acme, globex = "acme-console-key-0123456789", "globex-console-key-0123456789"
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir(), "ENGRAM_API_KEYS=acme="+acme+",globex="+globex)
	for i := range 27 {
		consoleSave(t, srv, fmt.Sprintf("user-%02d", i), "city", "fact", "Lives somewhere", "Authorization", "Bearer "+acme)
	}
	consoleSave(t, srv, "anna", "city", "fact", "Anna lives in Lyon", "Authorization", "Bearer "+acme)
	consoleSave(t, srv, "gus", "city", "fact", "Gus lives in Oslo", "Authorization", "Bearer "+globex)

	b := newBrowser(t, srv)
	b.run("sign-in form", chromedp.Navigate(srv.Base+"/console"), chromedp.WaitVisible(`#api-key`))
	b.run("wrong key", chromedp.SendKeys(`#api-key`, "not-a-key-0123456789\r"),
		chromedp.WaitVisible(`form.signin .problem`))
	var refused string
	b.run("refusal", chromedp.Text(`form.signin .problem`, &refused))
	if !strings.Contains(refused, "401") {
		t.Errorf("a wrong key shows %q, want the 401", refused)
	}
	b.run("right key", chromedp.Evaluate(`document.getElementById("api-key").value = ""`, nil), chromedp.SendKeys(`#api-key`, acme+"\r"),
		chromedp.WaitVisible(`tr[data-user="anna"]`))
	var listed string
	var first string
	b.run("users", chromedp.Text(`main`, &listed), chromedp.Evaluate(`document.querySelector('tbody tr').dataset.user`, &first))
	if strings.Contains(listed, "gus") {
		t.Errorf("acme's console lists globex's user:\n%s", listed)
	}
	// Newest activity first, 25 a page.
	if first != "anna" || !strings.Contains(listed, "1–25 of 28 users") {
		t.Errorf("first row %q, want anna (the latest activity); the page says:\n%s", first, listed)
	}
	b.run("older", chromedp.Click(`nav.pager button:last-child`), chromedp.WaitVisible(`tr[data-user="user-00"]`),
		chromedp.Text(`main`, &listed))
	if !strings.Contains(listed, "26–28 of 28 users") || strings.Contains(listed, "anna") {
		t.Errorf("the second page:\n%s", listed)
	}
	// The key stays with the tab: the next page needs no new sign-in.
	b.run("next page", chromedp.Navigate(srv.Base+"/console/users/anna"), chromedp.WaitVisible(`article.memory[data-key="city"]`))
	b.run("ops", chromedp.Navigate(srv.Base+"/console/ops"), chromedp.WaitVisible(`#process dl`))
	var auth string
	b.run("auth mode", chromedp.Text(`#process`, &auth))
	if !strings.Contains(auth, "api_keys") {
		t.Errorf("the operations page says %q, want auth api_keys", auth)
	}
	if code := srv.Do(http.MethodGet, "/console/ops.json", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("GET /console/ops.json without a key = %d, want 401", code)
	}
	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	srv.Do(http.MethodGet, "/openapi.json", nil, &doc)
	for path := range doc.Paths {
		if strings.HasPrefix(path, "/console") {
			t.Errorf("/openapi.json documents the console's %s: its pages are not API operations", path)
		}
	}
	if len(doc.Paths) == 0 {
		t.Error("/openapi.json has no paths")
	}
	b.checkClean()
}

const markup = `<img src=x onerror=alert(1)>`

// consoleSecrets keeps a secret as given and flags its memory, so the console
// has a flag to show.
const consoleSecrets = "ENGRAM_SECRETS=flag"

func runConsole(t *testing.T, srv *Server, name string) {
	const user = "alice"
	consoleSave(t, srv, user, "diet", "fact", "Alice is vegetarian")
	consoleSave(t, srv, user, "diet", "fact", "Alice is vegan")
	consoleSave(t, srv, user, "city", "fact", "Alice lives in Wuhan")
	consoleSave(t, srv, user, "tea", "preference", "Alice likes green tea")
	consoleSave(t, srv, user, "markup", "fact", markup)
	consoleSave(t, srv, user, "old", "fact", "Alice once lived in Paris")
	consoleSave(t, srv, user, "card", "fact", "My credit card number is 4111 1111 1111 1111.")
	consoleSave(t, srv, "erin", "city", "fact", "Erin lives in Porto")
	if code := srv.Do(http.MethodPut, "/v1/org/users/"+user, map[string]any{"display_name": "Alice Wang", "department": "R&D", "position": "engineer", "manager_id": "bob"}, nil); code/100 != 2 {
		t.Fatalf("org entry: %d", code)
	}
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/sessions/s1/exchanges", map[string]any{
		"flow_id": "f1", "user_message": "What should I cook tonight?", "assistant_message": "A vegan curry."}, nil); code != http.StatusAccepted {
		t.Fatalf("exchange: %d", code)
	}
	var ctxOut struct {
		TraceID string `json:"trace_id"`
	}
	if code := srv.Do(http.MethodPost, "/v1/users/"+user+"/context", map[string]any{"query": "what does alice eat", "session_id": "s1", "flow_id": "f1", "max_memories": 2}, &ctxOut); code != http.StatusOK || ctxOut.TraceID == "" {
		t.Fatalf("context: %d %+v", code, ctxOut)
	}
	wait.Until(t, 30*time.Second, "the trace is stored", func() bool {
		return srv.Do(http.MethodGet, "/v1/traces/"+ctxOut.TraceID, nil, nil) == http.StatusOK
	})

	b := newBrowser(t, srv)
	base := srv.Base + "/console"

	// Users: counts, newest first, found by name.
	b.run("users page", chromedp.Navigate(base), chromedp.WaitVisible(`tr[data-user="alice"]`))
	var cells []string
	b.run("alice's row", chromedp.Evaluate(`[...document.querySelectorAll('tr[data-user="alice"] td')].map(td => td.textContent)`, &cells))
	if len(cells) != 5 || cells[0] != "alice Alice Wang" && cells[0] != "alice" || cells[1] != "6" || cells[2] != "2" || cells[3] != "1" || cells[4] == "—" {
		t.Errorf("alice's row %q, want her 6 memories, 2 messages, 1 session and a last activity", cells)
	}
	b.shot(name, "users", 1280)
	b.run("find by name", chromedp.SendKeys(`#find`, "Wang\r"), chromedp.WaitNotPresent(`tr[data-user="erin"]`),
		chromedp.WaitVisible(`tr[data-user="alice"]`))

	// A user: memories with their flags, the markup memory as text.
	b.run("user page", chromedp.Navigate(base+"/users/"+user), chromedp.WaitVisible(`article.memory[data-key="diet"]`),
		chromedp.WaitVisible(`article.memory[data-key="markup"]`), chromedp.WaitVisible(`tr[data-message]`),
		chromedp.WaitVisible(`li[data-session="s1"]`))
	if got := b.text(`article.memory[data-key="markup"] .content`); got != markup {
		t.Errorf("the markup memory renders as %q, want the text %q", got, markup)
	}
	var images int
	b.run("no image", chromedp.Evaluate(`document.querySelectorAll('main img').length`, &images))
	if images != 0 {
		t.Errorf("the page holds %d <img> elements: stored text was parsed as markup", images)
	}
	if got := b.text(`article.memory[data-key="card"] header`); !strings.Contains(got, "secret") {
		t.Errorf("the memory holding a card number shows no secret flag: %q", got)
	}
	if got := b.text(`#memories`); !strings.Contains(got, "Alice is vegan") || !strings.Contains(got, "preference") {
		t.Errorf("memories section: %q", got)
	}
	if got := b.text(`#messages`); !strings.Contains(got, "What should I cook tonight?") || !strings.Contains(got, "not_from_user") {
		t.Errorf("messages section lacks the turn or the assistant's skip_reason: %q", got)
	}
	b.shot(name, "user", 1280)

	// Sessions: the turns behind a button.
	b.run("session turns", chromedp.Click(`li[data-session="s1"] button`), chromedp.WaitVisible(`li[data-session="s1"] ol.turns li`))
	if got := b.text(`li[data-session="s1"]`); !strings.Contains(got, "A vegan curry.") {
		t.Errorf("session turns: %q", got)
	}

	// Search in the three modes side by side.
	b.run("search", chromedp.SendKeys(`#search-q`, "vegan\r"), chromedp.WaitVisible(`.mode[data-mode="lexical"] ol.results li`),
		chromedp.WaitVisible(`.mode[data-mode="auto"] ol.results li`), chromedp.WaitVisible(`.mode[data-mode="dense"] ol.results li`))
	for _, mode := range []string{"auto", "lexical", "dense"} {
		if got := b.text(`.mode[data-mode="` + mode + `"]`); !strings.Contains(got, "answered by "+mode) || !strings.Contains(got, "Alice is vegan") {
			t.Errorf("search column %s: %q", mode, got)
		}
	}
	if got := b.text(`.mode[data-mode="lexical"]`); !strings.Contains(got, "Alice is vegan") || !strings.Contains(got, "retrieval") {
		t.Errorf("lexical column lacks the memory or its breakdown: %q", got)
	}

	// Profile and org position, read as a manager.
	b.run("profile", chromedp.SendKeys(`#acting`, "bob\r"), chromedp.WaitVisible(`#profile dl`))
	if got := b.text(`#profile`); !strings.Contains(got, "Alice Wang") || !strings.Contains(got, "engineer") {
		t.Errorf("profile section: %q", got)
	}

	// History and revert: back to the first version.
	b.run("history", chromedp.Click(`article.memory[data-key="diet"] button[data-action="history"]`),
		chromedp.WaitVisible(`article.memory[data-key="diet"] li[data-event] del`))
	if got := b.text(`article.memory[data-key="diet"] .history`); !strings.Contains(got, "Alice is vegetarian") || !strings.Contains(got, "Alice is vegan") {
		t.Errorf("history lacks before and after: %q", got)
	}
	b.run("revert", chromedp.Click(`article.memory[data-key="diet"] li[data-event]:first-child button[data-action="revert"]`),
		chromedp.WaitVisible(`dialog[open] button[data-confirm]`), chromedp.Click(`dialog[open] button[data-confirm]`))
	wait.Until(t, 30*time.Second, "the API sees the revert", func() bool {
		return consoleContent(t, srv, user, "diet") == "Alice is vegetarian"
	})
	b.run("reverted in the page", chromedp.WaitVisible(`article.memory[data-key="diet"]`))
	wait.Until(t, 10*time.Second, "the page shows the reverted memory", func() bool {
		return b.text(`article.memory[data-key="diet"] .content`) == "Alice is vegetarian"
	})

	// Delete, first cancelled with the keyboard, then confirmed.
	b.run("delete, cancelled", chromedp.Focus(`article.memory[data-key="city"] button[data-action="delete"]`),
		chromedp.KeyEvent("\r"), chromedp.WaitVisible(`dialog[open]`), chromedp.KeyEvent("\x1b"), chromedp.WaitNotPresent(`dialog`))
	if consoleContent(t, srv, user, "city") != "Alice lives in Wuhan" {
		t.Fatal("Escape in the confirmation deleted the memory")
	}
	b.run("delete", chromedp.Click(`article.memory[data-key="city"] button[data-action="delete"]`),
		chromedp.WaitVisible(`dialog[open] button[data-confirm]`), chromedp.Click(`dialog[open] button[data-confirm]`),
		chromedp.WaitNotPresent(`article.memory[data-key="city"]`))
	if code := srv.Do(http.MethodGet, "/v1/users/"+user+"/memories/city", nil, nil); code != http.StatusNotFound {
		t.Errorf("GET the deleted memory = %d, want 404", code)
	}

	// Purge: the memory and its history's content are gone; one PURGE event stays.
	b.run("purge", chromedp.Click(`article.memory[data-key="old"] button[data-action="purge"]`),
		chromedp.WaitVisible(`dialog[open] button[data-confirm]`), chromedp.Click(`dialog[open] button[data-confirm]`),
		chromedp.WaitNotPresent(`article.memory[data-key="old"]`))
	var hist struct {
		Events []struct {
			Op    string `json:"op"`
			After struct {
				Content string `json:"content"`
			} `json:"after"`
		} `json:"events"`
	}
	srv.Do(http.MethodGet, "/v1/users/"+user+"/memories/old/history", nil, &hist)
	if len(hist.Events) != 1 || hist.Events[0].Op != "PURGE" || hist.Events[0].After.Content != "" {
		t.Errorf("history after the console's purge: %+v", hist.Events)
	}

	// Filter by text, then show all again.
	b.run("filter by text", chromedp.SendKeys(`#mem-q`, "green\r"), chromedp.WaitNotPresent(`article.memory[data-key="diet"]`),
		chromedp.WaitVisible(`article.memory[data-key="tea"]`))
	b.run("filter by type", chromedp.Evaluate(`document.getElementById("mem-q").value = ""`, nil),
		chromedp.SetValue(`#mem-type`, "preference"), chromedp.SendKeys(`#mem-q`, "\r"),
		chromedp.WaitVisible(`article.memory[data-key="tea"]`), chromedp.WaitNotPresent(`article.memory[data-key="markup"]`))

	// Traces: the user's latest, and one by id.
	b.run("traces page", chromedp.Navigate(base+"/users/"+user+"/traces"), chromedp.WaitVisible(`.trace table.candidates`))
	tr := b.text(`.trace`)
	for _, want := range []string{"what does alice eat", "kept", "dropped", "limit", "Alice is vegan", "What should I cook tonight?"} {
		if !strings.Contains(tr, want) {
			t.Errorf("the latest trace lacks %q:\n%s", want, tr)
		}
	}
	var segments int
	b.run("budget bar", chromedp.Evaluate(`[...document.querySelectorAll('.trace .bar .seg')].filter(s => s.getBoundingClientRect().width > 0).length`, &segments))
	if segments < 2 {
		t.Errorf("the budget bar draws %d sections, want recent and memories", segments)
	}
	b.shot(name, "traces", 1280, "#latest .trace > h3")
	listed := `#list tr[data-trace="` + ctxOut.TraceID + `"] a`
	b.run("the list of traces", chromedp.WaitVisible(listed))
	if got := b.text(`#list tbody`); !strings.Contains(got, "what does alice eat") {
		t.Errorf("the list of the user's traces lacks the question: %q", got)
	}
	var href string
	b.run("the listed trace's link", chromedp.Evaluate(`document.querySelector('`+listed+`').getAttribute('href')`, &href))
	if !strings.HasSuffix(href, "/console/traces/"+ctxOut.TraceID) {
		t.Errorf("the listed trace links to %q", href)
	}
	b.run("run a context call", chromedp.SendKeys(`#ctx-q`, "green tea\r"), chromedp.WaitVisible(`#run pre.block`))
	if got := b.text(`#run pre.block`); !strings.Contains(got, "green tea") {
		t.Errorf("the block of the console's context call: %q", got)
	}
	b.run("trace page", chromedp.Navigate(base+"/traces/"+ctxOut.TraceID), chromedp.WaitVisible(`.trace table.candidates`))
	if got := b.text(`.trace`); !strings.Contains(got, "what does alice eat") || !strings.Contains(got, "total") {
		t.Errorf("the trace page lacks the question or the timings: %q", got)
	}

	// Operations.
	b.run("ops page", chromedp.Navigate(base+"/ops"), chromedp.WaitVisible(`#process dl`), chromedp.WaitVisible(`#backlogs table`),
		chromedp.WaitVisible(`#llm tr[data-stage="extract"]`))
	ops := b.text(`main`)
	for _, want := range []string{"api", "worker", "vector backend", "breaker", "closed", "extraction: messages pending", "LLM calls by stage"} {
		if !strings.Contains(ops, want) {
			t.Errorf("the operations page lacks %q:\n%s", want, ops)
		}
	}
	b.shot(name, "ops", 1280)

	// 390 px wide: nothing wider than the screen.
	for _, path := range []string{"", "/users/" + user, "/users/" + user + "/traces", "/ops"} {
		b.run("narrow "+path, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+path), chromedp.WaitVisible(`body[data-ready="true"]`))
		var width int
		b.run("width", chromedp.Evaluate(`document.documentElement.scrollWidth`, &width))
		if width > 390 {
			t.Errorf("%s at 390 px is %d px wide", base+path, width)
		}
	}
	b.run("narrow user", chromedp.Navigate(base+"/users/"+user), chromedp.WaitVisible(`article.memory[data-key="diet"]`))
	b.shot(name, "user-390", 390)
	b.run("wide again", chromedp.EmulateViewport(1280, 900))

	// Erase a user: typed confirmation, then the job to its end.
	b.run("erase", chromedp.Navigate(base+"/users/erin"), chromedp.WaitVisible(`article.memory[data-key="city"]`),
		chromedp.SendKeys(`#erase-confirm`, "erin"), chromedp.Click(`#erase button[type="submit"]`),
		chromedp.WaitVisible(`.job[data-status="DONE"]`, chromedp.ByQuery))
	var jobID string
	var ok bool
	b.run("job id", chromedp.AttributeValue(`.job`, "data-job", &jobID, &ok))
	var job struct {
		Status string           `json:"status"`
		Counts map[string]int64 `json:"counts"`
	}
	if code := srv.Do(http.MethodGet, "/v1/jobs/"+jobID, nil, &job); code != http.StatusOK || job.Status != "DONE" || job.Counts["memories"] != 1 {
		t.Errorf("the console's erasure job: %d %+v", code, job)
	}
	if code := srv.Do(http.MethodGet, "/v1/users/erin/memories/city", nil, nil); code != http.StatusNotFound {
		t.Errorf("the erased user's memory: %d, want 404", code)
	}
	b.shot(name, "erased", 1280, "#erase")

	// Pin, then unpin.
	b.run("back to the user", chromedp.Navigate(base+"/users/"+user), chromedp.WaitVisible(`article.memory[data-key="tea"]`))
	b.run("pin", chromedp.Click(`article.memory[data-key="tea"] button[data-action="pin"]`))
	wait.Until(t, 30*time.Second, "the API sees the memory pinned", func() bool { return consolePinned(t, srv, user, "tea") })
	b.run("pinned in the page", chromedp.WaitVisible(`article.memory[data-key="tea"] .badge.pinned`))
	b.run("unpin", chromedp.Click(`article.memory[data-key="tea"] button[data-action="unpin"]`))
	wait.Until(t, 30*time.Second, "the API sees the memory unpinned", func() bool { return !consolePinned(t, srv, user, "tea") })
	b.run("unpinned in the page", chromedp.WaitVisible(`article.memory[data-key="tea"] button[data-action="pin"]`))
	b.checkClean()
}

func consoleSave(t *testing.T, srv *Server, user, key, typ, content string, headers ...string) {
	t.Helper()
	if code := srv.Do(http.MethodPut, "/v1/users/"+user+"/memories/"+key, map[string]any{"type": typ, "content": content}, nil, headers...); code/100 != 2 {
		t.Fatalf("save %s/%s: %d", user, key, code)
	}
}

func consoleContent(t *testing.T, srv *Server, user, key string) string {
	var m struct {
		Content string `json:"content"`
	}
	srv.Do(http.MethodGet, "/v1/users/"+user+"/memories/"+key, nil, &m)
	return m.Content
}

func consolePinned(t *testing.T, srv *Server, user, key string) bool {
	var m struct {
		Pinned bool `json:"pinned"`
	}
	srv.Do(http.MethodGet, "/v1/users/"+user+"/memories/"+key, nil, &m)
	return m.Pinned
}

// browser is one headless Chromium tab that may reach the server under test only.
type browser struct {
	t   *testing.T
	ctx context.Context
	srv *Server

	mu       sync.Mutex
	problems []string // script errors, policy violations, dialogs, requests elsewhere
}

func newBrowser(t *testing.T, srv *Server) *browser {
	t.Helper()
	exec := chromium(t)
	// Chromium's helper processes may still write to its profile when the tab is
	// gone: the directory is removed once the browser has closed, and whatever a
	// straggler leaves is no failure of the console.
	profile, err := os.MkdirTemp("", "engram-console-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exec), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		_ = chromedp.Cancel(tab) // closes the browser and waits for it
		cancelTab()
		cancelAlloc()
		_ = os.RemoveAll(profile)
	})
	// The first Run starts the browser and binds it to the context it is given:
	// the tab's own, not one of the steps' shorter ones.
	if err := chromedp.Run(tab, network.Enable(), log.Enable(), runtime.Enable()); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancelTime := context.WithTimeout(tab, 5*time.Minute)
	t.Cleanup(cancelTime)
	b := &browser{t: t, ctx: ctx, srv: srv}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.problem("script error: " + e.ExceptionDetails.Text + " " + describe(e.ExceptionDetails.Exception))
		case *log.EventEntryAdded:
			if strings.Contains(e.Entry.Text, "Content Security Policy") {
				b.problem("policy violation: " + e.Entry.Text)
			}
		case *page.EventJavascriptDialogOpening:
			b.problem("a script opened a dialog: " + e.Message)
			go func() { _ = chromedp.Run(ctx, page.HandleJavaScriptDialog(false)) }()
		case *network.EventRequestWillBeSent:
			if !strings.HasPrefix(e.Request.URL, srv.Base) && !strings.HasPrefix(e.Request.URL, "data:") {
				b.problem("request to another host: " + e.Request.URL)
			}
		}
	})
	return b
}

func describe(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	return o.Description
}

func (b *browser) problem(p string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, p)
}

// checkClean fails the test for any script error, policy violation, dialog or
// request to another host seen so far.
func (b *browser) checkClean() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Error(p)
	}
}

func (b *browser) run(step string, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 90*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		var body string
		_ = chromedp.Run(b.ctx, chromedp.Text(`body`, &body, chromedp.ByQuery))
		b.checkClean()
		b.t.Fatalf("%s: %v\npage text: %.4000s", step, err, body)
	}
}

// text is the rendered text of the first element sel matches.
func (b *browser) text(sel string) string {
	b.t.Helper()
	var s string
	b.run("read "+sel, chromedp.Text(sel, &s, chromedp.ByQuery, chromedp.NodeVisible))
	return strings.TrimSpace(s)
}

// shot saves a PNG of the whole page as console-<run>-<page>.png in the
// artifacts directory.
func (b *browser) shot(run, name string, width int64, from ...string) {
	b.t.Helper()
	dir := os.Getenv("ENGRAM_TEST_ARTIFACTS_DIR")
	if dir == "" {
		dir = b.t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	var png []byte
	top := 0.0
	if len(from) > 0 { // the shot starts at that element
		b.run("top of "+from[0], chromedp.Evaluate(`document.querySelector(`+strconv.Quote(from[0])+`).getBoundingClientRect().top + window.scrollY`, &top))
	}
	b.run("screenshot "+name, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		png, err = page.CaptureScreenshot().WithFormat(page.CaptureScreenshotFormatPng).WithCaptureBeyondViewport(true).
			WithClip(&page.Viewport{X: 0, Y: top, Width: float64(width), Height: 900, Scale: 1}).Do(ctx)
		return err
	}))
	path := filepath.Join(dir, "console-"+run+"-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
}
