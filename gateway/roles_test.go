package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
)

// fillPath gives every path value of a route a value: a served project,
// and names that exist nowhere (so no walk step changes what a later one
// finds).
func fillPath(path string) string {
	return pathParam.ReplaceAllStringFunc(path, func(m string) string {
		if m == "{project}" {
			return "alpha"
		}
		if m == "{number}" {
			return "1"
		}
		return "walk-nothing"
	})
}

var adminOnly = lazyregexp.New(`/(agents|secrets|vault|memory|patterns|upstreams|tokens)(/|$)`)

// rolePeople are signed-in people, one per role (and one with none), as the
// configuration of TestEveryRouteRefusesBelowItsRole names them.
func rolePeople() map[Role]actor.Actor {
	return map[Role]actor.Actor{
		RoleSignedIn: actor.Person("https://idp.example|0", "nobody", "nobody@example.org", true, actor.ViaOIDC),
		RoleViewer:   actor.Person("https://idp.example|1", "vic", "vic@example.org", true, actor.ViaOIDC),
		RoleApprover: actor.Person("https://idp.example|2", "abe", "abe@example.org", true, actor.ViaOIDC),
		RoleAdmin:    actor.Person("https://idp.example|3", "ada", "ada@example.org", true, actor.ViaOIDC),
	}
}

