// Package config is engram's one typed configuration: defaults from the embedded
// configs/engram.yaml, then an optional file, then environment variables
// (LONG_TERM_MEMORY_* and MEMORY_* names for the memory store, ENGRAM_* for engram's own settings).
// Validation names the setting to fix by its environment variable.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/caarlos0/env/v11"
	"go.yaml.in/yaml/v3"

	"engram/app/retrieval"
	"engram/configs"
	"engram/domain/memory"
)

// Config is every setting of one engram process.
type Config struct {
	HTTP        HTTP        `yaml:"http"`
	DataDir     string      `yaml:"data_dir" env:"ENGRAM_DATA_DIR"`
	Database    Database    `yaml:"database"`
	Roles       []string    `yaml:"roles" env:"ENGRAM_ROLES" envSeparator:","`
	Auth        Auth        `yaml:"auth"`
	Log         Log         `yaml:"log"`
	Memory      Memory      `yaml:"memory"`
	IndexWorker IndexWorker `yaml:"index_worker"`
	Embedding   Embedding   `yaml:"embedding"`
	Vector      Vector      `yaml:"vector"`
	LLM         LLM         `yaml:"llm"`
	Scheduler   Scheduler   `yaml:"scheduler"`
	Profiles    Profiles    `yaml:"profiles"`
	Redis       Redis       `yaml:"redis"`    // config/sessions.go
	Sessions    Sessions    `yaml:"sessions"` // config/sessions.go
	Context     Context     `yaml:"context"`  // config/context.go
	Secrets     Secrets     `yaml:"secrets"`  // config/secrets.go
	Traces      Traces      `yaml:"traces"`   // config/context.go
}

// Profiles is the background refresh of user profiles and the evaluation reports.
type Profiles struct {
	RefreshDebounceSec int `yaml:"refresh_debounce_sec" env:"ENGRAM_PROFILE_REFRESH_DEBOUNCE_SEC"`
	RefreshMaxWaitSec  int `yaml:"refresh_max_wait_sec" env:"ENGRAM_PROFILE_REFRESH_MAX_WAIT_SEC"`
	ReportTimeoutSec   int `yaml:"report_timeout_sec" env:"ENGRAM_PROFILE_REPORT_TIMEOUT_SEC"`
	ReportMaxMemories  int `yaml:"report_max_memories" env:"ENGRAM_PROFILE_REPORT_MAX_MEMORIES"`
}

func (x Profiles) validate(p *problems) {
	p.atLeastOne(map[string]int{
		"ENGRAM_PROFILE_REFRESH_DEBOUNCE_SEC": x.RefreshDebounceSec,
		"ENGRAM_PROFILE_REPORT_TIMEOUT_SEC":   x.ReportTimeoutSec,
		"ENGRAM_PROFILE_REPORT_MAX_MEMORIES":  x.ReportMaxMemories,
	})
	if x.RefreshMaxWaitSec < x.RefreshDebounceSec {
		p.add("ENGRAM_PROFILE_REFRESH_MAX_WAIT_SEC", "must not be below ENGRAM_PROFILE_REFRESH_DEBOUNCE_SEC")
	}
}

// Scheduler is the scheduler role's periodic work.
type Scheduler struct {
	ExpirySweepIntervalSec int `yaml:"expiry_sweep_interval_sec" env:"ENGRAM_EXPIRY_SWEEP_INTERVAL_SEC"`
}

func (x Scheduler) validate(p *problems) {
	p.atLeastOne(map[string]int{"ENGRAM_EXPIRY_SWEEP_INTERVAL_SEC": x.ExpirySweepIntervalSec})
}

