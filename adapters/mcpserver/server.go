// Package mcpserver serves engram's agent tools over the Model Context Protocol
// (github.com/modelcontextprotocol/go-sdk): streamable HTTP for the api role's
// /mcp and stdio for `engram mcp --stdio`. The tools are the toolbox's (the same
// definitions, argument checks and results as POST /v1/users/{user}/tools/{name});
// results are returned as structured content and as JSON text; resources are
// registered as a list (a user's memories now, the profile later).
//
// It knows no HTTP status codes: the HTTP edge (adapters/httpapi MountMCP)
// authenticates /mcp, and the SDK answers the protocol. It imports no other
// adapter.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"engram/app/tools"
	"engram/domain/invalid"
	"engram/ports"
)

// Toolbox is the agent tools (adapters/httpapi's Toolbox).
type Toolbox interface {
	Definitions(withUser bool) []tools.Definition
	Call(ctx context.Context, c tools.Call) (any, error)
}

// Options shape the server.
type Options struct {
	Version   string
	Logger    *slog.Logger
	Resources []Resource
}

// Server is the MCP server of one process: two protocol servers over the same
// tools, one for connections that name their user (pinned: no user_id argument,
// only that user's resources) and one for those that do not (user_id on every
// call).
type Server struct {
	open, pinned *mcp.Server
	toolbox      Toolbox
	resources    []Resource
	log          *slog.Logger
	sdkLog       *slog.Logger // the SDK's own lines, quieter
}

// New builds the server with every tool of the toolbox and the resources.
func New(tb Toolbox, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Server{toolbox: tb, resources: opts.Resources, log: opts.Logger, sdkLog: slog.New(quieter{opts.Logger.Handler()})}
	var err error
	if s.open, err = s.protocolServer(opts.Version, false); err != nil {
		return nil, err
	}
	if s.pinned, err = s.protocolServer(opts.Version, true); err != nil {
		return nil, err
	}
	return s, nil
}

// protocolServer is the tools and resources for pinned connections or for the
// others.
func (s *Server) protocolServer(version string, pinned bool) (*mcp.Server, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "engram", Title: "engram long-term memory", Version: version}, &mcp.ServerOptions{
		Instructions: tools.Instructions,
		Logger:       s.sdkLog,
		// Tools and resources only: no logging capability, and no list-changed
		// notifications, which a stateless server could not deliver.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
	})
	for _, d := range s.toolbox.Definitions(!pinned) {
		destructive := d.Destructive
		srv.AddTool(&mcp.Tool{
			Name: d.Name, Description: d.Description, InputSchema: d.Parameters,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: d.ReadOnly, DestructiveHint: &destructive, OpenWorldHint: new(bool)},
		}, s.callTool(d.Name))
	}
	for _, r := range s.resources {
		if err := s.addResource(srv, r); err != nil {
			return nil, err
		}
	}
	if pinned {
		srv.AddReceivingMiddleware(s.pinnedResourceLists)
	}
	return srv, nil
}

// identity is who a connection acts for: the tenant, and the user it is pinned
// to ("" when every call names its user).
type identity struct {
	tenant, user string
}

type identityKey struct{}

func withIdentity(ctx context.Context, id identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

func identityFrom(ctx context.Context) (identity, bool) {
	id, ok := ctx.Value(identityKey{}).(identity)
	return id, ok && id.tenant != ""
}

// Handler serves MCP over streamable HTTP, statelessly: every request stands on
// its own and acts for the tenant and user its own request names (who reads them
// from the request: the key's tenant, and the user the connection is pinned to,
// "" for none), so no session can be taken over by another key. Bodies over
// maxBody bytes are refused.
func (s *Server) Handler(who func(*http.Request) (tenant, user string), maxBody int64) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if id, _ := identityFrom(r.Context()); id.user != "" {
			return s.pinned
		}
		return s.open
	}, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		Logger:              s.sdkLog,
		MaxRequestBodyBytes: maxBody,
	})
	protected := http.NewCrossOriginProtection().Handler(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tenant, user := who(r)
		protected.ServeHTTP(w, r.WithContext(withIdentity(r.Context(), identity{tenant: tenant, user: user})))
	})
}

// ServeStdio serves one client over in and out (a desktop client's pipes) for the
// tenant given, pinned to user unless it is "", until the client closes in or ctx
// ends. Nothing but the protocol is written to out.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer, tenant, user string) error {
	return s.serve(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}, tenant, user)
}

// nopWriteCloser leaves closing the process's stdout to the process.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func (s *Server) serve(ctx context.Context, t mcp.Transport, tenant, user string) error {
	srv := s.open
	if user != "" {
		srv = s.pinned
	}
	err := srv.Run(withIdentity(ctx, identity{tenant: tenant, user: user}), t)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func (s *Server) callTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		id, ok := identityFrom(ctx)
		if !ok {
			return nil, errors.New("mcpserver: the connection has no tenant")
		}
		res, err := s.toolbox.Call(ctx, tools.Call{Tenant: id.tenant, Name: name, Arguments: req.Params.Arguments, User: id.user})
		if err != nil {
			return s.toolError(ctx, name, err)
		}
		text, err := json.Marshal(res)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: encode the result of %s: %w", name, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: json.RawMessage(text)}, nil
	}
}

// toolError is a failed call as the model sees it: a tool result with isError, so
// that it can correct its arguments or tell the user; a cancelled call is a
// protocol error (nobody is waiting for the answer).
func (s *Server) toolError(ctx context.Context, name string, err error) (*mcp.CallToolResult, error) {
	var (
		ve       *invalid.Error
		notFound *ports.NotFoundError
		erasing  *ports.ErasingError
		text     string
	)
	switch {
	case errors.As(err, &ve):
		text = tools.Explain(ve)
	case errors.As(err, &erasing):
		// Not a failure of engram's: the user asked to be forgotten, and the model
		// should say so rather than retry or blame the memory.
		text = erasing.Error() + "; do not retry: tell the user their memory is being erased"
	case errors.As(err, &notFound), errors.Is(err, ports.ErrForbidden):
		text = err.Error()
	case errors.Is(err, context.Canceled):
		return nil, err
	case errors.Is(err, ports.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		s.log.WarnContext(ctx, "mcp: dependency unavailable", "tool", name, "error", err)
		text = "engram cannot reach its store right now; try the call again shortly"
	default:
		s.log.ErrorContext(ctx, "mcp: internal error", "tool", name, "error", err)
		text = "engram failed on this call with an internal error (its log has the cause); tell the user memory is unavailable"
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

// quieter logs the SDK's lines one level down: its INFO lines (a session
// connected, disconnected: several per stateless request) are DEBUG, and its
// errors (a client that went away) WARN; engram logs what fails a call itself.
type quieter struct{ slog.Handler }

func (q quieter) Enabled(ctx context.Context, level slog.Level) bool {
	return q.Handler.Enabled(ctx, lower(level))
}

func (q quieter) Handle(ctx context.Context, r slog.Record) error {
	r.Level = lower(r.Level)
	return q.Handler.Handle(ctx, r)
}

func (q quieter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quieter{q.Handler.WithAttrs(attrs)}
}

func (q quieter) WithGroup(name string) slog.Handler { return quieter{q.Handler.WithGroup(name)} }

func lower(level slog.Level) slog.Level {
	if level >= slog.LevelWarn {
		return slog.LevelWarn
	}
	return slog.LevelDebug
}
