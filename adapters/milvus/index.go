// Package milvus implements ports.VectorIndex on Milvus with the official Go client
// (github.com/milvus-io/milvus/client/v2). One collection holds the vectors of one
// embedding model and dimension; its partition key is the (tenant, user) scope, and
// every filter of a search is part of the boolean expression Milvus evaluates, so
// another tenant's or user's vectors are never candidates.
//
// Errors leave this package as *invalid.Error (the request itself is unusable) or
// wrap ports.ErrUnavailable (connection, timeout, server error); no client or gRPC
// error type escapes.
//
// This package must not import other adapters, app/ or bootstrap/.
package milvus

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/milvus-io/milvus/client/v2/entity"
	"github.com/milvus-io/milvus/client/v2/index"
	"github.com/milvus-io/milvus/client/v2/milvusclient"
	milvuslog "github.com/milvus-io/milvus/pkg/v2/log"
	"github.com/milvus-io/milvus/pkg/v2/util/merr"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/domain/vector"
	"engram/ports"
)

var _ ports.VectorIndex = (*Index)(nil)

// Defaults of Options.
const (
	DefaultCollection     = "memory_text_v1" // MEMORY_MILVUS_COLLECTION's default
	DefaultConnectTimeout = 5 * time.Second
	DefaultRequestTimeout = 10 * time.Second
	DefaultSetupTimeout   = 60 * time.Second
	DefaultBatchSize      = 256
	// MaxSearchLimit is Milvus's topk limit; larger limits are served up to it.
	MaxSearchLimit = 16384
)

// Index types Options.IndexType accepts.
const (
	IndexHNSW = "HNSW"
	IndexAuto = "AUTOINDEX" // for Zilliz Cloud, which picks its own index
)