type HTTP struct {
	Addr               string `yaml:"addr" env:"ENGRAM_HTTP_ADDR"`
	MaxBodyBytes       int64  `yaml:"max_body_bytes" env:"ENGRAM_HTTP_MAX_BODY_BYTES"`
	ShutdownTimeoutSec int    `yaml:"shutdown_timeout_sec" env:"ENGRAM_HTTP_SHUTDOWN_TIMEOUT_SEC"`
	// BodyTimeoutSec bounds the reading of a request body (408 past it);
	// WriteTimeoutSec how long one write of a response may block on a client
	// that does not read; IdleTimeoutSec how long a kept-alive connection waits
	// for its next request.
	BodyTimeoutSec  int `yaml:"body_timeout_sec" env:"ENGRAM_HTTP_BODY_TIMEOUT_SEC"`
	WriteTimeoutSec int `yaml:"write_timeout_sec" env:"ENGRAM_HTTP_WRITE_TIMEOUT_SEC"`
	IdleTimeoutSec  int `yaml:"idle_timeout_sec" env:"ENGRAM_HTTP_IDLE_TIMEOUT_SEC"`
	// RateLimitRPS is the requests per second each API key may make (a burst of
	// one second's worth); 0: no limit.
	RateLimitRPS float64 `yaml:"rate_limit_rps" env:"ENGRAM_RATE_LIMIT_RPS"`
	// MetricsAddr serves /metrics, /healthz and /readyz on an address of their own (any
	// role); empty: only the API's address serves them.
	MetricsAddr string `yaml:"metrics_addr" env:"ENGRAM_METRICS_ADDR"`
}

// validate checks the listener; api says whether this process serves the API
// on Addr, where /metrics is served already.
func (h HTTP) validate(p *problems, api bool) {
	if _, _, err := net.SplitHostPort(h.Addr); err != nil {
		p.add("ENGRAM_HTTP_ADDR", "must be host:port, got %q", h.Addr)
	}
	h.validateMetricsAddr(p, api)
	if h.MaxBodyBytes < 1024 {
		p.add("ENGRAM_HTTP_MAX_BODY_BYTES", "must be at least 1024, got %d", h.MaxBodyBytes)
	}
	p.atLeastOne(map[string]int{
		"ENGRAM_HTTP_SHUTDOWN_TIMEOUT_SEC": h.ShutdownTimeoutSec,
		"ENGRAM_HTTP_BODY_TIMEOUT_SEC":     h.BodyTimeoutSec,
		"ENGRAM_HTTP_WRITE_TIMEOUT_SEC":    h.WriteTimeoutSec,
		"ENGRAM_HTTP_IDLE_TIMEOUT_SEC":     h.IdleTimeoutSec,
	})
	between(p, "ENGRAM_RATE_LIMIT_RPS", h.RateLimitRPS, 0, 1e6, "must be between %[1]v (no limit) and 1000000, got %[3]v")
}

func (h HTTP) validateMetricsAddr(p *problems, api bool) {
	if h.MetricsAddr == "" {
		return
	}
	if _, _, err := net.SplitHostPort(h.MetricsAddr); err != nil {
		p.add("ENGRAM_METRICS_ADDR", "must be host:port or empty, got %q", h.MetricsAddr)
	} else if h.MetricsAddr == h.Addr && api {
		p.add("ENGRAM_METRICS_ADDR", "must differ from ENGRAM_HTTP_ADDR (the API serves /metrics there already)")
	}
}

type Database struct {
	URL          string `yaml:"url" env:"ENGRAM_DATABASE_URL" secret:"url"`
	MaxOpenConns int    `yaml:"max_open_conns" env:"ENGRAM_DATABASE_MAX_OPEN_CONNS"`
	AutoMigrate  bool   `yaml:"auto_migrate" env:"ENGRAM_DATABASE_AUTO_MIGRATE"`
}

func (d Database) isPostgres() bool {
	return strings.HasPrefix(d.URL, "postgres://") || strings.HasPrefix(d.URL, "postgresql://")
}

func (d Database) validate(p *problems) {
	if d.URL != "" {
		if !d.isPostgres() {
			p.add("ENGRAM_DATABASE_URL", "must be empty (SQLite) or a postgres:// URL")
		} else if _, err := url.Parse(d.URL); err != nil {
			p.add("ENGRAM_DATABASE_URL", "is not a valid URL")
		}
	}
	if d.MaxOpenConns < 1 {
		p.add("ENGRAM_DATABASE_MAX_OPEN_CONNS", "must be at least 1, got %d", d.MaxOpenConns)
	}
}

