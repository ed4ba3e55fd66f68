package milvus_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/milvuspb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
	"github.com/milvus-io/milvus/client/v2/entity"
	"github.com/milvus-io/milvus/client/v2/milvusclient"
	"github.com/milvus-io/milvus/pkg/v2/util/merr"
	"google.golang.org/grpc/codes"

	"engram/adapters/milvus"
	"engram/domain/invalid"
	"engram/domain/memory"
	"engram/ports"
	"engram/test/contract"
	"engram/test/fakemilvus"
	"engram/test/testenv"
	"engram/test/wait"
)

func TestVectorIndex_MilvusFake(t *testing.T) {
	t.Parallel()
	contract.RunVectorIndex(t, func(t *testing.T, dim int) ports.VectorIndex {
		srv := fakemilvus.Start(t)
		return open(t, milvus.Options{URI: srv.Addr(), Model: "contract", Dimension: dim})
	})
}

func TestVectorIndex_Milvus(t *testing.T) {
	addr := testenv.MilvusAddr(t)
	t.Parallel()
	var n atomic.Int64
	run := time.Now().UnixNano()
	contract.RunVectorIndex(t, func(t *testing.T, dim int) ports.VectorIndex {
		ix := open(t, milvus.Options{
			URI: addr, Token: testenvToken(), Model: "contract", Dimension: dim,
			Collection: fmt.Sprintf("engram_contract_%d_%d", run, n.Add(1)),
		})
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := ix.Drop(ctx); err != nil {
				t.Logf("drop %s: %v", ix.Collection(), err)
			}
		})
		return ix
	})
}

// testenvToken lets a real-Milvus run authenticate (ENGRAM_TEST_MILVUS_TOKEN).
func testenvToken() string { return strings.TrimSpace(os.Getenv("ENGRAM_TEST_MILVUS_TOKEN")) }

func open(t *testing.T, opts milvus.Options) *milvus.Index {
	t.Helper()
	ix, err := milvus.New(opts)
	if err != nil {
		t.Fatalf("milvus.New: %v", err)
	}
	t.Cleanup(func() { _ = ix.Close(context.Background()) })
	return ix
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func unit(dim, axis int) []float32 {
	v := make([]float32, dim)
	v[axis] = 1
	return v
}

func memoryRecord(tenant, user, id string, v []float32) ports.VectorRecord {
	return ports.VectorRecord{ID: id, Tenant: tenant, User: user, Kind: memory.KindMemory, MemoryType: "fact", At: time.UnixMilli(1_700_000_000_000), Vector: v}
}

func TestCollectionName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("very-long-model-name-", 20)
	for _, tc := range []struct {
		base, model string
		dim         int
		want        string
	}{
		{"memory_text_v1", "text-embedding-3-small", 1536, "memory_text_v1__text_embedding_3_small__1536"},
		{"memory_text_v1", "", 384, "memory_text_v1__384"},
		{"", "BAAI/bge-m3:latest", 1024, "memory_text_v1__baai_bge_m3_latest__1024"},
		{"9lives", "m", 8, "c_9lives__m__8"},
		{"Memory Text", "nomic-embed-text", 768, "memory_text__nomic_embed_text__768"},
	} {
		if got := milvus.CollectionName(tc.base, tc.model, tc.dim); got != tc.want {
			t.Errorf("CollectionName(%q, %q, %d) = %q, want %q", tc.base, tc.model, tc.dim, got, tc.want)
		}
	}
	a, b := milvus.CollectionName("base", long, 8), milvus.CollectionName("base", long+"x", 8)
	if len(a) > 255 || a == b || !strings.HasSuffix(a, "__8") {
		t.Errorf("long model names: %q and %q must differ, end in __8 and fit 255", a, b)
	}
}

func TestNew_refusesBadOptions(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string]milvus.Options{
		"no uri":          {Dimension: 8},
		"no dimension":    {URI: "localhost:19530"},
		"bad index type":  {URI: "localhost:19530", Dimension: 8, IndexType: "IVF_PQ"},
		"bad consistency": {URI: "localhost:19530", Dimension: 8, Consistency: "Sometimes"},
	} {
		var ve *invalid.Error
		if _, err := milvus.New(opts); !errors.As(err, &ve) {
			t.Errorf("%s: err %v, want *invalid.Error", name, err)
		}
	}
}

