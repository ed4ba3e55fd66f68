package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestStrictInput_refusesWhatALenientDecoderWouldMisread(t *testing.T) {
	t.Parallel()
	s := newEdgeServer(t, nil)
	cases := []struct {
		name, method, path, body string
		status                   int
		location, says           string
	}{
		{"a typo'd filter", http.MethodGet, "/v1/users/u/memories?q=tea&limt=5", "", 400, "query.limt", "did you mean limit?"},
		{"a parameter in the wrong case", http.MethodGet, "/v1/users/u/memories?Limit=5", "", 400, "query.Limit", "case-sensitive: did you mean limit?"},
		{"a typo'd delete option", http.MethodDelete, "/v1/users/u/memories/diet?prge=true", "", 400, "query.prge", "did you mean purge?"},
		{"an unknown parameter far from any", http.MethodGet, "/v1/users/u/memories?zzzzzzzz=1", "", 400, "query.zzzzzzzz", "its parameters are "},
		{"a repeated field", http.MethodPut, "/v1/users/u/memories/diet", `{"type":"fact","content":"a","content":"b"}`, 400, "body.content", "more than once"},
		{"fields in the wrong case", http.MethodPut, "/v1/users/u/memories/diet", `{"TYPE":"fact","CoNtEnT":"a"}`, 400, "body.TYPE", "case-sensitive, send type"},
		{"a repeated field deep down", http.MethodPost, "/v1/users/u/messages", `{"conversation_id":"c","role":"user","content":"x","metadata":{"a":1,"a":2}}`, 400, "body.metadata.a", "more than once"},
		{"a repeated field after a nested object", http.MethodPost, "/v1/users/u/messages", `{"conversation_id":"c","metadata":{"a":[1,{"b":2}]},"role":"user","content":"x","content":"y"}`, 400, "body.content", "more than once"},
		{"a wrong-case field after a nested object", http.MethodPost, "/v1/users/u/messages", `{"conversation_id":"c","metadata":{"a":{}},"Role":"user","content":"x"}`, 400, "body.Role", "case-sensitive, send role"},
		{"a number no float holds", http.MethodPut, "/v1/users/u/memories/diet", `{"type":"fact","content":"a","importance":1e309}`, 422, "body.importance", "out of range"},
		{"a negative number no float holds", http.MethodPut, "/v1/users/u/memories/diet", `{"type":"fact","content":"a","confidence":-1e400}`, 422, "body.confidence", "out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := s.do(t, c.method, c.path, c.body)
			p := expectProblem(t, resp, c.status, c.location)
			if !strings.Contains(p.Detail, c.says) {
				t.Errorf("detail %q does not say %q", p.Detail, c.says)
			}
		})
	}
}

func TestStrictInput_takesWhatIsExact(t *testing.T) {
	t.Parallel()
	s := newEdgeServer(t, nil)
	if resp := s.do(t, http.MethodPut, "/v1/users/u/memories/diet", `{"type":"fact","content":"vegetarian","importance":4,"confidence":1e-300}`); resp.Code != http.StatusCreated {
		t.Fatalf("exact body: %d %s", resp.Code, resp.Body.String())
	}
	if resp := s.do(t, http.MethodGet, "/v1/users/u/memories?limit=5&q=veg", ""); resp.Code != http.StatusOK {
		t.Fatalf("declared parameters: %d %s", resp.Code, resp.Body.String())
	}
}
