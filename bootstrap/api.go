package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.uber.org/fx"

	"engram/adapters/httpapi"
	"engram/adapters/metrics"
	"engram/adapters/sqlstore"
	"engram/app/auth"
	"engram/app/health"
	"engram/app/memories"
	"engram/bootstrap/config"
	"engram/ports"
)

// Route adds operations to the API. Modules contribute routes to the "routes" group,
// so a new capability plugs in without this file changing.
type Route func(api *httpapi.API)

// AsRoute annotates a constructor of a Route for the routes group.
func AsRoute(f any) any {
	return fx.Annotate(f, fx.ResultTags(`group:"routes"`))
}

var apiModule = fx.Module("api",
	fx.Provide(
		fx.Private,
		newAPIAuthenticator,
		newHTTPAPI,
	),
	fx.Provide(
		AsRoute(memoryRoutes),
		AsRoute(opsRoutes),
		AsRoute(consoleRoutes), // bootstrap/console.go
	),
	fx.Invoke(registerRoutes, startHTTPServer),
)

// newAPIAuthenticator decides between open mode and keys, and refuses open mode on
// an address other machines can reach.
type authenticatorParams struct {
	fx.In
	Config config.Config
	Keys   *sqlstore.APIKeyStore
	Clock  ports.Clock
	IDs    ports.IDs
	Log    *slog.Logger
}

func newAPIAuthenticator(p authenticatorParams) (*auth.Authenticator, error) {
	cfg, log := p.Config, p.Log
	configured, _ := config.ParseAPIKeys(cfg.Auth.APIKeys)
	open := false
	if len(configured) == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stored, err := p.Keys.HasActiveAPIKeys(ctx)
		if err != nil {
			return nil, fmt.Errorf("check stored API keys: %w", err)
		}
		open = !stored
	}
	ttl := time.Duration(cfg.Auth.CacheTTLSec) * time.Second
	if open {
		if !config.IsLoopback(cfg.HTTP.Addr) {
			return nil, fmt.Errorf("ENGRAM_HTTP_ADDR: refusing to listen on %s without API keys; set ENGRAM_API_KEYS or run `engram keys create --tenant T`, or listen on 127.0.0.1", cfg.HTTP.Addr)
		}
		log.Warn("auth: open mode: no API key configured, every request is tenant \"default\"; loopback only; it ends when a key is created (`engram keys create`)")
	} else {
		log.Info("auth: API keys required", "configured", len(configured), "stored_key_lookup_ttl", ttl)
	}
	return auth.New(auth.Options{Configured: configured, Open: open, CacheTTL: ttl, Logger: log}, p.Keys, p.Clock, p.IDs), nil
}

type httpAPIParams struct {
	fx.In
	Config  config.Config
	Log     *slog.Logger
	Metrics *metrics.Metrics
	Auth    *auth.Authenticator
}

func newHTTPAPI(p httpAPIParams) *httpapi.API {
	mux := http.NewServeMux()
	api := httpapi.New(mux, httpapi.Options{
		MaxBodyBytes: p.Config.HTTP.MaxBodyBytes,
		Logger:       p.Log,
		Observer:     p.Metrics,
		Version:      readBuildInfo().Version,
		BodyTimeout:  time.Duration(p.Config.HTTP.BodyTimeoutSec) * time.Second,
		WriteTimeout: time.Duration(p.Config.HTTP.WriteTimeoutSec) * time.Second,
		RateLimit:    p.Config.HTTP.RateLimitRPS,
	}, p.Auth)
	mux.Handle("GET /metrics", p.Metrics.Handler())
	return api
}

func memoryRoutes(svc *memories.Service) Route {
	return func(api *httpapi.API) { httpapi.RegisterMemories(api, svc) }
}

type opsParams struct {
	fx.In
	Config   config.Config
	DB       *sqlstore.DB
	Vectors  vectorChecks
	Recorder *health.Recorder
	Redis    redisCheck
}

func opsRoutes(p opsParams) Route {
	return func(api *httpapi.API) {
		httpapi.RegisterOps(api, httpapi.Checks{SQL: sqlCheck(p.DB, p.Recorder), Redis: httpapi.Check(p.Redis), Vector: p.Vectors.Vector,
			LLM: llmCheck(p.Config, p.Recorder), Embedder: p.Vectors.Embedder})
	}
}

type routesParams struct {
	fx.In
	API    *httpapi.API
	Routes []Route `group:"routes"`
}

func registerRoutes(p routesParams) {
	for _, r := range p.Routes {
		r(p.API)
	}
}

// startHTTPServer serves the API on ENGRAM_HTTP_ADDR.
type httpServerParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Config    config.Config
	API       *httpapi.API
	Log       *slog.Logger
}

func startHTTPServer(p httpServerParams) {
	serveHTTP(p.Lifecycle, "ENGRAM_HTTP_ADDR", p.Config.HTTP.Addr, p.API.Handler(), p.Config, p.Log)
}

// serveHTTP listens when the app starts (so a taken port fails start-up) and drains
// in-flight requests when it stops. setting names the address in errors.
func serveHTTP(lc fx.Lifecycle, setting, addr string, handler http.Handler, cfg config.Config, log *slog.Logger) {
	srv := &http.Server{
		Addr:              addr,
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		// The body's deadline and each write's are set per request by the API's
		// edge (ENGRAM_HTTP_BODY_TIMEOUT_SEC, ENGRAM_HTTP_WRITE_TIMEOUT_SEC), which
		// answers a slow body with a 408 problem: the server's own timeouts would
		// only drop the connection.
		IdleTimeout: time.Duration(cfg.HTTP.IdleTimeoutSec) * time.Second,
		ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return listenError(setting, addr, err)
			}
			announceListener(log, setting, ln.Addr().String())
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("http server stopped", "addr", addr, "error", err)
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, time.Duration(cfg.HTTP.ShutdownTimeoutSec)*time.Second)
			defer cancel()
			return srv.Shutdown(ctx)
		},
	})
}
