package fakemilvus

import (
	"context"
	"encoding/binary"
	"math"
	"sort"
	"strconv"

	"engram/domain/ranking"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/milvuspb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
	"github.com/milvus-io/milvus/pkg/v2/util/merr"
	"google.golang.org/protobuf/proto"
)

// maxTopK is Milvus's limit on topk (and on topk + offset).
const maxTopK = 16384

func (s *Server) Search(_ context.Context, req *milvuspb.SearchRequest) (*milvuspb.SearchResults, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	failed := func(st *commonpb.Status) (*milvuspb.SearchResults, error) {
		return &milvuspb.SearchResults{Status: st}, nil
	}
	c := s.collections[req.GetCollectionName()]
	if c == nil {
		return failed(fail(merr.WrapErrCollectionNotFound(req.GetCollectionName())))
	}
	if !c.loaded {
		return failed(fail(merr.WrapErrCollectionNotLoaded(req.GetCollectionName())))
	}
	if c.partitionKey != nil && len(req.GetPartitionNames()) > 0 {
		return failed(invalidf("not support manually specifying the partition names if partition key mode is used"))
	}
	params := kv(req.GetSearchParams())
	field := c.fields[params["anns_field"]]
	if field == nil {
		// Milvus picks the only vector field when anns_field is not given.
		for _, f := range c.schema.GetFields() {
			if f.GetDataType() == schemapb.DataType_FloatVector && params["anns_field"] == "" {
				field = f
			}
		}
	}
	if field == nil || field.GetDataType() != schemapb.DataType_FloatVector {
		return failed(invalidf("failed to get field schema by name: %q", params["anns_field"]))
	}
	ix := c.indexOn(field.GetName())
	if metric := params["metric_type"]; metric != "" && metric != ix.params["metric_type"] {
		return failed(invalidf("metric type not match: invalid parameter[expected=%s][actual=%s]", ix.params["metric_type"], metric))
	}
	if ix.params["metric_type"] != "COSINE" {
		return failed(invalidf("fakemilvus: only COSINE search is supported by the fake"))
	}
	topK, err := strconv.Atoi(params["topk"])
	if err != nil || topK <= 0 {
		return failed(invalidf("topk must be a positive integer, got %q", params["topk"]))
	}
	offset, _ := strconv.Atoi(params["offset"])
	if topK+offset > maxTopK {
		return failed(invalidf("topk [%d] + offset [%d] should be in range [1, %d]", topK, offset, maxTopK))
	}
	queries, st := decodePlaceholders(req.GetPlaceholderGroup(), field)
	if st != nil {
		return failed(st)
	}
	var filter exprNode
	if req.GetDsl() != "" {
		filter, err = parseExpr(req.GetDsl(), c.fields)
		if err != nil {
			return failed(fail(merr.WrapErrParameterInvalidMsg("failed to create query plan: cannot parse expression: %s, error: %v", req.GetDsl(), err)))
		}
	}
	for _, name := range req.GetOutputFields() {
		if c.fields[name] == nil && name != "*" {
			return failed(invalidf("field %s not exist", name))
		}
	}

	result := &schemapb.SearchResultData{NumQueries: int64(len(queries)), TopK: int64(topK), OutputFields: req.GetOutputFields()}
	var strIDs []string
	var intIDs []int64
	var hitRows []row
	for _, q := range queries {
		type scored struct {
			pk    any
			score float32
			r     row
		}
		var all []scored
		for pk, r := range c.rows {
			if filter != nil && !filter.eval(r) {
				continue
			}
			all = append(all, scored{pk, cosine(q, r[field.GetName()].([]float32)), r})
		}
		sort.Slice(all, func(i, j int) bool {
			if all[i].score != all[j].score {
				return all[i].score > all[j].score
			}
			return lessPK(all[i].pk, all[j].pk)
		})
		all = all[min(offset, len(all)):]
		all = all[:min(topK, len(all))]
		for _, h := range all {
			switch v := h.pk.(type) {
			case string:
				strIDs = append(strIDs, v)
			case int64:
				intIDs = append(intIDs, v)
			}
			result.Scores = append(result.Scores, h.score)
			hitRows = append(hitRows, h.r)
		}
		result.Topks = append(result.Topks, int64(len(all)))
	}
	if c.pk.GetDataType() == schemapb.DataType_VarChar {
		result.Ids = &schemapb.IDs{IdField: &schemapb.IDs_StrId{StrId: &schemapb.StringArray{Data: strIDs}}}
	} else {
		result.Ids = &schemapb.IDs{IdField: &schemapb.IDs_IntId{IntId: &schemapb.LongArray{Data: intIDs}}}
	}
	for _, name := range req.GetOutputFields() {
		if f := c.fields[name]; f != nil {
			result.FieldsData = append(result.FieldsData, column(f, hitRows))
		}
	}
	return &milvuspb.SearchResults{Status: ok(), Results: result, CollectionName: req.GetCollectionName()}, nil
}

