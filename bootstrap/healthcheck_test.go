package bootstrap

import (
	"strings"
	"testing"

	"engram/bootstrap/config"
)

func TestHealthAddr_theAPIsAddressWithTheAPIRoleElseTheMetricsAddress(t *testing.T) {
	tests := []struct {
		name        string
		roles       []string
		http, mtrcs string
		want        string
		wantErr     string
	}{
		{"every role", config.AllRoles, "0.0.0.0:8080", "", "0.0.0.0:8080", ""},
		{"api with a metrics address", []string{"api"}, "0.0.0.0:8080", "0.0.0.0:9090", "0.0.0.0:8080", ""},
		{"worker", []string{"worker"}, "0.0.0.0:8080", "0.0.0.0:9090", "0.0.0.0:9090", ""},
		{"indexer and scheduler", []string{"indexer", "scheduler"}, "0.0.0.0:8080", "127.0.0.1:9100", "127.0.0.1:9100", ""},
		{"worker without a metrics address", []string{"worker"}, "0.0.0.0:8080", "", "", "roles worker serve no HTTP; set ENGRAM_METRICS_ADDR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg config.Config
			cfg.Roles, cfg.HTTP.Addr, cfg.HTTP.MetricsAddr = tt.roles, tt.http, tt.mtrcs
			got, err := healthAddr(cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to say %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("healthAddr = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
