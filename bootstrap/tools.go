package bootstrap

import (
	"log/slog"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/mcpserver"
	"engram/adapters/metrics"
	"engram/app/memories"
	"engram/bootstrap/config"
)

// toolsModule is the agent tools (the memory channel for agents): the toolbox, served by
// the api role as GET /v1/tools and POST /v1/users/{user}/tools/{name} and as MCP
// at /mcp, and by `engram mcp --stdio`.
//
// Tools and MCP resources are value groups: a module adds one with AsTool or
// AsMCPResource in its own file (memory_context, the profile
// resource), and nothing here changes.
var toolsModule = fx.Module("tools",
	fx.Provide(
		fx.Annotate(memoryTools, fx.ResultTags(`group:"tools,flatten"`)),
		AsMCPResource(mcpserver.MemoriesResource),
		newToolbox,
		func(tb *httpapi.Toolbox) mcpserver.Toolbox { return tb },
		newMCPServer,
		AsRoute(toolRoutes),
	),
)

// AsTool annotates a constructor of an httpapi.Tool for the tools group.
func AsTool(f any) any {
	return fx.Annotate(f, fx.ResultTags(`group:"tools"`))
}

// AsMCPResource annotates a constructor of an mcpserver.Resource for the MCP
// resources group.
func AsMCPResource(f any) any {
	return fx.Annotate(f, fx.ResultTags(`group:"mcp_resources"`))
}

// memoryTools are the tools of the explicit tools channel and search.
func memoryTools(mem *memories.Service, search metrics.Searcher) []httpapi.Tool {
	return []httpapi.Tool{
		httpapi.MemorySaveTool(mem), httpapi.MemoryAppendTool(mem), httpapi.MemoryDeleteTool(mem),
		httpapi.MemoryListTool(mem), httpapi.MemorySearchTool(search),
	}
}

type toolboxParams struct {
	fx.In
	Tools []httpapi.Tool `group:"tools"`
}

func newToolbox(p toolboxParams) (*httpapi.Toolbox, error) {
	return httpapi.NewToolbox(p.Tools...)
}

type mcpParams struct {
	fx.In
	Toolbox   mcpserver.Toolbox
	Resources []mcpserver.Resource `group:"mcp_resources"`
	Log       *slog.Logger
}

func newMCPServer(p mcpParams) (*mcpserver.Server, error) {
	return mcpserver.New(p.Toolbox, mcpserver.Options{Version: readBuildInfo().Version, Logger: p.Log, Resources: p.Resources})
}

func toolRoutes(tb *httpapi.Toolbox, srv *mcpserver.Server, cfg config.Config) Route {
	return func(api *httpapi.API) {
		httpapi.RegisterTools(api, tb)
		httpapi.MountMCP(api, srv.Handler(httpapi.MCPIdentity, cfg.HTTP.MaxBodyBytes))
	}
}
