package memstore

import (
	"context"
	"fmt"
	"sync"

	"engram/ports"
)

// APIKeyStore is an in-memory ports.APIKeyStore.
type APIKeyStore struct {
	mu     sync.Mutex
	byHash map[string]ports.APIKey
	ids    map[string]bool
}

var _ ports.APIKeyStore = (*APIKeyStore)(nil)

// NewAPIKeyStore returns an empty store.
func NewAPIKeyStore() *APIKeyStore {
	return &APIKeyStore{byHash: map[string]ports.APIKey{}, ids: map[string]bool{}}
}

// CreateAPIKey stores a key; ports.ErrConflict when its id or hash is taken.
func (s *APIKeyStore) CreateAPIKey(_ context.Context, key ports.APIKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.byHash[key.Hash]; taken || s.ids[key.ID] {
		return fmt.Errorf("memstore: create api key: %w", ports.ErrConflict)
	}
	key.CreatedAt = normTime(key.CreatedAt)
	s.byHash[key.Hash] = key
	s.ids[key.ID] = true
	return nil
}

// APIKeyByHash returns the key with this hash, or ports.ErrNotFound.
func (s *APIKeyStore) APIKeyByHash(_ context.Context, hash string) (ports.APIKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key, ok := s.byHash[hash]
	if !ok {
		return ports.APIKey{}, fmt.Errorf("memstore: get api key: %w", ports.ErrNotFound)
	}
	return key, nil
}

// HasAny reports whether any key is stored.
func (s *APIKeyStore) HasAny(context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byHash) > 0, nil
}
