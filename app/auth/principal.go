package auth

// Principal is who a request acts as: a tenant and, for a key created with
// `engram keys create --user U`, the one user of it the key reaches.
type Principal struct {
	Tenant string
	// User is the only user a user-scoped key reaches; "" for a tenant key,
	// which reaches every user of the tenant.
	User string
	// KeyID names the key for per-key limits, never its secret: a stored key's
	// id, "configured:" and the start of a configured key's hash, or "open".
	KeyID string
}

// Reaches reports whether the principal may read and write the user's data.
func (p Principal) Reaches(user string) bool { return p.User == "" || p.User == user }

// Pinned reports whether the principal reaches one user only.
func (p Principal) Pinned() bool { return p.User != "" }
