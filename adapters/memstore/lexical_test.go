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
