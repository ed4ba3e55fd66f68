package memstore_test

import (
	"testing"

	"engram/adapters/memstore"
	"engram/ports"
	"engram/test/contract"
)

func TestLexicalIndex_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunLexicalIndex(t, func(*testing.T) ports.LexicalIndex { return memstore.NewLexicalIndex() })
}

func TestLexicalCompaction_Memstore(t *testing.T) {
	t.Parallel()
	contract.RunLexicalCompaction(t, func(_ *testing.T, window int64) contract.LexicalPurgeIndex {
		x := memstore.NewLexicalIndex()
		x.SetTombstoneWindow(window)
		return x
	})
}