// Options configure the adapter. Only URI and Dimension are required.
type Options struct {
	// URI is MEMORY_MILVUS_URI: "host:port", "http://host:port" or "https://host"
	// (TLS). A path names the database: "http://host:19530/mydb".
	URI string
	// Token is MEMORY_MILVUS_TOKEN: an API key or "user:password". It wins over
	// Username and Password.
	Token              string
	Username, Password string
	// Database overrides the database named in the URI.
	Database string
	// Collection is the base name (MEMORY_MILVUS_COLLECTION, default memory_text_v1);
	// the model and dimension are appended (see CollectionName).
	Collection string
	// Model names the embedding model (the embedder's Model()).
	Model string
	// Dimension is the embedder's Dimension().
	Dimension int
	// IndexType is IndexHNSW (default) or IndexAuto.
	IndexType string
	// HNSWM and HNSWEfConstruction build the HNSW index (defaults 16 and 200).
	HNSWM, HNSWEfConstruction int
	// SearchEf is the HNSW ef of a search, raised to the limit when that is larger
	// (default 64).
	SearchEf int
	// Consistency is the level searches run at: "Strong" (default: a search sees
	// every upsert that returned before it), "Bounded", "Session" or "Eventually".
	Consistency string
	// BatchSize bounds the rows of one upsert and the ids of one delete (default 256).
	BatchSize int
	// ConnectTimeout bounds dialling (default 5 s); SetupTimeout bounds creating,
	// indexing and loading the collection on first use (default 60 s);
	// RequestTimeout bounds each call when the caller's context allows more
	// (default 10 s).
	ConnectTimeout, SetupTimeout, RequestTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.Collection == "" {
		o.Collection = DefaultCollection
	}
	if o.IndexType == "" {
		o.IndexType = IndexHNSW
	}
	if o.HNSWM <= 0 {
		o.HNSWM = 16
	}
	if o.HNSWEfConstruction <= 0 {
		o.HNSWEfConstruction = 200
	}
	if o.SearchEf <= 0 {
		o.SearchEf = 64
	}
	if o.Consistency == "" {
		o.Consistency = "Strong"
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.SetupTimeout <= 0 {
		o.SetupTimeout = DefaultSetupTimeout
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	return o
}

var consistencyLevels = map[string]entity.ConsistencyLevel{
	"Strong": entity.ClStrong, "Session": entity.ClSession, "Bounded": entity.ClBounded, "Eventually": entity.ClEventually,
}

// Index is the Milvus vector index. It connects and prepares its collection lazily,
// in the background, on first use, so engram starts (and answers lexically) while
// Milvus is down; calls made before the collection is ready fail with
// ports.ErrUnavailable when their context ends. Safe for concurrent use.
type Index struct {
	opts        Options
	collection  string
	consistency entity.ConsistencyLevel

	life   context.Context // ended by Close; bounds background set-up
	cancel context.CancelFunc

	mu     sync.Mutex
	client *milvusclient.Client // dialled, maybe not set up
	ready  bool                 // the collection exists, is indexed and loaded
	setup  *setupRun            // the running or last set-up attempt
}

type setupRun struct {
	done chan struct{}
	err  error
}

// quietClient lowers the client's own logger to errors. The client logs a warning
// for every failed call it retries; this adapter returns those failures instead,
// and the caller decides whether to log them (once, in engram's format).
var quietClient sync.Once

// New checks the options and returns an Index; it does no I/O.
func New(opts Options) (*Index, error) {
	quietClient.Do(func() { milvuslog.SetLevel(zapcore.ErrorLevel) })
	opts = opts.withDefaults()
	var errs []error
	if opts.URI == "" {
		errs = append(errs, invalid.Field("milvus.uri", "must be set (MEMORY_MILVUS_URI), e.g. http://localhost:19530"))
	}
	if opts.Dimension < 1 || opts.Dimension > 32768 {
		errs = append(errs, invalid.FieldValue("milvus.dimension", opts.Dimension, "must be 1 to 32768, got %d", opts.Dimension))
	}
	if opts.IndexType != IndexHNSW && opts.IndexType != IndexAuto {
		errs = append(errs, invalid.FieldValue("milvus.index_type", opts.IndexType, "must be %s or %s", IndexHNSW, IndexAuto))
	}
	level, ok := consistencyLevels[opts.Consistency]
	if !ok {
		errs = append(errs, invalid.FieldValue("milvus.consistency", opts.Consistency, "must be Strong, Session, Bounded or Eventually"))
	}
	if err := invalid.Join(errs...); err != nil {
		return nil, err
	}
	life, cancel := context.WithCancel(context.Background())
	return &Index{
		opts:        opts,
		collection:  CollectionName(opts.Collection, opts.Model, opts.Dimension),
		consistency: level,
		life:        life,
		cancel:      cancel,
	}, nil
}

// Collection is the name of the collection this index reads and writes.
func (ix *Index) Collection() string { return ix.collection }

// Close stops a running set-up and closes the connection.
func (ix *Index) Close(ctx context.Context) error {
	ix.cancel()
	ix.mu.Lock()
	c := ix.client
	ix.client, ix.ready = nil, false
	ix.mu.Unlock()
	if c == nil {
		return nil
	}
	if err := c.Close(ctx); err != nil {
		return ix.unavailable(ctx, "close", err)
	}
	return nil
}

// Ping waits until the collection is ready (connected, created, indexed, loaded), or
// the context ends; for readiness probes and start-up checks.
func (ix *Index) Ping(ctx context.Context) error {
	_, err := ix.conn(ctx)
	return err
}

// Drop deletes the collection with every vector in it (a reindex from scratch, or a
// test's clean-up). The next call creates it again.
func (ix *Index) Drop(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, ix.opts.RequestTimeout)
	defer cancel()
	c, err := ix.dialed(ctx)
	if err != nil {
		return err
	}
	if err := c.DropCollection(ctx, milvusclient.NewDropCollectionOption(ix.collection)); err != nil {
		return ix.unavailable(ctx, "drop collection", err)
	}
	ix.mu.Lock()
	ix.ready, ix.setup = false, nil
	ix.mu.Unlock()
	return nil
}

// Upsert writes the records in batches of BatchSize, each with its own
// RequestTimeout, replacing rows with the same id. The whole call is validated
// first; a batch that fails leaves the earlier batches written (upserts are
// idempotent, so the caller simply retries).
func (ix *Index) Upsert(ctx context.Context, records []ports.VectorRecord) error {
	if err := ix.validateRecords(records); err != nil {
		return err
	}
	records = lastPerID(records)
	if len(records) == 0 {
		return nil
	}
	for start := 0; start < len(records); start += ix.opts.BatchSize {
		batch := records[start:min(start+ix.opts.BatchSize, len(records))]
		err := ix.call(ctx, "upsert", func(ctx context.Context, c *milvusclient.Client) error {
			_, err := c.Upsert(ctx, ix.toColumns(batch))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// call runs one request with RequestTimeout (or the caller's earlier deadline),
// on a client whose collection is ready, and maps its error.
func (ix *Index) call(ctx context.Context, op string, fn func(context.Context, *milvusclient.Client) error) error {
	ctx, cancel := context.WithTimeout(ctx, ix.opts.RequestTimeout)
	defer cancel()
	c, err := ix.conn(ctx)
	if err != nil {
		return err
	}
	if err := fn(ctx, c); err != nil {
		return ix.unavailable(ctx, op, err)
	}
	return nil
}

// Delete removes the tenant's rows with these ids; the tenant is part of the delete
// expression, so one tenant can never delete another's vectors.
func (ix *Index) Delete(ctx context.Context, tenant string, ids []string) error {
	if tenant == "" {
		return invalid.Field("tenant", "must not be empty: deletes are confined to one tenant")
	}
	if err := checkText("tenant", tenant, maxTenantBytes); err != nil {
		return err
	}
	ids = validIDs(ids)
	if len(ids) == 0 {
		return nil
	}
	for start := 0; start < len(ids); start += ix.opts.BatchSize {
		batch := ids[start:min(start+ix.opts.BatchSize, len(ids))]
		err := ix.call(ctx, "delete", func(ctx context.Context, c *milvusclient.Client) error {
			_, err := c.Delete(ctx, milvusclient.NewDeleteOption(ix.collection).WithExpr(deleteFilter(tenant, batch)))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Search returns the user's nearest vectors that pass every filter, nearest first,
// with cosine similarity as the score.
func (ix *Index) Search(ctx context.Context, q ports.VectorQuery) ([]ports.VectorHit, error) {
	if err := ix.validateQuery(q); err != nil {
		return nil, err
	}
	limit := min(q.Limit, MaxSearchLimit)
	opt := milvusclient.NewSearchOption(ix.collection, limit, []entity.Vector{entity.FloatVector(q.Vector)}).
		WithANNSField(fieldVector).
		WithFilter(searchFilter(q)).
		WithOutputFields(fieldKind).
		WithConsistencyLevel(ix.consistency)
	if ix.opts.IndexType == IndexHNSW {
		opt = opt.WithAnnParam(index.NewHNSWAnnParam(max(ix.opts.SearchEf, limit)))
	}
	var results []milvusclient.ResultSet
	err := ix.call(ctx, "search", func(ctx context.Context, c *milvusclient.Client) error {
		var err error
		results, err = c.Search(ctx, opt)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(results) != 1 {
		return nil, fmt.Errorf("milvus: search: %w: %d result sets for one query", ports.ErrUnavailable, len(results))
	}
	return toHits(results[0])
}

func toHits(rs milvusclient.ResultSet) ([]ports.VectorHit, error) {
	if rs.Err != nil {
		return nil, fmt.Errorf("milvus: search: %w: %s", ports.ErrUnavailable, rs.Err.Error())
	}
	kinds := rs.GetColumn(fieldKind)
	if rs.ResultCount > 0 && (rs.IDs == nil || kinds == nil || len(rs.Scores) < rs.ResultCount) {
		return nil, fmt.Errorf("milvus: search: %w: incomplete result set", ports.ErrUnavailable)
	}
	hits := make([]ports.VectorHit, 0, rs.ResultCount)
	for i := range rs.ResultCount {
		id, err := rs.IDs.GetAsString(i)
		if err != nil {
			return nil, fmt.Errorf("milvus: search: %w: read id: %s", ports.ErrUnavailable, err.Error())
		}
		kind, err := kinds.GetAsString(i)
		if err != nil {
			return nil, fmt.Errorf("milvus: search: %w: read kind: %s", ports.ErrUnavailable, err.Error())
		}
		score := math.Max(-1, math.Min(1, float64(rs.Scores[i])))
		hits = append(hits, ports.VectorHit{ID: id, Kind: memory.Kind(kind), Score: score})
	}
	// Milvus orders by score; equal scores are put in id order, as localvec does.
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	return hits, nil
}

func (ix *Index) toColumns(batch []ports.VectorRecord) milvusclient.UpsertOption {
	n := len(batch)
	ids, scopes, tenants, users := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	kinds, types, conversations := make([]string, n), make([]string, n), make([]string, n)
	ats := make([]int64, n)
	vectors := make([][]float32, n)
	for i, r := range batch {
		ids[i], scopes[i], tenants[i], users[i] = r.ID, scope(r.Tenant, r.User), r.Tenant, r.User
		kinds[i], types[i], conversations[i] = string(r.Kind), r.MemoryType, r.ConversationID
		ats[i] = r.At.UnixMilli()
		vectors[i] = r.Vector
	}
	return milvusclient.NewColumnBasedInsertOption(ix.collection).
		WithVarcharColumn(fieldID, ids).
		WithVarcharColumn(fieldScope, scopes).
		WithVarcharColumn(fieldTenant, tenants).
		WithVarcharColumn(fieldUser, users).
		WithVarcharColumn(fieldKind, kinds).
		WithVarcharColumn(fieldMemoryType, types).
		WithVarcharColumn(fieldConversationID, conversations).
		WithInt64Column(fieldAt, ats).
		WithFloatVectorColumn(fieldVector, ix.opts.Dimension, vectors)
}

// lastPerID keeps the last record of each id: Milvus refuses duplicate primary keys
// in one upsert, and the port promises that the last write wins.
func lastPerID(records []ports.VectorRecord) []ports.VectorRecord {
	last := make(map[string]int, len(records))
	for i, r := range records {
		last[r.ID] = i
	}
	if len(last) == len(records) {
		return records
	}
	out := make([]ports.VectorRecord, 0, len(last))
	for i, r := range records {
		if last[r.ID] == i {
			out = append(out, r)
		}
	}
	return out
}

// conn returns a client whose collection is ready, starting the set-up if needed.
// The set-up runs on the index's own context, so a caller with a short deadline
// (a search) gives up waiting without killing it; the next caller finds it done.
func (ix *Index) conn(ctx context.Context) (*milvusclient.Client, error) {
	ix.mu.Lock()
	if ix.ready && ix.client != nil {
		c := ix.client
		ix.mu.Unlock()
		return c, nil
	}
	run := ix.setup
	if run == nil || finished(run) {
		run = &setupRun{done: make(chan struct{})}
		ix.setup = run
		go ix.runSetup(run)
	}
	ix.mu.Unlock()

	select {
	case <-run.done:
		if errors.Is(run.err, ports.ErrUnavailable) {
			return nil, run.err // already mapped (a failed dial)
		}
		if run.err != nil {
			return nil, ix.unavailable(ctx, "set up collection "+ix.collection, run.err)
		}
		ix.mu.Lock()
		defer ix.mu.Unlock()
		if ix.client == nil {
			return nil, fmt.Errorf("milvus: %w: index closed", ports.ErrUnavailable)
		}
		return ix.client, nil
	case <-ctx.Done():
		return nil, ix.unavailable(ctx, "wait for collection "+ix.collection, ctx.Err())
	}
}

func finished(run *setupRun) bool {
	select {
	case <-run.done:
		return true
	default:
		return false
	}
}

func (ix *Index) runSetup(run *setupRun) {
	defer close(run.done)
	ctx, cancel := context.WithTimeout(ix.life, ix.opts.SetupTimeout)
	defer cancel()
	c, err := ix.dialed(ctx)
	if err != nil {
		run.err = err
		return
	}
	if err := ix.ensureCollection(ctx, c); err != nil {
		run.err = err
		return
	}
	ix.mu.Lock()
	ix.ready = ix.client == c
	ix.mu.Unlock()
}

// dialed returns the connected client, dialling when there is none.
func (ix *Index) dialed(ctx context.Context) (*milvusclient.Client, error) {
	ix.mu.Lock()
	c := ix.client
	ix.mu.Unlock()
	if c != nil {
		return c, nil
	}
	dialCtx, cancel := context.WithTimeout(ctx, ix.opts.ConnectTimeout)
	defer cancel()
	c, err := milvusclient.New(dialCtx, &milvusclient.ClientConfig{
		Address:  ix.opts.URI,
		APIKey:   ix.opts.Token,
		Username: ix.opts.Username,
		Password: ix.opts.Password,
		DBName:   ix.opts.Database,
	})
	if err != nil {
		return nil, ix.unavailable(dialCtx, "connect to "+ix.opts.URI, err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.life.Err() != nil {
		_ = c.Close(context.Background())
		return nil, fmt.Errorf("milvus: %w: index closed", ports.ErrUnavailable)
	}
	if ix.client != nil { // lost a race with another dial
		_ = c.Close(context.Background())
		return ix.client, nil
	}
	ix.client = c
	return c, nil
}

// unavailable wraps a client, gRPC or context error into ports.ErrUnavailable,
// keeping its text but not its type. A deadline keeps context.DeadlineExceeded in
// the chain so callers can tell a slow Milvus from a failing one.
func (ix *Index) unavailable(ctx context.Context, op string, err error) error {
	if errors.Is(err, merr.ErrCollectionNotFound) || errors.Is(err, merr.ErrCollectionNotLoaded) {
		// Someone dropped or released the collection: set it up again next time.
		ix.mu.Lock()
		ix.ready = false
		ix.mu.Unlock()
	}
	var ctxErr error
	switch {
	case errors.Is(err, context.DeadlineExceeded), status.Code(err) == codes.DeadlineExceeded:
		ctxErr = context.DeadlineExceeded
	case errors.Is(err, context.Canceled), status.Code(err) == codes.Canceled:
		ctxErr = context.Canceled
	case ctx.Err() != nil:
		ctxErr = ctx.Err()
	}
	if ctxErr != nil {
		return fmt.Errorf("milvus: %s: %w: %w", op, ports.ErrUnavailable, ctxErr)
	}
	return fmt.Errorf("milvus: %s: %w: %s", op, ports.ErrUnavailable, err.Error())
}

func (ix *Index) validateRecords(records []ports.VectorRecord) error {
	var errs []error
	for i, r := range records {
		field := fmt.Sprintf("records[%d]", i)
		for _, check := range []struct {
			name     string
			value    string
			max      int
			required bool
		}{
			{"id", r.ID, maxIDBytes, true},
			{"tenant", r.Tenant, maxTenantBytes, true},
			{"user", r.User, maxUserBytes, true},
			{"kind", string(r.Kind), maxKindBytes, true},
			{"memory_type", r.MemoryType, maxMemoryTypeBytes, false},
			{"conversation_id", r.ConversationID, maxConversationIDBytes, false},
		} {
			if check.required && check.value == "" {
				errs = append(errs, invalid.Field(field+"."+check.name, "must not be empty"))
				continue
			}
			if err := checkText(field+"."+check.name, check.value, check.max); err != nil {
				errs = append(errs, err)
			}
		}
		if err := ix.checkVector(field+".vector", r.Vector); err != nil {
			errs = append(errs, err)
		}
	}
	return invalid.Join(errs...)
}

func (ix *Index) validateQuery(q ports.VectorQuery) error {
	var errs []error
	if q.Tenant == "" {
		errs = append(errs, invalid.Field("tenant", "must not be empty: a search is always confined to one tenant"))
	}
	if q.User == "" {
		errs = append(errs, invalid.Field("user", "must not be empty: a search is always confined to one user"))
	}
	if q.Limit <= 0 {
		errs = append(errs, invalid.FieldValue("limit", q.Limit, "must be at least 1, got %d", q.Limit))
	}
	texts := map[string]string{"tenant": q.Tenant, "user": q.User, "conversation_id": q.ConversationID}
	for i, k := range q.Kinds {
		texts[fmt.Sprintf("kinds[%d]", i)] = string(k)
	}
	for i, t := range q.MemoryTypes {
		texts[fmt.Sprintf("memory_types[%d]", i)] = t
	}
	for name, value := range texts {
		if err := checkText(name, value, math.MaxInt); err != nil {
			errs = append(errs, err)
		}
	}
	if err := ix.checkVector("vector", q.Vector); err != nil {
		errs = append(errs, err)
	}
	return invalid.Join(errs...)
}

// checkText refuses what Milvus would refuse or mangle: invalid UTF-8 and values
// longer than the field.
func checkText(field, value string, maxBytes int) error {
	if !utf8.ValidString(value) {
		return invalid.Field(field, "must be valid UTF-8")
	}
	if len(value) > maxBytes {
		return invalid.Field(field, "must be at most %d bytes, got %d", maxBytes, len(value))
	}
	return nil
}

// checkVector refuses vectors of the wrong dimension and vectors without a direction
// (zero, NaN or infinite components), which have no cosine similarity.
func (ix *Index) checkVector(field string, v []float32) error {
	_, err := vector.Check(field, v, ix.opts.Dimension)
	return err
}

// validIDs drops empty and unusable ids from a delete: no row can have them.
func validIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" && len(id) <= maxIDBytes && utf8.ValidString(id) {
			out = append(out, id)
		}
	}
	return out
}
