// Package redisstore keeps short-term sessions in Redis through rueidis (the key
// design of docs/CONTEXT.md, with the tenant in front; ports.SessionStore, SessionFolds and
// SessionImporter). Every multi-key change is one Lua script, so it is atomic; a
// session is read with one read-only script, one round trip and one snapshot.
//
// Keys, each id percent-encoded (":" and "%"), so "a:b" never meets "a" + "b":
//
//	<p>:<tenant>:<user>:<flow>:<session>:messages   list of message JSON, oldest first, trimmed to max history
//	<p>:<tenant>:<user>:<flow>:<session>:meta       hash flow_name, created_at, last_active_at, message_count, rev
//	<p>:<tenant>:<user>:<flow>:<session>:summary    string: JSON {text, version, updated_at}
//	<p>:<tenant>:<user>:<flow>:<session>:exchanges  sorted set of the recent exchange ids (idempotent retries)
//	<p>:<tenant>:<user>:<flow>:<session>:fold       string "holder|until": a folder's claim
//	<p>:<tenant>:<user>:sessions                    sorted set "<flow>:<session>" by last activity (µs)
//	<p>:<tenant>:users                              sorted set of user ids by last exchange (µs)
//	<p>:<tenant>:user-ids                           sorted set of the same user ids, score 0 (listed by id)
//	<p>:folds                                       sorted set "<tenant>:<user>:<flow>:<session>" by due time (µs)
//	<p>:turns                                       stream of new exchanges on their way to the extraction channel
//
// Messages, meta and exchange ids live MessageTTL after the last exchange; the
// summary and the index SummaryTTL after their last change; the tenant's user sets
// the longer of the two after the tenant's last exchange, and a user leaves them
// once their last exchange is that old (trimmed by the appends) or when purged. Redis expires them
// itself (relative TTLs), so the store's reads need no clock. The claim and due
// times are the callers' (FoldClaim.Now, Fold.At). The scripts name keys they
// build from the queue members: one Redis server (or a primary with replicas),
// not a cluster.
//
// It imports domain, ports and rueidis only.
package redisstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"engram/domain/session"
	"engram/ports"
)

// DefaultPrefix starts every key (ENGRAM_REDIS_KEY_PREFIX's default).
const DefaultPrefix = "mem"

// clientCacheBytes bounds the client-side cache of each connection: the listing's
// metas are small (about 200 bytes), so 16 MiB hold tens of thousands of them.
// rueidis' default is 128 MiB.
const clientCacheBytes = 16 << 20

// Options say where Redis is and how the store uses it.
type Options struct {
	Addr     string // host:port
	Username string
	Password string
	DB       int
	// Prefix starts every key; default DefaultPrefix. Two deployments (or tests)
	// sharing a server use different prefixes.
	Prefix string
	Limits session.Limits
	// ClientCache serves the listing's meta reads from rueidis' server-assisted
	// client-side cache (see Sessions and docs/BENCHMARKS.md).
	ClientCache bool
	// RelayTurns queues each new exchange on the turns stream with its append
	// (ports.TurnQueue), for a relay into the extraction channel.
	RelayTurns bool
	// DialTimeout bounds a connection attempt; default 1 s.
	DialTimeout time.Duration
}

// Store is the Redis session store. The connection is made on first use and again
// after a failure, so a process starts while Redis is down and uses it once it is
// back; until then every call fails fast with ports.ErrUnavailable.
type Store struct {
	opts   Options
	prefix string
	limits session.Limits

	mu         sync.Mutex
	client     rueidis.Client
	groupReady bool // the relay's consumer group exists
}

var (
	_ ports.SessionStore    = (*Store)(nil)
	_ ports.SessionFolds    = (*Store)(nil)
	_ ports.SessionImporter = (*Store)(nil)
)

// New returns a store for opts; it does not connect yet.
func New(opts Options) (*Store, error) {
	if strings.TrimSpace(opts.Addr) == "" {
		return nil, errors.New("redisstore: no address")
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if strings.ContainsAny(opts.Prefix, "*?[]\\") {
		return nil, fmt.Errorf("redisstore: the key prefix %q must not contain glob characters", opts.Prefix)
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = time.Second
	}
	return &Store{opts: opts, prefix: opts.Prefix, limits: opts.Limits.WithDefaults()}, nil
}

// conn returns the client, connecting first when there is none.
func (s *Store) conn() (rueidis.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != nil {
		return s.client, nil
	}
	c, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress:       []string{s.opts.Addr},
		Username:          s.opts.Username,
		Password:          s.opts.Password,
		SelectDB:          s.opts.DB,
		ForceSingleClient: true,
		DisableCache:      !s.opts.ClientCache,
		CacheSizeEachConn: clientCacheBytes,
		Dialer:            netDialer(s.opts.DialTimeout),
		// A server that stops answering (not just refusing) is noticed within
		// this, instead of the default tens of seconds.
		ConnWriteTimeout: 3 * s.opts.DialTimeout,
		ClientName:       "engram",
	})
	if err != nil {
		return nil, fmt.Errorf("redisstore: connect to %s: %v: %w", s.opts.Addr, err, ports.ErrUnavailable)
	}
	s.client = c
	return c, nil
}

// Ping checks that Redis answers (readiness, and the fallback's probe).
func (s *Store) Ping(ctx context.Context) error {
	c, err := s.conn()
	if err != nil {
		return err
	}
	return wrapErr("ping", c.Do(ctx, c.B().Ping().Build()).Error())
}

// Close closes the connections.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != nil {
		s.client.Close()
		s.client = nil
	}
	return nil
}

// Client is the connection, for tests and tools that inspect the keys.
func (s *Store) Client() (rueidis.Client, error) { return s.conn() }

//go:embed lua/*.lua
var luaFiles embed.FS

func lua(name string, readOnly bool) *rueidis.Lua {
	src, err := luaFiles.ReadFile("lua/" + name + ".lua")
	if err != nil {
		panic(err) // embedded at build time
	}
	if readOnly {
		return rueidis.NewLuaScriptReadOnly(string(src))
	}
	return rueidis.NewLuaScript(string(src))
}

var (
	scriptAppend    = lua("append", false)
	scriptRead      = lua("read", true)
	scriptApplyFold = lua("apply_fold", false)
	scriptClaim     = lua("claim_folds", false)
	scriptRelease   = lua("release_fold", false)
	scriptReplace   = lua("replace", false)
	scriptDelete    = lua("delete", false)
)

// wrapErr turns a rueidis error into a ports error: an error reply of the server
// (a script bug, a key of the wrong type) stays a plain error; anything else
// (refused, reset, timed out, closing) means Redis cannot answer now.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if rueidis.IsRedisNil(err) {
		return fmt.Errorf("redisstore: %s: %w", op, ports.ErrNotFound)
	}
	if re, ok := rueidis.IsRedisErr(err); ok {
		return fmt.Errorf("redisstore: %s: redis replied %s", op, re.Error())
	}
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("redisstore: %s: %w: %w", op, ports.ErrUnavailable, context.Canceled)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("redisstore: %s: %w: %w", op, ports.ErrUnavailable, context.DeadlineExceeded)
	}
	return fmt.Errorf("redisstore: %s: %v: %w", op, err, ports.ErrUnavailable)
}
