package panel_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/gateway"
)

// rolePeople are people signed in through a provider, one per role and one
// with none, as withRoles names them.
func rolePeople() map[gateway.Role]actor.Actor {
	return map[gateway.Role]actor.Actor{
		gateway.RoleSignedIn: actor.Person("https://idp.example|0", "nobody", "nobody@example.org", true, actor.ViaOIDC),
		gateway.RoleViewer:   actor.Person("https://idp.example|1", "vic", "vic@example.org", true, actor.ViaOIDC),
		gateway.RoleApprover: actor.Person("https://idp.example|2", "abe", "abe@example.org", true, actor.ViaOIDC),
		gateway.RoleAdmin:    actor.Person("https://idp.example|3", "ada", "ada@example.org", true, actor.ViaOIDC),
	}
}

func withRoles(c *gateway.Config, _ *gateway.Options) {
	c.Auth.Roles = gateway.RolesConfig{Admin: []string{"ada"}, Approver: []string{"abe"}, Viewer: []string{"vic"}}
}

var pathValue = regexp.MustCompile(`\{[^}]*\}`)

// concrete is an address a route pattern serves: a served project, a
// proposal number, names that exist nowhere.
func concrete(pattern string) string {
	if pattern == "/" {
		return "/walk-nothing"
	}
	return pathValue.ReplaceAllStringFunc(pattern, func(m string) string {
		switch m {
		case "{$}":
			return ""
		case "{project}":
			return "alpha"
		case "{number}":
			return "1"
		}
		return "walk-nothing"
	})
}

// TestEveryPageAndFormRefusesBelowItsRole walks every address the panel
// serves (its mux is built from the same table): each declares a role; a
// person below it is refused (403, saying which role it needs) and one at
// it or above is not.
func TestEveryPageAndFormRefusesBelowItsRole(t *testing.T) {
	e := start(t, []string{"alpha"}, withRoles)
	people := rolePeople()
	routes := e.panel.Routes()
	if len(routes) < 30 {
		t.Fatalf("the panel serves %d routes", len(routes))
	}
	for _, rt := range routes {
		if rt.Public {
			continue
		}
		method, pattern, _ := strings.Cut(rt.Pattern, " ")
		if pattern == "" {
			method, pattern = "GET", rt.Pattern
		}
		if !rt.Role.Allows(gateway.RoleSignedIn) && rt.Role != gateway.RoleSignedIn {
			t.Errorf("%s declares no role (%q)", rt.Pattern, rt.Role)
			continue
		}
		// Except signing out and a person's own credentials (their
		// tokens, their CLI's sign-in): each person manages their own.
		own := pattern == "/logout" || strings.HasPrefix(pattern, "/ui/account/") || pattern == gateway.CLILoginPath
		if method == "POST" && !rt.Role.Allows(gateway.RoleApprover) && !own {
			t.Errorf("%s changes something and needs only %s", rt.Pattern, rt.Role)
		}
		path := concrete(pattern)
		if method == "POST" {
			// CSRF: the form without the session's token is refused before
			// anything else, whoever sends it.
			b := e.browser(t).as(e, people[gateway.RoleAdmin])
			for _, csrf := range []string{"", "forged"} {
				if p := b.post(path, url.Values{"csrf": {csrf}}); p.code != http.StatusForbidden || strings.Contains(p.body, `id="needs-role"`) {
					t.Errorf("POST %s with csrf %q: %d, want the CSRF refusal", path, csrf, p.code)
				}
			}
		}
		for _, have := range []gateway.Role{gateway.RoleSignedIn, gateway.RoleViewer, gateway.RoleApprover, gateway.RoleAdmin} {
			b := e.browser(t).as(e, people[have]) // a fresh session: a walk step may end one
			var p page
			if method == "POST" {
				p = b.post(path, url.Values{})
			} else {
				p = b.get(path)
			}
			refused := p.code == http.StatusForbidden && strings.Contains(p.body, `id="needs-role"`)
			if want := !have.Allows(rt.Role); refused != want {
				t.Errorf("%s %s as %s: %d; refused %v, want %v", method, path, have, p.code, refused, want)
			}
			if strings.Contains(p.body, adminToken) {
				t.Errorf("%s %s as %s: the page holds the admin credential", method, path, have)
			}
		}
	}
}

var formTag = regexp.MustCompile(`<form[^>]*>`)
var formAttr = regexp.MustCompile(`(method|action)="([^"]*)"`)

// TestEveryFormHasARoute: every form of every template posts (or gets) to
// an address of the panel's table that is not the catch-all, so the walk
// above covers every form.
func TestEveryFormHasARoute(t *testing.T) {
	e := start(t, []string{"alpha"})
	mux := http.NewServeMux()
	for _, rt := range e.panel.Routes() {
		mux.Handle(rt.Pattern, http.NotFoundHandler())
	}
	files, err := filepath.Glob("templates/*.html")
	if err != nil || len(files) == 0 {
		t.Fatalf("templates: %v %v", files, err)
	}
	forms := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range formTag.FindAllString(string(b), -1) {
			method, action := "GET", ""
			for _, m := range formAttr.FindAllStringSubmatch(tag, -1) {
				if m[1] == "method" {
					method = strings.ToUpper(m[2])
				} else {
					action = m[2]
				}
			}
			for _, base := range []string{"/ui/secrets", "/ui/projects/alpha/secrets"} {
				a := strings.NewReplacer("{{$sc.Base}}", base, "{{$d.Scope.Base}}", base, "{{$project}}", "alpha", "{{.Project}}", "alpha",
					"{{$row.Project}}", "alpha").Replace(action)
				a = regexp.MustCompile(`\{\{[^}]*\}\}`).ReplaceAllString(a, "walk-nothing")
				req, _ := http.NewRequest(method, a, nil)
				if _, pattern := mux.Handler(req); pattern == "" || pattern == "/" {
					t.Errorf("%s: the form %s %s reaches no page of the panel (%q)", f, method, action, pattern)
				}
				forms++
			}
		}
	}
	if forms < 20 {
		t.Errorf("found %d forms", forms)
	}
}
