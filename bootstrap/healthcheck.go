package bootstrap

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"

	"engram/bootstrap/config"
)

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
