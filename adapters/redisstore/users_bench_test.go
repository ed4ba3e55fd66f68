package redisstore

import (
	"testing"

	"engram/test/contract"
)

func BenchmarkUsersPage_Redis(b *testing.B) {
	contract.BenchSessionUsersPage(b, openWith(b, Options{}))
}
