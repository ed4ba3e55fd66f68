package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"engram/ports"
)

// KeyPrefix marks engram keys so that secret scanners can find leaked ones.
const KeyPrefix = "engram_"

// CreateKey makes a new key for tenant, stores its hash and returns the secret,
// which is shown once and never again. With user, the key reaches that user of
// the tenant only; "": every user.
func (a *Authenticator) CreateKey(ctx context.Context, tenant, user string) (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("random key: %w", err)
	}
	secret := KeyPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	err := a.store.CreateAPIKey(ctx, ports.APIKey{
		ID:        a.ids.New(),
		Tenant:    tenant,
		User:      user,
		Hash:      HashKey(secret),
		CreatedAt: a.clock.Now(),
	})
	if err != nil {
		return "", fmt.Errorf("store API key: %w", err)
	}
	return secret, nil
}
