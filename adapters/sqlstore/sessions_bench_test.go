package sqlstore

import (
	"testing"

	"engram/adapters/clock"
	"engram/domain/session"
	"engram/test/contract"
)

func BenchmarkSessionUsersPage(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		contract.BenchSessionUsersPage(b, NewSessionStore(openSQLiteForTest(b), clock.System{}, session.Limits{}))
	})
	b.Run("postgres", func(b *testing.B) {
		contract.BenchSessionUsersPage(b, NewSessionStore(openPostgresForTest(b), clock.System{}, session.Limits{}))
	})
}
