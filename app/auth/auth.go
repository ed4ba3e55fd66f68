// Package auth authenticates tenants by API key (F11). Secrets are never stored:
// configured keys are hashed when the process starts, created keys are stored as
// hashes, and presented keys are compared by hash in constant time.
package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"engram/ports"
)

// OpenTenant is the tenant of every request when no key is configured.
const OpenTenant = "default"

// positiveCacheTTL bounds how long a stored key stays trusted without a lookup; a
// deleted key stops working within this time.
const positiveCacheTTL = time.Minute

// Authenticator maps a presented key to its tenant.
type Authenticator struct {
	configured []configuredKey
	store      ports.APIKeyStore
	clock      ports.Clock
	ids        ports.IDs
	open       bool

	mu    sync.Mutex
	cache map[string]cachedTenant // hash -> tenant, stored keys only
}

type configuredKey struct {
	hash   []byte
	tenant string
}

type cachedTenant struct {
	tenant string
	until  time.Time
}

// Options configure an Authenticator.
type Options struct {
	Configured map[string]string // secret -> tenant, from ENGRAM_API_KEYS
	// Open: no key configured and none stored, so every request is OpenTenant. The
	// caller decides at start-up (and refuses a non-loopback address in that case).
	Open bool
}

// New builds an Authenticator. The configured secrets are hashed and dropped.
func New(opts Options, store ports.APIKeyStore, clock ports.Clock, ids ports.IDs) *Authenticator {
	a := &Authenticator{store: store, clock: clock, ids: ids, open: opts.Open, cache: map[string]cachedTenant{}}
	for secret, tenant := range opts.Configured {
		sum := sha256.Sum256([]byte(secret))
		a.configured = append(a.configured, configuredKey{hash: sum[:], tenant: tenant})
	}
	return a
}

// Open reports whether the server runs without keys.
func (a *Authenticator) Open() bool { return a.open }

// HashKey is how secrets are stored: hex sha256. Keys are 256-bit random values, so
// a fast hash is enough; a password hash would only slow every request.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
