package panel_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/kanboardtest"
	"github.com/bridle-dev/bridle/vault"
)

// secretsEnv serves project alpha with a vault in its rules repository and
// a server-wide one, both set up; alpha's Kanboard uses secret:kanboard-app
// (and, for its agents, the names in agents), on a fake Kanboard.
func secretsEnv(t *testing.T, agents map[string]string) (*env, vaultKit, *kanboardtest.Fake) {
	t.Helper()
	k := newVaultKit(t)
	k.init(t, k.server)
	rules := newRules(t, "alpha")
	k.init(t, rules)
	kb := kanboardtest.New(t, "kanboard-app-token-unused")
	board := kb.AddProject("runic")
	users := map[string]gateway.KanboardUser{}
	for agent, secret := range agents {
		users[agent] = gateway.KanboardUser{User: "bot", Token: "secret:" + secret}
	}
	e := start(t, nil, k.option(), func(c *gateway.Config, _ *gateway.Options) {
		c.Projects["alpha"] = gateway.ProjectConfig{Rules: rules,
			Kanboard: &gateway.KanboardConfig{URL: kb.Endpoint(), User: "jsonrpc", Token: "secret:kanboard-app", Projects: []int{board}, Agents: users}}
	})
	return e, k, kb
}

var valueField = regexp.MustCompile(`<input[^>]*name="value"[^>]*>`)

// valueFieldsEmpty fails the test for any value field of p that has a
// value, or is not a password field the browser will not fill.
func valueFieldsEmpty(t *testing.T, what string, p page) {
	t.Helper()
	for _, f := range valueField.FindAllString(p.body, -1) {
		if strings.Contains(f, " value=") || !strings.Contains(f, `type="password"`) || !strings.Contains(f, `autocomplete="new-password"`) {
			t.Errorf("%s: a value field %s", what, f)
		}
	}
}

// The page without a vault that can store secrets says how to set one up.
func TestSecretsPageWithoutAVault(t *testing.T) {
	e := start(t, []string{"alpha"})
	b := e.browser(t)
	b.login()
	var ps gateway.ProjectStatus
	e.api(t, "GET", "/api/v1/projects/alpha", nil, &ps)
	for path, want := range map[string][]string{
		"/ui/secrets":                {"No server-wide vault is set up", "bridle secrets init --rules /var/lib/bridle/vault", "secrets: {dir: /var/lib/bridle/vault}"},
		"/ui/projects/alpha/secrets": {"This vault cannot store secrets yet", "bridle secrets init --rules " + ps.Source, "The SOPS helper is missing", "go install ./cmd/bridle-sops"},
	} {
		p := b.get(path)
		if p.code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, p.code, p.body)
		}
		for _, w := range want {
			if !strings.Contains(p.body, w) {
				t.Errorf("GET %s lacks %q", path, w)
			}
		}
		if strings.Contains(p.body, `name="value"`) || strings.Contains(p.body, "goroutine") {
			t.Errorf("GET %s: an add form (or a stack trace) where no secret can be stored", path)
		}
	}
	// An add posted anyway is refused by the API, with its message.
	p := b.post("/ui/projects/alpha/secrets", url.Values{"name": {"kanboard-app"}, "value": {"v-0123456789"}})
	if p.code < 400 || !strings.Contains(p.body, "Nothing was stored") {
		t.Errorf("an add without a vault: %d %s", p.code, p.body)
	}
}

