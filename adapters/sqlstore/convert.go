package sqlstore

import "time"

// dbTime is how every time is stored: UTC, truncated to microseconds, the precision
// of PostgreSQL's timestamptz and of bun's SQLite time format, so that a time read
// back equals the time written. The zero time stays zero (NULL with nullzero).
func dbTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}
