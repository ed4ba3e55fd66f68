package fakemilvus

import (
	"context"
	"fmt"
	"regexp"
	"strconv"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/milvuspb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
	"github.com/milvus-io/milvus/pkg/v2/util/merr"
	"google.golang.org/protobuf/proto"
)

// row is one entity: field name → string, int64 or []float32.
type row map[string]any

type index struct {
	name   string
	field  string
	params map[string]string
}

type collection struct {
	id            int64
	schema        *schemapb.CollectionSchema
	fields        map[string]*schemapb.FieldSchema
	pk            *schemapb.FieldSchema
	partitionKey  *schemapb.FieldSchema
	consistency   commonpb.ConsistencyLevel
	shards        int32
	numPartitions int64
	properties    []*commonpb.KeyValuePair
	indexes       map[string]*index // by index name
	loaded        bool
	rows          map[any]row // by primary key
	updated       uint64
}

// Collection describes a stored collection for assertions.
type Collection struct {
	Schema           *schemapb.CollectionSchema
	ConsistencyLevel commonpb.ConsistencyLevel
	NumPartitions    int64
	Indexes          map[string]map[string]string // index name → params (index_type, metric_type, M, …)
	IndexFields      map[string]string            // index name → field
	Loaded           bool
}

// Collection returns a copy of a collection's definition.
func (s *Server) Collection(name string) (Collection, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[name]
	if c == nil {
		return Collection{}, false
	}
	out := Collection{
		Schema:           proto.Clone(c.schema).(*schemapb.CollectionSchema),
		ConsistencyLevel: c.consistency,
		NumPartitions:    c.numPartitions,
		Indexes:          map[string]map[string]string{},
		IndexFields:      map[string]string{},
		Loaded:           c.loaded,
	}
	for name, ix := range c.indexes {
		params := map[string]string{}
		for k, v := range ix.params {
			params[k] = v
		}
		out.Indexes[name] = params
		out.IndexFields[name] = ix.field
	}
	return out, true
}