// Add, rotate and revoke in both scopes: each says what it did and links
// to its audit entry; the values (canaries) appear in no page, form value,
// URL, redirect, cookie, flash, log line or audit text.
func TestSecretsAddRotateRevoke(t *testing.T) {
	const v1, v2, v3, v4 = "CANARY-set-4c1d9e7a2b", "CANARY-rotated-8f2e6a1c3d", "CANARY-refused-5b7d2c9e1f", "CANARY-server-3e9a7c5b1d"
	e, _, _ := secretsEnv(t, nil)
	b := e.browser(t)
	b.login()
	var seen []page
	keep := func(p page) page { seen = append(seen, p); return p }
	base := "/ui/projects/alpha/secrets"
	pg := keep(b.get(base))
	if !strings.Contains(pg.body, "Add a secret") || !strings.Contains(pg.body, "kanboard-app") {
		t.Fatalf("the page before: %s", pg.body)
	}
	valueFieldsEmpty(t, "the page", pg)

	add := keep(b.post(base, url.Values{"name": {"kanboard-app"}, "value": {v1}}))
	if add.code != http.StatusSeeOther || add.location != base {
		t.Fatalf("add: %d → %q %s", add.code, add.location, add.body)
	}
	pg = keep(b.get(add.location))
	var list []vault.Info
	e.api(t, "GET", "/api/v1/projects/alpha/secrets", nil, &list)
	if len(list) != 1 || list[0].Fingerprint == "" {
		t.Fatalf("the vault after the add: %+v", list)
	}
	fp1 := list[0].Fingerprint
	if !strings.Contains(pg.body, "Stored secret kanboard-app in alpha&#39;s vault (fingerprint "+fp1+")") || !strings.Contains(pg.body, "audit entry") {
		t.Errorf("the flash after adding: %s", pg.body)
	}
	for _, w := range []string{"SOPS file", "secrets.enc.yaml", "<span class=\"consumer\">kanboard</span>", "created "} {
		if !strings.Contains(pg.body, w) {
			t.Errorf("the secret's row lacks %q", w)
		}
	}
	audit := regexp.MustCompile(`href="(/ui/audit\?[^"]+)">audit entry`).FindStringSubmatch(pg.body)
	if audit == nil {
		t.Fatalf("no audit link")
	}
	if a := keep(b.get(html.UnescapeString(audit[1]))); !strings.Contains(a.body, "secret kanboard-app: set") {
		t.Errorf("the audit entry linked: %s", a.body)
	}

	// Errors re-draw the page with the value field empty.
	again := keep(b.post(base, url.Values{"name": {"kanboard-app"}, "value": {v3}}))
	if again.code != http.StatusConflict || !strings.Contains(again.body, "already exists") || !strings.Contains(again.body, `value="kanboard-app"`) {
		t.Errorf("adding an existing name: %d %s", again.code, again.body)
	}
	valueFieldsEmpty(t, "after a refused add", again)
	huge := keep(b.post(base, url.Values{"name": {"big"}, "value": {strings.Repeat("x", vault.MaxValue+1)}}))
	if huge.code != http.StatusBadRequest || !strings.Contains(huge.body, "Nothing was stored: the value is larger than 64 KB") {
		t.Errorf("an oversized value: %d %.300s", huge.code, huge.body)
	}
	valueFieldsEmpty(t, "after an oversized value", huge)
	if p := keep(b.post(base, url.Values{"name": {"big"}, "value": {strings.Repeat("%", vault.MaxValue*3)}})); p.code != http.StatusRequestEntityTooLarge || !strings.Contains(p.body, "nothing was changed") {
		t.Errorf("a form larger than the panel reads: %d %.300s", p.code, p.body)
	}
	if p := keep(b.post(base, url.Values{"name": {"blank"}, "value": {"  "}})); p.code != http.StatusBadRequest || !strings.Contains(p.body, "the value is empty") {
		t.Errorf("an empty value: %d", p.code)
	}
	if p := keep(b.post(base, url.Values{"name": {"Bad Name"}, "value": {v3}})); p.code != http.StatusBadRequest || !strings.Contains(p.body, "is not a secret name") {
		t.Errorf("a bad name: %d", p.code)
	}

	rot := keep(b.post(base+"/kanboard-app/rotate", url.Values{"value": {v2}}))
	if rot.code != http.StatusSeeOther || rot.location != base {
		t.Fatalf("rotate: %d → %q %s", rot.code, rot.location, rot.body)
	}
	pg = keep(b.get(base))
	list = nil
	e.api(t, "GET", "/api/v1/projects/alpha/secrets", nil, &list)
	if len(list) != 1 || list[0].Fingerprint == fp1 || list[0].Rotated.IsZero() {
		t.Fatalf("the vault after the rotation: %+v", list)
	}
	if !strings.Contains(pg.body, "Rotated secret kanboard-app in alpha&#39;s vault: new fingerprint "+list[0].Fingerprint+". Its consumers (kanboard) use the new value from now on.") ||
		!strings.Contains(pg.body, "rotated ") {
		t.Errorf("after the rotation: %s", pg.body)
	}
	if p := keep(b.post(base+"/nope/rotate", url.Values{"value": {v3}})); p.code != http.StatusNotFound || !strings.Contains(p.body, "Nothing was rotated") {
		t.Errorf("rotating no secret: %d", p.code)
	}

	confirm := keep(b.post(base+"/kanboard-app/revoke", nil))
	if confirm.code != http.StatusOK || !strings.Contains(confirm.body, "Revoke kanboard-app?") || !strings.Contains(confirm.body, "<li>kanboard</li>") {
		t.Fatalf("the revoke confirmation: %d %s", confirm.code, confirm.body)
	}
	if p := keep(b.follow(base+"/kanboard-app/revoke", url.Values{"confirm": {"other"}})); !strings.Contains(p.body, "Nothing was revoked") {
		t.Errorf("a confirmation naming another secret: %s", p.body)
	}
	pg = keep(b.follow(base+"/kanboard-app/revoke", url.Values{"confirm": {"kanboard-app"}}))
	if !strings.Contains(pg.body, "Revoked secret kanboard-app") || !strings.Contains(pg.body, "secret kanboard-app was revoked") || !strings.Contains(pg.body, `badge bad">revoked`) {
		t.Errorf("after the revocation: %s", pg.body)
	}

	// The server-wide vault, the same way.
	srv := keep(b.follow("/ui/secrets", url.Values{"name": {"gitea-bot"}, "value": {v4}}))
	if !strings.Contains(srv.body, "Stored secret gitea-bot in the server-wide vault") {
		t.Errorf("a server-wide add: %s", srv.body)
	}
	if a := keep(b.get("/ui/audit")); !strings.Contains(a.body, "secret gitea-bot: set") || !strings.Contains(a.body, "secret kanboard-app: revoke") {
		t.Errorf("the audit page lacks the vault's changes")
	}
	for _, path := range pagesOf("alpha") {
		keep(b.get(path))
	}
	events, _ := os.ReadFile(filepath.Join(e.state, "alpha", "events.jsonl"))
	for i, p := range seen {
		all := p.body + p.location + strings.Join(p.header.Values("Set-Cookie"), ";")
		for _, canary := range []string{v1, v2, v3, v4} {
			if strings.Contains(all, canary) {
				t.Errorf("answer %d (%d %s) carries a value", i, p.code, p.location)
			}
		}
	}
	for _, canary := range []string{v1, v2, v3, v4} {
		if strings.Contains(e.logs.String(), canary) || strings.Contains(string(events), canary) {
			t.Errorf("the log or the audit file carries a value")
		}
	}
}

