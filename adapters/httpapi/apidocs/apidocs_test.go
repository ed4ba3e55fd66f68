package apidocs

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

func TestHandler_pageLoadsOnlyEmbeddedFilesAndTheSpec(t *testing.T) {
	t.Parallel()
	h := Handler(Options{Title: "engram", Path: "/docs", Spec: "/openapi.json"})
	res, body := get(t, h, "/docs")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs = %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if !strings.Contains(body, `apiDescriptionUrl="/openapi.json"`) {
		t.Errorf("the page does not read /openapi.json:\n%s", body)
	}
	// Every script, stylesheet and link the page loads is on this server.
	refs := regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(body, -1)
	if len(refs) < 2 {
		t.Fatalf("found %d references in the page, want the script and the stylesheet at least", len(refs))
	}
	for _, ref := range refs {
		if !strings.HasPrefix(ref[1], "/") || strings.HasPrefix(ref[1], "//") {
			t.Errorf("the page loads %q, which is not on this server", ref[1])
		}
	}
}

func TestHandler_servesTheViewerWithItsTypes(t *testing.T) {
	t.Parallel()
	h := Handler(Options{Title: "engram", Path: "/docs", Spec: "/openapi.json"})
	for path, want := range map[string]string{
		"/docs/assets/elements.min.js":  "text/javascript",
		"/docs/assets/elements.min.css": "text/css",
		"/docs/assets/LICENSE":          "text/plain",
	} {
		res, body := get(t, h, path)
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), want) {
			t.Errorf("GET %s = %d %q, want 200 %s", path, res.StatusCode, res.Header.Get("Content-Type"), want)
		}
		if len(body) == 0 {
			t.Errorf("GET %s: empty body", path)
		}
	}
	if res, _ := get(t, h, "/docs/assets/nothing.js"); res.StatusCode != http.StatusNotFound {
		t.Errorf("a missing asset = %d, want 404", res.StatusCode)
	}
}

func TestHandler_licenceIsShippedWithTheViewer(t *testing.T) {
	t.Parallel()
	_, licence := get(t, Handler(Options{Path: "/docs", Spec: "/openapi.json"}), "/docs/assets/LICENSE")
	if !strings.Contains(licence, "Apache License") {
		t.Errorf("assets/LICENSE is not the viewer's Apache licence:\n%.200s", licence)
	}
}