func TestSetup_createsThePartitionKeyedCollection(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Collection: "memory_text_v1", Model: "text-embedding-3-small", Dimension: 8})
	if err := ix.Ping(ctxFor(t)); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	coll, ok := srv.Collection("memory_text_v1__text_embedding_3_small__8")
	if !ok {
		t.Fatalf("no collection; have %v", srv.Collections())
	}

	type field struct {
		typ         schemapb.DataType
		maxLen, dim string
		pk, partKey bool
	}
	got := map[string]field{}
	for _, f := range coll.Schema.GetFields() {
		params := map[string]string{}
		for _, p := range f.GetTypeParams() {
			params[p.GetKey()] = p.GetValue()
		}
		got[f.GetName()] = field{f.GetDataType(), params["max_length"], params["dim"], f.GetIsPrimaryKey(), f.GetIsPartitionKey()}
	}
	want := map[string]field{
		"id":              {typ: schemapb.DataType_VarChar, maxLen: "256", pk: true},
		"scope":           {typ: schemapb.DataType_VarChar, maxLen: "769", partKey: true},
		"tenant":          {typ: schemapb.DataType_VarChar, maxLen: "256"},
		"user":            {typ: schemapb.DataType_VarChar, maxLen: "512"},
		"kind":            {typ: schemapb.DataType_VarChar, maxLen: "64"},
		"memory_type":     {typ: schemapb.DataType_VarChar, maxLen: "64"},
		"conversation_id": {typ: schemapb.DataType_VarChar, maxLen: "256"},
		"at":              {typ: schemapb.DataType_Int64},
		"vector":          {typ: schemapb.DataType_FloatVector, dim: "8"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("schema fields\n got %v\nwant %v", got, want)
	}
	if coll.Schema.GetEnableDynamicField() {
		t.Error("dynamic fields are enabled; every field should be declared")
	}
	if coll.ConsistencyLevel != commonpb.ConsistencyLevel_Strong {
		t.Errorf("collection consistency %v, want Strong", coll.ConsistencyLevel)
	}
	wantIndex := map[string]string{"index_type": "HNSW", "metric_type": "COSINE", "M": "16", "efConstruction": "200"}
	if fmt.Sprint(coll.Indexes["vector_idx"]) != fmt.Sprint(wantIndex) || coll.IndexFields["vector_idx"] != "vector" {
		t.Errorf("indexes %v on %v, want vector_idx %v on vector", coll.Indexes, coll.IndexFields, wantIndex)
	}
	if !coll.Loaded {
		t.Error("collection not loaded")
	}

	// A second process finds everything in place and changes nothing.
	srv.ResetRequests()
	other := open(t, milvus.Options{URI: srv.Addr(), Collection: "memory_text_v1", Model: "text-embedding-3-small", Dimension: 8})
	if err := other.Ping(ctxFor(t)); err != nil {
		t.Fatalf("second Ping: %v", err)
	}
	if n := len(srv.Requests("CreateCollection")) + len(srv.Requests("CreateIndex")); n != 0 {
		t.Errorf("%d create calls against an existing collection", n)
	}
}

func TestSetup_autoIndex(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 8, IndexType: milvus.IndexAuto, Consistency: "Bounded"})
	if err := ix.Ping(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	coll, _ := srv.Collection(ix.Collection())
	if p := coll.Indexes["vector_idx"]; p["index_type"] != "AUTOINDEX" || p["metric_type"] != "COSINE" {
		t.Errorf("index params %v, want AUTOINDEX with COSINE", p)
	}
	if coll.ConsistencyLevel != commonpb.ConsistencyLevel_Bounded {
		t.Errorf("consistency %v, want Bounded", coll.ConsistencyLevel)
	}
}

