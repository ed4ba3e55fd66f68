package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2/humatest"

	"engram/adapters/httpapi"
	"engram/app/auth"
	"engram/ports"
	"engram/test/fakeclock"
	"engram/test/teststore"
)

// recordingReindexer remembers which tenants asked.
type recordingReindexer struct {
	tenants []string
	err     error
}

func (r *recordingReindexer) ReindexTenant(_ context.Context, tenant string) (ports.Requeued, error) {
	r.tenants = append(r.tenants, tenant)
	return ports.Requeued{Memories: 3, Messages: 5}, r.err
}

// start is an arbitrary fixed time; the admin calls do not depend on it.
var start = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func newAdminAPI(t *testing.T, r httpapi.Reindexer) humatest.TestAPI {
	t.Helper()
	clk := fakeclock.New(start)
	authn := auth.New(auth.Options{Configured: map[string]string{acmeKey: "acme", globexKey: "globex"}}, teststore.New(t).APIKeys, clk, &seqIDs{})
	api := httpapi.New(http.NewServeMux(), httpapi.Options{MaxBodyBytes: 1 << 20}, authn)
	httpapi.RegisterAdmin(api, r)
	return humatest.Wrap(t, api.Root)
}

func TestReindex_202QueuesTheCallersTenantOnly(t *testing.T) {
	t.Parallel()
	r := &recordingReindexer{}
	api := newAdminAPI(t, r)
	resp := api.Post("/v1/admin/reindex", "Authorization: Bearer "+globexKey)
	if resp.Code != http.StatusAccepted {
		t.Fatalf("status %d: %s", resp.Code, resp.Body.String())
	}
	got := decode[httpapi.ReindexAccepted](t, resp)
	if got.Status != "queued" || got.Memories != 3 || got.Messages != 5 {
		t.Fatalf("body %+v", got)
	}
	if len(r.tenants) != 1 || r.tenants[0] != "globex" {
		t.Fatalf("reindexed %q, want only the caller's tenant globex", r.tenants)
	}
}

func TestReindex_401WithoutKey(t *testing.T) {
	t.Parallel()
	r := &recordingReindexer{}
	resp := newAdminAPI(t, r).Post("/v1/admin/reindex")
	if resp.Code != http.StatusUnauthorized || len(r.tenants) != 0 {
		t.Fatalf("status %d, reindexed %q; want 401 and nothing", resp.Code, r.tenants)
	}
}

func TestReindex_503WhenTheStoreIsDown(t *testing.T) {
	t.Parallel()
	r := &recordingReindexer{err: errors.Join(errors.New("sqlstore: requeue"), ports.ErrUnavailable)}
	resp := newAdminAPI(t, r).Post("/v1/admin/reindex", "Authorization: Bearer "+acmeKey)
	if resp.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", resp.Code)
	}
}
