package sqlstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// openData opens and migrates the SQLite database of dir, with one row to tell
// copies apart.
func openData(t *testing.T, dir string) *DB {
	t.Helper()
	db, err := Open(testContext(t), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(testContext(t)); err != nil {
		t.Fatal(err)
	}
	return db
}

func mark(t *testing.T, db *DB, value string) {
	t.Helper()
	if _, err := db.Bun().ExecContext(testContext(t), "CREATE TABLE IF NOT EXISTS backup_marks (v TEXT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Bun().ExecContext(testContext(t), "INSERT INTO backup_marks (v) VALUES (?)", value); err != nil {
		t.Fatal(err)
	}
}

func marks(t *testing.T, db *DB) []string {
	t.Helper()
	var out []string
	if err := db.Bun().NewRaw("SELECT v FROM backup_marks ORDER BY v").Scan(testContext(t), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBackupSQLite_whileOpenThenRestoreRefusedUntilClosed(t *testing.T) {
	ctx := testContext(t)
	dir, to := t.TempDir(), filepath.Join(t.TempDir(), "engram.backup")
	live := openData(t, dir)
	mark(t, live, "a-before")
	if err := BackupSQLite(ctx, dir, to); err != nil {
		t.Fatalf("backup while the database is open: %v", err)
	}
	if err := BackupSQLite(ctx, dir, to); err == nil {
		t.Error("a second backup overwrote the first file")
	}
	mark(t, live, "b-after")

	if _, err := RestoreSQLite(ctx, dir, to, "s1"); !errors.Is(err, ErrDatabaseInUse) {
		t.Fatalf("restore while another handle has the database open = %v, want ErrDatabaseInUse", err)
	}
	if got := marks(t, live); len(got) != 2 {
		t.Fatalf("the refused restore touched the live database: %v", got)
	}
	if err := live.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := RestoreSQLite(ctx, dir, to, "s1")
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	if r.Aside != filepath.Join(dir, SQLiteFile+".before-restore-s1") {
		t.Errorf("aside = %q", r.Aside)
	}
	for _, s := range sqliteSidecars {
		if _, err := os.Stat(r.Database + s); err == nil {
			t.Errorf("%s of the previous database is next to the restored one", s)
		}
	}
	restored := openData(t, dir)
	defer restored.Close()
	if got := marks(t, restored); len(got) != 1 || got[0] != "a-before" {
		t.Errorf("restored rows = %v, want [a-before]", got)
	}
	// The previous database is kept whole, the writes after the backup included.
	asideDir := t.TempDir()
	if err := os.Rename(r.Aside, filepath.Join(asideDir, SQLiteFile)); err != nil {
		t.Fatal(err)
	}
	old := openData(t, asideDir)
	defer old.Close()
	if got := marks(t, old); len(got) != 2 {
		t.Errorf("the previous database kept aside has %v, want both rows", got)
	}
	if _, err := os.Stat(to); err != nil {
		t.Errorf("the backup file is gone after the restore: %v", err)
	}
}

func TestRestoreSQLite_refusesWhatIsNotABackup(t *testing.T) {
	ctx := testContext(t)
	dir := t.TempDir()
	junk := filepath.Join(t.TempDir(), "junk")
	if err := os.WriteFile(junk, []byte("not a database at all, just some bytes to fill a page"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	o, err := Open(ctx, Options{DataDir: other}) // an SQLite file without engram's tables
	if err != nil {
		t.Fatal(err)
	}
	_ = o.Close()
	live := openData(t, dir)
	mark(t, live, "kept")
	_ = live.Close()
	for _, tc := range []struct{ name, from string }{
		{"missing", filepath.Join(dir, "nope")},
		{"not sqlite", junk},
		{"not engram", filepath.Join(other, SQLiteFile)},
		{"the live file", filepath.Join(dir, SQLiteFile)},
		{"a directory", other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := RestoreSQLite(ctx, dir, tc.from, "x"); err == nil {
				t.Fatal("restore accepted it")
			}
		})
	}
	db := openData(t, dir)
	defer db.Close()
	if got := marks(t, db); len(got) != 1 || got[0] != "kept" {
		t.Errorf("a refused restore changed the database: %v", got)
	}
}

func TestRestoreSQLite_intoAnEmptyDataDirectory(t *testing.T) {
	ctx := testContext(t)
	src, to := t.TempDir(), filepath.Join(t.TempDir(), "engram.backup")
	db := openData(t, src)
	mark(t, db, "only")
	_ = db.Close()
	if err := BackupSQLite(ctx, src, to); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "new-data")
	r, err := RestoreSQLite(ctx, fresh, to, "s")
	if err != nil || r.Aside != "" {
		t.Fatalf("restore into a new data directory = %+v, %v", r, err)
	}
	restored := openData(t, fresh)
	defer restored.Close()
	if got := marks(t, restored); len(got) != 1 || got[0] != "only" {
		t.Errorf("restored rows = %v", got)
	}
}

func TestBackupSQLite_refusesWithoutADatabase(t *testing.T) {
	to := filepath.Join(t.TempDir(), "engram.backup")
	if err := BackupSQLite(testContext(t), t.TempDir(), to); err == nil || !strings.Contains(err.Error(), "no database at") {
		t.Fatalf("backup of an empty data directory = %v", err)
	}
	if _, err := os.Stat(to); err == nil {
		t.Error("a backup file was written from nothing")
	}
}
