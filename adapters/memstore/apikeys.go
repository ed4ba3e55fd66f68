package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"engram/ports"
)

// APIKeyStore is an in-memory ports.APIKeyStore.
type APIKeyStore struct {
	mu         sync.Mutex
	byHash     map[string]ports.APIKey
	hashOf     map[string]string // id -> hash
	generation int64
}

var _ ports.APIKeyStore = (*APIKeyStore)(nil)

// NewAPIKeyStore returns an empty store.
func NewAPIKeyStore() *APIKeyStore {
	return &APIKeyStore{byHash: map[string]ports.APIKey{}, hashOf: map[string]string{}}
}

// CreateAPIKey stores a key; ports.ErrConflict when its id or hash is taken.
func (s *APIKeyStore) CreateAPIKey(_ context.Context, key ports.APIKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.byHash[key.Hash]; taken {
		return fmt.Errorf("memstore: create api key: %w", ports.ErrConflict)
	}
	if _, taken := s.hashOf[key.ID]; taken {
		return fmt.Errorf("memstore: create api key: %w", ports.ErrConflict)
	}
	key.CreatedAt, key.LastUsedAt, key.RevokedAt = normTime(key.CreatedAt), normTime(key.LastUsedAt), normTime(key.RevokedAt)
	s.byHash[key.Hash] = key
	s.hashOf[key.ID] = key.Hash
	s.generation++
	return nil
}

// Generation changes with every key created or revoked.
func (s *APIKeyStore) Generation(context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.generation, nil
}

// APIKeyByHash returns the active key with this hash, or ports.ErrNotFound.
func (s *APIKeyStore) APIKeyByHash(_ context.Context, hash string) (ports.APIKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key, ok := s.byHash[hash]
	if !ok || !key.Active() {
		return ports.APIKey{}, fmt.Errorf("memstore: get api key: %w", ports.ErrNotFound)
	}
	return key, nil
}

// HasActiveAPIKeys reports whether any key is active.
func (s *APIKeyStore) HasActiveAPIKeys(context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.byHash {
		if k.Active() {
			return true, nil
		}
	}
	return false, nil
}

// ListAPIKeys returns the keys, oldest first; revoked ones only when asked.
func (s *APIKeyStore) ListAPIKeys(_ context.Context, includeRevoked bool) ([]ports.APIKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := []ports.APIKey{}
	for _, k := range s.byHash {
		if includeRevoked || k.Active() {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b ports.APIKey) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return keys, nil
}

// RevokeAPIKey marks the key revoked (once) and returns it, or ports.ErrNotFound.
func (s *APIKeyStore) RevokeAPIKey(_ context.Context, id string, at time.Time) (ports.APIKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hash, ok := s.hashOf[id]
	if !ok {
		return ports.APIKey{}, fmt.Errorf("memstore: revoke api key: %w", ports.ErrNotFound)
	}
	key := s.byHash[hash]
	if key.Active() {
		key.RevokedAt = normTime(at)
		s.byHash[hash] = key
		s.generation++
	}
	return key, nil
}

// TouchAPIKey records a use; an earlier time than the stored one changes nothing.
func (s *APIKeyStore) TouchAPIKey(_ context.Context, id string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	hash, ok := s.hashOf[id]
	if !ok {
		return nil
	}
	key := s.byHash[hash]
	if at = normTime(at); at.After(key.LastUsedAt) {
		key.LastUsedAt = at
		s.byHash[hash] = key
	}
	return nil
}