type Auth struct {
	APIKeys string `yaml:"api_keys" env:"ENGRAM_API_KEYS" secret:"keys"`
	// CacheTTLSec: the longest a stored key's lookup is cached; keys created or
	// revoked take effect at the next request regardless (the key generation).
	CacheTTLSec int `yaml:"cache_ttl_sec" env:"ENGRAM_AUTH_CACHE_TTL_SEC"`
}

func (a Auth) validate(p *problems) {
	if _, err := ParseAPIKeys(a.APIKeys); err != nil {
		p.add("ENGRAM_API_KEYS", "%v", err)
	}
	p.atLeastOne(map[string]int{"ENGRAM_AUTH_CACHE_TTL_SEC": a.CacheTTLSec})
}

type Log struct {
	Level  string `yaml:"level" env:"ENGRAM_LOG_LEVEL"`
	Format string `yaml:"format" env:"ENGRAM_LOG_FORMAT"`
}

func (l Log) validate(p *problems) {
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, strings.ToLower(l.Level)) {
		p.add("ENGRAM_LOG_LEVEL", "must be debug, info, warn or error, got %q", l.Level)
	}
	if !slices.Contains([]string{"text", "json"}, strings.ToLower(l.Format)) {
		p.add("ENGRAM_LOG_FORMAT", "must be text or json, got %q", l.Format)
	}
}

// Memory is the LONG_TERM_MEMORY_* settings.
type Memory struct {
	Enabled                bool    `yaml:"enabled" env:"LONG_TERM_MEMORY_ENABLED"`
	DefaultTTLDays         int     `yaml:"default_ttl_days" env:"LONG_TERM_MEMORY_DEFAULT_TTL_DAYS"`
	ConstraintTTLDays      int     `yaml:"constraint_ttl_days" env:"LONG_TERM_MEMORY_CONSTRAINT_TTL_DAYS"`
	RetrieveMode           string  `yaml:"retrieve_mode" env:"LONG_TERM_MEMORY_RETRIEVE_MODE"`
	RetrieveLimit          int     `yaml:"retrieve_limit" env:"LONG_TERM_MEMORY_RETRIEVE_LIMIT"`
	RetrieveScanLimit      int     `yaml:"retrieve_scan_limit" env:"LONG_TERM_MEMORY_RETRIEVE_SCAN_LIMIT"`
	MinScore               float64 `yaml:"min_score" env:"LONG_TERM_MEMORY_MIN_SCORE"`
	QueryExpansion         bool    `yaml:"query_expansion" env:"ENGRAM_QUERY_EXPANSION"`
	MinConfidence          float64 `yaml:"min_confidence" env:"LONG_TERM_MEMORY_MIN_CONFIDENCE"`
	MaxWriteItems          int     `yaml:"max_write_items" env:"LONG_TERM_MEMORY_MAX_WRITE_ITEMS"`
	DebounceSec            float64 `yaml:"debounce_sec" env:"LONG_TERM_MEMORY_DEBOUNCE_SEC"`
	ExtractTimeoutSec      int     `yaml:"extract_timeout_sec" env:"LONG_TERM_MEMORY_EXTRACT_TIMEOUT_SEC"`
	UpsertTimeoutSec       int     `yaml:"upsert_timeout_sec" env:"LONG_TERM_MEMORY_UPSERT_TIMEOUT_SEC"`
	ExtractContextMaxChars int     `yaml:"extract_context_max_chars" env:"LONG_TERM_MEMORY_EXTRACT_CONTEXT_MAX_CHARS"`
	ScanEnabled            bool    `yaml:"scan_enabled" env:"LONG_TERM_MEMORY_SCAN_ENABLED"`
	ScanIntervalSec        int     `yaml:"scan_interval_sec" env:"LONG_TERM_MEMORY_SCAN_INTERVAL_SEC"`
	MaxAttempts            int     `yaml:"max_attempts" env:"LONG_TERM_MEMORY_MAX_ATTEMPTS"`
	ClaimLeaseSec          int     `yaml:"claim_lease_sec" env:"LONG_TERM_MEMORY_CLAIM_LEASE_SEC"`
	DuplicateSimilarity    float64 `yaml:"duplicate_similarity" env:"LONG_TERM_MEMORY_DUPLICATE_SIMILARITY"`
	MergeSimilarity        float64 `yaml:"merge_similarity" env:"LONG_TERM_MEMORY_MERGE_SIMILARITY"`
	WorkerConcurrency      int     `yaml:"worker_concurrency" env:"LONG_TERM_MEMORY_WORKER_CONCURRENCY"`
	BatchMaxMessages       int     `yaml:"batch_max_messages" env:"LONG_TERM_MEMORY_BATCH_MAX_MESSAGES"`
	BatchMaxWaitSec        float64 `yaml:"batch_max_wait_sec" env:"LONG_TERM_MEMORY_BATCH_MAX_WAIT_SEC"`
}

