package localvec

import (
	"context"
	"fmt"

	"engram/domain/memory"
	"engram/ports"
)

// Store keeps the local index's vectors where they survive a restart. The SQL adapter
// implements it, typically with one table keyed by (tenant, id) holding user, kind,
// memory_type, conversation_id, at and the vector bytes (vector.Encode). Errors should
// wrap ports.ErrUnavailable when the database cannot answer.
type Store interface {
	// SaveVectors inserts or replaces the records, keyed by tenant and id.
	SaveVectors(ctx context.Context, records []ports.VectorRecord) error
	// DeleteVectors removes the tenant's records with these ids; unknown ids are ignored.
	DeleteVectors(ctx context.Context, tenant string, ids []string) error
	// LoadVectors hands every stored record to fn, in batches of the store's choosing.
	// An error from fn stops the load and is returned.
	LoadVectors(ctx context.Context, fn func(batch []ports.VectorRecord) error) error
	// DeleteUserVectors removes every record of the user (of any model the store
	// keeps) and says how many went.
	DeleteUserVectors(ctx context.Context, tenant, user string) (int64, error)
}

var (
	_ ports.VectorIndex = (*Durable)(nil)
	_ ports.UserPurger  = (*Durable)(nil)
)

// Durable is an Index whose writes go to a Store first, so the index can be rebuilt
// from the store at start. A write the store refuses never reaches memory; a write
// the store accepted always does, because records are validated before either.
type Durable struct {
	index *Index
	store Store
}

// OpenDurable creates an index and loads every vector the store holds. Records the
// index cannot use (a wrong dimension after a model change, say) are skipped; the
// returned error is then non-nil together with a usable *Durable, so the caller can
// log it and go on or stop.
func OpenDurable(ctx context.Context, store Store, opts Options) (*Durable, error) {
	index, err := New(opts)
	if err != nil {
		return nil, err
	}
	d := &Durable{index: index, store: store}
	var skipped error
	err = store.LoadVectors(ctx, func(batch []ports.VectorRecord) error {
		if err := index.Load(batch); err != nil && skipped == nil {
			skipped = err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("localvec: load vectors: %w", err)
	}
	return d, skipped
}

// Index is the in-memory index behind d.
func (d *Durable) Index() *Index { return d.index }

// Upsert validates the records, saves them in the store, then in memory.
func (d *Durable) Upsert(ctx context.Context, records []ports.VectorRecord) error {
	prepared, err := d.index.prepare(records)
	if err != nil {
		return err
	}
	if len(prepared) == 0 {
		return nil
	}
	if err := d.store.SaveVectors(ctx, records); err != nil {
		return fmt.Errorf("localvec: save vectors: %w", err)
	}
	d.index.apply(prepared)
	return nil
}

// Delete removes the vectors from the store, then from memory.
func (d *Durable) Delete(ctx context.Context, tenant string, ids []string) error {
	if tenant == "" || len(ids) == 0 {
		return d.index.Delete(ctx, tenant, ids)
	}
	if err := d.store.DeleteVectors(ctx, tenant, ids); err != nil {
		return fmt.Errorf("localvec: delete vectors: %w", err)
	}
	return d.index.Delete(ctx, tenant, ids)
}

// Search answers from memory only.
func (d *Durable) Search(ctx context.Context, q ports.VectorQuery) ([]ports.VectorHit, error) {
	return d.index.Search(ctx, q)
}

// PurgeUser removes the user's vectors from the store, then from memory; the count
// is the store's (vectors of other models included).
func (d *Durable) PurgeUser(ctx context.Context, scope memory.Scope) (map[string]int64, error) {
	n, err := d.store.DeleteUserVectors(ctx, scope.Tenant, scope.User)
	if err != nil {
		return map[string]int64{PurgedVectors: 0}, fmt.Errorf("localvec: delete the user's vectors: %w", err)
	}
	if _, err := d.index.PurgeUser(ctx, scope); err != nil {
		return map[string]int64{PurgedVectors: n}, err
	}
	return map[string]int64{PurgedVectors: n}, nil
}