func TestSetup_refusesACollectionOfAnotherDimension(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Model: "m", Dimension: 8})
	// Someone made the same name with 4-dimension vectors.
	c, err := milvusclient.New(ctxFor(t), &milvusclient.ClientConfig{Address: srv.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	err = c.CreateCollection(ctxFor(t), milvusclient.SimpleCreateCollectionOptions(ix.Collection(), 4).WithVarcharPK(true, 64).WithAutoID(false))
	if err != nil {
		t.Fatal(err)
	}
	err = ix.Ping(ctxFor(t))
	if !errors.Is(err, ports.ErrUnavailable) || !strings.Contains(err.Error(), "without field") && !strings.Contains(err.Error(), "dimension") {
		t.Fatalf("err %v, want ErrUnavailable naming the schema mismatch", err)
	}
}

func TestSearch_requestShape(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 4})
	ctx := ctxFor(t)
	since := time.UnixMilli(1_700_000_000_000)
	_, err := ix.Search(ctx, ports.VectorQuery{
		Tenant: "acme", User: "alice", Kinds: []memory.Kind{memory.KindMemory, memory.KindMessage},
		MemoryTypes: []string{"fact", "goal"}, ConversationID: "c-1", Since: since, Until: since.Add(time.Hour),
		Vector: []float32{1, 0, 0, 0}, Limit: 7,
	})
	if err != nil {
		t.Fatal(err)
	}
	req := srv.Last("Search").(*milvuspb.SearchRequest)
	wantFilter := `scope == "acme/alice" && tenant == "acme" && user == "alice" && kind in ["memory","message"]` +
		` && memory_type in ["fact","goal"] && conversation_id == "c-1" && at >= 1700000000000 && at < 1700003600000`
	if req.GetDsl() != wantFilter {
		t.Errorf("filter\n got %s\nwant %s", req.GetDsl(), wantFilter)
	}
	if req.GetDslType() != commonpb.DslType_BoolExprV1 {
		t.Errorf("dsl type %v", req.GetDslType())
	}
	if fmt.Sprint(req.GetOutputFields()) != "[kind]" {
		t.Errorf("output fields %v, want [kind]", req.GetOutputFields())
	}
	if req.GetConsistencyLevel() != commonpb.ConsistencyLevel_Strong || req.GetUseDefaultConsistency() {
		t.Errorf("consistency %v (default %v), want explicit Strong", req.GetConsistencyLevel(), req.GetUseDefaultConsistency())
	}
	if len(req.GetPartitionNames()) != 0 {
		t.Errorf("partition names %v: the partition key routes the search", req.GetPartitionNames())
	}
	params := map[string]string{}
	for _, p := range req.GetSearchParams() {
		params[p.GetKey()] = p.GetValue()
	}
	if params["anns_field"] != "vector" || params["topk"] != "7" || params["params"] != `{"ef":64}` {
		t.Errorf("search params %v", params)
	}
}

func TestSearch_limitAboveEfAndAboveMilvusMaximum(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 4})
	for limit, want := range map[int][2]string{100: {"100", `{"ef":100}`}, 50_000: {"16384", `{"ef":16384}`}} {
		if _, err := ix.Search(ctxFor(t), ports.VectorQuery{Tenant: "t", User: "u", Vector: []float32{1, 0, 0, 0}, Limit: limit}); err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		params := map[string]string{}
		for _, p := range srv.Last("Search").(*milvuspb.SearchRequest).GetSearchParams() {
			params[p.GetKey()] = p.GetValue()
		}
		if params["topk"] != want[0] || params["params"] != want[1] {
			t.Errorf("limit %d: topk %s params %s, want %s %s", limit, params["topk"], params["params"], want[0], want[1])
		}
	}
}

func TestFilters_escapeHostileText(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 4})
	ctx := ctxFor(t)
	hostile := `x" || tenant != "`
	if _, err := ix.Search(ctx, ports.VectorQuery{Tenant: hostile, User: "line\nbreak\\", MemoryTypes: []string{`"]`}, Vector: []float32{1, 0, 0, 0}, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	got := srv.Last("Search").(*milvuspb.SearchRequest).GetDsl()
	want := `scope == "x\" || tenant != \"/line\nbreak\\" && tenant == "x\" || tenant != \"" && user == "line\nbreak\\" && memory_type in ["\"]"]`
	if got != want {
		t.Errorf("filter\n got %s\nwant %s", got, want)
	}
	if err := ix.Delete(ctx, hostile, []string{`a"] || id != "`}); err != nil {
		t.Fatal(err)
	}
	gotDelete := srv.Last("Delete").(*milvuspb.DeleteRequest).GetExpr()
	wantDelete := `tenant == "x\" || tenant != \"" && id in ["a\"] || id != \""]`
	if gotDelete != wantDelete {
		t.Errorf("delete expr\n got %s\nwant %s", gotDelete, wantDelete)
	}
}

func TestUpsert_batchesAndKeepsTheLastCopyOfAnID(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 4, BatchSize: 2})
	records := []ports.VectorRecord{
		memoryRecord("t", "u", "a", unit(4, 0)), memoryRecord("t", "u", "b", unit(4, 1)), memoryRecord("t", "u", "a", unit(4, 2)),
		memoryRecord("t", "u", "c", unit(4, 3)), memoryRecord("t", "u", "d", unit(4, 0)), memoryRecord("t", "u", "e", unit(4, 1)),
	}
	if err := ix.Upsert(ctxFor(t), records); err != nil {
		t.Fatal(err)
	}
	upserts := srv.Requests("Upsert")
	if len(upserts) != 3 {
		t.Fatalf("%d upsert calls for 5 distinct ids in batches of 2, want 3", len(upserts))
	}
	first := upserts[0].Message.(*milvuspb.UpsertRequest)
	if first.GetNumRows() != 2 || first.GetPartitionName() != "" {
		t.Errorf("first batch: %d rows, partition %q", first.GetNumRows(), first.GetPartitionName())
	}
	columns := map[string]*schemapb.FieldData{}
	for _, fd := range first.GetFieldsData() {
		columns[fd.GetFieldName()] = fd
	}
	if got := columns["scope"].GetScalars().GetStringData().GetData(); fmt.Sprint(got) != "[t/u t/u]" {
		t.Errorf("scope column %v", got)
	}
	if got := columns["at"].GetScalars().GetLongData().GetData(); fmt.Sprint(got) != "[1700000000000 1700000000000]" {
		t.Errorf("at column %v", got)
	}
	if srv.RowCount(ix.Collection()) != 5 {
		t.Errorf("%d rows, want 5", srv.RowCount(ix.Collection()))
	}
	hits, err := ix.Search(ctxFor(t), ports.VectorQuery{Tenant: "t", User: "u", Vector: unit(4, 2), Limit: 1})
	if err != nil || len(hits) != 1 || hits[0].ID != "a" {
		t.Fatalf("search %v %v: the last copy of a (axis 2) should win", hits, err)
	}
}