// RetrieveModes are the search modes LONG_TERM_MEMORY_RETRIEVE_MODE may name.
var RetrieveModes = []string{"auto", "dense", "lexical", "full_inject"}

// maxScanLimit bounds LONG_TERM_MEMORY_RETRIEVE_SCAN_LIMIT: the memories one
// search reads before it ranks them.
const maxScanLimit = 10000

func (m Memory) validate(p *problems) {
	between(p, "LONG_TERM_MEMORY_DEFAULT_TTL_DAYS", m.DefaultTTLDays, 0, memory.MaxTTLDays, "must be between %[1]d (never expire) and %[2]d, got %[3]d")
	between(p, "LONG_TERM_MEMORY_CONSTRAINT_TTL_DAYS", m.ConstraintTTLDays, 0, memory.MaxTTLDays, "must be between %[1]d (never expire) and %[2]d, got %[3]d")
	p.oneOf("LONG_TERM_MEMORY_RETRIEVE_MODE", m.RetrieveMode, RetrieveModes, "must be auto, dense, lexical or full_inject, got %q")
	between(p, "LONG_TERM_MEMORY_RETRIEVE_LIMIT", m.RetrieveLimit, 1, retrieval.MaxLimit, "")
	between(p, "LONG_TERM_MEMORY_RETRIEVE_SCAN_LIMIT", m.RetrieveScanLimit, m.RetrieveLimit, maxScanLimit, "must be between the retrieve limit and %[2]d, got %[3]d")
	between(p, "LONG_TERM_MEMORY_MIN_CONFIDENCE", m.MinConfidence, 0, 1, "")
	between(p, "LONG_TERM_MEMORY_MIN_SCORE", m.MinScore, 0, 1, "must be between %v and %v (scores are relevance in [0, 1]), got %v")
	between(p, "LONG_TERM_MEMORY_MAX_WRITE_ITEMS", m.MaxWriteItems, 1, 100, "")
	between(p, "LONG_TERM_MEMORY_DEBOUNCE_SEC", m.DebounceSec, 0, 3600, "")
	p.atLeastOne(map[string]int{
		"LONG_TERM_MEMORY_EXTRACT_TIMEOUT_SEC":       m.ExtractTimeoutSec,
		"LONG_TERM_MEMORY_UPSERT_TIMEOUT_SEC":        m.UpsertTimeoutSec,
		"LONG_TERM_MEMORY_EXTRACT_CONTEXT_MAX_CHARS": m.ExtractContextMaxChars,
		"LONG_TERM_MEMORY_SCAN_INTERVAL_SEC":         m.ScanIntervalSec,
		"LONG_TERM_MEMORY_MAX_ATTEMPTS":              m.MaxAttempts,
		"LONG_TERM_MEMORY_CLAIM_LEASE_SEC":           m.ClaimLeaseSec,
	})
	m.validateSimilarities(p)
	m.validateCost(p)
}

// validateSimilarities checks the duplicate and merge thresholds: cosines in
// (0, 1], the merge one no lower than the duplicate one.
func (m Memory) validateSimilarities(p *problems) {
	for _, s := range []struct {
		name string
		v    float64
	}{
		{"LONG_TERM_MEMORY_DUPLICATE_SIMILARITY", m.DuplicateSimilarity},
		{"LONG_TERM_MEMORY_MERGE_SIMILARITY", m.MergeSimilarity},
	} {
		if !(s.v > 0 && s.v <= 1) {
			p.add(s.name, "must be in (0, 1], got %v", s.v)
		}
	}
	if m.MergeSimilarity < m.DuplicateSimilarity {
		p.add("LONG_TERM_MEMORY_MERGE_SIMILARITY", "must not be below LONG_TERM_MEMORY_DUPLICATE_SIMILARITY")
	}
}

