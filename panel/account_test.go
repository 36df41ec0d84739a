package panel_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/gateway"
)

var mintedToken = regexp.MustCompile(`id="tok" class="mono" readonly value="(bridle_[A-Za-z0-9_-]{43})"`)

// tokenWorks reports the status of /api/v1/me over HTTP with tok.
func tokenWorks(t *testing.T, e *env, tok string) (int, gateway.Me) {
	t.Helper()
	req, _ := http.NewRequest("GET", e.url+"/api/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var me gateway.Me
	json.NewDecoder(resp.Body).Decode(&me)
	return resp.StatusCode, me
}

// TestAccountPage: a person signed in through the provider mints an API
// token on their account page (shown once, then never again), sees it
// listed with its last use, and revokes it: refused from the next
// request. The admin credential's holder is offered no token. The token
// is in no log or audit event.
func TestAccountPage(t *testing.T) {
	e := start(t, []string{"alpha"}, withRoles)
	abe := rolePeople()[gateway.RoleApprover]
	b := e.browser(t).as(e, abe)
	acc := b.get("/ui/account")
	if acc.code != 200 || !strings.Contains(acc.body, "No API tokens") || !strings.Contains(acc.body, `id="my-role">approver<`) {
		t.Fatalf("the account page: %d\n%s", acc.code, acc.body)
	}
	p := b.post("/ui/account/tokens", url.Values{"name": {"laptop"}, "days": {"30"}})
	m := mintedToken.FindStringSubmatch(p.body)
	if p.code != 200 || m == nil {
		t.Fatalf("mint: %d\n%s", p.code, p.body)
	}
	tok := m[1]
	if code, me := tokenWorks(t, e, tok); code != 200 || me.Name != "abe" || me.Via != actor.ViaAPIToken || me.Role != gateway.RoleApprover {
		t.Fatalf("the token: %d %+v", code, me)
	}
	again := b.get("/ui/account")
	if strings.Contains(again.body, tok) || !strings.Contains(again.body, "laptop") || strings.Contains(again.body, ">never<") {
		t.Errorf("the account page after a use (shows the token? lists it with its last use?):\n%s", again.body)
	}
	id := regexp.MustCompile(`/ui/account/tokens/([0-9a-f]{16})/revoke`).FindStringSubmatch(again.body)
	if id == nil {
		t.Fatalf("no revoke form:\n%s", again.body)
	}
	// An admin sees it (never the token) and could revoke it; a viewer
	// sees no one's.
	ada := e.browser(t).as(e, rolePeople()[gateway.RoleAdmin])
	if p := ada.get("/ui/account"); !strings.Contains(p.body, `id="everyone"`) || !strings.Contains(p.body, "/ui/tokens/"+id[1]+"/revoke") || strings.Contains(p.body, tok) {
		t.Errorf("the admin's account page:\n%s", p.body)
	}
	// Another person cannot revoke it, even with their own session's form.
	vic := e.browser(t).as(e, rolePeople()[gateway.RoleViewer])
	vic.get("/ui/account")
	if f := vic.follow("/ui/account/tokens/"+id[1]+"/revoke", nil); !strings.Contains(f.body, "not found") {
		t.Errorf("vic revokes abe's token:\n%s", f.body)
	}
	if code, _ := tokenWorks(t, e, tok); code != 200 {
		t.Errorf("after vic's try: %d", code)
	}
	if p := vic.get("/ui/account"); strings.Contains(p.body, `id="everyone"`) {
		t.Error("a viewer sees everyone's tokens")
	}
	if p := vic.post("/ui/tokens/"+id[1]+"/revoke", nil); p.code != http.StatusForbidden {
		t.Errorf("a viewer revokes through the admin's form: %d", p.code)
	}
	second := mintedToken.FindStringSubmatch(b.post("/ui/account/tokens", url.Values{"name": {"second"}}).body)
	if second == nil {
		t.Fatal("no second token")
	}
	ids := regexp.MustCompile(`/ui/tokens/([0-9a-f]{16})/revoke`).FindAllStringSubmatch(ada.get("/ui/account").body, -1)
	for _, m := range ids {
		if m[1] != id[1] {
			if f := ada.follow("/ui/tokens/"+m[1]+"/revoke", nil); !strings.Contains(f.body, "Revoked abe&#39;s token second") {
				t.Errorf("the admin revokes abe's second:\n%s", f.body)
			}
		}
	}
	if code, _ := tokenWorks(t, e, second[1]); len(ids) != 2 || code != http.StatusUnauthorized {
		t.Errorf("abe's second after the admin revoked it: %d (%d listed)", code, len(ids))
	}
	rv := b.follow("/ui/account/tokens/"+id[1]+"/revoke", nil)
	if !strings.Contains(rv.body, "Revoked the token laptop") {
		t.Errorf("after revoking:\n%s", rv.body)
	}
	if code, _ := tokenWorks(t, e, tok); code != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d, want 401", code)
	}

	bg := e.browser(t)
	bg.login()
	if p := bg.get("/ui/account"); p.code != 200 || !strings.Contains(p.body, `id="no-mint"`) || strings.Contains(p.body, `action="/ui/account/tokens"`) {
		t.Errorf("the break-glass account page offers a token: %d\n%s", p.code, p.body)
	}
	if p := bg.follow("/ui/account/tokens", url.Values{"name": {"sneaky"}}); !strings.Contains(p.body, "cannot mint") {
		t.Errorf("break-glass mints:\n%s", p.body)
	}

	var events []audit.Event
	e.api(t, "GET", "/api/v1/audit?kind=admin", nil, &events)
	n := 0
	for _, ev := range events {
		if ev.Actor != nil && ev.Actor.Name == "abe" && strings.Contains(ev.Summary, "API token (laptop)") {
			n++
		}
		if b, _ := json.Marshal(ev); bytes.Contains(b, []byte(tok)) {
			t.Error("an audit event holds the token")
		}
	}
	if n != 2 {
		t.Errorf("audit: %d events name abe's token laptop, want 2 (minted, revoked)", n)
	}
	if strings.Contains(e.logs.String(), tok) {
		t.Error("the log holds the token")
	}
	if p := b.get("/ui/audit"); !strings.Contains(p.body, "minted an API token (laptop)") || strings.Contains(p.body, tok) {
		t.Errorf("the audit page (names the minting? holds the token?):\n%s", p.body)
	}
}