// Every secrets action needs the session's CSRF token: without it nothing
// is stored, rotated or revoked.
func TestSecretFormsNeedTheCSRFToken(t *testing.T) {
	e, _, _ := secretsEnv(t, nil)
	for _, scope := range []string{"", "/projects/alpha"} {
		if code := e.api(t, "POST", "/api/v1"+scope+"/secrets/kept", gateway.SecretValue{Value: "kept-value-1"}, nil); code != http.StatusCreated {
			t.Fatalf("set: %d", code)
		}
	}
	b := e.browser(t)
	b.login()
	for _, scope := range []string{"/ui", "/ui/projects/alpha"} {
		for path, form := range map[string]url.Values{
			"/secrets":             {"name": {"forged"}, "value": {"forged-value-1"}},
			"/secrets/kept/rotate": {"value": {"forged-value-2"}},
			"/secrets/kept/revoke": {"confirm": {"kept"}},
		} {
			for _, csrf := range []string{"", "not-the-token"} {
				form.Set("csrf", csrf)
				if p := b.post(scope+path, form); p.code != http.StatusForbidden {
					t.Errorf("POST %s%s with csrf %q: %d", scope, path, csrf, p.code)
				}
			}
		}
	}
	for _, api := range []string{"/api/v1/secrets", "/api/v1/projects/alpha/secrets"} {
		var list []vault.Info
		e.api(t, "GET", api, nil, &list)
		for _, in := range list {
			if in.Name == "forged" || in.Name == "kept" && (!in.Rotated.IsZero() || !in.Revoked.IsZero()) {
				t.Errorf("%s after the forged forms: %+v", api, in)
			}
		}
		if len(list) != 2 {
			t.Errorf("%s after the forged forms: %+v", api, list)
		}
	}
}

// Names are the admin's or the configuration's words: a hostile name typed
// into the form, and a consumer whose name is a payload (a Kanboard agent's
// key in the configuration), render as text.
func TestHostileSecretNamesRenderInert(t *testing.T) {
	const agent = `<script>alert("agent")</script><img src=x onerror=alert(1)>`
	e, _, _ := secretsEnv(t, map[string]string{agent: "kanboard-hostile"})
	b := e.browser(t)
	b.login()
	pages := map[string]page{"page": b.get("/ui/projects/alpha/secrets"), "server page": b.get("/ui/secrets"),
		"confirm": b.post("/ui/projects/alpha/secrets/kanboard-hostile/revoke", nil)}
	for _, name := range []string{`<script>alert(1)</script>`, `"><svg/onload=alert(2)>`, `x" autofocus onfocus="alert(3)`} {
		pages["add "+name] = b.post("/ui/projects/alpha/secrets", url.Values{"name": {name}, "value": {"hostile-value-1"}})
	}
	escaped := false
	for what, p := range pages {
		if p.code >= 500 {
			t.Errorf("%s: %d", what, p.code)
		}
		for _, bad := range liveMarkup(p.body) {
			t.Errorf("%s: %s", what, bad)
		}
		escaped = escaped || strings.Contains(p.body, "kanboard (agent &lt;script&gt;alert(&#34;agent&#34;)&lt;/script&gt;")
	}
	if !escaped {
		t.Errorf("the hostile consumer is shown nowhere: the test proves nothing")
	}
	if !strings.Contains(pages["confirm"].body, "Revoke kanboard-hostile?") {
		t.Errorf("the confirmation: %s", pages["confirm"].body)
	}
	if p := b.post("/ui/projects/alpha/secrets/"+url.PathEscape(`<b>x</b>`)+"/revoke", nil); p.code != http.StatusNotFound {
		t.Errorf("a hostile name in the address: %d", p.code)
	}
}