// IndexWorker is the MEMORY_INDEX_WORKER_* settings.
type IndexWorker struct {
	Enabled     bool `yaml:"enabled" env:"MEMORY_INDEX_WORKER_ENABLED"`
	IntervalSec int  `yaml:"interval_sec" env:"MEMORY_INDEX_WORKER_INTERVAL_SEC"`
	BatchSize   int  `yaml:"batch_size" env:"MEMORY_INDEX_WORKER_BATCH_SIZE"`
}

func (w IndexWorker) validate(p *problems) {
	p.atLeastOne(map[string]int{
		"MEMORY_INDEX_WORKER_INTERVAL_SEC": w.IntervalSec,
		"MEMORY_INDEX_WORKER_BATCH_SIZE":   w.BatchSize,
	})
}

type Embedding struct {
	Provider string `yaml:"provider" env:"ENGRAM_EMBEDDER"`
	Model    string `yaml:"model" env:"MEMORY_EMBEDDING_MODEL"`
	Dim      int    `yaml:"dim" env:"MEMORY_EMBEDDING_DIM"`
	LocalDim int    `yaml:"local_dim" env:"ENGRAM_LOCAL_EMBEDDING_DIM"`
	APIBase  string `yaml:"api_base" env:"MEMORY_EMBEDDING_API_BASE"`
	APIKey   string `yaml:"api_key" env:"MEMORY_EMBEDDING_API_KEY" secret:"value"`
	// The cosine scale of search's dense evidence (ranking.DenseScale), for the
	// local embedder (measured) and for a remote model (to be measured).
	LocalMinCosine   float64 `yaml:"local_min_cosine" env:"ENGRAM_LOCAL_EMBEDDING_MIN_COSINE"`
	LocalFullCosine  float64 `yaml:"local_full_cosine" env:"ENGRAM_LOCAL_EMBEDDING_FULL_COSINE"`
	LocalDenseWeight float64 `yaml:"local_dense_weight" env:"ENGRAM_LOCAL_EMBEDDING_DENSE_WEIGHT"`
	MinCosine        float64 `yaml:"min_cosine" env:"MEMORY_EMBEDDING_MIN_COSINE"`
	FullCosine       float64 `yaml:"full_cosine" env:"MEMORY_EMBEDDING_FULL_COSINE"`
	DenseWeight      float64 `yaml:"dense_weight" env:"MEMORY_EMBEDDING_DENSE_WEIGHT"`
}

func (e Embedding) validate(p *problems) {
	e.validateDenseScale(p)
	p.atLeastOne(map[string]int{"ENGRAM_LOCAL_EMBEDDING_DIM": e.LocalDim})
	switch e.Provider {
	case "local":
	case "openai", "ollama":
		if e.Dim < 1 {
			p.add("MEMORY_EMBEDDING_DIM", "must be at least 1, got %d", e.Dim)
		}
		if e.Model == "" {
			p.add("MEMORY_EMBEDDING_MODEL", "must name the embedding model for %s", e.Provider)
		}
	default:
		p.add("ENGRAM_EMBEDDER", "must be local, openai or ollama, got %q", e.Provider)
	}
}

// validateDenseScale checks both cosine scales: a floor below the full cosine,
// both in [-1, 1], and a weight in [0, 1].
func (e Embedding) validateDenseScale(p *problems) {
	for _, s := range []struct {
		prefix            string
		floor, full, wght float64
	}{
		{"ENGRAM_LOCAL_EMBEDDING_", e.LocalMinCosine, e.LocalFullCosine, e.LocalDenseWeight},
		{"MEMORY_EMBEDDING_", e.MinCosine, e.FullCosine, e.DenseWeight},
	} {
		if !(s.floor >= -1 && s.floor < s.full && s.full <= 1) {
			p.add(s.prefix+"MIN_COSINE and "+s.prefix+"FULL_COSINE", "must satisfy -1 <= min < full <= 1, got %v and %v", s.floor, s.full)
		}
		between(p, s.prefix+"DENSE_WEIGHT", s.wght, 0, 1, "")
	}
}

