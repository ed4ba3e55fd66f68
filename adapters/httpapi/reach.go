package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"engram/domain/memory"
	"engram/ports"
)

// Which users a request may reach is decided here, for every route.
//
// A tenant key reaches every user of its tenant. A user-scoped key (`engram keys
// create --user U`) reaches U only:
//   - a user named in the path ({user}) or in a header that names one
//     (X-Acting-User, X-Engram-User) other than U is 403, before the operation
//     runs, whether that user exists or not (so it tells nothing about them);
//   - an object reached by its own id (a job, a trace) that belongs to another
//     user is 404, as another tenant's is;
//   - a listing (GET /v1/users, GET /v1/org/users) shows U only;
//   - an operation of the whole tenant (the audit log, a reindex) is 403.
//
// Every operation without {user} must say which of the last three it is, with
// reachMetadata: one that says nothing is tenant-wide, so a route added later is
// closed to user-scoped keys until it says how it keeps to their user.

// reachMetadata is the Operation.Metadata key that says how an operation without
// {user} keeps a user-scoped key to its user.
const reachMetadata = "engram.reach"

// How an operation without {user} treats a user-scoped key (reachMetadata).
const (
	reachNoUserData = "no user data" // serves no user's data (the tool definitions)
	reachByOwner    = "by owner"     // checks the owner of what it reads with reachable
	reachFiltered   = "filtered"     // lists only the users reachable allows
)

// userHeaders are the header parameters that name a user.
var userHeaders = map[string]bool{"X-Acting-User": true, UserHeader: true}

// reachUsers is the /v1 middleware that applies the rules above to the path and
// headers of every request.
func reachUsers(api huma.API) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		who := principalFrom(ctx.Context())
		if !who.Pinned() {
			next(ctx)
			return
		}
		op := ctx.Operation()
		namesUser := false
		named := make([]string, 0, 1+len(userHeaders))
		for _, p := range op.Parameters {
			if p.In == "path" && p.Name == "user" {
				named, namesUser = append(named, ctx.Param(p.Name)), true
			}
		}
		// A header that names a user counts whether the operation reads it or not.
		for name := range userHeaders {
			named = append(named, ctx.Header(name))
		}
		for _, user := range named {
			if user != "" && !who.Reaches(user) {
				_ = huma.WriteErr(api, ctx, userOutOfReach.status(), outOfReach(who.User, user))
				return
			}
		}
		if _, says := op.Metadata[reachMetadata]; !namesUser && !says {
			_ = huma.WriteErr(api, ctx, tenantWideOnly.status(),
				"this API key reaches user "+clipText(who.User, maxEcho)+" only, and "+op.Method+" "+op.Path+
					" acts on the whole tenant: use a key created without --user")
			return
		}
		next(ctx)
	}
}

// outOfReach is the detail of a refused user: what the key reaches, and what to do.
func outOfReach(reached, named string) string {
	return "this API key reaches user " + clipText(reached, maxEcho) + " only; it cannot act for " + clipText(named, maxEcho) +
		": use a key created without --user (or one created for that user)"
}

// reachable reports whether the request may see what belongs to user.
func reachable(ctx context.Context, user string) bool { return principalFrom(ctx).Reaches(user) }

// Reaches is reachable for a handler served with Mount: a user it finds in its
// own arguments (a compatibility surface's user_id) is refused, in its client's
// error shape, unless Reaches says yes.
func Reaches(ctx context.Context, user string) bool { return reachable(ctx, user) }

// onlyUser is the one user a listing may show, "" when it may show every user.
func onlyUser(ctx context.Context) string { return principalFrom(ctx).User }

// owned is a read by id kept to what the request may reach: another user's
// object is not found, like another tenant's.
func owned(ctx context.Context, owner, kind, id string) error {
	if reachable(ctx, owner) {
		return nil
	}
	return ports.NotFound(kind, id)
}

// reachHeaders applies the rule for headers that name a user to a handler outside
// huma (the MCP endpoint).
func reachHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := principalFrom(r.Context())
		for name := range userHeaders {
			if named := r.Header.Get(name); named != "" && !who.Reaches(named) {
				writeProblem(w, r, userOutOfReach.status(), outOfReach(who.User, named))
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// ownedJob is owned for a job: a DONE erasure names its user by the fingerprint
// of tenant and user id, which the user's own key still reaches.
func ownedJob(ctx context.Context, scope memory.Scope, id string) error {
	who := principalFrom(ctx)
	if who.Pinned() && scope.User == (memory.Scope{Tenant: who.Tenant, User: who.User}).Fingerprint() {
		return nil
	}
	return owned(ctx, scope.User, "job", id)
}
