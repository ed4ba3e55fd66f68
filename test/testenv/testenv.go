// Package testenv finds the real servers tests may use. A server is named by an
// environment variable; when it is unset the test skips, except in CI where
// ENGRAM_TEST_REQUIRE_SERVICES=1 turns the skip into a failure, so a broken service
// set-up can never pass as green.
package testenv

import (
	"os"
	"testing"
)

// Environment variables naming the servers.
const (
	PostgresDSNVar     = "ENGRAM_TEST_POSTGRES_DSN"
	RedisAddrVar       = "ENGRAM_TEST_REDIS_ADDR"
	MilvusAddrVar      = "ENGRAM_TEST_MILVUS_ADDR"
	RequireServicesVar = "ENGRAM_TEST_REQUIRE_SERVICES"
)

// Required reports whether missing servers must fail the run.
func Required() bool { return os.Getenv(RequireServicesVar) == "1" }

// PostgresDSN returns the DSN of the test PostgreSQL server (with pgvector).
func PostgresDSN(t testing.TB) string {
	t.Helper()
	return lookup(t, PostgresDSNVar, true)
}

// RedisAddr returns host:port of the test Redis server.
func RedisAddr(t testing.TB) string {
	t.Helper()
	return lookup(t, RedisAddrVar, true)
}

// MilvusAddr returns the address of a real Milvus. Milvus cannot run on CI machines,
// so it is never required: its adapter is covered by a fake there.
func MilvusAddr(t testing.TB) string {
	t.Helper()
	return lookup(t, MilvusAddrVar, false)
}

func lookup(t testing.TB, name string, requirable bool) string {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	if requirable && Required() {
		t.Fatalf("%s is not set but %s=1: start the services with test/services.sh up", name, RequireServicesVar)
	}
	t.Skipf("%s not set; skipping the real-server case", name)
	return ""
}
