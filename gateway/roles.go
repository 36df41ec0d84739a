package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bridle-dev/bridle/actor"
)

// Role is what a person may do through the admin API (and so the panel).
// Each route of routes() declares the least role it needs; one middleware
// (allow) enforces it from the request's actor. Each role may do what the
// roles below it may.
type Role string

// The roles, lowest first.
const (
	// RoleSignedIn is anyone the API authenticated, with or without a
	// role: enough to ask who they are (/api/v1/me).
	RoleSignedIn Role = "signed-in"
	// RoleViewer reads everything the panel shows; secrets are names only
	// for everyone.
	RoleViewer Role = "viewer"
	// RoleApprover approves and rejects proposals, proposes and edits
	// rules, promotes and dismisses vendor suggestions, syncs vendors.
	RoleApprover Role = "approver"
	// RoleAdmin manages agents and their tokens, secrets and vaults,
	// memory, pattern indexes and upstream servers.
	RoleAdmin Role = "admin"
)

// Roles are the roles a person can be given, lowest first.
var Roles = []Role{RoleViewer, RoleApprover, RoleAdmin}

// rank orders roles; an unknown or undeclared role is above every actor's,
// so a route that declares none is open to no one.
func (r Role) rank() int {
	switch r {
	case "":
		return 0
	case RoleSignedIn:
		return 1
	case RoleViewer:
		return 2
	case RoleApprover:
		return 3
	case RoleAdmin:
		return 4
	}
	return 99
}

// Allows reports whether a person with role r may do what need requires.
func (r Role) Allows(need Role) bool {
	return r.rank() > 0 && need.rank() > 0 && need.rank() <= 4 && r.rank() >= need.rank()
}

// AuthConfig is how people sign in and what each may do.
type AuthConfig struct {
	// OIDC is the identity provider people sign in to the panel with.
	OIDC *OIDCConfig `yaml:"oidc"`
	// Roles give people roles by the name their sign-in gives them (an
	// identity provider's preferred_username), or by a group the provider
	// says they are in ("group:NAME"; Gitea's groups are its organisations,
	// "group:ORG", and their teams, "group:ORG:TEAM"); "*" is everyone
	// signed in. A person named under several roles has the highest.
	Roles RolesConfig `yaml:"roles"`
	// SoleMaintainer names the one person (by the name their sign-in
	// gives them) who may approve a proposal of their own, by choosing to
	// (the API's self, the panel's checkbox). Nobody else ever may. Without
	// it, only the admin credential's holder may, and only while no
	// provider is configured: such a gateway has one person, admin.name.
	SoleMaintainer string `yaml:"sole_maintainer"`
	// BreakGlass is whether the admin credential is accepted ("on", the
	// default, or "off"). It is the bootstrap and break-glass path, and it
	// acts as admin; turn it off once people sign in through a provider.
	BreakGlass string `yaml:"break_glass"`
}

// RolesConfig names the people of each role.
type RolesConfig struct {
	Admin    []string `yaml:"admin"`
	Approver []string `yaml:"approver"`
	Viewer   []string `yaml:"viewer"`
}

// breakGlassOff reports whether the configuration turns the admin
// credential off.
func (a AuthConfig) breakGlassOff() bool { return strings.TrimSpace(a.BreakGlass) == "off" }

func (a AuthConfig) validate(bad func(format string, args ...any)) {
	a.OIDC.validate(bad)
	switch strings.TrimSpace(a.BreakGlass) {
	case "", "on", "off":
	default:
		bad("auth.break_glass %q: on or off", a.BreakGlass)
	}
	if strings.ContainsAny(a.SoleMaintainer, "\r\n\t") {
		bad("auth.sole_maintainer: %q is not a name", a.SoleMaintainer)
	}
	for _, list := range []struct {
		role  Role
		names []string
	}{{RoleAdmin, a.Roles.Admin}, {RoleApprover, a.Roles.Approver}, {RoleViewer, a.Roles.Viewer}} {
		for _, n := range list.names {
			g, isGroup := strings.CutPrefix(strings.TrimSpace(n), GroupPrefix)
			if strings.TrimSpace(n) == "" || strings.ContainsAny(n, "\r\n\t") || (isGroup && strings.TrimSpace(g) == "") {
				bad("auth.roles.%s: %q is not a name (a provider's preferred_username, group:NAME, or \"*\")", list.role, n)
			}
		}
	}
}

// MayApproveOwn reports whether who may approve a proposal of their own
// (see SoleMaintainer).
func (a AuthConfig) MayApproveOwn(who actor.Actor) bool {
	if !who.IsHuman() || !who.Named() {
		return false
	}
	if sm := strings.TrimSpace(a.SoleMaintainer); sm != "" {
		return SameName(sm, strings.TrimSpace(who.Name))
	}
	return who.Via == actor.ViaBreakGlass && a.OIDC == nil
}

// GroupPrefix marks an auth.roles entry that names a provider's group.
const GroupPrefix = "group:"

// RoleOf is RoleFor with no groups.
func (a AuthConfig) RoleOf(who actor.Actor) Role { return a.RoleFor(who, nil) }

