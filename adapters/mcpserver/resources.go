package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"engram/app/tools"
	"engram/domain/invalid"
	"engram/ports"
)

// Resource is one kind of per-user resource: a URI template with {user}, and what
// reading it returns (served as JSON). Bootstrap lists them; the profile resource
// is one more.
type Resource struct {
	URITemplate string // e.g. engram://users/{user}/memories
	Name        string
	Title       string
	Description string
	Read        func(ctx context.Context, tenant, user string) (any, error)
}

// MemoriesURITemplate is the resource of a user's memories.
const MemoriesURITemplate = "engram://users/{user}/memories"

// memoriesPage is how many memories the resource returns: memory_list's largest page.
const memoriesPage = 1000

// MemoriesResource is a user's live memories, as memory_list returns them (its
// first 1000, in key order, with next_cursor when there are more).
func MemoriesResource(tb Toolbox) Resource {
	arguments := []byte(fmt.Sprintf(`{"limit": %d}`, memoriesPage))
	return Resource{
		URITemplate: MemoriesURITemplate,
		Name:        "memories",
		Title:       "A user's long-term memories",
		Description: "Every live long-term memory of the user, in key order ({items, next_cursor}), as memory_list returns them.",
		Read: func(ctx context.Context, tenant, user string) (any, error) {
			return tb.Call(ctx, tools.Call{Tenant: tenant, User: user, Name: "memory_list", Arguments: arguments})
		},
	}
}

func (s *Server) addResource(srv *mcp.Server, r Resource) error {
	tmpl, err := uritemplate.New(r.URITemplate)
	if err != nil {
		return fmt.Errorf("mcpserver: resource %s: %w", r.Name, err)
	}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: r.URITemplate, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		id, ok := identityFrom(ctx)
		if !ok {
			return nil, errors.New("mcpserver: the connection has no tenant")
		}
		uri := req.Params.URI
		match := tmpl.Match(uri)
		if match == nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		user := match.Get("user").String()
		if id.user != "" && user != id.user {
			// Another user's resource does not exist for a pinned connection.
			return nil, mcp.ResourceNotFoundError(uri)
		}
		v, err := r.Read(ctx, id.tenant, user)
		if err != nil {
			return nil, s.resourceError(ctx, uri, err)
		}
		text, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: encode %s: %w", uri, err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(text)}}}, nil
	})
	return nil
}

// pinnedResourceLists lists, to a pinned connection, its user's resources (the
// templates filled in with the user) and no templates: it may read nothing else.
func (s *Server) pinnedResourceLists(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		id, ok := identityFrom(ctx)
		if !ok || id.user == "" {
			return next(ctx, method, req)
		}
		switch method {
		case "resources/templates/list":
			return &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{}}, nil
		case "resources/list":
			out := &mcp.ListResourcesResult{Resources: make([]*mcp.Resource, 0, len(s.resources))}
			for _, r := range s.resources {
				uri, err := userURI(r.URITemplate, id.user)
				if err != nil {
					return nil, err
				}
				out.Resources = append(out.Resources, &mcp.Resource{URI: uri, Name: r.Name, Title: r.Title,
					Description: r.Description, MIMEType: "application/json"})
			}
			return out, nil
		}
		return next(ctx, method, req)
	}
}

// userURI is a resource template filled in with a user.
func userURI(template, user string) (string, error) {
	tmpl, err := uritemplate.New(template)
	if err != nil {
		return "", fmt.Errorf("mcpserver: resource %s: %w", template, err)
	}
	return tmpl.Expand(uritemplate.Values{"user": uritemplate.String(user)})
}

// resourceError is a failed read as a JSON-RPC error: a bad user id is invalid
// params, a missing object is not found.
func (s *Server) resourceError(ctx context.Context, uri string, err error) error {
	var (
		ve       *invalid.Error
		notFound *ports.NotFoundError
	)
	switch {
	case errors.As(err, &ve):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the resource's user is invalid: " + tools.Explain(ve)}
	case errors.As(err, &notFound):
		return mcp.ResourceNotFoundError(uri)
	}
	s.log.ErrorContext(ctx, "mcp: read resource", "uri", uri, "error", err)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "engram could not read the resource; its log has the cause"}
}

// ProfileURITemplate is the resource of a user's profile.
const ProfileURITemplate = "engram://users/{user}/profile"

// ProfileResource is a user's profile as GET /v1/users/{user}/profile
// returns it to the user themselves; read reads it.
func ProfileResource(read func(ctx context.Context, tenant, user string) (any, error)) Resource {
	return Resource{
		URITemplate: ProfileURITemplate,
		Name:        "profile",
		Title:       "A user's profile",
		Description: "The user's profile: declared fields (name, department, position, language, tone…) and what engram derived " +
			"from their conversations and activity (topics, expertise, work hours, favourite workflows, task statistics), as the user reads it.",
		Read: read,
	}
}