func lessPK(a, b any) bool {
	switch x := a.(type) {
	case string:
		return x < b.(string)
	case int64:
		return x < b.(int64)
	}
	return false
}

func decodePlaceholders(raw []byte, field *schemapb.FieldSchema) ([][]float32, *commonpb.Status) {
	var group commonpb.PlaceholderGroup
	if err := proto.Unmarshal(raw, &group); err != nil {
		return nil, invalidf("unmarshal placeholder group: %v", err)
	}
	if len(group.GetPlaceholders()) != 1 {
		return nil, invalidf("expected one placeholder, got %d", len(group.GetPlaceholders()))
	}
	ph := group.GetPlaceholders()[0]
	if ph.GetType() != commonpb.PlaceholderType_FloatVector {
		return nil, invalidf("fakemilvus: placeholder type %s is not supported by the fake", ph.GetType())
	}
	dim, _ := strconv.Atoi(kv(field.GetTypeParams())["dim"])
	var out [][]float32
	for _, b := range ph.GetValues() {
		if len(b) != 4*dim {
			return nil, invalidf("the dimension of the vector (%d) does not equal the schema dimension (%d)", len(b)/4, dim)
		}
		v := make([]float32, dim)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, invalidf("nq must be positive")
	}
	return out, nil
}

func cosine(a, b []float32) float32 { return float32(ranking.Cosine(a, b)) }

func column(f *schemapb.FieldSchema, rows []row) *schemapb.FieldData {
	fd := &schemapb.FieldData{Type: f.GetDataType(), FieldName: f.GetName(), FieldId: f.GetFieldID()}
	switch f.GetDataType() {
	case schemapb.DataType_VarChar:
		data := make([]string, len(rows))
		for i, r := range rows {
			data[i] = r[f.GetName()].(string)
		}
		fd.Field = &schemapb.FieldData_Scalars{Scalars: &schemapb.ScalarField{Data: &schemapb.ScalarField_StringData{StringData: &schemapb.StringArray{Data: data}}}}
	case schemapb.DataType_Int64:
		data := make([]int64, len(rows))
		for i, r := range rows {
			data[i] = r[f.GetName()].(int64)
		}
		fd.Field = &schemapb.FieldData_Scalars{Scalars: &schemapb.ScalarField{Data: &schemapb.ScalarField_LongData{LongData: &schemapb.LongArray{Data: data}}}}
	case schemapb.DataType_FloatVector:
		dim, _ := strconv.Atoi(kv(f.GetTypeParams())["dim"])
		var data []float32
		for _, r := range rows {
			data = append(data, r[f.GetName()].([]float32)...)
		}
		fd.Field = &schemapb.FieldData_Vectors{Vectors: &schemapb.VectorField{Dim: int64(dim), Data: &schemapb.VectorField_FloatVector{FloatVector: &schemapb.FloatArray{Data: data}}}}
	}
	return fd
}
