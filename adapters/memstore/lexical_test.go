package memstore_test

import (
	"testing"

	"engram/adapters/memstore"
	"engram/test/contract"
)

func TestLexicalIndex_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunLexicalIndex(t, func(*testing.T) contract.LexicalIndex { return memstore.NewLexicalIndex() })
}

func TestLexicalCursors_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunLexicalCursors(t, func(*testing.T) contract.LexicalCursors { return memstore.NewLexicalIndex() })
}

func TestLexicalCompaction_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunLexicalCompaction(t, func(_ *testing.T, window int64) contract.LexicalPurgeIndex {
		x := memstore.NewLexicalIndex()
		x.SetTombstoneWindow(window)
		return x
	})
}
