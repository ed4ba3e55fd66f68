package httpapi

import (
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"engram/ports"
)

// The errors every /v1 operation can return, whatever it does: a missing or wrong
// key (401), an input string hygiene refuses (422), a key over its rate limit
// (429), a failure of engram (500) or of the truth store it needs (503).
var errorsOfEveryOperation = []int{http.StatusUnauthorized, http.StatusUnprocessableEntity,
	http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable}

// The errors of an operation that takes a body: malformed JSON or an unreadable
// body (400), a body that does not arrive in time (408), one over the limit (413),
// one that is not JSON (415).
var errorsOfABody = []int{http.StatusBadRequest, http.StatusRequestTimeout,
	http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType}

// refusedWhileErasing is the answer to a write of a user being erased (problem of
// a *ports.ErasingError): every operation that writes a user's data lists it.
var refusedWhileErasing = StatusOf(&ports.ErasingError{})

// documentCommonErrors is the /v1 group's modifier: it marks the operation as
// authenticated and documents, with the problem schema, each status the edge can
// answer it with (404 when the path names an object besides the user, 403 unless
// it serves no user's data), so that a
// generated client knows every status of every operation. A success status the
// operation declared without a body (the 201 of a save, the 200 of a repeated
// message) gets the schema of its default status: huma writes one body type.
func documentCommonErrors(registry huma.Registry) func(*huma.Operation, func(*huma.Operation)) {
	return func(op *huma.Operation, next func(*huma.Operation)) {
		op.Security = []map[string][]string{{"bearer": {}}}
		codes := slices.Clone(errorsOfEveryOperation)
		if op.RequestBody != nil {
			codes = append(codes, errorsOfABody...)
		}
		if namesAnObject(op) {
			codes = append(codes, http.StatusNotFound)
		}
		if op.Metadata[reachMetadata] != reachNoUserData {
			codes = append(codes, http.StatusForbidden) // a user-scoped key naming another user, or a tenant-wide operation
		}
		for _, code := range codes {
			documentError(op, registry, code)
		}
		if r := op.Responses["default"]; r != nil && len(codes) > 0 {
			delete(op.Responses, "default") // every error is listed by its status now
		}
		fillSuccessBodies(op)
		next(op)
	}
}

// namesAnObject reports whether the path has a parameter besides {user}: a key, a
// message id, a job id… that may not exist.
func namesAnObject(op *huma.Operation) bool {
	for _, p := range op.Parameters {
		if p.In == "path" && p.Name != "user" {
			return true
		}
	}
	return false
}

func documentError(op *huma.Operation, registry huma.Registry, code int) {
	status := strconv.Itoa(code)
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	if _, ok := op.Responses[status]; ok {
		return
	}
	problemType := reflect.TypeFor[Problem]()
	op.Responses[status] = &huma.Response{
		Description: http.StatusText(code),
		Content: map[string]*huma.MediaType{
			"application/problem+json": {Schema: registry.Schema(problemType, true, "Problem")},
		},
	}
}

func fillSuccessBodies(op *huma.Operation) {
	def := op.Responses[strconv.Itoa(op.DefaultStatus)]
	if def == nil || len(def.Content) == 0 {
		return
	}
	for status, r := range op.Responses {
		code, err := strconv.Atoi(status)
		if err != nil || code < 200 || code >= 300 || code == http.StatusNoContent || len(r.Content) > 0 {
			continue
		}
		r.Content = maps.Clone(def.Content)
	}
}

// describeTag gives a tag its description in the document; each Register* names
// its own tags, so that a module added later documents its tag where it lives.
func describeTag(api huma.API, name, description string) {
	oapi := api.OpenAPI()
	for _, t := range oapi.Tags {
		if t.Name == name {
			t.Description = description
			return
		}
	}
	oapi.Tags = append(oapi.Tags, &huma.Tag{Name: name, Description: description})
}
