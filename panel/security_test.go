package panel_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/panel"
	"github.com/bridle-dev/bridle/proposals"
)

func TestEveryPageNeedsASession(t *testing.T) {
	e := start(t, []string{"alpha"})
	b := e.browser(t)
	for _, path := range pagesOf("alpha") {
		p := b.get(path)
		if p.code != http.StatusSeeOther || p.location != "/login?next="+url.QueryEscape(path) {
			t.Errorf("GET %s without a session: %d → %q", path, p.code, p.location)
		}
	}
	for _, path := range []string{"/logout", "/ui/projects/alpha/agents", "/ui/projects/alpha/proposals/1/approve",
		"/ui/projects/alpha/memory/purge", "/ui/projects/alpha/propose", "/ui/projects/alpha/patterns/reindex"} {
		if p := b.post(path, url.Values{"agent": {"codex"}}); p.code != http.StatusUnauthorized {
			t.Errorf("POST %s without a session: %d", path, p.code)
		}
	}
	// A forged cookie is no session.
	u, _ := url.Parse(e.url)
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: panel.CookieName, Value: "forged", Path: "/"}})
	if p := b.get("/"); p.code != http.StatusSeeOther {
		t.Errorf("a forged session id: %d", p.code)
	}
	var agents []gateway.AgentView
	e.api(t, "GET", "/api/v1/projects/alpha/agents", nil, &agents)
	if len(agents) != 0 {
		t.Errorf("a request without a session minted a token: %+v", agents)
	}
}

func TestSignInAndOut(t *testing.T) {
	e := start(t, []string{"alpha"})
	b := e.browser(t)
	if p := b.do("POST", "/login", url.Values{"token": {"wrong"}}); p.code != http.StatusUnauthorized || !strings.Contains(p.body, "not the admin credential") {
		t.Errorf("a wrong credential: %d %s", p.code, p.body)
	}
	p := b.do("POST", "/login", url.Values{"token": {adminToken}, "next": {"/ui/audit?project=alpha"}})
	if p.code != http.StatusSeeOther || p.location != "/ui/audit?project=alpha" {
		t.Fatalf("sign-in: %d → %q", p.code, p.location)
	}
	ck := p.header.Get("Set-Cookie")
	for _, want := range []string{panel.CookieName + "=", "Path=/", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(ck, want) {
			t.Errorf("session cookie %q lacks %s", ck, want)
		}
	}
	if strings.Contains(ck, "Secure") {
		t.Errorf("Secure on a plain-HTTP cookie would never be sent back: %q", ck)
	}
	if got := b.get("/ui/audit?project=alpha"); got.code != 200 {
		t.Fatalf("after sign-in: %d", got.code)
	}
	if out := b.post("/logout", nil); out.code != http.StatusSeeOther || out.location != "/login" {
		t.Errorf("logout: %d %q", out.code, out.location)
	}
	if got := b.get("/"); got.code != http.StatusSeeOther {
		t.Errorf("after logout the session still works: %d", got.code)
	}
}

func TestOpenRedirectsAreRefused(t *testing.T) {
	e := start(t, []string{"alpha"})
	for _, next := range []string{"https://evil.example/", "//evil.example", "/\\evil.example", "\\\\evil.example", "http:/evil.example",
		"javascript:alert(1)", "/login?next=//evil.example", " //evil.example", "/\t/evil.example", "evil.example"} {
		b := e.browser(t)
		p := b.do("POST", "/login", url.Values{"token": {adminToken}, "next": {next}})
		if p.code != http.StatusSeeOther || p.location != "/" {
			t.Errorf("next=%q: %d → %q (want /)", next, p.code, p.location)
		}
		if lp := b.get("/login?next=" + url.QueryEscape(next)); strings.Contains(lp.body, "evil.example") {
			t.Errorf("the sign-in form carries next=%q on", next)
		}
	}
}

