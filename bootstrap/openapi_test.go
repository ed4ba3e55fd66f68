package bootstrap

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
)

// openAPIDoc is the part of an OpenAPI 3.1 document the completeness rules read.
type openAPIDoc struct {
	Servers []struct {
		URL string `json:"url"`
	} `json:"servers"`
	Tags []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"tags"`
	Paths map[string]map[string]openAPIOperation `json:"paths"`
}

type openAPIOperation struct {
	OperationID string              `json:"operationId"`
	Summary     string              `json:"summary"`
	Description string              `json:"description"`
	Tags        []string            `json:"tags"`
	Security    []map[string]any    `json:"security"`
	RequestBody *json.RawMessage    `json:"requestBody"`
	Parameters  []openAPIParameter  `json:"parameters"`
	Responses   map[string]response `json:"responses"`
	// Facade names the compatibility surface of an operation (httpapi.MountFacade),
	// which checks its own input in its client's wire format.
	Facade string `json:"x-facade"`
}

type openAPIParameter struct {
	Name        string `json:"name"`
	In          string `json:"in"`
	Description string `json:"description"`
}

type response struct {
	Description string `json:"description"`
	Content     map[string]struct {
		Schema json.RawMessage `json:"schema"`
	} `json:"content"`
}

func (r response) hasSchema() bool {
	for _, c := range r.Content {
		if len(c.Schema) > 0 && string(c.Schema) != "null" {
			return true
		}
	}
	return false
}

// expectedErrors is the documentation rule (adapters/httpapi/openapi.go): every /v1
// operation can answer 401 (no key), 422 (a string the edge refuses), 500 and 503;
// one with a body also 400 (malformed), 408 (slow), 413 (too large) and 415 (not
// JSON); one whose path names an object besides the user also 404.
func expectedErrors(path string, op openAPIOperation) []string {
	codes := []string{"401", "422", "500", "503"}
	if op.RequestBody != nil {
		codes = append(codes, "400", "408", "413", "415")
	}
	for _, p := range op.Parameters {
		if p.In == "path" && p.Name != "user" {
			codes = append(codes, "404")
			break
		}
	}
	return codes
}

// openAPIGaps walks the document and lists every gap: the operations are read from
// the document itself, so an endpoint any module adds later is held to the rules.
func openAPIGaps(doc openAPIDoc) []string {
	var gaps []string
	gap := func(format string, args ...any) { gaps = append(gaps, fmt.Sprintf(format, args...)) }
	if len(doc.Servers) == 0 {
		gap("the document has no servers")
	}
	described := map[string]bool{}
	for _, tag := range doc.Tags {
		described[tag.Name] = tag.Description != ""
	}
	for path, methods := range doc.Paths {
		for method, op := range methods {
			name := strings.ToUpper(method) + " " + path
			if op.Description == "" {
				gap("%s has no description", name)
			}
			for _, tag := range op.Tags {
				if !described[tag] {
					gap("%s: tag %q has no description", name, tag)
				}
			}
			for _, p := range op.Parameters {
				if p.Description == "" {
					gap("%s: %s parameter %q has no description", name, p.In, p.Name)
				}
			}
			if op.Facade != "" {
				gaps = append(gaps, facadeGaps(name, op)...)
				continue
			}
			if !strings.HasPrefix(path, "/v1/") {
				if len(op.Parameters) > 0 || op.RequestBody != nil {
					gap("%s takes input outside /v1, where the edge's input checks do not run", name)
				}
				continue
			}
			if len(op.Security) == 0 {
				gap("%s does not say it needs the bearer key", name)
			}
			for _, code := range expectedErrors(path, op) {
				if _, ok := op.Responses[code]; !ok {
					gap("%s does not list %s", name, code)
				}
			}
			for code, r := range op.Responses {
				switch {
				case code == "default":
					gap("%s has a catch-all default response instead of its statuses", name)
				case code == "204":
				case !r.hasSchema():
					gap("%s: response %s has no schema", name, code)
				}
			}
		}
	}
	sort.Strings(gaps)
	return gaps
}

// facadeGaps are the rules of a facade's operation: it says it needs a key,
// lists 401, and every response has a schema.
func facadeGaps(name string, op openAPIOperation) []string {
	var gaps []string
	if len(op.Security) == 0 {
		gaps = append(gaps, name+" does not say it needs a key")
	}
	if _, ok := op.Responses["401"]; !ok {
		gaps = append(gaps, name+" does not list 401")
	}
	for code, r := range op.Responses {
		if !r.hasSchema() {
			gaps = append(gaps, name+": response "+code+" has no schema")
		}
	}
	return gaps
}

// The document the running server serves is complete: every operation of every
// module the app registers (all roles run) is checked.
func TestOpenAPI_everyOperationDocumentsItsStatusesSchemasAndDescriptions(t *testing.T) {
	t.Parallel()
	addr := startServer(t)
	resp, err := http.Get("http://" + addr + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc openAPIDoc
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var v1 []string
	for path, methods := range doc.Paths {
		for method := range methods {
			if strings.HasPrefix(path, "/v1/") {
				v1 = append(v1, method+" "+path)
			}
		}
	}
	// The rules must have something to check: the operations of steps 1-3 at least.
	for _, want := range []string{"put /v1/users/{user}/memories/{key}", "post /v1/users/{user}/messages",
		"post /v1/users/{user}/search", "get /v1/jobs/{job_id}", "post /v1/admin/reindex",
		"get /v1/tools", "post /v1/users/{user}/tools/{name}"} {
		if !slices.Contains(v1, want) {
			t.Errorf("the document lacks %s; it has %v", want, v1)
		}
	}
	for _, g := range openAPIGaps(doc) {
		t.Error(g)
	}
}

// The rules themselves catch each kind of gap.
func TestOpenAPIGaps_findsEachKindOfGap(t *testing.T) {
	t.Parallel()
	var doc openAPIDoc
	if err := json.Unmarshal([]byte(`{
		"tags": [{"name": "memories"}],
		"paths": {"/probe": {"get": {"description": "d", "parameters": [{"name": "q", "in": "query", "description": "d"}], "responses": {}}},
		"/v1/users/{user}/things/{id}": {"put": {
			"tags": ["memories"],
			"parameters": [{"name": "user", "in": "path"}, {"name": "id", "in": "path", "description": "x"}],
			"requestBody": {},
			"responses": {"200": {"description": "OK"}, "201": {"description": "Created"}, "default": {"description": "Error"}}
		}}}
	}`), &doc); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(openAPIGaps(doc), "\n")
	for _, want := range []string{"no servers", "has no description", `tag "memories" has no description`,
		`path parameter "user" has no description`, "needs the bearer key", "does not list 401", "does not list 404",
		"does not list 415", "response 201 has no schema", "catch-all default", "GET /probe takes input outside /v1"} {
		if !strings.Contains(got, want) {
			t.Errorf("the gaps do not mention %q:\n%s", want, got)
		}
	}
}
