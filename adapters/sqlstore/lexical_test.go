package sqlstore

import (
	"testing"

	"engram/ports"
	"engram/test/contract"
)

func TestLexicalIndex_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunLexicalIndex(t, func(t *testing.T) ports.LexicalIndex {
		return NewLexicalIndex(openSQLiteForTest(t))
	})
}

func TestLexicalIndex_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunLexicalIndex(t, func(t *testing.T) ports.LexicalIndex {
		return NewLexicalIndex(openPostgresForTest(t))
	})
}
