package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ErrDatabaseInUse says another process has the database open: a restore under a
// running server would be overwritten by it, or would corrupt its file.
var ErrDatabaseInUse = errors.New("the database is open in another process (is `engram serve` running on it?); stop it first")

// sqliteSidecars are the files SQLite keeps next to a WAL-mode database. A WAL
// left next to another database file would be replayed into it, so they move with
// the file they belong to.
var sqliteSidecars = []string{"-wal", "-shm"}

// BackupSQLite writes a consistent copy of dataDir's SQLite database to the new
// file to. VACUUM INTO reads one snapshot, so a server may keep writing meanwhile
// (WAL mode); the copy is written next to to and renamed into place only when
// complete and synced, so a failed backup never leaves a file that looks whole.
// Every table is in the copy, the local vector index's vectors included.
func BackupSQLite(ctx context.Context, dataDir, to string) error {
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("backup: %s already exists; name a new file", to)
	}
	db, err := openExisting(filepath.Join(dataDir, SQLiteFile), "")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer db.Close()
	tmp := to + ".partial"
	_ = os.Remove(tmp)
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("backup: copy the database: %w", err)
	}
	if err := syncFile(tmp); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmp, to); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("backup: %w", err)
	}
	return syncDir(filepath.Dir(to))
}

// Restored says where a restore put things.
type Restored struct {
	Database string // the restored database file
	Aside    string // the previous database file, kept; empty when there was none
}

// RestoreSQLite puts the backup from in place of dataDir's database. It refuses
// with ErrDatabaseInUse while another process has the database open, and keeps the
// previous file (and its WAL) as engram.db.before-restore-<stamp>. The backup is
// checked first (an SQLite file that passes quick_check and holds engram's
// migrations table), and copied, not moved, so the backup file stays as it was.
func RestoreSQLite(ctx context.Context, dataDir, from, stamp string) (Restored, error) {
	target := filepath.Join(dataDir, SQLiteFile)
	if err := checkBackup(ctx, from, target); err != nil {
		return Restored{}, err
	}
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return Restored{}, fmt.Errorf("restore: create the data directory: %w", err)
	}
	tmp := target + ".restoring"
	if err := copyFile(from, tmp); err != nil {
		_ = os.Remove(tmp)
		return Restored{}, fmt.Errorf("restore: %w", err)
	}
	out := Restored{Database: target}
	if _, err := os.Stat(target); err == nil {
		if err := quiesce(ctx, target); err != nil {
			_ = os.Remove(tmp)
			return Restored{}, err
		}
		out.Aside = target + ".before-restore-" + stamp
		for _, suffix := range append([]string{""}, sqliteSidecars...) {
			if err := os.Rename(target+suffix, out.Aside+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				_ = os.Remove(tmp)
				return Restored{}, fmt.Errorf("restore: keep the previous database aside: %w", err)
			}
		}
	}
	if err := os.Rename(tmp, target); err != nil {
		return Restored{}, fmt.Errorf("restore: %w", err)
	}
	return out, syncDir(dataDir)
}

// checkBackup refuses a file that is not a whole engram SQLite database, or that
// is the live database itself.
func checkBackup(ctx context.Context, from, target string) error {
	fi, err := os.Stat(from)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("restore: %s is not a regular file", from)
	}
	if ti, err := os.Stat(target); err == nil && os.SameFile(fi, ti) {
		return fmt.Errorf("restore: %s is the database itself; name a backup file", from)
	}
	db, err := openExisting(from, "ro")
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&check); err != nil || check != "ok" {
		return fmt.Errorf("restore: %s is not an intact SQLite database (%s)", from, firstOf(check, err))
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'bun_migrations'").Scan(&n); err != nil || n == 0 {
		return fmt.Errorf("restore: %s is an SQLite file but not an engram database (no migrations table)", from)
	}
	return nil
}

// quiesce takes the database file's exclusive lock, failing at once if any other
// connection holds it open: in WAL mode every open connection keeps a shared lock
// on the file, so a running server, idle or not, is seen. With the lock held the
// WAL is checkpointed into the file, and closing the last connection removes it.
func quiesce(ctx context.Context, path string) error {
	db, err := openExisting(path, "")
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA locking_mode = EXCLUSIVE"); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	// Locking mode EXCLUSIVE takes the file's exclusive lock at the first read.
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
		if isBusy(err) {
			return fmt.Errorf("restore: %s: %w", path, ErrDatabaseInUse)
		}
		return fmt.Errorf("restore: read the current database: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		if isBusy(err) {
			return fmt.Errorf("restore: %s: %w", path, ErrDatabaseInUse)
		}
		return fmt.Errorf("restore: checkpoint the current database: %w", err)
	}
	return nil
}

// openExisting opens an SQLite file that must exist, without waiting on locks;
// mode "ro" opens it read-only.
func openExisting(path, mode string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no database at %s: %w", path, err)
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("the path %q must not contain '?' or '#'", path)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(0)")
	if mode == "" {
		mode = "rw"
	}
	q.Set("mode", mode)
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

func isBusy(err error) bool {
	s := err.Error()
	return strings.Contains(s, "SQLITE_BUSY") || strings.Contains(s, "database is locked")
}

func firstOf(check string, err error) string {
	if err != nil {
		return err.Error()
	}
	return check
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // not every file system syncs directories; the rename is done either way
	return nil
}