func TestDelete_requestShape(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 4})
	if err := ix.Delete(ctxFor(t), "acme", []string{"m1", "m2"}); err != nil {
		t.Fatal(err)
	}
	req := srv.Last("Delete").(*milvuspb.DeleteRequest)
	if req.GetExpr() != `tenant == "acme" && id in ["m1","m2"]` || req.GetPartitionName() != "" {
		t.Errorf("delete %q in partition %q", req.GetExpr(), req.GetPartitionName())
	}
	srv.ResetRequests()
	if err := ix.Delete(ctxFor(t), "acme", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests("Delete")); n != 0 {
		t.Errorf("%d delete calls for no ids", n)
	}
}

func TestAuth_tokenAndDatabaseAreSent(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: "http://" + srv.Addr() + "/engramdb", Token: "root:Milvus", Dimension: 4})
	if err := ix.Ping(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	md := srv.Requests("DescribeCollection")[0].Metadata
	if got := md.Get("authorization"); len(got) != 1 || got[0] != base64.StdEncoding.EncodeToString([]byte("root:Milvus")) {
		t.Errorf("authorization %v", got)
	}
	if got := md.Get("dbname"); len(got) != 1 || got[0] != "engramdb" {
		t.Errorf("dbname %v", got)
	}
}

func TestInvalidInput_neverReachesMilvus(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 4})
	ctx := ctxFor(t)
	long := strings.Repeat("x", 257)
	for name, r := range map[string]ports.VectorRecord{
		"long id":      memoryRecord("t", "u", long, unit(4, 0)),
		"bad utf-8":    memoryRecord("t", "u\xff", "a", unit(4, 0)),
		"short vector": memoryRecord("t", "u", "a", []float32{1}),
	} {
		var ve *invalid.Error
		if err := ix.Upsert(ctx, []ports.VectorRecord{r}); !errors.As(err, &ve) {
			t.Errorf("%s: err %v, want *invalid.Error", name, err)
		}
	}
	if n := len(srv.Requests("")); n != 0 {
		t.Errorf("%d requests reached Milvus", n)
	}
}

// A Milvus error status, a gRPC error and a hang all come back as ErrUnavailable,
// and none of the client's error types leaks through the chain.
func TestErrors_mapToUnavailable(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		fault    fakemilvus.Fault
		deadline bool
	}{
		"server error status": {fault: fakemilvus.Fault{Status: merr.Status(merr.WrapErrServiceInternal("disk on fire"))}},
		"grpc error":          {fault: fakemilvus.Fault{Code: codes.Internal, Message: "proxy crashed"}},
		"hang":                {fault: fakemilvus.Fault{Hang: true}, deadline: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := fakemilvus.Start(t)
			ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 4})
			if err := ix.Ping(ctxFor(t)); err != nil {
				t.Fatal(err)
			}
			srv.Fail("*", tc.fault)

			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			start := time.Now()
			calls := map[string]error{
				"search": func() error {
					_, err := ix.Search(ctx, ports.VectorQuery{Tenant: "t", User: "u", Vector: unit(4, 0), Limit: 3})
					return err
				}(),
				"upsert": ix.Upsert(ctx, []ports.VectorRecord{memoryRecord("t", "u", "a", unit(4, 0))}),
				"delete": ix.Delete(ctx, "t", []string{"a"}),
			}
			for op, err := range calls {
				var ve *invalid.Error
				switch {
				case !errors.Is(err, ports.ErrUnavailable):
					t.Errorf("%s: err %v, want ErrUnavailable", op, err)
				case errors.As(err, &ve):
					t.Errorf("%s: a server failure reported as invalid input: %v", op, err)
				case errors.Is(err, merr.ErrServiceInternal):
					t.Errorf("%s: the client's error type leaked: %v", op, err)
				case tc.deadline && !errors.Is(err, context.DeadlineExceeded):
					t.Errorf("%s: err %v, want context.DeadlineExceeded in the chain", op, err)
				}
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("calls took %v; the deadline should end them", elapsed)
			}
		})
	}
}

