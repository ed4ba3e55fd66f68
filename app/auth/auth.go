// Package auth authenticates tenants by API key and manages stored keys.
// Secrets are never stored: configured keys are hashed when the process starts,
// created keys are stored as hashes, and presented keys are compared by hash in
// constant time.
//
// Every request that presents a stored key reads the store's key generation, one
// number bumped in the transaction of every key creation and revocation: when it
// changed, what the process cached of keys is dropped, so a key revoked with the
// command line is refused by every process from the next request on. A stored key
// is looked up again at least once per CacheTTL even when nothing changed. Open
// mode (no key configured or stored) ends by itself at the first request after
// the first key is created; it never starts again while the process runs.
package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"sync"
	"time"

	"engram/ports"
)

// OpenTenant is the tenant of every request when no key is configured. Data
// written in open mode belongs to it: a key created for tenant "default" reaches
// that data once the server runs with keys.
const OpenTenant = "default"

// Defaults of Options.
const (
	DefaultCacheTTL   = 5 * time.Second
	DefaultTouchEvery = time.Minute
)

// Authenticator maps a presented key to its tenant.
type Authenticator struct {
	configured []configuredKey
	store      ports.APIKeyStore
	clock      ports.Clock
	ids        ports.IDs
	opts       Options

	mu          sync.Mutex
	open        bool
	openChecked int64                // the generation at which open mode last found no stored key
	generation  int64                // the store's generation the cache was filled at
	cache       map[string]cachedKey // hash -> stored key, until its entry expires
	touched     map[string]time.Time // key id -> when its last use was written
}

type configuredKey struct {
	hash   []byte
	tenant string
	id     string // Principal.KeyID
}

type cachedKey struct {
	principal Principal
	until     time.Time
}

// Options configure an Authenticator.
type Options struct {
	Configured map[string]string // secret -> tenant, from ENGRAM_API_KEYS
	// Open: no key configured and none stored, so every request is OpenTenant. The
	// caller decides at start-up (and refuses a non-loopback address in that case).
	Open bool
	// CacheTTL is how long a stored key's lookup is trusted while the key
	// generation stays the same (ENGRAM_AUTH_CACHE_TTL_SEC). 0: DefaultCacheTTL.
	CacheTTL time.Duration
	// TouchEvery bounds how often a key's last use is written. 0: DefaultTouchEvery.
	TouchEvery time.Duration
	Logger     *slog.Logger // open mode's end is logged here; nil: discarded
}

// New builds an Authenticator. The configured secrets are hashed and dropped.
func New(opts Options, store ports.APIKeyStore, clock ports.Clock, ids ports.IDs) *Authenticator {
	if opts.CacheTTL <= 0 {
		opts.CacheTTL = DefaultCacheTTL
	}
	if opts.TouchEvery <= 0 {
		opts.TouchEvery = DefaultTouchEvery
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	a := &Authenticator{store: store, clock: clock, ids: ids, opts: opts, open: opts.Open,
		openChecked: -1, generation: -1, cache: map[string]cachedKey{}, touched: map[string]time.Time{}}
	for secret, tenant := range opts.Configured {
		sum := sha256.Sum256([]byte(secret))
		a.configured = append(a.configured, configuredKey{hash: sum[:], tenant: tenant,
			id: "configured:" + hex.EncodeToString(sum[:6])})
	}
	return a
}

// Open reports whether the server runs without keys.
func (a *Authenticator) Open() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.open
}

// HashKey is how secrets are stored: hex sha256. Keys are 256-bit random values, so
// a fast hash is enough; a password hash would only slow every request.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