type Vector struct {
	Backend            string `yaml:"backend" env:"ENGRAM_VECTOR_BACKEND"`
	SearchTimeoutMS    int    `yaml:"search_timeout_ms" env:"ENGRAM_VECTOR_SEARCH_TIMEOUT_MS"`
	BreakerFailures    int    `yaml:"breaker_failures" env:"ENGRAM_VECTOR_BREAKER_FAILURES"`
	BreakerCooldownSec int    `yaml:"breaker_cooldown_sec" env:"ENGRAM_VECTOR_BREAKER_COOLDOWN_SEC"`
	// LocalPrefilterThreshold: partitions of the local index with at least this
	// many vectors are scanned by int8 copies first; -1 scans exactly always.
	LocalPrefilterThreshold int    `yaml:"local_prefilter_threshold" env:"ENGRAM_VECTOR_LOCAL_PREFILTER_THRESHOLD"`
	Milvus                  Milvus `yaml:"milvus"`
}

// validate checks the vector index; postgres says whether the truth store is
// PostgreSQL, which pgvector lives in.
func (v Vector) validate(p *problems, postgres bool) {
	p.atLeastOne(map[string]int{
		"ENGRAM_VECTOR_SEARCH_TIMEOUT_MS":    v.SearchTimeoutMS,
		"ENGRAM_VECTOR_BREAKER_FAILURES":     v.BreakerFailures,
		"ENGRAM_VECTOR_BREAKER_COOLDOWN_SEC": v.BreakerCooldownSec,
	})
	if t := v.LocalPrefilterThreshold; t < -1 || t == 0 {
		p.add("ENGRAM_VECTOR_LOCAL_PREFILTER_THRESHOLD", "must be -1 (exact scans only) or a number of vectors of at least 1, got %d", t)
	}
	switch v.Backend {
	case "local":
	case "pgvector":
		if !postgres {
			p.add("ENGRAM_VECTOR_BACKEND", "pgvector needs ENGRAM_DATABASE_URL to be a postgres:// URL")
		}
	case "milvus":
		if v.Milvus.URI == "" {
			p.add("MEMORY_MILVUS_URI", "must be set when the vector backend is milvus")
		}
	default:
		p.add("ENGRAM_VECTOR_BACKEND", "must be local, pgvector or milvus, got %q", v.Backend)
	}
}

// Milvus is the MEMORY_MILVUS_* settings.
type Milvus struct {
	Enabled    bool   `yaml:"enabled" env:"MEMORY_MILVUS_ENABLED"`
	URI        string `yaml:"uri" env:"MEMORY_MILVUS_URI"`
	Token      string `yaml:"token" env:"MEMORY_MILVUS_TOKEN" secret:"value"`
	Collection string `yaml:"collection" env:"MEMORY_MILVUS_COLLECTION"`
}

// LLM is the model endpoint (LLM_* names).
type LLM struct {
	Provider   string `yaml:"provider" env:"ENGRAM_LLM_PROVIDER"`
	APIBase    string `yaml:"api_base" env:"LLM_API_BASE"`
	APIKey     string `yaml:"api_key" env:"LLM_API_KEY" secret:"value"`
	Model      string `yaml:"model" env:"LLM_MODEL"`
	MaxRetries int    `yaml:"max_retries" env:"LLM_MAX_RETRIES"`
	PromptsDir string `yaml:"prompts_dir" env:"ENGRAM_PROMPTS_DIR"`
	// TenantCallsPerMinute is each tenant's budget of model calls; 0: unlimited.
	TenantCallsPerMinute int `yaml:"tenant_calls_per_minute" env:"ENGRAM_LLM_TENANT_CALLS_PER_MINUTE"`
}

// maxLLMRetries bounds LLM_MAX_RETRIES: past it a failing endpoint holds a
// message longer than the extraction's own retries would.
const maxLLMRetries = 10

