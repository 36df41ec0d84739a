package panel_test

// Attacks on the web panel from a release review: each test is one exploit
// attempt, and passes when the defence holds.

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/html"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/panel"
	"github.com/bridle-dev/bridle/proposals"
)

// form is a POST form of a page as a browser would submit it: its action
// resolved against the page's address (the fragment dropped) and the
// values of its fields.
type form struct {
	action *url.URL
	raw    string // the action attribute as written
	values url.Values
}

// postForms is every POST form of the page at pageURL.
func postForms(t testing.TB, pageURL, body string) []form {
	t.Helper()
	base, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	var out []form
	var cur *form
	z := html.NewTokenizer(strings.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		tok := z.Token()
		attr := func(name string) string {
			for _, a := range tok.Attr {
				if a.Key == name {
					return a.Val
				}
			}
			return ""
		}
		switch {
		case tt == html.StartTagToken && tok.Data == "form":
			cur = nil
			if strings.EqualFold(attr("method"), "post") {
				ref, err := url.Parse(attr("action"))
				if err != nil {
					t.Fatalf("form action %q: %v", attr("action"), err)
				}
				u := base.ResolveReference(ref)
				u.Fragment, u.RawFragment = "", ""
				cur = &form{action: u, raw: attr("action"), values: url.Values{}}
			}
		case tt == html.EndTagToken && tok.Data == "form":
			if cur != nil {
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil && (tok.Data == "input" || tok.Data == "select" || tok.Data == "textarea") && attr("name") != "":
			if attr("type") == "checkbox" {
				continue
			}
			cur.values.Set(attr("name"), attr("value"))
		}
	}
}

// A crafted address puts an unknown "project" into the memory page, which
// renders (the API's 404 is shown as a note) with that value in its form
// actions. html/template's URL normalizer keeps '/', '?' and '#', so the
// value re-targets the page's CSRF-bearing "Count and confirm…" purge form
// at any POST route: here, approving an agent's proposal. An agent (or
// anyone who can put a link before the admin: a PR body in Gitea on the
// same site, a chat message) only needs the admin to click the button.
func TestAttackCraftedProjectRetargetsForms(t *testing.T) {
	e := start(t, []string{"alpha"})
	tok := e.mint(t, "alpha", "claude")
	cs := e.connect(t, "alpha", tok)
	tool(t, cs, "propose_guardrail", map[string]any{"id": "agents-may-force-push", "severity": "guidance",
		"statement": "Force-pushing to main is fine when the agent is sure.", "why": "speed"})
	var open []proposals.Proposal
	e.api(t, "GET", "/api/v1/projects/alpha/proposals", nil, &open)
	if len(open) != 1 {
		t.Fatalf("the agent's proposal: %+v", open)
	}
	n := itoa(open[0].Number)
	b := e.browser(t)
	b.login()
	for _, target := range []string{"alpha/proposals/" + n + "/approve#", "alpha/agents/claude/revoke?", "alpha/agents#"} {
		crafted := "/ui/projects/" + url.PathEscape(target) + "/memory"
		// The link may also be handed out as /login?next=…: it is a local path.
		p := b.get(crafted)
		if p.code != http.StatusOK {
			continue // refused: nothing is drawn from the crafted value
		}
		for _, f := range postForms(t, e.url+crafted, p.body) {
			if f.action.Path == "/logout" {
				continue
			}
			if !strings.HasSuffix(f.action.Path, "/memory") && !strings.HasSuffix(f.action.Path, "/memory/purge") &&
				!strings.HasSuffix(f.action.Path, "/forget") {
				t.Errorf("GET %s: a form posts to %s (action %q): the address chose the form's target", crafted, f.action.Path, f.raw)
			}
			// The admin clicks the button the page shows.
			req, _ := http.NewRequest("POST", f.action.String(), strings.NewReader(f.values.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if resp, err := b.c.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}
	var pr gateway.ProposalView
	e.api(t, "GET", "/api/v1/projects/alpha/proposals/"+n, nil, &pr)
	if pr.State != proposals.Open {
		t.Errorf("the agent's proposal #%s is %s after the admin clicked a memory page's purge button (merged by %q)", n, pr.State, pr.MergedBy)
	}
	var agents []gateway.AgentView
	e.api(t, "GET", "/api/v1/projects/alpha/agents", nil, &agents)
	if len(agents) != 1 {
		t.Errorf("agents after the clicks: %+v (a token was revoked or minted)", agents)
	}
	// The session's "last project" is not left pointing at the crafted value.
	if p := b.get("/ui/memory"); p.code == http.StatusSeeOther && p.location != "/ui/projects/alpha/memory" {
		t.Errorf("/ui/memory → %q: the crafted value became the session's project", p.location)
	}
}

// A session id chosen or held before sign-in never becomes the signed-in
// session, and signing in again ends the previous session and its CSRF
// token.
func TestAttackSessionFixation(t *testing.T) {
	e := start(t, []string{"alpha"})
	u, _ := url.Parse(e.url)
	b := e.browser(t)
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: panel.CookieName, Value: "attacker-chosen-id", Path: "/"}})
	b.login()
	for _, ck := range b.c.Jar.Cookies(u) {
		if ck.Name == panel.CookieName && ck.Value == "attacker-chosen-id" {
			t.Fatalf("the session id chosen before sign-in is the session")
		}
	}
	first := cookieOf(b, u)
	oldCSRF := b.csrf
	// Sign in again in the same browser: a new id, a new CSRF token.
	b.login()
	if cookieOf(b, u) == first {
		t.Errorf("signing in again kept the session id")
	}
	if oldCSRF == b.csrf {
		t.Errorf("signing in again kept the CSRF token")
	}
	stale := e.browser(t)
	stale.c.Jar.SetCookies(u, []*http.Cookie{{Name: panel.CookieName, Value: first, Path: "/"}})
	if p := stale.get("/"); p.code != http.StatusSeeOther {
		t.Errorf("the session ended by a new sign-in still serves: %d", p.code)
	}
	// The CSRF token of the ended session is no good in the new one.
	if p := b.post("/ui/projects/alpha/agents", url.Values{"agent": {"codex"}, "csrf": {oldCSRF}}); p.code != http.StatusForbidden {
		t.Errorf("the previous session's CSRF token: %d, want 403", p.code)
	}
	// Nor is one session's token good in another's.
	other := e.browser(t)
	other.login()
	if p := other.post("/ui/projects/alpha/agents", url.Values{"agent": {"codex"}, "csrf": {b.csrf}}); p.code != http.StatusForbidden {
		t.Errorf("another session's CSRF token: %d, want 403", p.code)
	}
	// After logout the cookie and the token are dead, even replayed by hand.
	id, tokenBefore := cookieOf(b, u), b.csrf
	b.post("/logout", nil)
	replay := e.browser(t)
	replay.c.Jar.SetCookies(u, []*http.Cookie{{Name: panel.CookieName, Value: id, Path: "/"}})
	if p := replay.post("/ui/projects/alpha/agents", url.Values{"agent": {"codex"}, "csrf": {tokenBefore}}); p.code != http.StatusUnauthorized {
		t.Errorf("a logged-out session replayed with its CSRF token: %d, want 401", p.code)
	}
	var agents []gateway.AgentView
	e.api(t, "GET", "/api/v1/projects/alpha/agents", nil, &agents)
	if len(agents) != 0 {
		t.Errorf("a refused request minted a token: %+v", agents)
	}
}

func cookieOf(b *browser, u *url.URL) string {
	for _, ck := range b.c.Jar.Cookies(u) {
		if ck.Name == panel.CookieName {
			return ck.Value
		}
	}
	return ""
}

// No state changes without a POST carrying the token in its form body:
// not a GET or HEAD (with the token in the query), not another method, not
// a method-override header or field, not a text/plain body.
func TestAttackNoSideEffectsWithoutAFormPost(t *testing.T) {
	e := start(t, []string{"alpha"})
	e.mint(t, "alpha", "claude")
	cs := e.connect(t, "alpha", e.mint(t, "alpha", "codex"))
	tool(t, cs, "remember", map[string]any{"text": "We chose SQLite for the queue.", "kind": "decision"})
	b := e.browser(t)
	b.login()
	b.get("/ui/projects/alpha/agents")
	csrf := b.csrf
	q := "?" + url.Values{"csrf": {csrf}, "agent": {"kimi"}, "confirm": {"1"}, "_method": {"POST"}}.Encode()
	routes := []string{"/ui/projects/alpha/agents", "/ui/projects/alpha/agents/claude/revoke", "/ui/projects/alpha/agents/claude/rotate",
		"/ui/projects/alpha/memory/purge", "/ui/projects/alpha/propose", "/logout"}
	for _, path := range routes {
		for _, method := range []string{"GET", "HEAD", "PUT", "PATCH", "DELETE"} {
			req, _ := http.NewRequest(method, e.url+path+q, strings.NewReader(url.Values{"csrf": {csrf}, "agent": {"kimi"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-HTTP-Method-Override", "POST")
			req.Header.Set("X-Method-Override", "POST")
			resp, err := b.c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			// A GET may be a page (the agents list); only what it did counts.
			if method != "GET" && method != "HEAD" && resp.StatusCode < 400 {
				t.Errorf("%s %s: %d, want a refusal", method, path, resp.StatusCode)
			}
		}
		// The token in the query string of a POST is not the form's.
		if p := b.do("POST", path+q, url.Values{"agent": {"kimi"}}); p.code != http.StatusForbidden {
			t.Errorf("POST %s with the token in the query only: %d, want 403", path, p.code)
		}
		// A text/plain body (what a cross-site form may send without a
		// preflight) is not parsed as a form.
		req, _ := http.NewRequest("POST", e.url+path, strings.NewReader("csrf="+csrf+"&agent=kimi"))
		req.Header.Set("Content-Type", "text/plain")
		resp, err := b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s as text/plain: %d, want 403", path, resp.StatusCode)
		}
	}
	var agents []gateway.AgentView
	e.api(t, "GET", "/api/v1/projects/alpha/agents", nil, &agents)
	if len(agents) != 2 {
		t.Errorf("agents after the refused requests: %+v", agents)
	}
	var mems []gateway.MemoryView
	e.api(t, "GET", "/api/v1/projects/alpha/memory", nil, &mems)
	if len(mems) != 1 {
		t.Errorf("memories after the refused requests: %d", len(mems))
	}
	if p := b.get("/"); p.code != http.StatusOK {
		t.Errorf("the session after the refused requests: %d (a GET logged it out)", p.code)
	}
	// The control: the same form, posted as the panel posts it, is acted on.
	if p := b.post("/ui/projects/alpha/agents", url.Values{"agent": {"kimi"}, "csrf": {csrf}}); p.code != http.StatusOK {
		t.Errorf("the form posted properly: %d (the refusals above prove nothing)", p.code)
	}
}

// A purge deletes nothing unless its confirm is exactly the number the
// filter matches now.
func TestAttackPurgeNeedsTheExactCount(t *testing.T) {
	e := start(t, []string{"alpha"})
	cs := e.connect(t, "alpha", e.mint(t, "alpha", "claude"))
	for _, text := range []string{"One decision.", "Another decision.", "A third."} {
		tool(t, cs, "remember", map[string]any{"text": text, "kind": "decision"})
	}
	b := e.browser(t)
	b.login()
	b.get("/ui/projects/alpha/memory")
	for _, confirm := range []string{"0", "-3", "2", "4", "3.0", " 3", "0x3", "abc", "99999999999999999999"} {
		b.post("/ui/projects/alpha/memory/purge", url.Values{"confirm": {confirm}})
	}
	var mems []gateway.MemoryView
	e.api(t, "GET", "/api/v1/projects/alpha/memory", nil, &mems)
	if len(mems) != 3 {
		t.Errorf("a purge with a wrong confirm deleted memories: %d left of 3", len(mems))
	}
	// The control: the exact count does purge (the refusals were not a stale token's).
	b.post("/ui/projects/alpha/memory/purge", url.Values{"confirm": {"3"}})
	mems = nil
	e.api(t, "GET", "/api/v1/projects/alpha/memory", nil, &mems)
	if len(mems) != 0 {
		t.Errorf("a purge with the exact count left %d memories", len(mems))
	}
}

// Authenticated pages, and the sign-in page, are never cached; the minted
// token is shown on a POST answer only, never at an address.
func TestAttackAuthenticatedPagesAreNotCached(t *testing.T) {
	e := start(t, []string{"alpha"})
	b := e.browser(t)
	b.login()
	paths := append(pagesOf("alpha"), "/no/such/page", "/ui/projects/nope/rules", "/ui/projects/alpha/proposals/999")
	for _, path := range paths {
		if p := b.get(path); p.header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s (%d): Cache-Control %q, want no-store", path, p.code, p.header.Get("Cache-Control"))
		}
	}
	for _, p := range []page{e.browser(t).get("/login"), e.browser(t).do("POST", "/login", url.Values{"token": {"wrong"}})} {
		if p.header.Get("Cache-Control") != "no-store" {
			t.Errorf("sign-in page (%d): Cache-Control %q", p.code, p.header.Get("Cache-Control"))
		}
	}
	minted := b.post("/ui/projects/alpha/agents", url.Values{"agent": {"codex"}})
	if minted.code != http.StatusOK || minted.location != "" {
		t.Fatalf("mint: %d → %q (a token must not travel through a redirect)", minted.code, minted.location)
	}
	if minted.header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("the minted token's page may leak its address: Referrer-Policy %q", minted.header.Get("Referrer-Policy"))
	}
	for _, f := range postForms(t, e.url+"/ui/projects/alpha/agents", minted.body) {
		if strings.Contains(f.raw, "bridle_") {
			t.Errorf("a form's action carries the token: %q", f.raw)
		}
	}
	if strings.Contains(minted.body, `href="`+"/ui/projects/alpha/agents?") {
		t.Errorf("the minted page links with a query: %s", minted.body)
	}
}

// The static route serves the stylesheet and the logo only: no template,
// no file outside, whatever the path's spelling.
func TestAttackStaticTraversal(t *testing.T) {
	e := start(t, []string{"alpha"})
	anon := e.browser(t)
	for _, path := range []string{"/ui/static/../templates/login.html", "/ui/static/%2e%2e/templates/login.html",
		"/ui/static/..%2ftemplates%2flogin.html", "/ui/static/%2e%2e%2f%2e%2e%2fgo.mod", "/ui/static//etc/passwd",
		"/ui/static/..\\templates\\login.html", "/ui/static/.%2e/panel.go", "/ui/templates/login.html"} {
		p := anon.get(path)
		if strings.Contains(p.body, "{{") || strings.Contains(p.body, "module github.com") || strings.Contains(p.body, "root:") {
			t.Errorf("GET %s: %d serves a file it should not: %.200q", path, p.code, p.body)
		}
	}
	svg := anon.get("/ui/static/favicon.svg")
	if svg.code != 200 || !strings.HasPrefix(svg.header.Get("Content-Type"), "image/svg+xml") || svg.header.Get("Content-Security-Policy") != panel.CSP {
		t.Errorf("the logo: %d %q, CSP %q", svg.code, svg.header.Get("Content-Type"), svg.header.Get("Content-Security-Policy"))
	}
	if strings.Contains(strings.ToLower(svg.body), "<script") || strings.Contains(strings.ToLower(svg.body), "onload") {
		t.Errorf("the logo carries script")
	}
}

// Neither an agent's token nor the session cookie is the admin credential:
// the panel refuses the one, the admin API the other.
func TestAttackAgentTokenAndCookieAreNotAdmin(t *testing.T) {
	e := start(t, []string{"alpha"})
	agent := e.mint(t, "alpha", "claude")
	b := e.browser(t)
	if p := b.do("POST", "/login", url.Values{"token": {agent}}); p.code != http.StatusUnauthorized || len(p.header.Values("Set-Cookie")) != 0 {
		t.Errorf("sign-in with an agent's token: %d, cookies %v", p.code, p.header.Values("Set-Cookie"))
	}
	for _, tok := range []string{" " + adminToken + " x", adminToken[:len(adminToken)-1], strings.ToUpper(adminToken), adminToken + "\x00"} {
		if p := e.browser(t).do("POST", "/login", url.Values{"token": {tok}}); p.code == http.StatusSeeOther {
			t.Errorf("sign-in with %q was admitted", tok)
		}
	}
	// A bearer token on a panel page is not a session.
	req, _ := http.NewRequest("GET", e.url+"/ui/projects/alpha/agents", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a panel page with the admin bearer and no session: %d, want the sign-in redirect", resp.StatusCode)
	}
	// The session cookie does not authenticate the admin API (no CSRF
	// there: a cookie would make every API route forgeable).
	b.login()
	for _, method := range []string{"GET", "POST"} {
		req, _ := http.NewRequest(method, e.url+"/api/v1/projects/alpha/agents", strings.NewReader(`{"agent":"codex"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s /api/v1/projects/alpha/agents with the panel's cookie: %d, want 401", method, resp.StatusCode)
		}
	}
	// Nor does an agent's token reach the panel's backend by the API.
	if code := apiWith(t, e, agent, "GET", "/api/v1/projects"); code != http.StatusUnauthorized {
		t.Errorf("the admin API with an agent's token: %d", code)
	}
}

func apiWith(t testing.TB, e *env, token, method, path string) int {
	t.Helper()
	req, _ := http.NewRequest(method, e.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Huge bodies and query strings are refused without a session being made
// or the server giving way.
func TestAttackHugeRequests(t *testing.T) {
	e := start(t, []string{"alpha"})
	huge := strings.Repeat("a", 4<<20)
	anon := e.browser(t)
	if p := anon.do("POST", "/login", url.Values{"token": {huge}}); p.code == http.StatusSeeOther || p.code >= 500 && p.code != http.StatusBadGateway {
		t.Errorf("a 4 MB sign-in: %d", p.code)
	}
	if p := anon.do("POST", "/login", url.Values{"token": {adminToken}, "pad": {huge}}); p.code == http.StatusSeeOther {
		t.Errorf("a 4 MB sign-in with the right credential made a session")
	}
	b := e.browser(t)
	b.login()
	if p := b.post("/ui/projects/alpha/agents", url.Values{"agent": {"codex"}, "pad": {huge}}); p.code == http.StatusOK {
		t.Errorf("a 4 MB form was acted on")
	}
	if p := b.post("/ui/projects/alpha/propose", url.Values{"kind": {"guardrail"}, "id": {"x"}, "statement": {huge}, "severity": {"guidance"}}); p.code >= 500 {
		t.Errorf("a 4 MB statement: %d", p.code)
	}
	req, _ := http.NewRequest("GET", e.url+"/ui/queue?q="+strings.Repeat("x", 200<<10), nil)
	if resp, err := b.c.Do(req); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("a 200 KB query string was served")
		}
	}
	for _, path := range []string{"/ui/queue?page=-1", "/ui/queue?page=99999999999999999999", "/ui/queue?page=1e9",
		"/ui/projects/alpha/memory?limit=-5", "/ui/projects/alpha/memory?limit=99999999999", "/ui/projects/alpha/memory?kind=%00",
		"/ui/audit?since=garbage", "/ui/audit?until=9999-99-99", "/ui/audit?kind=" + strings.Repeat("k", 4000)} {
		if p := b.get(path); p.code >= 500 {
			t.Errorf("GET %s: %d", path, p.code)
		}
	}
	if p := b.get("/"); p.code != http.StatusOK {
		t.Errorf("the session after the hostile requests: %d", p.code)
	}
}

// Redirects go to this server only and carry no header of the attacker's:
// the sign-in's next, a forget's back.
func TestAttackRedirectVariants(t *testing.T) {
	e := start(t, []string{"alpha"})
	base, _ := url.Parse(e.url)
	offsite := func(what, loc string) {
		t.Helper()
		u, err := base.Parse(loc)
		if err != nil || u.Host != base.Host || u.Scheme != base.Scheme || strings.ContainsAny(loc, "\r\n\\") {
			t.Errorf("%s → %q leaves the panel", what, loc)
		}
	}
	for _, next := range []string{"/%5Cevil.example", "/.//evil.example", "/..//evil.example", "/%2e%2e//evil.example", "/ /evil.example",
		"/%0d%0aSet-Cookie:%20x=y", "/\r\nSet-Cookie: x=y", "/\u3000/evil.example", "/\u2215\u2215evil.example", "/%09/evil.example",
		"/@evil.example", "/;//evil.example", "/ui/audit#//evil.example", "JAVASCRIPT:alert(1)", "data:text/html,x", "/\x00//evil.example"} {
		b := e.browser(t)
		p := b.do("POST", "/login", url.Values{"token": {adminToken}, "next": {next}})
		if p.code != http.StatusSeeOther {
			t.Errorf("next=%q: %d", next, p.code)
			continue
		}
		offsite("next="+next, p.location)
		if len(p.header.Values("Set-Cookie")) != 1 {
			t.Errorf("next=%q: Set-Cookie %v", next, p.header.Values("Set-Cookie"))
		}
	}
	b := e.browser(t)
	b.login()
	b.get("/ui/projects/alpha/memory")
	for _, back := range []string{"//evil.example", "#//evil.example", "x\r\nLocation: //evil.example", "/../../..//evil.example", "@evil.example"} {
		p := b.post("/ui/projects/alpha/memory/m-0/forget", url.Values{"back": {back}})
		if p.code != http.StatusSeeOther {
			t.Errorf("forget back=%q: %d", back, p.code)
			continue
		}
		offsite("back="+back, p.location)
	}
}

// A client's name and version are the client's own words (clientInfo):
// the overview's sessions and the audit show them as text.
func TestAttackHostileClientInfoRendersInert(t *testing.T) {
	e := start(t, []string{"alpha"})
	tok := e.mint(t, "alpha", "intruder") // no profile: its calls are refused and audited
	c := sdk.NewClient(&sdk.Implementation{Name: `<script>alert(1)</script><a href="javascript:alert(2)">x</a>`,
		Version: `"><img src=x onerror=alert(3)><style>*{display:none}</style>`}, nil)
	cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: e.url + "/p/alpha/mcp",
		HTTPClient: &http.Client{Transport: bearerRT{tok}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	cs.CallTool(t.Context(), callParams("remember", map[string]any{"text": "x", "kind": "note"}))
	b := e.browser(t)
	b.login()
	seen := false
	for _, path := range []string{"/", "/ui/audit", "/ui/audit?project=alpha&agent=intruder"} {
		p := b.get(path)
		for _, bad := range liveMarkup(p.body) {
			t.Errorf("GET %s: %s", path, bad)
		}
		if strings.Contains(p.body, "<style>") {
			t.Errorf("GET %s: a <style> element from the client's version", path)
		}
		seen = seen || strings.Contains(p.body, "&lt;script&gt;alert(1)&lt;/script&gt;")
	}
	if !seen {
		t.Errorf("the hostile client name is shown nowhere: the test proves nothing")
	}
}

// Another site cannot sign the browser in or out (login CSRF): the
// gateway's cross-origin protection refuses the form before the panel.
func TestAttackCrossSiteSignInAndOut(t *testing.T) {
	e := start(t, []string{"alpha"})
	for _, headers := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}, {"Origin": "null"},
		{"Sec-Fetch-Site": "same-site", "Origin": "https://panel.evil.example"}} {
		for _, path := range []string{"/login", "/logout"} {
			req, _ := http.NewRequest("POST", e.url+path, strings.NewReader(url.Values{"token": {adminToken}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range headers {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden || len(resp.Header.Values("Set-Cookie")) != 0 {
				t.Errorf("POST %s with %v: %d, cookies %v; want 403 and none", path, headers, resp.StatusCode, resp.Header.Values("Set-Cookie"))
			}
		}
	}
}

// An unauthenticated client holds a connection (and a goroutine) for as
// long as it likes by sending the sign-in form's body a byte at a time:
// the panel is mounted outside the gateway's track, so BodyTimeout (which
// cuts such a body on the admin API and MCP) never applies to it, and the
// server sets no ReadTimeout.
func TestAttackSlowSignInBodyIsCut(t *testing.T) {
	e := start(t, []string{"alpha"}, func(_ *gateway.Config, o *gateway.Options) { o.BodyTimeout = 500 * time.Millisecond })
	for _, path := range []string{"/login", "/ui/projects/alpha/agents"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 4000\r\n\r\ntoken=", path, strings.TrimPrefix(e.url, "http://"))
		conn.SetReadDeadline(time.Now().Add(4 * time.Second))
		start := time.Now()
		_, err = io.ReadAll(conn)
		conn.Close()
		if err != nil {
			t.Errorf("POST %s: a body that never arrives still holds the connection after %v (BodyTimeout 500 ms): %v", path, time.Since(start).Round(time.Millisecond), err)
		}
	}
}
