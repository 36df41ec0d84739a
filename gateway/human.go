package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/proposals"
)

// Me is who the admin API acts for: the actor a request was authenticated
// as, whom a proposal, an approval, a rejection and a secret's change are
// attributed to. The admin credential is the break-glass person, named by
// the configuration's admin.name (or --admin-name, BRIDLE_ADMIN_NAME,
// else the serving user's git identity, which bridle serve fills in).
type Me struct {
	actor.Actor
	// Role is what they may do (see Role): decided at every request.
	Role Role `json:"role,omitempty"`
	// SelfApprove: they may approve a proposal of their own, choosing to
	// (auth.sole_maintainer).
	SelfApprove bool `json:"self_approve,omitempty"`
	// From says where a break-glass name was read: flag, environment,
	// configuration or git.
	From string `json:"from,omitempty"`
	// Missing, with no name, says why actions attributed to a person
	// (propose, approve, reject, storing a secret) are refused and how
	// to fix it.
	Missing string `json:"missing,omitempty"`
}

// humanMissing is the refusal of an action that must be attributed to a
// person when no one is named.
const humanMissing = "actions are attributed to the human who makes them and this gateway does not know who you are: " +
	"restart it with --admin-name \"Your Name\" (or BRIDLE_ADMIN_NAME, or admin.name in the configuration), " +
	"or tell git your name for the user running it (git config --global user.name \"Your Name\")"

// breakGlass is the holder of the admin credential.
func (s *Server) breakGlass() actor.Actor {
	return actor.BreakGlass(s.cfg.Admin.Name, s.cfg.Admin.Email)
}

// who is the actor ctx was authenticated as (the admin API's middleware
// puts it there); a context without one is no one.
func who(ctx context.Context) actor.Actor {
	a, _ := actor.From(ctx)
	return a
}

// me is who r acts for; with no one named, Name is empty and Missing says
// why.
func (s *Server) me(r *http.Request) Me {
	a := who(r.Context())
	auth := s.auth.Load()
	m := Me{Actor: a, Role: auth.RoleFor(a, groupsOf(r.Context())), SelfApprove: auth.MayApproveOwn(a)}
	if a.Via == actor.ViaBreakGlass {
		m.From = s.cfg.Admin.NameFrom
	}
	if !a.Named() {
		m.Missing = humanMissing
	}
	return m
}

// needHuman is the person r acts for, or the refusal to return when none
// is named.
func (s *Server) needHuman(r *http.Request) (actor.Actor, error) {
	m := s.me(r)
	if !m.IsHuman() || !m.Named() {
		return m.Actor, fmt.Errorf("%w: %s", errBadRequest, humanMissing)
	}
	return m.Actor, nil
}

func (s *Server) getMe(w http.ResponseWriter, r *http.Request) {
	s.ok(w, http.StatusOK, s.me(r))
}

// listMyTokens answers the person's own tokens (none for the admin
// credential's holder, who has none).
func (s *Server) listMyTokens(w http.ResponseWriter, r *http.Request) {
	a := who(r.Context())
	if !a.IsHuman() || !actor.SignedInSubject(a.Subject) {
		s.ok(w, http.StatusOK, []PersonTokenInfo{})
		return
	}
	s.ok(w, http.StatusOK, s.people.List(a.Subject))
}

// mintMyToken mints a token of the person signing in through the
// provider. Not with the admin credential (it cannot tell who holds it, so
// it mints for no one), nor with a token (a stolen token must not outlive
// its revocation through tokens it minted).
func (s *Server) mintMyToken(w http.ResponseWriter, r *http.Request) {
	a := who(r.Context())
	if !a.IsHuman() || a.Via != actor.ViaOIDC {
		s.fail(w, fmt.Errorf("%w: %w: %s cannot mint a person's API token: sign in as yourself through the identity provider (the panel, or bridle login)",
			proposals.ErrForbidden, ErrNotSignedIn, a))
		return
	}
	var in PersonTokenRequest
	if err := decode(w, r, &in); err != nil {
		s.fail(w, err)
		return
	}
	tok, info, err := s.people.Mint(a, groupsOf(r.Context()), in.Name, in.ExpiresInDays)
	if errors.Is(err, ErrNotSignedIn) {
		err = fmt.Errorf("%w: %w", proposals.ErrForbidden, err)
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	s.red.Add(tok)
	s.recordServer(r, "minted an API token ("+info.Name+")", info.ID, map[string]any{"expires": info.Expires.Format(time.RFC3339)})
	person := a
	person.Via = actor.ViaAPIToken
	writeJSON(w, http.StatusCreated, MintedPersonToken{Token: tok, Info: info, Person: person}) // unmasked: shown once, here
}

// revokeMyToken revokes a token of the person's own; another's is 404.
func (s *Server) revokeMyToken(w http.ResponseWriter, r *http.Request) {
	a := who(r.Context())
	subject := ""
	if a.IsHuman() && actor.SignedInSubject(a.Subject) {
		subject = a.Subject
	}
	info, err := s.people.Revoke(subject, r.PathValue("id"))
	if err != nil {
		s.fail(w, err)
		return
	}
	s.recordServer(r, "revoked an API token ("+info.Name+")", info.ID, nil)
	s.ok(w, http.StatusOK, info)
}

// listPeopleTokens answers every person's tokens (admin).
func (s *Server) listPeopleTokens(w http.ResponseWriter, _ *http.Request) {
	s.ok(w, http.StatusOK, s.people.All())
}

// revokePersonToken revokes anyone's token (admin): revoking takes no
// one's place, so the admin credential may too.
func (s *Server) revokePersonToken(w http.ResponseWriter, r *http.Request) {
	o, err := s.people.RevokeAny(r.PathValue("id"))
	if err != nil {
		s.fail(w, err)
		return
	}
	s.recordServer(r, "revoked "+o.Person.Name+"'s API token ("+o.Name+")", o.ID, map[string]any{"owner": o.Person.Subject})
	s.ok(w, http.StatusOK, o)
}

// recordServer appends an admin event, by the request's actor, to the
// server-wide log.
func (s *Server) recordServer(r *http.Request, summary, id string, detail map[string]any) {
	a := who(r.Context())
	e := audit.Event{Kind: audit.KindAdmin, Actor: &a, Source: "user", Summary: summary, ID: id, Detail: detail}
	if err := s.serverAudit.Append(e); err != nil {
		s.log.Warn("audit event not written", "log", serverAuditLog, "err", err)
	}
}