func (l LLM) validate(p *problems) {
	switch l.Provider {
	case "rules":
	case "openai", "ollama":
		if l.Model == "" {
			p.add("LLM_MODEL", "must name the model for provider %s", l.Provider)
		}
		if l.Provider == "openai" && l.APIBase == "" && l.APIKey == "" {
			p.add("LLM_API_KEY", "must be set (or LLM_API_BASE for a keyless endpoint) for provider openai")
		}
	default:
		p.add("ENGRAM_LLM_PROVIDER", "must be rules, openai or ollama, got %q", l.Provider)
	}
	between(p, "LLM_MAX_RETRIES", l.MaxRetries, 0, maxLLMRetries, "")
	if l.TenantCallsPerMinute < 0 {
		p.add("ENGRAM_LLM_TENANT_CALLS_PER_MINUTE", "must be 0 (unlimited) or more, got %d", l.TenantCallsPerMinute)
	}
}

// Roles of one process.
const (
	RoleAPI       = "api"
	RoleWorker    = "worker"
	RoleIndexer   = "indexer"
	RoleScheduler = "scheduler"
)

// AllRoles in the order they are started.
var AllRoles = []string{RoleAPI, RoleWorker, RoleIndexer, RoleScheduler}

// Load reads the defaults, then file (if not empty), then the environment
// (environ is os.Environ()'s form), and validates the result.
func Load(file string, environ []string) (Config, error) {
	var c Config
	if err := decodeYAML(configs.Default, &c); err != nil {
		return Config{}, fmt.Errorf("embedded defaults: %w", err)
	}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return Config{}, fmt.Errorf("config file: %w", err)
		}
		if err := decodeYAML(data, &c); err != nil {
			return Config{}, fmt.Errorf("config file %s: %w", file, err)
		}
	}
	vars := envMap(environ)
	if err := env.ParseWithOptions(&c, env.Options{Environment: vars}); err != nil {
		return Config{}, nameBadVariable(vars, err)
	}
	c.normalize()
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func decodeYAML(data []byte, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true) // a misspelt setting is an error, not a silent default
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// nameBadVariable finds which variable failed to parse: the library reports the Go
// field, but the operator needs the variable's name.
func nameBadVariable(vars map[string]string, err error) error {
	params, _ := env.GetFieldParams(&Config{})
	for _, p := range params {
		v, set := vars[p.Key]
		if !set {
			continue
		}
		var probe Config
		if env.ParseWithOptions(&probe, env.Options{Environment: map[string]string{p.Key: v}}) != nil {
			return fmt.Errorf("%s: cannot use %q: %w", p.Key, v, err)
		}
	}
	return fmt.Errorf("environment: %w", err)
}

func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

func (c *Config) normalize() {
	for i, r := range c.Roles {
		c.Roles[i] = strings.ToLower(strings.TrimSpace(r))
	}
	c.Embedding.Provider = strings.ToLower(strings.TrimSpace(c.Embedding.Provider))
	c.Vector.Backend = strings.ToLower(strings.TrimSpace(c.Vector.Backend))
	c.LLM.Provider = strings.ToLower(strings.TrimSpace(c.LLM.Provider))
	c.Memory.RetrieveMode = strings.ToLower(strings.TrimSpace(c.Memory.RetrieveMode))
	c.Sessions.Summarizer = strings.ToLower(strings.TrimSpace(c.Sessions.Summarizer))
	c.Redis.Addr = strings.TrimSpace(c.Redis.Addr)
	if c.Vector.Milvus.Enabled && c.Vector.Backend == "local" {
		// MEMORY_MILVUS_ENABLED=true selects Milvus.
		c.Vector.Backend = "milvus"
	}
	if c.Embedding.APIBase == "" {
		c.Embedding.APIBase = c.LLM.APIBase
	}
	if c.Embedding.APIKey == "" {
		c.Embedding.APIKey = c.LLM.APIKey
	}
}

