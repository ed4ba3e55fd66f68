package httpapi

import (
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// Facade is a compatibility surface whose operations are named one by one: each
// is counted in the HTTP metrics under its own name and listed in the OpenAPI
// document under the facade's tag, while the facade keeps its client's wire
// format (its own error bodies, its own input checks).
type Facade struct {
	Tag         string // the OpenAPI tag of every operation
	Description string // the tag's description
	// Scheme is the Authorization scheme the facade's clients send instead of
	// Bearer ("Token" for mem0's); the key after it is checked as any key.
	Scheme string
	// ClientHeader names the request header in which clients state their
	// version; the access log records it as "client".
	ClientHeader string
	Operations   []FacadeOperation
	// Prefix and Fallback: Fallback answers every request under Prefix that no
	// operation routes (authenticated first), counted as Tag+"_unsupported".
	Prefix   string
	Fallback http.Handler
	Refuse   Refusal
}

// FacadeOperation is one route of a facade.
type FacadeOperation struct {
	ID          string // operation id, and the name the metrics count it by
	Method      string
	Path        string // with {name} segments, as the mux and OpenAPI write them
	Summary     string
	Description string
	Params      map[string]string // description of each path and query parameter by name
	Query       []string          // the query parameters it reads
	Body        any               // a value of the request body's type; nil: no body
	Response    any               // a value of the 200 body's type
	Handler     http.Handler
}

// facadeErrors are the statuses every facade operation can answer, besides 200.
var facadeErrors = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound,
	http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity, http.StatusTooManyRequests,
	http.StatusInternalServerError, http.StatusServiceUnavailable}

// FacadeError is the error body of a facade in the document: what its clients
// read (mem0's clients read "detail").
type FacadeError struct {
	Detail string `json:"detail" doc:"What went wrong and what to change."`
}

// MountFacade serves and documents a facade. Each operation runs through the
// edge like MountCompat's routes: authenticated and rate limited, users named in
// headers checked against the key.
func MountFacade(api *API, f Facade) {
	describeTag(api.Root, f.Tag, f.Description)
	for _, op := range f.Operations {
		api.mux.Handle(op.Method+" "+op.Path, f.serve(api, op.ID, op.Handler))
		documentFacadeOperation(api.Root.OpenAPI(), f, op)
	}
	if f.Fallback != nil {
		api.mux.Handle(f.Prefix+"/", f.serve(api, f.Tag+"_unsupported", f.Fallback))
	}
}

func (f Facade) serve(api *API, operation string, h http.Handler) http.Handler {
	inner := observed(api.opts.Observer, operation,
		authenticated(api.authn, api.limits, api.opts.Logger, f.Refuse, reachNamedUsers(f.Refuse, h)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if x := exchangeFrom(r.Context()); x != nil && f.ClientHeader != "" {
			x.client = clipText(r.Header.Get(f.ClientHeader), maxEcho)
		}
		if f.Scheme != "" {
			if scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, f.Scheme) {
				r = r.Clone(r.Context())
				r.Header.Set("Authorization", "Bearer "+key)
			}
		}
		inner.ServeHTTP(w, r)
	})
}

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

func documentFacadeOperation(doc *huma.OpenAPI, f Facade, op FacadeOperation) {
	registry := doc.Components.Schemas
	o := &huma.Operation{OperationID: op.ID, Method: op.Method, Path: op.Path, Summary: op.Summary,
		Description: op.Description, Tags: []string{f.Tag}, Security: []map[string][]string{{"token": {}}},
		Responses: map[string]*huma.Response{}, Extensions: map[string]any{"x-facade": f.Tag}}
	for _, m := range pathParam.FindAllStringSubmatch(op.Path, -1) {
		o.Parameters = append(o.Parameters, &huma.Param{Name: m[1], In: "path", Required: true,
			Description: op.Params[m[1]], Schema: &huma.Schema{Type: "string"}})
	}
	for _, name := range op.Query {
		o.Parameters = append(o.Parameters, &huma.Param{Name: name, In: "query", Description: op.Params[name],
			Schema: &huma.Schema{Type: "string"}})
	}
	if op.Body != nil {
		o.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
			"application/json": {Schema: registry.Schema(reflect.TypeOf(op.Body), true, "")}}}
	}
	o.Responses["200"] = &huma.Response{Description: "OK", Content: map[string]*huma.MediaType{
		"application/json": {Schema: registry.Schema(reflect.TypeOf(op.Response), true, "")}}}
	errType := reflect.TypeFor[FacadeError]()
	for _, code := range facadeErrors {
		o.Responses[strconv.Itoa(code)] = &huma.Response{Description: http.StatusText(code), Content: map[string]*huma.MediaType{
			"application/json": {Schema: registry.Schema(errType, true, f.Tag+"Error")}}}
	}
	if doc.Components.SecuritySchemes["token"] == nil && f.Scheme != "" {
		doc.Components.SecuritySchemes["token"] = &huma.SecurityScheme{Type: "apiKey", In: "header", Name: "Authorization",
			Description: "\"" + f.Scheme + " <engram API key>\", as the facade's clients send it; the key names the tenant."}
	}
	doc.AddOperation(o)
}