func TestFormsNeedTheCSRFToken(t *testing.T) {
	e := start(t, []string{"alpha"})
	b := e.browser(t)
	b.login()
	for _, csrf := range []string{"", "not-the-token"} {
		p := b.post("/ui/projects/alpha/agents", url.Values{"agent": {"codex"}, "csrf": {csrf}})
		if p.code != http.StatusForbidden {
			t.Errorf("mint with csrf %q: %d", csrf, p.code)
		}
	}
	// Another site's form is refused before the panel sees it.
	req, _ := http.NewRequest("POST", e.url+"/ui/projects/alpha/agents", strings.NewReader(url.Values{"agent": {"codex"}, "csrf": {b.csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	if resp, err := b.c.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site form: %v %v", resp.StatusCode, err)
	}
	var agents []gateway.AgentView
	e.api(t, "GET", "/api/v1/projects/alpha/agents", nil, &agents)
	if len(agents) != 0 {
		t.Fatalf("a refused form minted a token: %+v", agents)
	}
	if p := b.post("/ui/projects/alpha/agents", url.Values{"agent": {"codex"}}); p.code != 200 || !strings.Contains(p.body, "shown this once") {
		t.Errorf("mint with the token: %d %s", p.code, p.body)
	}
}

func TestSignInIsRateLimited(t *testing.T) {
	e := start(t, []string{"alpha"})
	b := e.browser(t)
	for i := range gateway.MaxFailures {
		if p := b.do("POST", "/login", url.Values{"token": {"guess"}}); p.code != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, p.code)
		}
	}
	p := b.do("POST", "/login", url.Values{"token": {"guess"}})
	if p.code != http.StatusTooManyRequests || p.header.Get("Retry-After") == "" || !strings.Contains(p.body, "Too many failed sign-ins") {
		t.Errorf("attempt %d: %d %s", gateway.MaxFailures+1, p.code, p.body)
	}
	// The limit is the gateway's, shared with the admin API.
	if code := e.api(t, "GET", "/api/v1/projects", nil, nil); code != 200 {
		t.Logf("the admin credential is still admitted (the gateway's rule: only failures are limited): %d", code)
	}
}

func TestEveryResponseHasTheCSP(t *testing.T) {
	e := start(t, []string{"alpha"})
	anon := e.browser(t)
	b := e.browser(t)
	b.login()
	check := func(what string, p page) {
		t.Helper()
		if got := p.header.Get("Content-Security-Policy"); got != panel.CSP {
			t.Errorf("%s (%d): CSP %q", what, p.code, got)
		}
		if !strings.Contains(panel.CSP, "script-src 'none'") || strings.Contains(panel.CSP, "unsafe-inline") {
			t.Fatalf("the CSP allows script: %s", panel.CSP)
		}
		if p.header.Get("X-Frame-Options") != "DENY" || p.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: framing or sniffing allowed: %v", what, p.header)
		}
	}
	check("login page", anon.get("/login"))
	check("wrong sign-in", anon.do("POST", "/login", url.Values{"token": {"x"}}))
	check("redirect to login", anon.get("/ui/audit"))
	check("401", anon.post("/ui/projects/alpha/agents", nil))
	check("stylesheet", anon.get("/ui/static/panel.css"))
	check("404", b.get("/nothing/here"))
	check("403 csrf", b.post("/ui/projects/alpha/agents", url.Values{"csrf": {"x"}}))
	check("reindex stream", b.post("/ui/projects/alpha/patterns/reindex", nil))
	for _, path := range pagesOf("alpha") {
		check(path, b.get(path))
	}
	// The gateway's own refusals on panel paths, before the panel sees the
	// request: plain text, under an even stricter policy.
	for name, set := range map[string]func(*http.Request){
		"a DNS-rebinding host": func(r *http.Request) { r.Host = "evil.example" },
		"another site's form": func(r *http.Request) {
			r.Header.Set("Sec-Fetch-Site", "cross-site")
			r.Header.Set("Origin", "https://evil.example")
		},
	} {
		for _, path := range []string{"/", "/login", "/ui/projects/alpha/agents"} {
			req, _ := http.NewRequest("POST", e.url+path, strings.NewReader("agent=codex"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			set(req)
			resp, err := b.c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			h := resp.Header
			if resp.StatusCode != http.StatusForbidden || h.Get("Content-Security-Policy") != gateway.RefusalCSP || h.Get("X-Content-Type-Options") != "nosniff" ||
				h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") != "no-referrer" {
				t.Errorf("%s at %s: %d %v", name, path, resp.StatusCode, h)
			}
		}
	}
}

// Hostile text is stored the ways agents store it, over MCP, and every
// page must show it as text: no element, attribute or link of its own.
func TestHostileTextRendersInert(t *testing.T) {
	e := start(t, []string{"alpha"})
	cs := e.connect(t, "alpha", e.mint(t, "alpha", "claude"))
	payloads := []string{
		`<script>alert("xss")</script>`,
		`<img src=x onerror=alert(1)>`,
		`"><svg/onload=alert(2)>`,
		`[click me](javascript:alert(3))`,
		`<a href="https://evil.example">docs</a>`,
		`{{template "top" .}}`,
	}
	hostile := strings.Join(payloads, " ")
	tool(t, cs, "remember", map[string]any{"text": "Note: " + hostile, "kind": "note", "tags": []string{"xss"}})
	// A guardrail whose statement is Markdown with a link (HTML in a
	// statement is refused by the schema), and a rationale with everything.
	tool(t, cs, "propose_guardrail", map[string]any{"id": "hostile-markdown", "severity": "guidance",
		"statement": "Read [the guide](javascript:alert(4)) and **obey** `everything` here.", "rationale": "Because " + payloads[3],
		"why": hostile})
	tool(t, cs, "add_pattern", map[string]any{"name": "hostile-pattern", "description": "A pattern [with a link](javascript:alert(5)) and **bold**.", "why": hostile})
	var open []proposals.Proposal
	e.api(t, "GET", "/api/v1/projects/alpha/proposals", nil, &open)
	if len(open) != 2 {
		t.Fatalf("proposals: %+v", open)
	}
	b := e.browser(t)
	b.login()
	// Approve the guardrail and the pattern so the rules and patterns pages
	// show them too.
	for _, pr := range open {
		b.follow("/ui/projects/alpha/proposals/"+itoa(pr.Number)+"/approve", nil)
	}
	pages := append(pagesOf("alpha"), "/ui/projects/alpha/memory?tag=xss", "/ui/queue?state=all")
	for _, pr := range open {
		pages = append(pages, "/ui/projects/alpha/proposals/"+itoa(pr.Number))
	}
	sawEscaped := false
	for _, path := range pages {
		p := b.get(path)
		if p.code != 200 {
			t.Errorf("GET %s: %d", path, p.code)
			continue
		}
		for _, bad := range liveMarkup(p.body) {
			t.Errorf("GET %s: %s", path, bad)
		}
		if strings.Contains(p.body, "&lt;script&gt;alert(&#34;xss&#34;)&lt;/script&gt;") {
			sawEscaped = true
		}
	}
	if !sawEscaped {
		t.Errorf("the hostile text is shown nowhere (escaped): the test proves nothing")
	}
	rules := b.get("/ui/projects/alpha/rules")
	if !strings.Contains(rules.body, "Read [the guide](javascript:alert(4)) and **obey**") {
		t.Errorf("the guardrail's Markdown is not shown as written:\n%s", rules.body)
	}
}

// No page, form value, URL or log carries the admin credential or a known
// secret; a minted token is shown once, then never again.
func TestNoCredentialOrSecretLeaks(t *testing.T) {
	e := start(t, []string{"alpha"})
	cs := e.connect(t, "alpha", e.mint(t, "alpha", "claude"))
	cs.CallTool(t.Context(), callParams("remember", map[string]any{"text": "The deploy key is " + secretCanary, "kind": "note"}))
	// Refused at write time (the secret is known); whatever was kept is checked below.
	cs.CallTool(t.Context(), callParams("propose_guardrail", map[string]any{"id": "keys-rotate", "severity": "guidance", "statement": "Rotate keys yearly.", "why": "We found a key: " + secretCanary}))
	b := e.browser(t)
	b.login()
	minted := b.post("/ui/projects/alpha/agents", url.Values{"agent": {"codex"}})
	tok := regexp.MustCompile(`value="(bridle_[A-Za-z0-9_-]+)"`).FindStringSubmatch(minted.body)
	if tok == nil {
		t.Fatalf("no token shown after minting: %s", minted.body)
	}
	if minted.header.Get("Cache-Control") != "no-store" {
		t.Errorf("the minted token's page may be cached: %q", minted.header.Get("Cache-Control"))
	}
	var seen []page
	for _, path := range append(pagesOf("alpha"), "/ui/projects/alpha/proposals/1", "/ui/queue?state=all", "/login") {
		seen = append(seen, b.get(path))
	}
	seen = append(seen, b.post("/ui/projects/alpha/memory/purge", nil))
	for i, p := range seen {
		all := p.body + p.location + strings.Join(p.header.Values("Set-Cookie"), ";")
		for name, canary := range map[string]string{"admin credential": adminToken, "secret": secretCanary, "minted token": tok[1]} {
			if strings.Contains(all, canary) {
				t.Errorf("page %d (%d %s) carries the %s", i, p.code, p.location, name)
			}
		}
	}
	for name, canary := range map[string]string{"admin credential": adminToken, "secret": secretCanary, "minted token": tok[1]} {
		if strings.Contains(e.logs.String(), canary) {
			t.Errorf("the log carries the %s", name)
		}
	}
}

// liveMarkup is every element, attribute or link in an HTML page that the
// panel's templates do not make: a script, an event handler, a frame, an
// image other than the logo, a link or form off the panel.
func liveMarkup(body string) []string {
	var bad []string
	z := html.NewTokenizer(strings.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return bad
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		switch tok.Data {
		case "script", "iframe", "object", "embed", "svg", "math", "base", "meta" + "-refresh":
			bad = append(bad, "element <"+tok.Data+">")
		}
		for _, a := range tok.Attr {
			v := strings.ToLower(strings.TrimSpace(a.Val))
			switch {
			case strings.HasPrefix(a.Key, "on"):
				bad = append(bad, "event handler "+a.Key+"="+a.Val)
			case a.Key == "style":
				bad = append(bad, "inline style "+a.Val)
			case (a.Key == "href" || a.Key == "action" || a.Key == "src") && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "#"):
				bad = append(bad, "<"+tok.Data+" "+a.Key+"="+a.Val+"> leaves the panel")
			case tok.Data == "img" && a.Key == "src" && v != "/ui/static/favicon.svg":
				bad = append(bad, "image "+a.Val)
			}
		}
	}
}
