package milvus

import (
	"strconv"
	"strings"

	"engram/ports"
)

// Field names of the collection schema.
const (
	fieldID             = "id"
	fieldScope          = "scope" // tenant + "/" + user: the partition key
	fieldTenant         = "tenant"
	fieldUser           = "user"
	fieldKind           = "kind"
	fieldMemoryType     = "memory_type"
	fieldConversationID = "conversation_id"
	fieldAt             = "at" // unix milliseconds
	fieldVector         = "vector"
)

// quote renders s as a Milvus string literal. Milvus lexes a double-quoted literal
// as C-style escapes and decodes it with strconv.Unquote, so strconv.Quote's output
// (which escapes quotes, backslashes and control characters, and rejects nothing)
// always reads back as exactly s: a value can never end the literal early and
// inject an operator. Callers pass valid UTF-8 only (validated at the edge).
func quote(s string) string { return strconv.Quote(s) }

func quoteList(values []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quote(v))
	}
	b.WriteByte(']')
	return b.String()
}

// scope is the partition key value. Tenant and user are also filtered on their own,
// so two pairs that join to the same scope ("a/b"+"c", "a"+"b/c") still never mix;
// the scope only routes the search to one partition.
func scope(tenant, user string) string { return tenant + "/" + user }

// searchFilter is the boolean expression of a query: every filter of the port is
// inside the expression Milvus evaluates before ranking, never applied afterwards.
func searchFilter(q ports.VectorQuery) string {
	parts := []string{
		fieldScope + " == " + quote(scope(q.Tenant, q.User)),
		fieldTenant + " == " + quote(q.Tenant),
		fieldUser + " == " + quote(q.User),
	}
	if len(q.Kinds) > 0 {
		kinds := make([]string, len(q.Kinds))
		for i, k := range q.Kinds {
			kinds[i] = string(k)
		}
		parts = append(parts, fieldKind+" in "+quoteList(kinds))
	}
	if len(q.MemoryTypes) > 0 {
		parts = append(parts, fieldMemoryType+" in "+quoteList(q.MemoryTypes))
	}
	if q.ConversationID != "" {
		parts = append(parts, fieldConversationID+" == "+quote(q.ConversationID))
	}
	if !q.Since.IsZero() {
		parts = append(parts, fieldAt+" >= "+strconv.FormatInt(q.Since.UnixMilli(), 10))
	}
	if !q.Until.IsZero() {
		parts = append(parts, fieldAt+" < "+strconv.FormatInt(q.Until.UnixMilli(), 10))
	}
	return strings.Join(parts, " && ")
}

// deleteFilter confines a delete to one tenant.
func deleteFilter(tenant string, ids []string) string {
	return fieldTenant + " == " + quote(tenant) + " && " + fieldID + " in " + quoteList(ids)
}

// userFilter matches every entity of one user: the partition key routes it to one
// partition, tenant and user keep two pairs that join alike apart.
func userFilter(tenant, user string) string {
	return fieldScope + " == " + quote(scope(tenant, user)) + " && " + fieldTenant + " == " + quote(tenant) +
		" && " + fieldUser + " == " + quote(user)
}
