package e2e

import (
	"context"
	"html"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium finds a headless-capable Chromium. Absent, the test skips on a
// developer's machine and fails where the services are required (CI installs the
// Debian package chromium through test/services.sh).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("ENGRAM_TEST_REQUIRE_SERVICES") != "" {
		t.Fatal("chromium is not installed and ENGRAM_TEST_REQUIRE_SERVICES is set: apt-get install -y chromium (test/services.sh up does)")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium); set ENGRAM_TEST_REQUIRE_SERVICES=1 to make this a failure")
	return ""
}

// renderedText loads url in headless Chromium with every host name unresolvable
// but 127.0.0.1, so a page that needs a CDN renders nothing, and returns the
// text of the DOM once scripts have run.
func renderedText(t *testing.T, browser, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir="+t.TempDir(),
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
		"--virtual-time-budget=15000", "--dump-dom", url)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom %s: %v\n%s", url, err, stderr.String())
	}
	dom := regexp.MustCompile(`(?s)<(script|style)\b.*?</(script|style)>`).ReplaceAllString(string(out), " ")
	text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(dom, " ")
	return strings.Join(strings.Fields(html.UnescapeString(text)), " ")
}

// TestDocs_rendersOperationsOfflineInChromium loads /docs as a person would, in a
// browser that cannot reach any other host, and finds the memory operations of
// the running server's OpenAPI document rendered: their summaries in the sidebar,
// the chosen operation's path in the page.
func TestDocs_rendersOperationsOfflineInChromium(t *testing.T) {
	browser := chromium(t)
	srv := Start(t, "ENGRAM_DATA_DIR="+t.TempDir())

	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string   `json:"operationId"`
			Summary     string   `json:"summary"`
			Tags        []string `json:"tags"`
		} `json:"paths"`
	}
	if code := srv.Do(http.MethodGet, "/openapi.json", nil, &doc); code != http.StatusOK {
		t.Fatalf("GET /openapi.json = %d", code)
	}
	var summaries []string
	savePath := ""
	for path, ops := range doc.Paths {
		for _, op := range ops {
			if len(op.Tags) > 0 && op.Tags[0] == "memories" {
				summaries = append(summaries, op.Summary)
			}
			if op.OperationID == "memory_save" {
				savePath = path
			}
		}
	}
	if len(summaries) < 5 || savePath == "" {
		t.Fatalf("the document has %d memory operations and memory_save at %q", len(summaries), savePath)
	}

	text := renderedText(t, browser, srv.Base+"/docs#/operations/memory_save")
	for _, s := range summaries {
		if !strings.Contains(text, s) {
			t.Errorf("operation %q is not rendered", s)
		}
	}
	if !strings.Contains(text, savePath) {
		t.Errorf("memory_save's path %s is not rendered", savePath)
	}
	if t.Failed() {
		t.Logf("rendered text: %.3000s", text)
	}
}