// RoleFor is the role a has, in groups (the provider's groups claim of
// their sign-in): the admin credential's holder is admin; a person signed
// in otherwise has the highest role auth.roles gives their name, one of
// their groups ("group:NAME") or "*", else none; agents and everyone else
// have none. It is decided at every request, so a change of the
// configuration holds from the person's next one.
func (a AuthConfig) RoleFor(who actor.Actor, groups []string) Role {
	if !who.IsHuman() {
		return ""
	}
	if who.Via == actor.ViaBreakGlass {
		return RoleAdmin
	}
	name := strings.TrimSpace(who.Name)
	for _, r := range slices.Backward(Roles) {
		for _, n := range a.Roles.of(r) {
			n = strings.TrimSpace(n)
			if g, ok := strings.CutPrefix(n, GroupPrefix); ok {
				if slices.ContainsFunc(groups, func(have string) bool { return SameName(strings.TrimSpace(g), have) }) {
					return r
				}
				continue
			}
			if n == "*" || (name != "" && SameName(n, name)) {
				return r
			}
		}
	}
	return RoleSignedIn
}

// WantsGroups reports whether a role is given by a group: the sign-in
// then asks the provider for the person's groups (the "groups" scope).
func (a AuthConfig) WantsGroups() bool {
	for _, r := range Roles {
		for _, n := range a.Roles.of(r) {
			if strings.HasPrefix(strings.TrimSpace(n), GroupPrefix) {
				return true
			}
		}
	}
	return false
}

// Bounds of a groups claim kept for a person: more, or longer, are
// dropped (a provider's data, kept in sessions and tokens).
const (
	MaxGroups    = 200
	MaxGroupName = 200
)

// CleanGroups is groups as a session or a token keeps them: trimmed,
// printable, bounded, without duplicates.
func CleanGroups(groups []string) []string {
	var out []string
	for _, g := range groups {
		g = strings.TrimSpace(g)
		if g == "" || len(g) > MaxGroupName || strings.ContainsAny(g, "\r\n\t") || !utf8.ValidString(g) || slices.Contains(out, g) {
			continue
		}
		if out = append(out, g); len(out) == MaxGroups {
			break
		}
	}
	return out
}

type groupsKey struct{}

// WithGroups is ctx carrying the groups the provider said the person in
// it is in (the panel's session holds them; a person token keeps those of
// the sign-in that minted it). Roles given by group read them.
func WithGroups(ctx context.Context, groups []string) context.Context {
	return context.WithValue(ctx, groupsKey{}, groups)
}

func groupsOf(ctx context.Context) []string {
	g, _ := ctx.Value(groupsKey{}).([]string)
	return g
}

// SameName reports whether two sign-in names are the same person's: equal
// but for the case of ASCII letters (Gitea's names are ASCII and its
// logins case-insensitive), and otherwise byte for byte — Unicode case
// folding would make "\u212Aate" (a Kelvin sign) kate.
func SameName(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x >= utf8.RuneSelf || y >= utf8.RuneSelf {
			if x != y {
				return false
			}
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// empty reports whether a says nothing at all (no auth: section).
func (a AuthConfig) empty() bool {
	return a.OIDC == nil && len(a.Roles.Admin)+len(a.Roles.Approver)+len(a.Roles.Viewer) == 0 &&
		a.SoleMaintainer == "" && a.BreakGlass == ""
}

func (c RolesConfig) of(r Role) []string {
	switch r {
	case RoleAdmin:
		return c.Admin
	case RoleApprover:
		return c.Approver
	case RoleViewer:
		return c.Viewer
	}
	return nil
}

// SetAuth replaces who has which role and whether the admin credential is
// accepted (bridle serve reads its configuration file again on SIGHUP): it
// holds from every request that follows, a person's own included. A bad
// one is refused and the one in force kept.
func (s *Server) SetAuth(a AuthConfig) error {
	if cur := s.auth.Load(); cur != nil && a.empty() && !cur.empty() {
		// A reload that reads an emptied or half-written file (an editor's
		// truncate-then-write) must not turn break-glass back on and drop
		// every role: say so in the file to mean it.
		return fmt.Errorf("%w: the new configuration has no auth: section, the running one has; kept the running one (write auth: {break_glass: on} to drop every role)", ErrConfig)
	}
	var errs []error
	a.validate(func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...))
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	s.auth.Store(&a)
	return nil
}

// errForbidden is a request whose actor's role is below the route's
// (answered 403 with the code "role").
var errForbidden = errors.New("forbidden")

// allow runs h when the request's actor has need; else 403 saying which
// role it takes.
func (s *Server) allow(need Role, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a := who(r.Context())
		if have := s.auth.Load().RoleFor(a, groupsOf(r.Context())); !have.Allows(need) {
			if have == "" {
				have = "no role"
			}
			s.log.Info("admin api: refused for role", "method", r.Method, "path", r.URL.Path, "actor", a.String(), "role", string(have), "needs", string(need))
			err := fmt.Errorf("%w: %s is %s here; %s %s needs %s", errForbidden, a.String(), article(have), r.Method, r.URL.Path, need)
			writeJSON(w, http.StatusForbidden, APIError{Error: s.red.Redact(err.Error()), Code: "role"})
			return
		}
		h(w, r)
	}
}

func article(r Role) string {
	switch r {
	case RoleAdmin, RoleApprover:
		return "an " + string(r)
	case "no role":
		return "given no role"
	case RoleSignedIn:
		return "signed in with no role"
	}
	return "a " + string(r)
}
