package bootstrap

import (
	"slices"
	"strings"
	"testing"
)

func TestStdioRoles_backgroundRolesByDefaultNoneOnRequest(t *testing.T) {
	t.Parallel()
	all := []string{"api", "worker", "indexer", "scheduler"}
	cases := []struct {
		name       string
		configured []string
		flag       string
		set        bool
		want       []string
		err        string
	}{
		{"default: the configured roles without api", all, "", false, []string{"worker", "indexer", "scheduler"}, ""},
		{"default when only api is configured", []string{"api"}, "", false, []string{}, ""},
		{"none", all, "none", true, nil, ""},
		{"a list, any case and spacing", all, " Indexer , worker", true, []string{"indexer", "worker"}, ""},
		{"api is refused", all, "api,worker", true, nil, "the api role serves HTTP"},
		{"an unknown role is refused", all, "teleport", true, nil, `unknown role "teleport"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := stdioRoles(c.configured, c.flag, c.set)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("roles %q, %v; want %q", got, err, c.want)
			}
		})
	}
	configured := slices.Clone(all)
	_, _ = stdioRoles(configured, "", false)
	if !slices.Equal(configured, all) {
		t.Errorf("stdioRoles changed the configured roles to %v", configured)
	}
}
