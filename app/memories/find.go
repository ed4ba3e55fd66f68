package memories

import (
	"context"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
)

// Finder runs the reads that name a tenant's memories without their user: by
// id, and by a filter over users, agents, apps, runs, times, types and metadata.
type Finder struct {
	store ports.MemoryFinder
	clock ports.Clock
}

// NewFinder builds the finder.
func NewFinder(store ports.MemoryFinder, clock ports.Clock) *Finder {
	return &Finder{store: store, clock: clock}
}

// ByID reads one memory of the tenant by its id.
type ByID struct {
	Tenant          string
	ID              string
	IncludeInactive bool // also a deleted or expired memory
}

// ByID returns the memory with its Scope (whose it is). A deleted or expired
// memory is not found unless asked, a noise key never: as Get does.
func (f *Finder) ByID(ctx context.Context, q ByID) (memory.Memory, error) {
	if q.ID == "" || len(q.ID) > 128 {
		return memory.Memory{}, ports.NotFound("memory", q.ID)
	}
	m, err := f.store.ByID(ctx, q.Tenant, q.ID)
	if err != nil {
		return memory.Memory{}, ports.NameNotFound(err, "memory", q.ID)
	}
	if memory.IsNoise(m.Key()) || (!q.IncludeInactive && !m.IsLive(f.clock.Now())) {
		return memory.Memory{}, ports.NotFound("memory", q.ID)
	}
	return m, nil
}

// Page sizes of Find.
const (
	DefaultFindPageSize = 100
	MaxFindPageSize     = 1000
	MaxFindPage         = 1_000_000
)

// Find is one page of the tenant's memories that match a filter.
type Find struct {
	Tenant          string
	Filter          memory.Filter // the zero Filter: every memory of the tenant
	IncludeInactive bool
	Page            int // 1-based; 0: the first
	PageSize        int // 1..MaxFindPageSize; 0: DefaultFindPageSize
}

// FindResult is one page, newest first, and how many memories match in all.
type FindResult struct {
	Items    []memory.Memory
	Total    int
	Page     int
	PageSize int
}

// Find validates the filter and the page, then asks the store.
func (f *Finder) Find(ctx context.Context, q Find) (FindResult, error) {
	page, size := max(q.Page, 1), q.PageSize
	if size == 0 {
		size = DefaultFindPageSize
	}
	var errs []error
	if q.Page < 0 || q.Page > MaxFindPage {
		errs = append(errs, invalid.FieldValue("page", q.Page, "must be between 1 and %d", MaxFindPage))
	}
	if size < 1 || size > MaxFindPageSize {
		errs = append(errs, invalid.FieldValue("page_size", q.PageSize, "must be between 1 and %d", MaxFindPageSize))
	}
	errs = append(errs, q.Filter.Validate())
	if err := invalid.Join(errs...); err != nil {
		return FindResult{}, err
	}
	found, err := f.store.Find(ctx, q.Tenant, ports.FindQuery{Filter: q.Filter, IncludeInactive: q.IncludeInactive,
		Offset: (page - 1) * size, Limit: size, Now: f.clock.Now()})
	if err != nil {
		return FindResult{}, err
	}
	return FindResult{Items: found.Items, Total: found.Total, Page: page, PageSize: size}, nil
}