func TestUnreachableMilvus_failsFastWithUnavailable(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.New()
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	addr := srv.Addr()
	srv.Stop() // nothing listens there any more
	ix := open(t, milvus.Options{URI: addr, Dimension: 4, ConnectTimeout: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := ix.Search(ctx, ports.VectorQuery{Tenant: "t", User: "u", Vector: unit(4, 0), Limit: 3})
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("err %v, want ErrUnavailable", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("took %v with a 150 ms deadline", elapsed)
	}
}

// A search with a tiny budget gives up waiting for the first set-up but does not
// abort it; the next call finds the collection ready.
func TestSetup_survivesImpatientCallers(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	srv.Fail("LoadCollection", fakemilvus.Fault{Hang: true, Times: 1})
	ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 4, SetupTimeout: 500 * time.Millisecond})

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := ix.Search(ctx, ports.VectorQuery{Tenant: "t", User: "u", Vector: unit(4, 0), Limit: 3}); !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("first search: %v, want ErrUnavailable", err)
	}
	// The hung load times out after SetupTimeout; the next call sets up again.
	var err error
	if !wait.For(10*time.Second, func() bool {
		_, err = ix.Search(ctxFor(t), ports.VectorQuery{Tenant: "t", User: "u", Vector: unit(4, 0), Limit: 3})
		return err == nil
	}) {
		t.Fatalf("search never recovered: %v", err)
	}
}

func TestCollectionDroppedBehindOurBack_isRecreated(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 4})
	ctx := ctxFor(t)
	if err := ix.Upsert(ctx, []ports.VectorRecord{memoryRecord("t", "u", "a", unit(4, 0))}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.DropCollection(ctx, &milvuspb.DropCollectionRequest{CollectionName: ix.Collection()}); err != nil {
		t.Fatal(err)
	}
	q := ports.VectorQuery{Tenant: "t", User: "u", Vector: unit(4, 0), Limit: 3}
	if _, err := ix.Search(ctx, q); !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("search on a dropped collection: %v, want ErrUnavailable", err)
	}
	hits, err := ix.Search(ctx, q)
	if err != nil || len(hits) != 0 {
		t.Fatalf("after re-creation: %v %v, want an empty answer", hits, err)
	}
	if _, ok := srv.Collection(ix.Collection()); !ok {
		t.Fatal("collection was not created again")
	}
}

func TestSearch_returnsKindsAndCosineScores(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 4})
	ctx := ctxFor(t)
	msg := memoryRecord("t", "u", "m", []float32{1, 1, 0, 0})
	msg.Kind, msg.MemoryType, msg.ConversationID = memory.KindMessage, "", "c"
	if err := ix.Upsert(ctx, []ports.VectorRecord{memoryRecord("t", "u", "a", unit(4, 0)), msg}); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.Search(ctx, ports.VectorQuery{Tenant: "t", User: "u", Vector: []float32{3, 0, 0, 0}, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ID != "a" || hits[0].Kind != memory.KindMemory || hits[1].Kind != memory.KindMessage {
		t.Fatalf("hits %v", hits)
	}
	if hits[0].Score < 0.9999 || hits[1].Score < 0.7070 || hits[1].Score > 0.7072 {
		t.Fatalf("scores %v, want 1 and 1/√2", hits)
	}
}

// The fake's own sanity: the client refuses nothing the adapter sends, and a
// partition-key collection refuses explicit partitions as Milvus does.
func TestFake_refusesPartitionNamesOnPartitionKeyCollections(t *testing.T) {
	t.Parallel()
	srv := fakemilvus.Start(t)
	ix := open(t, milvus.Options{URI: srv.Addr(), Dimension: 4})
	if err := ix.Ping(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	c, err := milvusclient.New(ctxFor(t), &milvusclient.ClientConfig{Address: srv.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	_, err = c.Search(ctxFor(t), milvusclient.NewSearchOption(ix.Collection(), 3, []entity.Vector{entity.FloatVector(unit(4, 0))}).WithPartitions("p1"))
	if err == nil {
		t.Fatal("search with a partition name accepted")
	}
}
