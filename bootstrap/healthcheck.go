package bootstrap

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"engram/bootstrap/config"
)

// healthcheckCommand is `engram healthcheck`: it asks the server of this
// configuration for /healthz and exits 0 when it answers ok. Container images
// have no curl; their HEALTHCHECK runs this. A process without the api role
// listens only on ENGRAM_METRICS_ADDR, so that is the address it asks.
func healthcheckCommand(g *globalFlags) *cobra.Command {
	var url string
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Exit 0 when this process's server answers /healthz (for container health checks)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if url == "" {
				cfg, err := g.load()
				if err != nil {
					return err
				}
				addr, err := healthAddr(cfg)
				if err != nil {
					return err
				}
				url = "http://" + localAddr(addr) + "/healthz"
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
			defer cancel()
			status, version, err := getHealth(ctx, url)
			if err != nil {
				return fmt.Errorf("healthcheck: GET %s: %w", url, err)
			}
			if status != "ok" {
				return fmt.Errorf("healthcheck: GET %s: status %q", url, status)
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ok", version)
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "URL of /healthz (default: ENGRAM_HTTP_ADDR with the api role, else ENGRAM_METRICS_ADDR; on loopback when it listens on every address)")
	return cmd
}

// healthAddr is the address this configuration's process serves /healthz on:
// the API's with the api role, else the metrics address, the only one it has.
func healthAddr(cfg config.Config) (string, error) {
	if cfg.HasRole(config.RoleAPI) {
		return cfg.HTTP.Addr, nil
	}
	if cfg.HTTP.MetricsAddr == "" {
		return "", fmt.Errorf("healthcheck: roles %s serve no HTTP; set ENGRAM_METRICS_ADDR (their /healthz, /readyz and /metrics) or pass --url", strings.Join(cfg.Roles, ","))
	}
	return cfg.HTTP.MetricsAddr, nil
}

// localAddr is where this machine reaches a server listening on addr.
func localAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

func getHealth(ctx context.Context, url string) (status, version string, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var body struct{ Status, Version string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return "", "", fmt.Errorf("decode: %w", err)
	}
	return body.Status, body.Version, nil
}
