package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/audit"
)

// asPanel calls the API in process as the panel does for who (a person
// the panel signed in, in the context; no credential).
func asPanel(t *testing.T, g *gw, who actor.Actor, method, path string, in any) (int, []byte) {
	t.Helper()
	var body *bytes.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	} else {
		body = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(method, path, body)
	rec := httptest.NewRecorder()
	g.srv.personAuth(g.srv.api()).ServeHTTP(rec, req.WithContext(actor.With(req.Context(), who)))
	return rec.Code, rec.Body.Bytes()
}

// mintAs mints a person token for who, signed in through the provider.
func mintAs(t *testing.T, g *gw, who actor.Actor, name string) MintedPersonToken {
	t.Helper()
	code, b := asPanel(t, g, who, "POST", "/api/v1/me/tokens", PersonTokenRequest{Name: name})
	if code != http.StatusCreated {
		t.Fatalf("mint as %s: %d %s", who.Name, code, b)
	}
	conforms(t, "POST", "/api/v1/me/tokens", b)
	var m MintedPersonToken
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPersonTokens: a person signed in through the provider mints a token
// of their own; over HTTP it acts as them (via api-token) with the role
// the configuration gives them at each request; it is listed with its last
// use (never the token), survives a restart, and once revoked is refused
// from the next request. Minting and revoking are audited by the person,
// and the token is in no log, audit event or the store's file.
func TestPersonTokens(t *testing.T) {
	stateOf := ""
	g := twoProjects(t, func(c *Config, _ *Options) {
		c.Auth.Roles = RolesConfig{Approver: []string{"abe"}, Viewer: []string{"vic"}}
		stateOf = c.StateDir
	})
	abe := rolePeople()[RoleApprover]
	m := mintAs(t, g, abe, "laptop")
	if !tokenShape.MatchString(m.Token) || m.Info.Name != "laptop" || m.Person.Via != actor.ViaAPIToken || m.Person.Subject != abe.Subject {
		t.Fatalf("minted: %+v", m)
	}
	if d := m.Info.Expires.Sub(m.Info.Created); d != DefaultPersonTokenDays*24*time.Hour {
		t.Errorf("lives %s, want %d days", d, DefaultPersonTokenDays)
	}

	var me Me
	if code := g.api(t, m.Token, "GET", "/api/v1/me", nil, &me); code != http.StatusOK || me.Name != "abe" || me.Via != actor.ViaAPIToken || me.Role != RoleApprover {
		t.Fatalf("/me with the token: %d %+v", code, me)
	}
	// An approver's right: reject (the project has no proposal #1: 404, not 403).
	if code := g.api(t, m.Token, "POST", "/api/v1/projects/alpha/proposals/1/reject", RejectRequest{Reason: "no"}, nil); code == http.StatusForbidden || code == http.StatusUnauthorized {
		t.Errorf("an approver's token rejects: %d", code)
	}
	var list []PersonTokenInfo
	req, _ := http.NewRequest("GET", g.url+"/api/v1/me/tokens", nil)
	req.Header.Set("Authorization", "Bearer "+m.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	raw.ReadFrom(resp.Body)
	resp.Body.Close()
	conforms(t, "GET", "/api/v1/me/tokens", raw.Bytes())
	json.Unmarshal(raw.Bytes(), &list)
	if len(list) != 1 || list[0].ID != m.Info.ID || list[0].LastUsed.IsZero() {
		t.Errorf("listed: %+v", list)
	}
	if strings.Contains(raw.String(), m.Token) {
		t.Error("the listing holds the token")
	}

	// Taken off the approvers: refused from the next request.
	if err := g.srv.SetAuth(AuthConfig{Roles: RolesConfig{Viewer: []string{"abe"}}}); err != nil {
		t.Fatal(err)
	}
	var e APIError
	if code := g.api(t, m.Token, "POST", "/api/v1/projects/alpha/proposals/1/reject", RejectRequest{Reason: "no"}, &e); code != http.StatusForbidden || e.Code != "role" {
		t.Errorf("a former approver's token rejects: %d %+v", code, e)
	}

	// A restart keeps it.
	g.stop()
	g2 := twoProjects(t, func(c *Config, _ *Options) {
		c.StateDir = stateOf
		c.Auth.Roles = RolesConfig{Viewer: []string{"abe"}}
	})
	if code := g2.api(t, m.Token, "GET", "/api/v1/me", nil, &me); code != http.StatusOK || me.Name != "abe" {
		t.Fatalf("/me after a restart: %d %+v", code, me)
	}
	var revoked PersonTokenInfo
	req, _ = http.NewRequest("DELETE", g2.url+"/api/v1/me/tokens/"+m.Info.ID, nil)
	req.Header.Set("Authorization", "Bearer "+m.Token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw.Reset()
	raw.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %d %s", resp.StatusCode, raw.String())
	}
	conforms(t, "DELETE", "/api/v1/me/tokens/{id}", raw.Bytes())
	json.Unmarshal(raw.Bytes(), &revoked)
	if revoked.ID != m.Info.ID {
		t.Errorf("revoked %+v", revoked)
	}
	if code := g2.api(t, m.Token, "GET", "/api/v1/me", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d, want 401", code)
	}

	var events []audit.Event
	g2.api(t, adminToken, "GET", "/api/v1/audit?kind=admin", nil, &events)
	by := map[string]string{}
	for _, ev := range events {
		if ev.Actor != nil && ev.ID == m.Info.ID {
			by[ev.Summary] = ev.Actor.Name + " via " + string(ev.Actor.Via)
		}
	}
	if by["minted an API token (laptop)"] != "abe via oidc" || by["revoked an API token (laptop)"] != "abe via api-token" {
		t.Errorf("the audit: %v", by)
	}
	// The token is nowhere but in the one answer.
	for name, text := range map[string]string{"log": g.logs.String() + g2.logs.String(), "audit": readAll(t, stateOf), "people.json": readFile(t, filepath.Join(stateOf, "gateway", "people.json"))} {
		if strings.Contains(text, m.Token) || strings.Contains(text, strings.TrimPrefix(m.Token, TokenPrefix)) {
			t.Errorf("the token is in the %s", name)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readAll is every file under dir, concatenated.
func readAll(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if c, err := os.ReadFile(path); err == nil {
				b.Write(c)
			}
		}
		return nil
	})
	return b.String()
}

// TestPersonTokensRefuse: who may not mint (the admin credential's holder,
// a token's holder, an agent's token), a token of another person (404 as
// an unknown one), and hostile requests: no name, a long or control-laden
// name, a life out of bounds, unknown fields, a body too large, not JSON;
// an expired token; more than MaxPersonTokens.
func TestPersonTokensRefuse(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	g := twoProjects(t, func(c *Config, o *Options) {
		c.Auth.Roles = RolesConfig{Approver: []string{"abe"}, Viewer: []string{"vic"}}
		o.Now = clock
	})
	people := rolePeople()
	abe, vic := people[RoleApprover], people[RoleViewer]
	m := mintAs(t, g, abe, "laptop")

	var e APIError
	if code := g.api(t, adminToken, "POST", "/api/v1/me/tokens", PersonTokenRequest{Name: "for someone"}, &e); code != http.StatusForbidden {
		t.Errorf("the admin credential mints a person token: %d %+v", code, e)
	}
	if code := g.api(t, m.Token, "POST", "/api/v1/me/tokens", PersonTokenRequest{Name: "another"}, &e); code != http.StatusForbidden {
		t.Errorf("a token mints a token: %d %+v", code, e)
	}
	bg := actor.BreakGlass("Mira Rossi", "")
	if code, b := asPanel(t, g, bg, "POST", "/api/v1/me/tokens", PersonTokenRequest{Name: "x"}); code != http.StatusUnauthorized && code != http.StatusForbidden {
		t.Errorf("a break-glass actor in the context mints: %d %s", code, b)
	}
	agentTok := g.mint(t, "alpha", "claude")
	if code := g.api(t, agentTok, "GET", "/api/v1/me", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("an agent's token on the admin API: %d, want 401", code)
	}
	var none []PersonTokenInfo
	if code := g.api(t, adminToken, "GET", "/api/v1/me/tokens", nil, &none); code != http.StatusOK || len(none) != 0 {
		t.Errorf("the admin credential's tokens: %d %+v", code, none)
	}
	// Vic cannot see or revoke abe's.
	if code, b := asPanel(t, g, vic, "GET", "/api/v1/me/tokens", nil); code != http.StatusOK || strings.Contains(string(b), m.Info.ID) {
		t.Errorf("vic lists: %d %s", code, b)
	}
	if code, _ := asPanel(t, g, vic, "DELETE", "/api/v1/me/tokens/"+m.Info.ID, nil); code != http.StatusNotFound {
		t.Errorf("vic revokes abe's token: %d, want 404", code)
	}
	if code := g.api(t, adminToken, "DELETE", "/api/v1/me/tokens/"+m.Info.ID, nil, nil); code != http.StatusNotFound {
		t.Errorf("the admin credential revokes abe's token: %d, want 404", code)
	}

	for _, tc := range []struct {
		name string
		body string
	}{
		{"no name", `{}`},
		{"blank name", `{"name": "   "}`},
		{"long name", `{"name": "` + strings.Repeat("n", MaxTokenName+1) + `"}`},
		{"control characters", `{"name": "a\u0007b"}`},
		{"a newline", `{"name": "a\nb"}`},
		{"negative life", `{"name": "x", "expires_in_days": -1}`},
		{"too long a life", `{"name": "x", "expires_in_days": 1000}`},
		{"unknown field", `{"name": "x", "subject": "https://idp.example|3"}`},
		{"two objects", `{"name": "x"} {"name": "y"}`},
		{"not JSON", `name=x`},
		{"too large", `{"name": "` + strings.Repeat("n", MaxAPIBody) + `"}`},
	} {
		req := httptest.NewRequest("POST", "/api/v1/me/tokens", strings.NewReader(tc.body))
		rec := httptest.NewRecorder()
		g.srv.personAuth(g.srv.api()).ServeHTTP(rec, req.WithContext(actor.With(req.Context(), abe)))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", tc.name, rec.Code, rec.Body)
		}
	}

	// An admin lists everyone's (never a token) and revokes anyone's; a
	// viewer does neither.
	var all []PersonTokenOwner
	if code := g.api(t, adminToken, "GET", "/api/v1/tokens", nil, &all); code != 200 || len(all) != 1 || all[0].ID != m.Info.ID || all[0].Person.Name != "abe" {
		t.Errorf("every token: %d %+v", code, all)
	}
	if code, _ := asPanel(t, g, vic, "DELETE", "/api/v1/tokens/"+m.Info.ID, nil); code != http.StatusForbidden {
		t.Errorf("a viewer revokes anyone's: %d", code)
	}
	second := mintAs(t, g, abe, "second")
	req := httptest.NewRequest("DELETE", "/api/v1/tokens/"+second.Info.ID, nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	rec := httptest.NewRecorder()
	g.srv.adminAPI().ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("the admin credential revokes abe's second: %d %s", rec.Code, rec.Body)
	}
	conforms(t, "DELETE", "/api/v1/tokens/{id}", rec.Body.Bytes())
	if code := g.api(t, second.Token, "GET", "/api/v1/me", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("a token an admin revoked: %d", code)
	}
	if code := g.api(t, adminToken, "DELETE", "/api/v1/tokens/"+second.Info.ID, nil, nil); code != http.StatusNotFound {
		t.Errorf("revoked twice: %d", code)
	}

	// Expiry: refused from the moment it passes, and no longer listed.
	mu.Lock()
	now = now.Add(DefaultPersonTokenDays*24*time.Hour + time.Second)
	mu.Unlock()
	if code := g.api(t, m.Token, "GET", "/api/v1/me", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("an expired token: %d, want 401", code)
	}
	if code, b := asPanel(t, g, abe, "GET", "/api/v1/me/tokens", nil); code != http.StatusOK || strings.Contains(string(b), m.Info.ID) {
		t.Errorf("an expired token is listed: %s", b)
	}

	// At most MaxPersonTokens each.
	for i := range MaxPersonTokens {
		mintAs(t, g, abe, "t"+string(rune('a'+i)))
	}
	if code, b := asPanel(t, g, abe, "POST", "/api/v1/me/tokens", PersonTokenRequest{Name: "one too many"}); code != http.StatusBadRequest {
		t.Errorf("token %d: %d %s", MaxPersonTokens+1, code, b)
	}
}

// TestPersonTokenStore: the store on its own — a subject-less or
// break-glass actor mints nothing (ErrNotSignedIn), revoking another's is
// ErrNoSuchItem, a token of a wrong shape never verifies.
func TestPersonTokenStore(t *testing.T) {
	st, err := OpenPersonTokens(filepath.Join(t.TempDir(), "people.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []actor.Actor{actor.BreakGlass("Mira", ""), actor.Git("Mira", "mira@example.org"), actor.AgentOf("p", "claude", "s"), {}} {
		if _, _, err := st.Mint(who, nil, "x", 0); !errors.Is(err, ErrNotSignedIn) {
			t.Errorf("mint for %v: %v", who, err)
		}
	}
	abe := rolePeople()[RoleApprover]
	tok, info, err := st.Mint(abe, nil, "ci", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Revoke("https://idp.example|1", info.ID); !errors.Is(err, ErrNoSuchItem) {
		t.Errorf("another revokes: %v", err)
	}
	for _, bad := range []string{"", tok + "x", strings.ToUpper(tok), "Bearer " + tok, tok[:len(tok)-1], strings.Repeat("bridle_", 40)} {
		if _, _, ok := st.Verify(bad); ok {
			t.Errorf("%q verifies", bad)
		}
	}
	if a, _, ok := st.Verify(tok); !ok || a.Via != actor.ViaAPIToken || a.Name != "abe" {
		t.Errorf("verify: %v %v", a, ok)
	}
}

// TestRolesByGroup: auth.roles may name a provider's group ("group:ORG",
// "group:ORG:TEAM", as Gitea's groups claim names organisations and
// teams); the groups come with the request (the panel's session) or with a
// person token (those of the sign-in that minted it); a group entry never
// matches a user name, nor a name a group; an empty group is no name.
func TestRolesByGroup(t *testing.T) {
	auth := AuthConfig{Roles: RolesConfig{Approver: []string{"group:acme:reviewers"}, Viewer: []string{"group:acme"}}}
	fay := actor.Person("iss|9", "fay", "", false, actor.ViaOIDC)
	for _, tc := range []struct {
		name   string
		who    actor.Actor
		groups []string
		want   Role
	}{
		{"in the team", fay, []string{"acme", "acme:reviewers"}, RoleApprover},
		{"the team, in another case", fay, []string{"ACME:Reviewers"}, RoleApprover},
		{"in the organisation only", fay, []string{"acme"}, RoleViewer},
		{"in no group", fay, nil, RoleSignedIn},
		{"a user named like the group", actor.Person("iss|8", "acme:reviewers", "", false, actor.ViaOIDC), nil, RoleSignedIn},
		{"a group named like an entry's prefix", fay, []string{"group:acme:reviewers"}, RoleSignedIn},
		{"an agent in the group", actor.AgentOf("p", "fay", "s"), []string{"acme:reviewers"}, ""},
	} {
		if got := auth.RoleFor(tc.who, tc.groups); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if !auth.WantsGroups() || (AuthConfig{Roles: RolesConfig{Admin: []string{"ada"}}}).WantsGroups() {
		t.Error("WantsGroups")
	}
	var errs []string
	AuthConfig{Roles: RolesConfig{Admin: []string{"group:", "group:  "}}}.validate(func(f string, a ...any) { errs = append(errs, f) })
	if len(errs) != 2 {
		t.Errorf("empty groups: %d errors", len(errs))
	}
	if g := CleanGroups([]string{" a ", "a", "", "b\nc", strings.Repeat("x", MaxGroupName+1), "\xff"}); len(g) != 1 || g[0] != "a" {
		t.Errorf("CleanGroups: %q", g)
	}

	var mu sync.Mutex
	now := time.Now()
	g := twoProjects(t, func(c *Config, o *Options) {
		c.Auth = auth
		o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	})
	req := httptest.NewRequest("POST", "/api/v1/me/tokens", strings.NewReader(`{"name": "ci"}`))
	rec := httptest.NewRecorder()
	ctx := WithGroups(actor.With(req.Context(), fay), []string{"acme", "acme:reviewers"})
	g.srv.personAuth(g.srv.api()).ServeHTTP(rec, req.WithContext(ctx))
	var m MintedPersonToken
	if json.Unmarshal(rec.Body.Bytes(), &m); rec.Code != http.StatusCreated {
		t.Fatalf("mint: %d %s", rec.Code, rec.Body)
	}
	var me Me
	if code := g.api(t, m.Token, "GET", "/api/v1/me", nil, &me); code != 200 || me.Role != RoleApprover {
		t.Errorf("the token of a reviewer: %d %+v", code, me)
	}
	// The provider is not asked again: past TokenGroupsFor the token's
	// groups count no more (roles by name still do).
	mu.Lock()
	now = now.Add(TokenGroupsFor + time.Second)
	mu.Unlock()
	if code := g.api(t, m.Token, "GET", "/api/v1/me", nil, &me); code != 200 || me.Role != RoleSignedIn {
		t.Errorf("the token of a reviewer after %s: %d %+v", TokenGroupsFor, code, me)
	}
}