var validName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,254}$`)

func ok() *commonpb.Status { return merr.Success() }

func fail(err error) *commonpb.Status { return merr.Status(err) }

func invalidf(format string, args ...any) *commonpb.Status {
	return merr.Status(merr.WrapErrParameterInvalidMsg(format, args...))
}

func (s *Server) Connect(context.Context, *milvuspb.ConnectRequest) (*milvuspb.ConnectResponse, error) {
	return &milvuspb.ConnectResponse{
		Status:     ok(),
		ServerInfo: &commonpb.ServerInfo{BuildTags: "fakemilvus", Reserved: map[string]string{}},
		Identifier: 1,
	}, nil
}

func (s *Server) CreateCollection(_ context.Context, req *milvuspb.CreateCollectionRequest) (*commonpb.Status, error) {
	name := req.GetCollectionName()
	if !validName.MatchString(name) {
		return invalidf("invalid collection name %q: letters, digits and underscores, starting with a letter or underscore, at most 255", name), nil
	}
	var schema schemapb.CollectionSchema
	if err := proto.Unmarshal(req.GetSchema(), &schema); err != nil {
		return invalidf("unmarshal schema: %v", err), nil
	}
	c := &collection{
		schema: &schema, fields: map[string]*schemapb.FieldSchema{},
		consistency: req.GetConsistencyLevel(), shards: max(1, req.GetShardsNum()),
		numPartitions: req.GetNumPartitions(), properties: req.GetProperties(),
		indexes: map[string]*index{}, rows: map[any]row{},
	}
	if st := c.checkSchema(name); st != nil {
		return st, nil
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if existing := s.collections[name]; existing != nil {
		// Milvus accepts a repeated create with the same schema.
		if proto.Equal(stripIDs(existing.schema), stripIDs(c.schema)) {
			return ok(), nil
		}
		return invalidf("collection %s already exists with a different schema", name), nil
	}
	s.nextID++
	c.id = s.nextID
	c.updated = uint64(s.nextID)
	s.collections[name] = c
	return ok(), nil
}

func stripIDs(schema *schemapb.CollectionSchema) *schemapb.CollectionSchema {
	out := proto.Clone(schema).(*schemapb.CollectionSchema)
	for _, f := range out.Fields {
		f.FieldID = 0
	}
	return out
}

// checkSchema validates the schema as Milvus does (the parts the adapter can get
// wrong) and assigns field ids.
func (c *collection) checkSchema(name string) *commonpb.Status {
	s := c.schema
	s.Name = name
	if len(s.GetFields()) == 0 {
		return invalidf("schema has no fields")
	}
	hasVector := false
	for i, f := range s.GetFields() {
		f.FieldID = int64(100 + i)
		if !validName.MatchString(f.GetName()) {
			return invalidf("invalid field name %q", f.GetName())
		}
		if c.fields[f.GetName()] != nil {
			return invalidf("duplicated field name %s", f.GetName())
		}
		c.fields[f.GetName()] = f
		params := kv(f.GetTypeParams())
		switch f.GetDataType() {
		case schemapb.DataType_VarChar:
			n, err := strconv.Atoi(params["max_length"])
			if err != nil || n <= 0 || n > 65535 {
				return invalidf("field %s: max_length must be 1 to 65535, got %q", f.GetName(), params["max_length"])
			}
		case schemapb.DataType_Int64:
		case schemapb.DataType_FloatVector:
			n, err := strconv.Atoi(params["dim"])
			if err != nil || n <= 0 || n > 32768 {
				return invalidf("field %s: dim must be 1 to 32768, got %q", f.GetName(), params["dim"])
			}
			hasVector = true
		default:
			return invalidf("fakemilvus: field %s: data type %s is not supported by the fake", f.GetName(), f.GetDataType())
		}
		if f.GetIsPrimaryKey() {
			if c.pk != nil {
				return invalidf("there are more than one primary key")
			}
			if f.GetDataType() != schemapb.DataType_VarChar && f.GetDataType() != schemapb.DataType_Int64 {
				return invalidf("primary key must be Int64 or VarChar")
			}
			c.pk = f
		}
		if f.GetIsPartitionKey() {
			if c.partitionKey != nil {
				return invalidf("there are more than one partition key")
			}
			if f.GetIsPrimaryKey() {
				return invalidf("the partition key field must not be the primary key field")
			}
			if f.GetDataType() != schemapb.DataType_VarChar && f.GetDataType() != schemapb.DataType_Int64 {
				return invalidf("the data type of the partition key should be Int64 or VarChar")
			}
			c.partitionKey = f
		}
	}
	if c.pk == nil {
		return invalidf("primary key is not specified")
	}
	if c.pk.GetAutoID() {
		return invalidf("fakemilvus: auto id is not supported by the fake")
	}
	if !hasVector {
		return invalidf("schema does not contain vector field")
	}
	if c.partitionKey != nil && c.numPartitions == 0 {
		c.numPartitions = 16
	}
	return nil
}

func kv(pairs []*commonpb.KeyValuePair) map[string]string {
	out := make(map[string]string, len(pairs))
	for _, p := range pairs {
		out[p.GetKey()] = p.GetValue()
	}
	return out
}

func toKV(m map[string]string) []*commonpb.KeyValuePair {
	out := make([]*commonpb.KeyValuePair, 0, len(m))
	for k, v := range m {
		out = append(out, &commonpb.KeyValuePair{Key: k, Value: v})
	}
	return out
}

func (s *Server) DescribeCollection(_ context.Context, req *milvuspb.DescribeCollectionRequest) (*milvuspb.DescribeCollectionResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[req.GetCollectionName()]
	if c == nil {
		return &milvuspb.DescribeCollectionResponse{Status: fail(merr.WrapErrCollectionNotFound(req.GetCollectionName()))}, nil
	}
	return &milvuspb.DescribeCollectionResponse{
		Status:           ok(),
		Schema:           proto.Clone(c.schema).(*schemapb.CollectionSchema),
		CollectionID:     c.id,
		CollectionName:   c.schema.GetName(),
		ShardsNum:        c.shards,
		ConsistencyLevel: c.consistency,
		NumPartitions:    c.numPartitions,
		Properties:       c.properties,
		UpdateTimestamp:  c.updated,
	}, nil
}

func (s *Server) HasCollection(_ context.Context, req *milvuspb.HasCollectionRequest) (*milvuspb.BoolResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &milvuspb.BoolResponse{Status: ok(), Value: s.collections[req.GetCollectionName()] != nil}, nil
}

func (s *Server) ShowCollections(context.Context, *milvuspb.ShowCollectionsRequest) (*milvuspb.ShowCollectionsResponse, error) {
	return &milvuspb.ShowCollectionsResponse{Status: ok(), CollectionNames: s.Collections()}, nil
}

func (s *Server) DropCollection(_ context.Context, req *milvuspb.DropCollectionRequest) (*commonpb.Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.collections, req.GetCollectionName())
	return ok(), nil
}

func (s *Server) CreateIndex(_ context.Context, req *milvuspb.CreateIndexRequest) (*commonpb.Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[req.GetCollectionName()]
	if c == nil {
		return fail(merr.WrapErrCollectionNotFound(req.GetCollectionName())), nil
	}
	field := c.fields[req.GetFieldName()]
	if field == nil {
		return invalidf("cannot create index on non-exist field: %s", req.GetFieldName()), nil
	}
	params := kv(req.GetExtraParams())
	if field.GetDataType() == schemapb.DataType_FloatVector {
		// Milvus fills in AUTOINDEX and COSINE when they are not given.
		if params["index_type"] == "" {
			params["index_type"] = "AUTOINDEX"
		}
		if params["metric_type"] == "" {
			params["metric_type"] = "COSINE"
		}
		switch params["metric_type"] {
		case "COSINE", "L2", "IP":
		default:
			return invalidf("metric type %q is not supported for float vectors", params["metric_type"]), nil
		}
		switch params["index_type"] {
		case "HNSW":
			if _, err := strconv.Atoi(params["M"]); err != nil {
				return invalidf("HNSW needs an integer M, got %q", params["M"]), nil
			}
			if _, err := strconv.Atoi(params["efConstruction"]); err != nil {
				return invalidf("HNSW needs an integer efConstruction, got %q", params["efConstruction"]), nil
			}
		case "AUTOINDEX", "FLAT", "IVF_FLAT":
		default:
			return invalidf("fakemilvus: index type %q is not supported by the fake", params["index_type"]), nil
		}
	}
	name := req.GetIndexName()
	if name == "" {
		name = field.GetName()
	}
	for _, existing := range c.indexes {
		if existing.field != field.GetName() {
			continue
		}
		if existing.name == name && fmt.Sprint(existing.params) == fmt.Sprint(params) {
			return ok(), nil
		}
		return invalidf("at most one distinct index is allowed per field"), nil
	}
	c.indexes[name] = &index{name: name, field: field.GetName(), params: params}
	return ok(), nil
}

func (s *Server) DescribeIndex(_ context.Context, req *milvuspb.DescribeIndexRequest) (*milvuspb.DescribeIndexResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[req.GetCollectionName()]
	if c == nil {
		return &milvuspb.DescribeIndexResponse{Status: fail(merr.WrapErrCollectionNotFound(req.GetCollectionName()))}, nil
	}
	var descs []*milvuspb.IndexDescription
	for _, ix := range c.indexes {
		if req.GetIndexName() != "" && req.GetIndexName() != ix.name {
			continue
		}
		if req.GetFieldName() != "" && req.GetFieldName() != ix.field {
			continue
		}
		descs = append(descs, &milvuspb.IndexDescription{
			IndexName: ix.name, FieldName: ix.field, Params: toKV(ix.params),
			State: commonpb.IndexState_Finished, TotalRows: int64(len(c.rows)), IndexedRows: int64(len(c.rows)),
		})
	}
	if len(descs) == 0 {
		return &milvuspb.DescribeIndexResponse{Status: fail(merr.WrapErrIndexNotFound(req.GetIndexName()))}, nil
	}
	return &milvuspb.DescribeIndexResponse{Status: ok(), IndexDescriptions: descs}, nil
}

func (s *Server) LoadCollection(_ context.Context, req *milvuspb.LoadCollectionRequest) (*commonpb.Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[req.GetCollectionName()]
	if c == nil {
		return fail(merr.WrapErrCollectionNotFound(req.GetCollectionName())), nil
	}
	for _, f := range c.schema.GetFields() {
		if f.GetDataType() != schemapb.DataType_FloatVector {
			continue
		}
		if c.indexOn(f.GetName()) == nil {
			return fail(merr.WrapErrIndexNotFoundForCollection(req.GetCollectionName(), "there is no vector index on field "+f.GetName()+", please create index firstly")), nil
		}
	}
	c.loaded = true
	return ok(), nil
}

func (c *collection) indexOn(field string) *index {
	for _, ix := range c.indexes {
		if ix.field == field {
			return ix
		}
	}
	return nil
}

func (s *Server) ReleaseCollection(_ context.Context, req *milvuspb.ReleaseCollectionRequest) (*commonpb.Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.collections[req.GetCollectionName()]; c != nil {
		c.loaded = false
	}
	return ok(), nil
}

func (s *Server) GetLoadingProgress(_ context.Context, req *milvuspb.GetLoadingProgressRequest) (*milvuspb.GetLoadingProgressResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[req.GetCollectionName()]
	if c == nil {
		return &milvuspb.GetLoadingProgressResponse{Status: fail(merr.WrapErrCollectionNotFound(req.GetCollectionName()))}, nil
	}
	if !c.loaded {
		return &milvuspb.GetLoadingProgressResponse{Status: fail(merr.WrapErrCollectionNotLoaded(req.GetCollectionName()))}, nil
	}
	return &milvuspb.GetLoadingProgressResponse{Status: ok(), Progress: 100, RefreshProgress: 100}, nil
}

func (s *Server) GetLoadState(_ context.Context, req *milvuspb.GetLoadStateRequest) (*milvuspb.GetLoadStateResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[req.GetCollectionName()]
	if c == nil {
		return &milvuspb.GetLoadStateResponse{Status: fail(merr.WrapErrCollectionNotFound(req.GetCollectionName()))}, nil
	}
	state := commonpb.LoadState_LoadStateNotLoad
	if c.loaded {
		state = commonpb.LoadState_LoadStateLoaded
	}
	return &milvuspb.GetLoadStateResponse{Status: ok(), State: state}, nil
}

func (s *Server) Upsert(_ context.Context, req *milvuspb.UpsertRequest) (*milvuspb.MutationResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[req.GetCollectionName()]
	if c == nil {
		return &milvuspb.MutationResult{Status: fail(merr.WrapErrCollectionNotFound(req.GetCollectionName()))}, nil
	}
	if c.partitionKey != nil && req.GetPartitionName() != "" {
		return &milvuspb.MutationResult{Status: invalidf("not support manually specifying the partition names if partition key mode is used")}, nil
	}
	rows, st := c.decodeRows(req.GetFieldsData(), int(req.GetNumRows()))
	if st != nil {
		return &milvuspb.MutationResult{Status: st}, nil
	}
	seen := make(map[any]bool, len(rows))
	ids := &schemapb.IDs{}
	var strIDs []string
	var intIDs []int64
	for _, r := range rows {
		pk := r[c.pk.GetName()]
		if seen[pk] {
			return &milvuspb.MutationResult{Status: invalidf("duplicate primary keys are not allowed in the same batch")}, nil
		}
		seen[pk] = true
		switch v := pk.(type) {
		case string:
			strIDs = append(strIDs, v)
		case int64:
			intIDs = append(intIDs, v)
		}
	}
	for _, r := range rows {
		c.rows[r[c.pk.GetName()]] = r
	}
	if c.pk.GetDataType() == schemapb.DataType_VarChar {
		ids.IdField = &schemapb.IDs_StrId{StrId: &schemapb.StringArray{Data: strIDs}}
	} else {
		ids.IdField = &schemapb.IDs_IntId{IntId: &schemapb.LongArray{Data: intIDs}}
	}
	return &milvuspb.MutationResult{Status: ok(), IDs: ids, UpsertCnt: int64(len(rows))}, nil
}

// decodeRows turns column data into rows, checking it against the schema.
func (c *collection) decodeRows(columns []*schemapb.FieldData, n int) ([]row, *commonpb.Status) {
	if n <= 0 {
		return nil, invalidf("num_rows must be positive, got %d", n)
	}
	rows := make([]row, n)
	for i := range rows {
		rows[i] = row{}
	}
	for _, col := range columns {
		f := c.fields[col.GetFieldName()]
		if f == nil {
			return nil, invalidf("field %s does not exist in collection %s", col.GetFieldName(), c.schema.GetName())
		}
		if col.GetType() != f.GetDataType() {
			return nil, invalidf("field %s: got %s data, the schema says %s", f.GetName(), col.GetType(), f.GetDataType())
		}
		params := kv(f.GetTypeParams())
		switch f.GetDataType() {
		case schemapb.DataType_VarChar:
			data := col.GetScalars().GetStringData().GetData()
			if len(data) != n {
				return nil, invalidf("field %s: %d values for %d rows", f.GetName(), len(data), n)
			}
			maxLen, _ := strconv.Atoi(params["max_length"])
			for i, v := range data {
				if len(v) > maxLen {
					return nil, invalidf("the length (%d) of varchar field (%s) exceeds max length (%d)", len(v), f.GetName(), maxLen)
				}
				rows[i][f.GetName()] = v
			}
		case schemapb.DataType_Int64:
			data := col.GetScalars().GetLongData().GetData()
			if len(data) != n {
				return nil, invalidf("field %s: %d values for %d rows", f.GetName(), len(data), n)
			}
			for i, v := range data {
				rows[i][f.GetName()] = v
			}
		case schemapb.DataType_FloatVector:
			dim, _ := strconv.Atoi(params["dim"])
			if int(col.GetVectors().GetDim()) != dim {
				return nil, invalidf("the dim (%d) of field data(%s) is not equal to schema dim (%d)", col.GetVectors().GetDim(), f.GetName(), dim)
			}
			data := col.GetVectors().GetFloatVector().GetData()
			if len(data) != n*dim {
				return nil, invalidf("field %s: %d floats for %d rows of dim %d", f.GetName(), len(data), n, dim)
			}
			for i := range rows {
				rows[i][f.GetName()] = append([]float32(nil), data[i*dim:(i+1)*dim]...)
			}
		}
	}
	for _, f := range c.schema.GetFields() {
		if _, ok := rows[0][f.GetName()]; !ok {
			return nil, invalidf("field %s not passed", f.GetName())
		}
	}
	return rows, nil
}

func (s *Server) Delete(_ context.Context, req *milvuspb.DeleteRequest) (*milvuspb.MutationResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.collections[req.GetCollectionName()]
	if c == nil {
		return &milvuspb.MutationResult{Status: fail(merr.WrapErrCollectionNotFound(req.GetCollectionName()))}, nil
	}
	if c.partitionKey != nil && req.GetPartitionName() != "" {
		return &milvuspb.MutationResult{Status: invalidf("not support manually specifying the partition names if partition key mode is used")}, nil
	}
	if req.GetExpr() == "" {
		return &milvuspb.MutationResult{Status: invalidf("delete plan can't be empty or always true")}, nil
	}
	filter, err := parseExpr(req.GetExpr(), c.fields)
	if err != nil {
		return &milvuspb.MutationResult{Status: fail(merr.WrapErrParameterInvalidMsg("failed to create expr plan, expr = %s: %v", req.GetExpr(), err))}, nil
	}
	var deleted int64
	for pk, r := range c.rows {
		if filter.eval(r) {
			delete(c.rows, pk)
			deleted++
		}
	}
	return &milvuspb.MutationResult{Status: ok(), DeleteCnt: deleted}, nil
}
