package milvus

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/milvus-io/milvus/client/v2/entity"
	"github.com/milvus-io/milvus/client/v2/index"
	"github.com/milvus-io/milvus/client/v2/milvusclient"
	"github.com/milvus-io/milvus/pkg/v2/util/merr"
)

// Byte limits of the VarChar fields. Values are validated against them before a
// request is sent, so an over-long id is an input error, not a server failure.
const (
	maxIDBytes             = 256
	maxTenantBytes         = 256
	maxUserBytes           = 512
	maxScopeBytes          = maxTenantBytes + 1 + maxUserBytes
	maxKindBytes           = 64
	maxMemoryTypeBytes     = 64
	maxConversationIDBytes = 256
	maxCollectionNameLen   = 255
	vectorIndexName        = "vector_idx"
)

// CollectionName derives the collection of one embedding model and dimension from
// the configured base name (MEMORY_MILVUS_COLLECTION): vectors of different models
// are never compared, so each model gets its own collection, e.g.
// memory_text_v1__text_embedding_3_small__1536.
func CollectionName(base, model string, dim int) string {
	base = sanitize(base)
	if base == "" {
		base = DefaultCollection
	}
	if c := base[0]; c >= '0' && c <= '9' {
		base = "c_" + base
	}
	suffix := "__" + strconv.Itoa(dim)
	name := base
	if m := sanitize(model); m != "" {
		name += "__" + m
	}
	if len(name)+len(suffix) > maxCollectionNameLen {
		h := fnv.New32a()
		h.Write([]byte(base + "\x00" + model))
		tag := fmt.Sprintf("_%08x", h.Sum32())
		name = name[:maxCollectionNameLen-len(suffix)-len(tag)] + tag
	}
	return name + suffix
}

// sanitize keeps what Milvus allows in a name: lower-case letters, digits and single
// underscores.
func sanitize(s string) string {
	var b strings.Builder
	underscore := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			underscore = false
			continue
		}
		if !underscore && b.Len() > 0 {
			b.WriteByte('_')
			underscore = true
		}
	}
	return strings.TrimRight(b.String(), "_")
}

func (ix *Index) schema() *entity.Schema {
	varchar := func(name string, maxLen int64) *entity.Field {
		return entity.NewField().WithName(name).WithDataType(entity.FieldTypeVarChar).WithMaxLength(maxLen)
	}
	return entity.NewSchema().
		WithName(ix.collection).
		WithDescription(fmt.Sprintf("engram vectors of model %q (%d dimensions)", ix.opts.Model, ix.opts.Dimension)).
		WithDynamicFieldEnabled(false).
		WithField(varchar(fieldID, maxIDBytes).WithIsPrimaryKey(true).WithIsAutoID(false)).
		WithField(varchar(fieldScope, maxScopeBytes).WithIsPartitionKey(true)).
		WithField(varchar(fieldTenant, maxTenantBytes)).
		WithField(varchar(fieldUser, maxUserBytes)).
		WithField(varchar(fieldKind, maxKindBytes)).
		WithField(varchar(fieldMemoryType, maxMemoryTypeBytes)).
		WithField(varchar(fieldConversationID, maxConversationIDBytes)).
		WithField(entity.NewField().WithName(fieldAt).WithDataType(entity.FieldTypeInt64)).
		WithField(entity.NewField().WithName(fieldVector).WithDataType(entity.FieldTypeFloatVector).WithDim(int64(ix.opts.Dimension)))
}

func (ix *Index) vectorIndex() index.Index {
	if ix.opts.IndexType == IndexAuto {
		return index.NewAutoIndex(entity.COSINE)
	}
	return index.NewHNSWIndex(entity.COSINE, ix.opts.HNSWM, ix.opts.HNSWEfConstruction)
}

// ensureCollection creates the collection, its vector index and loads it, or checks
// that an existing one fits this adapter. Every step is idempotent, so several
// processes may race through it.
func (ix *Index) ensureCollection(ctx context.Context, c *milvusclient.Client) error {
	existing, err := c.DescribeCollection(ctx, milvusclient.NewDescribeCollectionOption(ix.collection))
	switch {
	case errors.Is(err, merr.ErrCollectionNotFound):
		opt := milvusclient.NewCreateCollectionOption(ix.collection, ix.schema()).
			WithConsistencyLevel(ix.consistency).
			WithShardNum(1)
		if err := c.CreateCollection(ctx, opt); err != nil {
			return fmt.Errorf("create collection %s: %w", ix.collection, err)
		}
	case err != nil:
		return fmt.Errorf("describe collection %s: %w", ix.collection, err)
	default:
		if err := ix.checkSchema(existing.Schema); err != nil {
			return err
		}
	}

	idx, err := c.DescribeIndex(ctx, milvusclient.NewDescribeIndexOption(ix.collection, vectorIndexName))
	switch {
	case errors.Is(err, merr.ErrIndexNotFound):
		task, err := c.CreateIndex(ctx, milvusclient.NewCreateIndexOption(ix.collection, fieldVector, ix.vectorIndex()).WithIndexName(vectorIndexName))
		if err != nil {
			return fmt.Errorf("create index on %s: %w", ix.collection, err)
		}
		if err := task.Await(ctx); err != nil {
			return fmt.Errorf("wait for index on %s: %w", ix.collection, err)
		}
	case err != nil:
		return fmt.Errorf("describe index of %s: %w", ix.collection, err)
	default:
		if metric := idx.Params()["metric_type"]; metric != string(entity.COSINE) {
			return fmt.Errorf("collection %s: vector index metric is %q, engram needs COSINE", ix.collection, metric)
		}
	}

	task, err := c.LoadCollection(ctx, milvusclient.NewLoadCollectionOption(ix.collection))
	if err != nil {
		return fmt.Errorf("load collection %s: %w", ix.collection, err)
	}
	if err := task.Await(ctx); err != nil {
		return fmt.Errorf("wait for load of %s: %w", ix.collection, err)
	}
	return nil
}

// checkSchema refuses a collection of the same name that another schema made, rather
// than writing vectors of the wrong dimension into it or searching without a field.
func (ix *Index) checkSchema(s *entity.Schema) error {
	want := ix.schema()
	have := make(map[string]*entity.Field, len(s.Fields))
	for _, f := range s.Fields {
		have[f.Name] = f
	}
	for _, w := range want.Fields {
		h := have[w.Name]
		switch {
		case h == nil:
			return fmt.Errorf("collection %s exists without field %q; drop it or choose another MEMORY_MILVUS_COLLECTION", ix.collection, w.Name)
		case h.DataType != w.DataType:
			return fmt.Errorf("collection %s: field %q is %s, engram needs %s", ix.collection, w.Name, h.DataType.Name(), w.DataType.Name())
		case w.DataType == entity.FieldTypeFloatVector && h.TypeParams[entity.TypeParamDim] != w.TypeParams[entity.TypeParamDim]:
			return fmt.Errorf("collection %s holds %s-dimension vectors, the embedder makes %d", ix.collection, h.TypeParams[entity.TypeParamDim], ix.opts.Dimension)
		case w.PrimaryKey != h.PrimaryKey:
			return fmt.Errorf("collection %s: primary key must be %q", ix.collection, fieldID)
		}
	}
	return nil
}
