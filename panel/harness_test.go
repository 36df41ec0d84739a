package panel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/panel"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/schema"
)

// adminToken is the admin credential of every test gateway: a canary that
// must appear in no page, URL or log.
const adminToken = "bridle-admin-CANARY-5f0e1d2c3b4a69788796a5b4c3d2e1f0"

// secretCanary is a known secret (the redactor holds it) that agents try
// to store.
const secretCanary = "sk-live-SECRETCANARY-0123456789abcdef"

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// env is a running gateway (with the panel) over real local rules
// repositories.
type env struct {
	srv      *gateway.Server
	panel    *panel.Panel
	url      string
	logs     *syncBuffer
	examples string // the examples root: a pattern example lives in it
	state    string // the gateway's state directory
	stop     func()
}

type envOption func(*gateway.Config, *gateway.Options)

// newRules makes a committed rules repository whose project.id is id.
func newRules(t testing.TB, id string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Mira Rossi", Email: "mira@example.com", When: time.Unix(1e9, 0)}
	if _, err := scaffold.Init(dir, scaffold.Options{Version: "test", Author: sig}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// start serves the projects (ids; each a fresh rules repository) with the
// panel, on a free loopback port, until the test ends.
func start(t testing.TB, ids []string, opts ...envOption) *env {
	t.Helper()
	state := t.TempDir()
	adminFile := filepath.Join(t.TempDir(), "admin")
	if err := os.WriteFile(adminFile, []byte(adminToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	examples := t.TempDir()
	var pn *panel.Panel
	cfg := gateway.Config{StateDir: state, Admin: gateway.AdminConfig{TokenFile: adminFile, Name: "Mira Rossi"}, Projects: map[string]gateway.ProjectConfig{}}
	for _, id := range ids {
		cfg.Projects[id] = gateway.ProjectConfig{Rules: newRules(t, id)}
	}
	logs := &syncBuffer{}
	red := redact.New()
	red.Add(secretCanary)
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o := gateway.Options{Version: "test", Logger: log, Redactor: red, Grace: 5 * time.Second, Refresh: 100 * time.Millisecond,
		Examples: memory.ExampleOptions{Root: examples},
		UI: func(api http.Handler, signIn *gateway.SignIn) http.Handler {
			pn = panel.New(panel.Options{API: api, SignIn: signIn, Version: "test", Logger: slog.New(red.Handler(log.Handler()))})
			return pn
		}}
	for _, f := range opts {
		f(&cfg, &o)
	}
	cfg, err := cfg.Defaults(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s, err := gateway.New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	e := &env{srv: s, panel: pn, url: "http://" + ln.Addr().String(), logs: logs, examples: examples, state: cfg.StateDir}
	var once sync.Once
	e.stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(e.stop)
	deadline := time.Now().Add(20 * time.Second)
	for _, id := range ids {
		for time.Now().Before(deadline) {
			var ps gateway.ProjectStatus
			if e.api(t, "GET", "/api/v1/projects/"+id, nil, &ps) == 200 && ps.Loaded {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return e
}

// api calls the admin API over HTTP with the admin credential.
func (e *env) api(t testing.TB, method, path string, in, out any) int {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, b, err)
		}
	}
	return resp.StatusCode
}

// mint adds an agent through the admin API and returns its token.
func (e *env) mint(t testing.TB, project, agent string) string {
	t.Helper()
	var m gateway.Minted
	if code := e.api(t, "POST", "/api/v1/projects/"+project+"/agents", gateway.AddAgentRequest{Agent: agent}, &m); code != http.StatusCreated {
		t.Fatalf("mint %s/%s: %d", project, agent, code)
	}
	return m.Token
}

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP session to project with an agent's token.
func (e *env) connect(t testing.TB, project, token string) *sdk.ClientSession {
	t.Helper()
	return e.connectAs(t, project, token, "claude-code")
}

// connectAs connects as the MCP client clientName.
func (e *env) connectAs(t testing.TB, project, token, clientName string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1.4.2"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: e.url + "/p/" + project + "/mcp",
		HTTPClient: &http.Client{Transport: bearerRT{token}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", project, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// tool calls an MCP tool and returns its text; a tool error fails the test.
func tool(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s: %s", name, b.String())
	}
	return b.String()
}

// browser is an HTTP client that keeps cookies and does not follow
// redirects: every answer is checked as it comes.
type browser struct {
	t    testing.TB
	base string
	c    *http.Client
	csrf string
}

func (e *env) browser(t testing.TB) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: e.url, c: &http.Client{Jar: jar, Timeout: 60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is one answer.
type page struct {
	code     int
	body     string
	location string
	header   http.Header
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) do(method, path string, form url.Values) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	p := page{code: resp.StatusCode, body: string(raw), location: resp.Header.Get("Location"), header: resp.Header}
	if m := csrfField.FindStringSubmatch(p.body); m != nil {
		b.csrf = m[1]
	}
	return p
}

// as makes b a browser signed in as person (through a provider, as the
// panel's sign-in would make it).
func (b *browser) as(e *env, person actor.Actor) *browser {
	u, _ := url.Parse(e.url)
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: panel.CookieName, Value: e.panel.SignInAs(person), Path: "/"}})
	if ov := b.get("/"); ov.code != 200 && ov.code != http.StatusForbidden {
		b.t.Fatalf("the overview as %s: %d", person, ov.code)
	}
	return b
}

func (b *browser) get(path string) page { b.t.Helper(); return b.do("GET", path, nil) }

// post sends a form with the session's CSRF token (unless form sets one).
func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", b.csrf)
	}
	return b.do("POST", path, form)
}

// login signs in with the admin credential and loads the overview.
func (b *browser) login() {
	b.t.Helper()
	p := b.do("POST", "/login", url.Values{"token": {adminToken}})
	if p.code != http.StatusSeeOther || p.location != "/" {
		b.t.Fatalf("login: %d %s %s", p.code, p.location, p.body)
	}
	if ov := b.get("/"); ov.code != 200 {
		b.t.Fatalf("overview after login: %d", ov.code)
	}
}

// follow posts a form and then loads the page it redirects to.
func (b *browser) follow(path string, form url.Values) page {
	b.t.Helper()
	p := b.post(path, form)
	if p.code != http.StatusSeeOther {
		b.t.Fatalf("POST %s: %d (want a redirect) %s", path, p.code, p.body)
	}
	return b.get(p.location)
}

func itoa(n int) string { return strconv.Itoa(n) }

func callParams(name string, args map[string]any) *sdk.CallToolParams {
	return &sdk.CallToolParams{Name: name, Arguments: args}
}

// addPattern proposes a custom pattern with one local example (dir, inside
// the examples root) through the admin API and approves it.
func addPattern(t testing.TB, e *env, project, name, dir string) {
	t.Helper()
	ch := proposals.Change{Kind: proposals.KindPattern, Rationale: "Show agents real code.", Pattern: &schema.CustomPattern{Name: name,
		Description:  "Handlers decode and encode; services hold the logic; stores persist. Nothing skips a layer.",
		ExampleRepos: []schema.ExampleRepo{{URL: dir, ReferenceTag: name + "-1", ArchTag: name}}}}
	var pr proposals.Proposal
	if code := e.api(t, "POST", "/api/v1/projects/"+project+"/proposals", gateway.ProposeRequest{Change: ch}, &pr); code != http.StatusCreated {
		t.Fatalf("propose pattern: %d", code)
	}
	if code := e.api(t, "POST", "/api/v1/projects/"+project+"/proposals/"+itoa(pr.Number)+"/approve", gateway.ApproveRequest{Self: true}, nil); code != 200 {
		t.Fatalf("approve pattern: %d", code)
	}
	e.waitFor(t, project, func(r gateway.Rules) bool {
		return r.Snapshot != nil && len(r.Snapshot.Document.Patterns.Custom) > 0
	})
}

// waitFor waits until the project's served rules satisfy ok.
func (e *env) waitFor(t testing.TB, project string, ok func(gateway.Rules) bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		var r gateway.Rules
		if e.api(t, "GET", "/api/v1/projects/"+project+"/rules", nil, &r) == 200 && ok(r) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("project %s: the rules never changed as expected", project)
}
