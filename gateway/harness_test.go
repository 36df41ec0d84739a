package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/scaffold"
)

const adminToken = "admin-credential-0123456789abcdef"

// syncBuffer is a log sink tests read while the server writes.
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

type gw struct {
	srv    *Server
	url    string
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan error
	state  string
}

type gwOption func(*Config, *Options)

// start serves projects (id → rules dir) on a free loopback port.
func start(t testing.TB, projects map[string]string, opts ...gwOption) *gw {
	t.Helper()
	state := t.TempDir()
	adminFile := filepath.Join(t.TempDir(), "admin")
	if err := os.WriteFile(adminFile, []byte(adminToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{StateDir: state, Admin: AdminConfig{TokenFile: adminFile, Name: "Mira Rossi"}, Projects: map[string]ProjectConfig{},
		Secrets: SecretsConfig{DockerDir: "-"}}
	for id, dir := range projects {
		cfg.Projects[id] = ProjectConfig{Rules: dir}
	}
	logs := &syncBuffer{}
	o := Options{Version: "test", Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		HeaderTimeout: 300 * time.Millisecond, Grace: 5 * time.Second, Refresh: 100 * time.Millisecond}
	for _, f := range opts {
		f(&cfg, &o)
	}
	cfg, err := cfg.Defaults(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &gw{srv: s, url: "http://" + ln.Addr().String(), logs: logs, cancel: cancel, done: make(chan error, 1), state: state}
	go func() { g.done <- s.Serve(ctx, ln) }()
	t.Cleanup(g.stop)
	// Every project's rules are loaded (in the background, into the cache
	// under the state directory) before the test goes on: a test that ends
	// sooner would race the cache writes with its temporary directory's
	// removal.
	deadline := time.Now().Add(20 * time.Second)
	for _, id := range s.ids {
		for !s.projects[id].Status(time.Now()).Loaded && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	return g
}

func (g *gw) stop() {
	if g.cancel != nil {
		g.cancel()
		<-g.done
		g.cancel = nil
	}
}

// bearerRT adds a token to every request.
type bearerRT struct {
	token string
	next  http.RoundTripper
}

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// client sends token with every request. A request whose answer does not
// begin within 30 s fails; there is no bound on the whole exchange, which
// would cut an MCP session's standalone SSE stream 30 s after it opened —
// and then the session, on a busy machine where a test outlasts that.
func client(token string) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Transport: bearerRT{token: token, next: tr}}
}

// connect opens an MCP session to project as clientName.
func (g *gw) connect(t testing.TB, project, token, clientName string) (*sdk.ClientSession, error) {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "9.9"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: g.url + "/p/" + project + "/mcp", HTTPClient: client(token), MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func (g *gw) mustConnect(t testing.TB, project, token, clientName string) *sdk.ClientSession {
	t.Helper()
	cs, err := g.connect(t, project, token, clientName)
	if err != nil {
		t.Fatalf("connect to %s: %v", project, err)
	}
	return cs
}

// api calls the admin API with token; out, when set, receives the JSON.
func (g *gw) api(t testing.TB, token, method, path string, in, out any) int {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, g.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, b, err)
		}
	}
	return resp.StatusCode
}

// mint adds an agent through the admin API and returns its token.
func (g *gw) mint(t testing.TB, project, agent string) string {
	t.Helper()
	var m Minted
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/"+project+"/agents", map[string]string{"agent": agent}, &m); code != http.StatusCreated {
		t.Fatalf("mint %s/%s: %d", project, agent, code)
	}
	return m.Token
}

func toolNames(t testing.TB, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func callText(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
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
	return b.String(), res.IsError
}