// TestEveryRouteRefusesBelowItsRole walks routes(): every route declares a
// role; a person below it is refused (403, code role) and one at or above
// it is not; the admin credential is admin; no answer to anyone carries a
// secret's value.
func TestEveryRouteRefusesBelowItsRole(t *testing.T) {
	const canary = "role-walk-canary-5e1f0a9c77"
	opt, _ := withVault(t)
	g := twoProjects(t, opt, unlimited, func(c *Config, _ *Options) {
		c.Auth.Roles = RolesConfig{Admin: []string{"ada"}, Approver: []string{"abe"}, Viewer: []string{"vic"}}
	})
	if code := g.api(t, adminToken, "POST", "/api/v1/secrets/walk-canary", SecretValue{Value: canary}, nil); code != http.StatusCreated {
		t.Fatalf("store the canary: %d", code)
	}
	people := rolePeople()
	panelAPI := g.srv.personAuth(g.srv.api())
	call := func(h http.Handler, method, path string, who *actor.Actor, token string) (int, APIError, string) {
		req := httptest.NewRequest(method, path, nil)
		if who != nil {
			req = req.WithContext(actor.With(req.Context(), *who))
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var e APIError
		json.Unmarshal(rec.Body.Bytes(), &e)
		return rec.Code, e, rec.Body.String()
	}
	routes := g.srv.routes()
	if len(routes) < 30 {
		t.Fatalf("routes() lists %d routes", len(routes))
	}
	for _, rt := range routes {
		if rt.Role.rank() < RoleSignedIn.rank() || rt.Role.rank() > RoleAdmin.rank() {
			t.Errorf("%s %s declares no role (%q)", rt.Method, rt.Path, rt.Role)
			continue
		}
		// What changes anything needs at least approver; what touches
		// agents, secrets, vaults, memory, indexes or upstreams, admin.
		// Except a person's own credentials (/api/v1/me/…): each person
		// manages their own tokens, whatever their role.
		if rt.Method != "GET" && !rt.Role.Allows(RoleApprover) && !strings.HasPrefix(rt.Path, "/api/v1/me/") {
			t.Errorf("%s %s changes something and needs only %s", rt.Method, rt.Path, rt.Role)
		}
		if rt.Method != "GET" && adminOnly.MatchString(rt.Path) && rt.Role != RoleAdmin && !strings.HasPrefix(rt.Path, "/api/v1/me/") {
			t.Errorf("%s %s needs %s, not admin", rt.Method, rt.Path, rt.Role)
		}
		path := fillPath(rt.Path)
		for _, have := range []Role{RoleSignedIn, RoleViewer, RoleApprover, RoleAdmin} {
			who := people[have]
			code, e, body := call(panelAPI, rt.Method, path, &who, "")
			refused := code == http.StatusForbidden && e.Code == "role"
			if want := !have.Allows(rt.Role); refused != want {
				t.Errorf("%s %s as %s (%s): %d %+v; refused %v, want %v", rt.Method, rt.Path, who.Name, have, code, e, refused, want)
			}
			if strings.Contains(body, canary) {
				t.Errorf("%s %s as %s: the answer holds a secret's value", rt.Method, rt.Path, have)
			}
		}
		// The admin credential is the break-glass admin, in the panel and
		// over HTTP alike.
		for name, h := range map[string]http.Handler{"panel": panelAPI, "http": g.srv.adminAPI()} {
			code, e, body := call(h, rt.Method, path, nil, adminToken)
			if code == http.StatusUnauthorized || e.Code == "role" {
				t.Errorf("%s %s with the admin credential (%s): %d %+v", rt.Method, rt.Path, name, code, e)
			}
			if strings.Contains(body, canary) {
				t.Errorf("%s %s with the admin credential: the answer holds a secret's value", rt.Method, rt.Path)
			}
		}
		// Over HTTP a context never names a person: only a credential does.
		ada := people[RoleAdmin]
		if code, _, _ := call(g.srv.adminAPI(), rt.Method, path, &ada, ""); code != http.StatusUnauthorized {
			t.Errorf("%s %s over HTTP with a person in the context and no credential: %d, want 401", rt.Method, rt.Path, code)
		}
		// An agent is no person: the panel's way in does not take one.
		agent := actor.AgentOf("alpha", "claude", "s1")
		if code, _, _ := call(panelAPI, rt.Method, path, &agent, ""); code != http.StatusUnauthorized {
			t.Errorf("%s %s as an agent: %d, want 401", rt.Method, rt.Path, code)
		}
	}
}

// TestRoleOf: roles come from the configuration by name, the highest
// wins, "*" is everyone signed in, the admin credential is admin, an
// agent has none; a change of the configuration holds at once.
func TestRoleOf(t *testing.T) {
	bob := actor.Person("iss|2", "bob", "", false, actor.ViaOIDC)
	tests := []struct {
		name  string
		roles RolesConfig
		who   actor.Actor
		want  Role
	}{
		{"named approver", RolesConfig{Approver: []string{"bob"}}, bob, RoleApprover},
		{"the highest of two", RolesConfig{Viewer: []string{"bob"}, Admin: []string{"Bob"}}, bob, RoleAdmin},
		{"everyone a viewer", RolesConfig{Viewer: []string{"*"}}, bob, RoleViewer},
		{"named over everyone", RolesConfig{Viewer: []string{"*"}, Approver: []string{"bob"}}, bob, RoleApprover},
		{"not named", RolesConfig{Approver: []string{"carol"}}, bob, RoleSignedIn},
		{"the admin credential", RolesConfig{}, actor.BreakGlass("Mira", ""), RoleAdmin},
		{"an agent named like a person", RolesConfig{Admin: []string{"*"}}, actor.AgentOf("p", "bob", "s"), ""},
		{"no one", RolesConfig{Admin: []string{"*"}}, actor.Actor{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (AuthConfig{Roles: tt.roles}).RoleOf(tt.who); got != tt.want {
				t.Errorf("RoleOf(%v) = %q, want %q", tt.who, got, tt.want)
			}
		})
	}
}

// TestRoleChangesHoldAtTheNextRequest: a person taken off the approvers
// (SetAuth, as bridle serve does on SIGHUP) is refused from their next
// request; a bad configuration is refused and the roles in force stay.
func TestRoleChangesHoldAtTheNextRequest(t *testing.T) {
	g := twoProjects(t, func(c *Config, _ *Options) { c.Auth.Roles = RolesConfig{Approver: []string{"abe"}} })
	abe := rolePeople()[RoleApprover]
	h := g.srv.personAuth(g.srv.api())
	reject := func() int {
		req := httptest.NewRequest("POST", "/api/v1/projects/alpha/proposals/1/reject", nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(actor.With(req.Context(), abe)))
		return rec.Code
	}
	if code := reject(); code == http.StatusForbidden {
		t.Fatalf("an approver is refused: %d", code)
	}
	if err := g.srv.SetAuth(AuthConfig{Roles: RolesConfig{Viewer: []string{"abe"}, Approver: []string{"\n"}}}); !errors.Is(err, ErrConfig) {
		t.Fatalf("a bad auth: %v", err)
	}
	if code := reject(); code == http.StatusForbidden {
		t.Fatalf("a refused configuration took effect: %d", code)
	}
	if err := g.srv.SetAuth(AuthConfig{Roles: RolesConfig{Viewer: []string{"abe"}}}); err != nil {
		t.Fatal(err)
	}
	if code := reject(); code != http.StatusForbidden {
		t.Errorf("a former approver rejects: %d, want 403", code)
	}
}

// TestBreakGlassOff: with auth.break_glass off the admin credential opens
// nothing, neither the API nor /readyz's details.
func TestBreakGlassOff(t *testing.T) {
	g := twoProjects(t, func(c *Config, _ *Options) { c.Auth.BreakGlass = "off" })
	if code := g.api(t, adminToken, "GET", "/api/v1/projects", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("the admin credential with break_glass off: %d, want 401", code)
	}
	var rd, public Ready
	g.api(t, adminToken, "GET", "/readyz", nil, &rd)
	g.api(t, "", "GET", "/readyz", nil, &public)
	if diff := cmp.Diff(public, rd); diff != "" {
		t.Errorf("/readyz tells a credential that is off more than anyone (-anyone +credential):\n%s", diff)
	}
}

// TestSoleMaintainer: four eyes among people. With a provider configured
// nobody approves their own proposal, the admin credential's holder
// included, unless auth.sole_maintainer names them; without a provider
// the admin credential's holder (the gateway's one person) may, by
// choosing to.
func TestSoleMaintainer(t *testing.T) {
	people := rolePeople()
	abe, ada := people[RoleApprover], people[RoleAdmin]
	oidc := &OIDCConfig{Issuer: "https://gitea.example.org", ClientID: "c", ClientSecretFile: "/run/secrets/oidc"}
	tests := []struct {
		name     string
		auth     AuthConfig
		proposer *actor.Actor // nil: the admin credential
		self     bool
		want     int
	}{
		{"a person approves their own", AuthConfig{OIDC: oidc}, &abe, false, http.StatusForbidden},
		{"a person chooses to approve their own", AuthConfig{OIDC: oidc}, &abe, true, http.StatusForbidden},
		{"the sole maintainer chooses to", AuthConfig{OIDC: oidc, SoleMaintainer: "abe"}, &abe, true, http.StatusOK},
		{"another is not the sole maintainer", AuthConfig{OIDC: oidc, SoleMaintainer: "ada"}, &abe, true, http.StatusForbidden},
		{"break-glass with a provider", AuthConfig{OIDC: oidc}, nil, true, http.StatusForbidden},
		{"break-glass, the gateway's one person", AuthConfig{}, nil, true, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := twoProjects(t)
			tt.auth.Roles = RolesConfig{Admin: []string{"ada"}, Approver: []string{"abe"}}
			if err := g.srv.SetAuth(tt.auth); err != nil {
				t.Fatal(err)
			}
			h := g.srv.personAuth(g.srv.api())
			call := func(who *actor.Actor, method, path string, in any) (int, []byte) {
				b, _ := json.Marshal(in)
				req := httptest.NewRequest(method, path, bytes.NewReader(b))
				if who != nil {
					req = req.WithContext(actor.With(req.Context(), *who))
				} else {
					req.Header.Set("Authorization", "Bearer "+adminToken)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec.Code, rec.Body.Bytes()
			}
			ch := proposals.Change{Kind: proposals.KindGuardrail, Guardrail: &schema.Guardrail{ID: "four-eyes", Statement: "Two people.", Severity: schema.Guidance}, Rationale: "Why."}
			if code, b := call(tt.proposer, "POST", "/api/v1/projects/alpha/proposals", ProposeRequest{Change: ch}); code != http.StatusCreated {
				t.Fatalf("propose: %d %s", code, b)
			}
			code, b := call(tt.proposer, "POST", "/api/v1/projects/alpha/proposals/1/approve", ApproveRequest{Self: tt.self})
			if code != tt.want {
				t.Fatalf("the proposer approves (self %v): %d %s, want %d", tt.self, code, b, tt.want)
			}
			if code == http.StatusForbidden {
				// Another person may.
				if code, b := call(&ada, "POST", "/api/v1/projects/alpha/proposals/1/approve", ApproveRequest{}); code != http.StatusOK {
					t.Errorf("another person approves: %d %s", code, b)
				}
			}
		})
	}
}

// TestProviderTokenGoesOnlyToItsGitea: the person's token from the
// provider is used for a Gitea project only when that Gitea is the
// provider; another server (another host, scheme or path) never gets it.
func TestProviderTokenGoesOnlyToItsGitea(t *testing.T) {
	s := &Server{cfg: Config{Auth: AuthConfig{OIDC: &OIDCConfig{Issuer: "https://gitea.example.org/"}}}}
	ctx := WithProviderToken(context.Background(), "oauth-token")
	for gitea, want := range map[string]string{
		"https://gitea.example.org":       "oauth-token",
		"https://GITEA.example.org/":      "oauth-token",
		"http://gitea.example.org":        "",
		"https://gitea.example.org:8443":  "",
		"https://evil.example":            "",
		"https://gitea.example.org/other": "",
	} {
		if got := s.providerToken(ctx, gitea); got != want {
			t.Errorf("providerToken for %s = %q, want %q", gitea, got, want)
		}
	}
	if got := s.providerToken(context.Background(), "https://gitea.example.org"); got != "" {
		t.Errorf("a context without a token gives %q", got)
	}
	if got := (&Server{}).providerToken(ctx, "https://gitea.example.org"); got != "" {
		t.Errorf("no provider configured, yet %q", got)
	}
}