// pkce is a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = "verifier-" + strings.Repeat("v", 40)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

const cliRedirect = "http://127.0.0.1:49152/callback"

func cliQuery(challenge string) url.Values {
	return url.Values{"redirect_uri": {cliRedirect}, "state": {"state-0123456789abcdef"}, "code_challenge": {challenge},
		"code_challenge_method": {"S256"}, "name": {"bridle login on test-host"}}
}

// exchange posts body to the token endpoint.
func exchange(t *testing.T, e *env, body string) (int, gateway.APIError, gateway.MintedPersonToken) {
	t.Helper()
	resp, err := http.Post(e.url+gateway.CLITokenPath, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var ae gateway.APIError
	var m gateway.MintedPersonToken
	json.Unmarshal(raw, &ae)
	json.Unmarshal(raw, &m)
	return resp.StatusCode, ae, m
}

func exchangeBody(code, verifier, redirect string) string {
	b, _ := json.Marshal(gateway.CLIExchange{Code: code, CodeVerifier: verifier, RedirectURI: redirect})
	return string(b)
}

// allow runs the consent step as b and answers the code the panel sends
// the CLI.
func allow(t *testing.T, b *browser, challenge string) string {
	t.Helper()
	q := cliQuery(challenge)
	cp := b.get(gateway.CLILoginPath + "?" + q.Encode())
	if cp.code != 200 || !strings.Contains(cp.body, `id="cli-allow"`) || !strings.Contains(cp.header.Get("Content-Security-Policy"), "form-action 'self' http://127.0.0.1:49152;") {
		t.Fatalf("the consent page: %d %s\n%s", cp.code, cp.header.Get("Content-Security-Policy"), cp.body)
	}
	p := b.post(gateway.CLILoginPath, q)
	if p.code != http.StatusSeeOther || !strings.HasPrefix(p.location, cliRedirect+"?") {
		t.Fatalf("allow: %d %q\n%s", p.code, p.location, p.body)
	}
	u, _ := url.Parse(p.location)
	if u.Query().Get("state") != q.Get("state") || u.Query().Get("code") == "" {
		t.Fatalf("the redirect to the CLI: %s", p.location)
	}
	return u.Query().Get("code")
}

// TestCLILogin: bridle login's browser side and its exchange, without a
// browser: the person allows, the code with the right verifier gets a
// token acting as them; the code is single-use (a second try, a wrong
// verifier — which burns it —, another redirect_uri are all refused the
// same way); a denial sends access_denied; the token is in no log.
func TestCLILogin(t *testing.T) {
	e := start(t, []string{"alpha"}, withRoles)
	abe := rolePeople()[gateway.RoleApprover]
	b := e.browser(t).as(e, abe)
	verifier, challenge := pkce()

	code := allow(t, b, challenge)
	st, ae, m := exchange(t, e, exchangeBody(code, verifier, cliRedirect))
	if st != 200 || m.Person.Name != "abe" || m.Info.Name != "bridle login on test-host" {
		t.Fatalf("exchange: %d %+v %+v", st, ae, m)
	}
	if c, me := tokenWorks(t, e, m.Token); c != 200 || me.Via != actor.ViaAPIToken || me.Subject != abe.Subject {
		t.Errorf("the CLI's token: %d %+v", c, me)
	}
	if st, ae, _ := exchange(t, e, exchangeBody(code, verifier, cliRedirect)); st != 400 || ae.Code != "invalid_grant" {
		t.Errorf("the code again: %d %+v", st, ae)
	}

	other, otherChallenge := "other-"+strings.Repeat("o", 40), challenge
	code = allow(t, b, otherChallenge)
	if st, ae, _ := exchange(t, e, exchangeBody(code, other, cliRedirect)); st != 400 || ae.Code != "invalid_grant" {
		t.Errorf("a wrong verifier: %d %+v", st, ae)
	}
	if st, _, _ := exchange(t, e, exchangeBody(code, verifier, cliRedirect)); st != 400 {
		t.Errorf("the right verifier after a wrong one: %d (the code must be burnt)", st)
	}
	code = allow(t, b, challenge)
	if st, _, _ := exchange(t, e, exchangeBody(code, verifier, "http://127.0.0.1:49153/callback")); st != 400 {
		t.Errorf("another redirect_uri: %d", st)
	}
	if st, _, _ := exchange(t, e, exchangeBody("forged-"+code, verifier, cliRedirect)); st != 400 {
		t.Errorf("a forged code: %d", st)
	}

	q := cliQuery(challenge)
	q.Set("deny", "1")
	if p := b.post(gateway.CLILoginPath, q); p.code != http.StatusSeeOther || !strings.Contains(p.location, "error=access_denied") || strings.Contains(p.location, "code=") {
		t.Errorf("deny: %d %s", p.code, p.location)
	}
	for name, text := range map[string]string{"log": e.logs.String()} {
		if strings.Contains(text, m.Token) {
			t.Errorf("the %s holds the token", name)
		}
	}
}

// TestCLILoginRefusesHostileRequests: the consent page and its form take
// only a loopback redirect_uri (an IP literal with a port), a well-formed
// state and an S256 challenge — anything else is a 400 page that sends
// the browser nowhere; a CSRF-less form is refused; the admin credential
// is not a person; the exchange takes one small JSON object.
func TestCLILoginRefusesHostileRequests(t *testing.T) {
	e := start(t, []string{"alpha"}, withRoles)
	_, challenge := pkce()
	b := e.browser(t).as(e, rolePeople()[gateway.RoleApprover])
	for _, tc := range []struct{ name, key, value string }{
		{"another host", "redirect_uri", "http://evil.example:49152/callback"},
		{"a name for the loopback", "redirect_uri", "http://localhost:49152/callback"},
		{"https", "redirect_uri", "https://127.0.0.1:49152/callback"},
		{"no port", "redirect_uri", "http://127.0.0.1/callback"},
		{"port zero", "redirect_uri", "http://127.0.0.1:0/callback"},
		{"a query", "redirect_uri", "http://127.0.0.1:49152/callback?next=https://evil.example"},
		{"a fragment", "redirect_uri", "http://127.0.0.1:49152/callback#x"},
		{"a user", "redirect_uri", "http://evil.example@127.0.0.1:49152/callback"},
		{"another loopback address", "redirect_uri", "http://127.0.0.2:49152/callback"},
		{"a mapped address", "redirect_uri", "http://[::ffff:127.0.0.1]:49152/callback"},
		{"a protocol-relative", "redirect_uri", "//127.0.0.1:49152/callback"},
		{"javascript", "redirect_uri", "javascript:alert(1)"},
		{"no path", "redirect_uri", "http://127.0.0.1:49152"},
		{"a long one", "redirect_uri", "http://127.0.0.1:49152/" + strings.Repeat("a", 400)},
		{"no state", "state", ""},
		{"a short state", "state", "short"},
		{"a state with markup", "state", `"><script>alert(1)</script>`},
		{"plain PKCE", "code_challenge_method", "plain"},
		{"a short challenge", "code_challenge", "abc"},
		{"a challenge with padding", "code_challenge", challenge[:42] + "="},
	} {
		q := cliQuery(challenge)
		q.Set(tc.key, tc.value)
		if p := b.get(gateway.CLILoginPath + "?" + q.Encode()); p.code != http.StatusBadRequest || p.location != "" || strings.Contains(p.body, `id="cli-allow"`) {
			t.Errorf("GET, %s: %d %q", tc.name, p.code, p.location)
		}
		if p := b.post(gateway.CLILoginPath, q); p.code != http.StatusBadRequest || p.location != "" {
			t.Errorf("POST, %s: %d %q", tc.name, p.code, p.location)
		}
	}
	q := cliQuery(challenge)
	q.Set("csrf", "forged")
	if p := b.post(gateway.CLILoginPath, q); p.code != http.StatusForbidden || p.location != "" {
		t.Errorf("a forged CSRF token: %d %q", p.code, p.location)
	}
	// Not signed in: sent to sign in first, and back.
	anon := e.browser(t)
	if p := anon.get(gateway.CLILoginPath + "?" + cliQuery(challenge).Encode()); p.code != http.StatusSeeOther || !strings.HasPrefix(p.location, "/login?next=%2Fauth%2Fcli%3F") {
		t.Errorf("not signed in: %d %q", p.code, p.location)
	}
	// The admin credential names no one: no Allow, and its POST is refused.
	bg := e.browser(t)
	bg.login()
	if p := bg.get(gateway.CLILoginPath + "?" + cliQuery(challenge).Encode()); p.code != 200 || strings.Contains(p.body, `id="cli-allow"`) || !strings.Contains(p.body, `id="cli-signin"`) {
		t.Errorf("break-glass consent page: %d\n%s", p.code, p.body)
	}
	if p := bg.post(gateway.CLILoginPath, cliQuery(challenge)); p.code != http.StatusForbidden || p.location != "" {
		t.Errorf("break-glass allows: %d %q", p.code, p.location)
	}
	for name, body := range map[string]string{
		"not JSON":          "code=x",
		"unknown field":     `{"code": "x", "code_verifier": "` + strings.Repeat("v", 43) + `", "redirect_uri": "` + cliRedirect + `", "scope": "admin"}`,
		"two objects":       `{"code": "x"} {"code": "y"}`,
		"too large":         `{"code": "` + strings.Repeat("c", 9<<10) + `"}`,
		"a short verifier":  exchangeBody("x", "short", cliRedirect),
		"a verifier with /": exchangeBody("x", strings.Repeat("v", 43)+"/", cliRedirect),
		"a long code":       exchangeBody(strings.Repeat("c", 300), strings.Repeat("v", 43), cliRedirect),
		"an unknown code":   exchangeBody("nothing", strings.Repeat("v", 43), cliRedirect),
	} {
		if st, ae, m := exchange(t, e, body); st != 400 || m.Token != "" || ae.Code == "" {
			t.Errorf("exchange, %s: %d %+v", name, st, ae)
		}
	}
}