// HasRole reports whether this process runs role.
func (c Config) HasRole(role string) bool {
	for _, r := range c.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// IsPostgres reports whether the truth store is PostgreSQL.
func (c Config) IsPostgres() bool { return c.Database.isPostgres() }

// Validate checks every setting and names all the ones that are wrong, each by
// the environment variable to fix. Each section checks its own settings beside
// its type; the checks that join two sections pass what they need in.
func (c Config) Validate() error {
	p := &problems{}
	c.HTTP.validate(p, c.HasRole(RoleAPI))
	if c.DataDir == "" {
		p.add("ENGRAM_DATA_DIR", "must not be empty")
	}
	c.Database.validate(p)
	validateRoles(p, c.Roles)
	c.Auth.validate(p)
	c.Log.validate(p)
	c.Memory.validate(p)
	c.IndexWorker.validate(p)
	c.Embedding.validate(p)
	c.Vector.validate(p, c.Database.isPostgres())
	c.LLM.validate(p)
	c.Scheduler.validate(p)
	c.Profiles.validate(p)
	c.Sessions.validate(p, c.LLM.Provider)
	c.Redis.validate(p)
	c.Context.validate(p)
	c.Traces.validate(p)
	c.Secrets.validate(p)
	return p.err()
}

func validateRoles(p *problems, roles []string) {
	if len(roles) == 0 {
		p.add("ENGRAM_ROLES", "must name at least one of %s", strings.Join(AllRoles, ", "))
	}
	for _, r := range roles {
		if !slices.Contains(AllRoles, r) {
			p.add("ENGRAM_ROLES", "unknown role %q; roles are %s", r, strings.Join(AllRoles, ", "))
		}
	}
}

// ParseAPIKeys reads "tenant=key,tenant2=key2". Keys must be long enough to resist
// guessing; tenants are 1–64 characters of [A-Za-z0-9_.-].
func ParseAPIKeys(s string) (map[string]string, error) {
	keys := map[string]string{} // key -> tenant
	if strings.TrimSpace(s) == "" {
		return keys, nil
	}
	for i, pair := range strings.Split(s, ",") {
		tenant, key, ok := strings.Cut(strings.TrimSpace(pair), "=")
		tenant, key = strings.TrimSpace(tenant), strings.TrimSpace(key)
		if !ok || tenant == "" || key == "" {
			return nil, fmt.Errorf("entry %d must look like tenant=key", i+1)
		}
		if !ValidTenant(tenant) {
			return nil, fmt.Errorf("entry %d: tenant must be 1-64 characters of A-Z a-z 0-9 _ . -", i+1)
		}
		if len(key) < 16 {
			return nil, fmt.Errorf("entry %d: the key for tenant %s must be at least 16 characters", i+1, tenant)
		}
		if _, dup := keys[key]; dup {
			return nil, fmt.Errorf("entry %d: the same key is given twice", i+1)
		}
		keys[key] = tenant
	}
	return keys, nil
}

// ValidTenant reports whether a tenant name is acceptable.
func ValidTenant(t string) bool {
	if len(t) == 0 || len(t) > 64 {
		return false
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return false
		}
	}
	return true
}

// IsLoopback reports whether the listen address only accepts local connections.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Masked returns a copy with every secret replaced, for printing.
func (c Config) Masked() Config {
	v := reflect.ValueOf(&c).Elem()
	maskSecrets(v)
	return c
}

func maskSecrets(v reflect.Value) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Struct:
			maskSecrets(f)
		case reflect.String:
			kind := t.Field(i).Tag.Get("secret")
			if kind == "" || f.String() == "" {
				continue
			}
			f.SetString(mask(kind, f.String()))
		}
	}
}

func mask(kind, s string) string {
	switch kind {
	case "url":
		u, err := url.Parse(s)
		if err != nil {
			return "****"
		}
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "****")
		}
		return u.String()
	case "keys":
		keys, _ := ParseAPIKeys(s)
		tenants := make([]string, 0, len(keys))
		for _, t := range keys {
			tenants = append(tenants, t+"=****")
		}
		slices.Sort(tenants)
		return strings.Join(tenants, ",")
	default:
		return "****"
	}
}

// YAML renders the configuration (mask it first).
func (c Config) YAML() ([]byte, error) {
	return yaml.Marshal(c)
}
