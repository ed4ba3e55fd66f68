package sqlstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPostgresBackup_withoutTheToolsSaysWhatToRun(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // neither pg_dump nor pg_restore
	ctx := testContext(t)
	from := filepath.Join(t.TempDir(), "dump")
	if err := os.WriteFile(from, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	const url = "postgres://engram:hunter2@db:5432/engram"
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"backup", func() error { return DumpPostgres(ctx, url, filepath.Join(t.TempDir(), "new")) }, "pg_dump --format=custom"},
		{"restore", func() error { return RestorePostgres(ctx, url, from) }, "pg_restore --clean --if-exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if !errors.Is(err, ErrNoPostgresTool) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrNoPostgresTool naming %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error repeats the password: %v", err)
			}
		})
	}
}

func TestSplitPassword(t *testing.T) {
	for _, tc := range []struct{ in, dsn, password string }{
		{"postgres://engram:hunter2@db:5432/engram?sslmode=disable", "postgres://engram@db:5432/engram?sslmode=disable", "hunter2"},
		{"postgresql://engram@db/engram", "postgresql://engram@db/engram", ""},
		{"postgres://db/engram", "postgres://db/engram", ""},
	} {
		dsn, password, err := splitPassword(tc.in)
		if err != nil || dsn != tc.dsn || password != tc.password {
			t.Errorf("splitPassword(%q) = %q, %q, %v; want %q, %q", tc.in, dsn, password, err, tc.dsn, tc.password)
		}
	}
	if _, _, err := splitPassword("mysql://x@y/z"); err == nil {
		t.Error("a mysql:// URL was accepted")
	}
}
