package profiles

import (
	"context"
	"errors"
	"fmt"

	"engram/domain/memory"
	"engram/domain/org"
	"engram/domain/profile"
	"engram/ports"
)

// Audit actions. A refused attempt is recorded too, with ".denied" appended.
const (
	ActionProfileRead  = "profile.read"
	ActionReportCreate = "report.create"
	ActionReportRead   = "report.read"
	deniedSuffix       = ".denied"
)

// who is whether an action is open to the user themselves or to managers only.
type who int

const (
	selfOrManager who = iota
	managersOnly
)

// subject is the user an authorised call is about: their profile (a new, empty
// one when only an org entry exists) and how the actor stands to them.
type subject struct {
	profile profile.Profile
	stored  bool // the profile is stored (else it was built from the org entry)
	access  org.Access
}

// authorize lets actor do action on scope's user: the user must exist in the
// tenant (a profile or an org entry; else not found, also for other tenants'
// users), and actor must be the user (unless managers only) or a manager above
// them. Every manager's access, and every refusal, is written to the audit log
// before anything is returned; an audit that cannot be written fails the call.
func (s *Service) authorize(ctx context.Context, scope memory.Scope, actor, action string, allowed who) (subject, error) {
	if err := memory.ValidateUserID("X-Acting-User", actor); err != nil {
		return subject{}, err
	}
	subj, err := s.subject(ctx, scope)
	if err != nil {
		return subject{}, err
	}
	chain, err := s.deps.Org.ManagerChain(ctx, scope.Tenant, scope.User)
	if err != nil {
		return subject{}, err
	}
	subj.access = org.Decide(actor, scope.User, chain)
	ok := subj.access.Relation == org.RelationManager ||
		(subj.access.Relation == org.RelationSelf && allowed == selfOrManager)
	if subj.access.Relation == org.RelationSelf && ok {
		return subj, nil // a user reading their own profile is not audited
	}
	recorded := action
	if !ok {
		recorded += deniedSuffix
	}
	if err := s.audit(ctx, scope, actor, recorded); err != nil {
		return subject{}, err
	}
	if !ok {
		return subject{}, refusal(scope.User, actor, action, subj.access)
	}
	return subj, nil
}

func refusal(user, actor, action string, a org.Access) error {
	if a.Relation == org.RelationSelf {
		return fmt.Errorf("evaluation reports of %q are for the managers above them; X-Acting-User is the user themselves: %w", user, ports.ErrForbidden)
	}
	what := "the profile"
	if action != ActionProfileRead {
		what = "evaluation reports"
	}
	return fmt.Errorf("%s of %q may be read only by the user and the managers above them in the organisation graph; %q is neither: %w",
		what, user, actor, ports.ErrForbidden)
}

// subject loads the user's profile, or builds one from their org entry. A user
// being erased has neither: the guard is asked after the read, so a read that
// began before the erasure was requested cannot return after it.
func (s *Service) subject(ctx context.Context, scope memory.Scope) (subject, error) {
	subj, err := s.loadSubject(ctx, scope)
	if err != nil {
		return subject{}, err
	}
	if err := s.hideErased(ctx, scope); err != nil {
		return subject{}, err
	}
	return subj, nil
}

// hideErased is ports.NotFound when the user is being erased.
func (s *Service) hideErased(ctx context.Context, scope memory.Scope) error {
	job, err := ports.ErasingJob(ctx, s.deps.Erasures, scope)
	if err != nil {
		return err
	}
	if job != "" {
		return ports.NotFound("profile or org member", scope.User)
	}
	return nil
}

func (s *Service) loadSubject(ctx context.Context, scope memory.Scope) (subject, error) {
	p, err := s.deps.Profiles.Profile(ctx, scope)
	if err == nil {
		return subject{profile: p, stored: true}, nil
	}
	if !errors.Is(err, ports.ErrNotFound) {
		return subject{}, err
	}
	m, err := s.deps.Org.Member(ctx, scope.Tenant, scope.User)
	if errors.Is(err, ports.ErrNotFound) {
		return subject{}, ports.NotFound("profile or org member", scope.User)
	}
	if err != nil {
		return subject{}, err
	}
	now := s.deps.Clock.Now()
	built, _, err := profile.New(scope, now).Apply(orgPatch(m), profile.Source{Channel: profile.ChannelOrg, At: m.UpdatedAt})
	if err != nil {
		return subject{}, err
	}
	return subject{profile: built}, nil
}

// orgPatch is what an org entry declares about a user's profile.
func orgPatch(m org.Member) profile.Patch {
	return profile.Patch{
		DisplayName: profile.Value(m.DisplayName),
		Department:  profile.Value(m.Department),
		Position:    profile.Value(m.Position),
	}
}

func (s *Service) audit(ctx context.Context, scope memory.Scope, actor, action string) error {
	return s.deps.Audit.AppendAudit(ctx, ports.AuditEntry{
		ID: s.deps.IDs.New(), Tenant: scope.Tenant, At: s.deps.Clock.Now(), Actor: actor, Action: action, TargetUser: scope.User,
	})
}
