package sqlstore

import (
	"testing"

	"engram/test/contract"
)

func TestTraceStore_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunTraceStore(t, func(t *testing.T) contract.TraceStores {
		db := openSQLiteForTest(t)
		return contract.TraceStores{Traces: NewTraceStore(db), Erasures: NewErasureStore(db)}
	})
}

func TestTraceStore_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunTraceStore(t, func(t *testing.T) contract.TraceStores {
		db := openPostgresForTest(t)
		return contract.TraceStores{Traces: NewTraceStore(db), Erasures: NewErasureStore(db)}
	})
}

func TestTraceEraser_SQLite(t *testing.T) {
	t.Parallel()
	contract.RunTraceEraser(t, func(t *testing.T) contract.TraceErasers {
		store := NewTraceStore(openSQLiteForTest(t))
		return contract.TraceErasers{Traces: store, Eraser: store}
	})
}

func TestTraceEraser_Postgres(t *testing.T) {
	t.Parallel()
	contract.RunTraceEraser(t, func(t *testing.T) contract.TraceErasers {
		store := NewTraceStore(openPostgresForTest(t))
		return contract.TraceErasers{Traces: store, Eraser: store}
	})
}
