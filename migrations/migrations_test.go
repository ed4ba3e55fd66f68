package migrations_test

import (
	"io/fs"
	"regexp"
	"slices"
	"testing"

	"engram/migrations"
)

var namePattern = regexp.MustCompile(`^(\d{14})_([0-9a-z_-]+)(\.tx)?\.(up|down)\.sql$`)

func fileNames(t *testing.T, dialect string) []string {
	t.Helper()
	files, err := migrations.Files(dialect)
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(files, "*")
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestFiles_everyPostgresStepHasASQLiteTwin(t *testing.T) {
	t.Parallel()
	pg, lite := fileNames(t, migrations.Postgres), fileNames(t, migrations.SQLite)
	if !slices.Equal(pg, lite) {
		t.Fatalf("postgres and sqlite steps differ:\npostgres: %v\nsqlite:   %v", pg, lite)
	}
	if len(pg) == 0 {
		t.Fatal("no migrations embedded")
	}
}

func TestFiles_namesFollowTheConvention(t *testing.T) {
	t.Parallel()
	for _, d := range []string{migrations.Postgres, migrations.SQLite} {
		seen := map[string]string{}
		for _, name := range fileNames(t, d) {
			m := namePattern.FindStringSubmatch(name)
			if m == nil {
				t.Errorf("%s/%s: want <14 digits>_<what>.up.sql", d, name)
				continue
			}
			number, what := m[1], m[2]
			if prev, ok := seen[number]; ok && prev != what {
				t.Errorf("%s: %s_%s and %s share the number %s", d, number, prev, name, number)
			}
			seen[number] = what
		}
	}
}

func TestFor_discoversEveryStep(t *testing.T) {
	t.Parallel()
	for _, d := range []string{migrations.Postgres, migrations.SQLite} {
		ms, err := migrations.For(d)
		if err != nil {
			t.Fatal(err)
		}
		sorted := ms.Sorted()
		if got, want := len(sorted), len(fileNames(t, d)); got != want {
			t.Errorf("%s: discovered %d migrations, want %d", d, got, want)
		}
		for _, m := range sorted {
			if m.Up == nil {
				t.Errorf("%s: %s has no up step", d, m.Name)
			}
		}
	}
}

func TestFor_refusesAnUnknownDialect(t *testing.T) {
	t.Parallel()
	if _, err := migrations.For("mysql"); err == nil {
		t.Fatal("want an error for an unknown dialect")
	}
}
