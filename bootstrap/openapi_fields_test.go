package bootstrap

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// fieldSchema is the part of a JSON Schema the body-field rule reads.
type fieldSchema struct {
	Ref         string                  `json:"$ref"`
	Description string                  `json:"description"`
	Properties  map[string]*fieldSchema `json:"properties"`
	Items       *fieldSchema            `json:"items"`
}

type fieldsDoc struct {
	Paths map[string]map[string]struct {
		RequestBody *struct {
			Content map[string]struct {
				Schema *fieldSchema `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
	} `json:"paths"`
	Components struct {
		Schemas map[string]*fieldSchema `json:"schemas"`
	} `json:"components"`
}

// bodyFieldGaps lists every field of a /v1 request body (nested objects and array
// items included) that has no description, on itself or on the schema it refers
// to: a client reads what to send from the document.
func bodyFieldGaps(raw []byte) ([]string, error) {
	var doc fieldsDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	resolve := func(s *fieldSchema) (string, *fieldSchema) {
		if s == nil || s.Ref == "" {
			return "", s
		}
		name := s.Ref[strings.LastIndex(s.Ref, "/")+1:]
		return name, doc.Components.Schemas[name]
	}
	gaps := map[string]bool{}
	var walk func(where string, s *fieldSchema, seen map[string]bool)
	walk = func(where string, s *fieldSchema, seen map[string]bool) {
		name, s := resolve(s)
		if s == nil || seen[name] {
			return
		}
		if name != "" {
			seen[name] = true
			defer delete(seen, name)
		}
		if s.Items != nil {
			walk(where+"[]", s.Items, seen)
		}
		for field, p := range s.Properties {
			if _, target := resolve(p); p.Description == "" && (target == nil || target.Description == "") {
				gaps[fmt.Sprintf("%s.%s has no description", where, field)] = true
			}
			walk(where+"."+field, p, seen)
		}
	}
	for path, methods := range doc.Paths {
		if !strings.HasPrefix(path, "/v1/") {
			continue
		}
		for method, op := range methods {
			if op.RequestBody == nil {
				continue
			}
			for _, c := range op.RequestBody.Content {
				walk(strings.ToUpper(method)+" "+path+" body", c.Schema, map[string]bool{})
			}
		}
	}
	out := make([]string, 0, len(gaps))
	for g := range gaps {
		out = append(out, g)
	}
	sort.Strings(out)
	return out, nil
}

// Every field of every request body the running server documents says what it is.
func TestOpenAPI_everyRequestBodyFieldHasADescription(t *testing.T) {
	t.Parallel()
	c := probeClient{t: t, base: "http://" + startServer(t)}
	status, body := c.do("GET", "/openapi.json", "")
	if status != 200 {
		t.Fatalf("GET /openapi.json = %d", status)
	}
	gaps, err := bodyFieldGaps([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gaps {
		t.Error(g)
	}
}

// The rule finds an undescribed field at the top of a body, in a referenced
// object and in an array's items, and passes a field described on its reference.
func TestBodyFieldGaps_findsUndescribedFields(t *testing.T) {
	t.Parallel()
	gaps, err := bodyFieldGaps([]byte(`{
		"paths": {"/v1/things": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Req"}}}}}},
		"/probe": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Req"}}}}}}},
		"components": {"schemas": {
			"Req": {"properties": {"bare": {"type": "string"}, "ok": {"type": "string", "description": "d"},
				"inner": {"$ref": "#/components/schemas/Inner"}, "list": {"description": "d", "items": {"$ref": "#/components/schemas/Inner"}},
				"self": {"description": "d", "$ref": "#/components/schemas/Req"}}},
			"Inner": {"description": "an inner thing", "properties": {"deep": {"type": "integer"}}}
		}}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"POST /v1/things body.bare has no description", "POST /v1/things body.inner.deep has no description",
		"POST /v1/things body.list[].deep has no description"}
	if strings.Join(gaps, "\n") != strings.Join(want, "\n") {
		t.Errorf("gaps:\n%s\nwant:\n%s", strings.Join(gaps, "\n"), strings.Join(want, "\n"))
	}
}
