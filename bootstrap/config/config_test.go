package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad_defaultsMatchTheSeed(t *testing.T) {
	t.Parallel()
	c, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Addr != "127.0.0.1:8080" || c.DataDir != "./data" || c.Database.URL != "" {
		t.Errorf("embedded defaults: %+v", c)
	}
	if c.Memory.MinConfidence != 0.75 || c.Memory.MaxWriteItems != 6 || c.Memory.DefaultTTLDays != 180 || c.Memory.DebounceSec != 12 {
		t.Errorf("seed 000 defaults: %+v", c.Memory)
	}
	if c.IndexWorker.BatchSize != 32 || c.Vector.Milvus.Collection != "memory_text_v1" {
		t.Errorf("index defaults: %+v %+v", c.IndexWorker, c.Vector)
	}
	for _, r := range AllRoles {
		if !c.HasRole(r) {
			t.Errorf("role %s not on by default", r)
		}
	}
}

func TestLoad_environmentOverridesWithSeedNames(t *testing.T) {
	t.Parallel()
	c, err := Load("", []string{
		"ENGRAM_HTTP_ADDR=127.0.0.1:9999",
		"LONG_TERM_MEMORY_MIN_CONFIDENCE=0.9",
		"LONG_TERM_MEMORY_DEFAULT_TTL_DAYS=30",
		"MEMORY_INDEX_WORKER_BATCH_SIZE=64",
		"ENGRAM_ROLES=api, worker",
		"MEMORY_MILVUS_ENABLED=true",
		"MEMORY_MILVUS_URI=localhost:19530",
		"LLM_API_KEY=sk-secret",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Addr != "127.0.0.1:9999" || c.Memory.MinConfidence != 0.9 || c.Memory.DefaultTTLDays != 30 || c.IndexWorker.BatchSize != 64 {
		t.Errorf("overrides not applied: %+v", c)
	}
	if !c.HasRole("api") || !c.HasRole("worker") || c.HasRole("indexer") {
		t.Errorf("roles = %v", c.Roles)
	}
	if c.Vector.Backend != "milvus" {
		t.Errorf("MEMORY_MILVUS_ENABLED did not select milvus: %q", c.Vector.Backend)
	}
	if c.Embedding.APIKey != "sk-secret" {
		t.Error("the embedding key does not default to the LLM's")
	}
}

func TestLoad_fileThenEnvironment(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "engram.yaml")
	if err := os.WriteFile(file, []byte("data_dir: /var/lib/engram\nmemory:\n  retrieve_limit: 9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file, []string{"LONG_TERM_MEMORY_RETRIEVE_LIMIT=4"})
	if err != nil {
		t.Fatal(err)
	}
	if c.DataDir != "/var/lib/engram" || c.Memory.RetrieveLimit != 4 {
		t.Errorf("file then env: data_dir=%q limit=%d", c.DataDir, c.Memory.RetrieveLimit)
	}
}

func TestLoad_invalidNamesTheSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env  string
		name string
	}{
		{"ENGRAM_HTTP_ADDR=8080", "ENGRAM_HTTP_ADDR"},
		{"ENGRAM_METRICS_ADDR=9090", "ENGRAM_METRICS_ADDR"},
		{"ENGRAM_METRICS_ADDR=127.0.0.1:8080", "ENGRAM_METRICS_ADDR"},
		{"ENGRAM_DATABASE_URL=mysql://x", "ENGRAM_DATABASE_URL"},
		{"ENGRAM_ROLES=api,cron", "ENGRAM_ROLES"},
		{"ENGRAM_API_KEYS=acme", "ENGRAM_API_KEYS"},
		{"ENGRAM_API_KEYS=acme=short", "ENGRAM_API_KEYS"},
		{"LONG_TERM_MEMORY_MIN_CONFIDENCE=2", "LONG_TERM_MEMORY_MIN_CONFIDENCE"},
		{"LONG_TERM_MEMORY_RETRIEVE_MODE=magic", "LONG_TERM_MEMORY_RETRIEVE_MODE"},
		{"ENGRAM_VECTOR_BACKEND=pgvector", "ENGRAM_VECTOR_BACKEND"},
		{"ENGRAM_VECTOR_BACKEND=milvus", "MEMORY_MILVUS_URI"},
		{"ENGRAM_VECTOR_LOCAL_PREFILTER_THRESHOLD=0", "ENGRAM_VECTOR_LOCAL_PREFILTER_THRESHOLD"},
		{"ENGRAM_VECTOR_LOCAL_PREFILTER_THRESHOLD=-2", "ENGRAM_VECTOR_LOCAL_PREFILTER_THRESHOLD"},
		{"ENGRAM_LLM_PROVIDER=openai", "LLM_MODEL"},
		{"MEMORY_INDEX_WORKER_BATCH_SIZE=0", "MEMORY_INDEX_WORKER_BATCH_SIZE"},
		{"LONG_TERM_MEMORY_MAX_WRITE_ITEMS=lots", "LONG_TERM_MEMORY_MAX_WRITE_ITEMS"},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			t.Parallel()
			_, err := Load("", []string{tt.env})
			if err == nil || !strings.Contains(err.Error(), tt.name) {
				t.Errorf("Load(%s) error = %v, want one naming %s", tt.env, err, tt.name)
			}
		})
	}
}

func TestLoad_refusesUnknownFileSettings(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "engram.yaml")
	_ = os.WriteFile(file, []byte("memroy:\n  retrieve_limit: 9\n"), 0o600)
	if _, err := Load(file, nil); err == nil || !strings.Contains(err.Error(), "memroy") {
		t.Errorf("a misspelt setting was accepted: %v", err)
	}
}

func TestMasked_hidesSecrets(t *testing.T) {
	t.Parallel()
	c, err := Load("", []string{
		"ENGRAM_API_KEYS=acme=0123456789abcdef0123,globex=fedcba9876543210fedc",
		"ENGRAM_DATABASE_URL=postgres://engram:hunter2@db:5432/engram",
		"LLM_API_KEY=sk-very-secret",
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Masked().YAML()
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, secret := range []string{"0123456789abcdef0123", "fedcba9876543210fedc", "hunter2", "sk-very-secret"} {
		if strings.Contains(text, secret) {
			t.Errorf("masked config shows %q:\n%s", secret, text)
		}
	}
	for _, kept := range []string{"acme=****", "globex=****", "engram:%2A%2A%2A%2A@db:5432"} {
		if !strings.Contains(text, kept) {
			t.Errorf("masked config lost %q:\n%s", kept, text)
		}
	}
	if c.LLM.APIKey != "sk-very-secret" {
		t.Error("Masked changed the original")
	}
}

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:8080": true, "[::1]:8080": true,
		"0.0.0.0:8080": false, ":8080": false, "10.0.0.5:8080": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v", addr, got)
		}
	}
}
