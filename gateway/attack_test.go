package gateway

// Attacks found by a security review of the gateway, each asserting what
// the gateway's promises (doc.go) call for.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/mcp"
)

const reviewInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":%q,"version":"1"}}}`

// rawSession initializes a session with a raw POST and returns its id.
func rawSession(t testing.TB, g *gw, project, token, clientName string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", g.url+"/p/"+project+"/mcp", strings.NewReader(fmt.Sprintf(reviewInit, clientName)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	id := resp.Header.Get("Mcp-Session-Id")
	code, body := post(t, g.url+"/p/"+project+"/mcp", token, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": id})
	if code >= 300 {
		t.Fatalf("initialized: %d %s", code, body)
	}
	return id
}

func get(t testing.TB, url string, headers map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// A web page the developer visits can lock every loopback client (agents
// and the admin CLI) out of the gateway: a cross-site GET (an <img> tag)
// passes CrossOriginProtection, fails authentication and counts against
// 127.0.0.1, which every local agent shares.
func TestABrowserCannotLockOutLoopbackClients(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	tok := g.mint(t, "alpha", "claude")
	browser := map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}
	for range MaxFailures {
		get(t, g.url+"/p/alpha/mcp", browser) // <img src="http://127.0.0.1:7777/p/alpha/mcp">
	}
	if code, _ := post(t, g.url+"/p/alpha/mcp", tok, fmt.Sprintf(reviewInit, "claude-code"), nil); code != http.StatusOK {
		t.Errorf("a valid agent token after a web page's %d cross-site GETs: %d, want 200 (the page locked every loopback agent out)", MaxFailures, code)
	}
	if code := g.api(t, adminToken, "GET", "/api/v1/projects", nil, nil); code != http.StatusOK {
		t.Errorf("the admin credential after the same: %d, want 200", code)
	}
}

// Only the MCP endpoint refuses a non-loopback Host on a loopback
// listener; /readyz and /metrics answer a DNS-rebinding page, unauthenticated.
func TestRebindingIsRefusedOnEveryEndpoint(t *testing.T) {
	dir := newRules(t, "alpha")
	g := start(t, map[string]string{"alpha": dir})
	g.mint(t, "alpha", "claude")
	for _, path := range []string{"/readyz", "/metrics", "/healthz"} {
		code, body := get(t, g.url+path, map[string]string{"Host": "evil.example:7777"})
		if code != http.StatusForbidden {
			t.Errorf("GET %s with Host evil.example on a loopback listener: %d, want 403; it answers %d bytes (%q…)", path, code, len(body), firstLine(body, dir))
		}
	}
}

func firstLine(body, want string) string {
	if i := strings.Index(body, want); i >= 0 {
		return "contains the rules path " + want
	}
	if len(body) > 80 {
		return body[:80]
	}
	return body
}

// One token may hold at most MaxSessions open sessions: a new one beyond
// is refused (429), and closing one makes room.
func TestSessionsPerTokenAreLimited(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")}, func(_ *Config, o *Options) { o.MaxSessions = 20 })
	tok := g.mint(t, "alpha", "intruder") // no profile: least privilege
	other := g.mint(t, "alpha", "claude")
	var ids []string
	for range 20 {
		ids = append(ids, rawSession(t, g, "alpha", tok, "x"))
	}
	if code, body := post(t, g.url+"/p/alpha/mcp", tok, fmt.Sprintf(reviewInit, "x"), nil); code != http.StatusTooManyRequests {
		t.Errorf("a 21st session of one token: %d %q, want 429", code, body)
	}
	if code, _ := post(t, g.url+"/p/alpha/mcp", other, fmt.Sprintf(reviewInit, "x"), nil); code != http.StatusOK {
		t.Errorf("another agent's first session: %d, want 200 (the limit is per token)", code)
	}
	req, _ := http.NewRequest("DELETE", g.url+"/p/alpha/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Mcp-Session-Id", ids[0])
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	if code, _ := post(t, g.url+"/p/alpha/mcp", tok, fmt.Sprintf(reviewInit, "x"), nil); code != http.StatusOK {
		t.Errorf("a session after one was closed: %d, want 200", code)
	}
}

// clientInfo is stored as sent, up to the body limit, by the SDK session
// and the gateway's session table: 1 MiB per session.
func TestClientInfoIsBounded(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	tok := g.mint(t, "alpha", "intruder")
	big := strings.Repeat("A", 900<<10)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	const n = 60
	for range n {
		rawSession(t, g, "alpha", tok, big)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	grew := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("%d sessions with a 900 KiB clientInfo.name: heap +%d MiB", n, grew>>20)
	var ss []Session
	g.api(t, adminToken, "GET", "/api/v1/sessions", nil, &ss)
	if len(ss) > 0 && len(ss[0].Client) > 256 {
		t.Errorf("the session table keeps a %d-byte client name (heap +%d MiB for %d sessions)", len(ss[0].Client), grew>>20, n)
	}
}

// A token with no permission at all can make the admin's audit timeline
// unreadable: a refused call is recorded with the clientInfo.name as sent;
// '<' is escaped to \u003c, so a 1 MiB body makes a >4 MiB line, which
// audit.Read's scanner cannot take, and GET /api/v1/audit fails from then
// on (hiding every later event of the project).
func TestAuditSurvivesAHostileClientName(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	tok := g.mint(t, "alpha", "intruder")
	name := strings.Repeat("<", 1000<<10)
	c := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: g.url + "/p/alpha/mcp", HTTPClient: client(tok), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "remember", Arguments: map[string]any{"text": "x", "kind": "note"}})
	if err != nil || !res.IsError {
		t.Fatalf("remember as intruder: %v %+v", err, res)
	}
	if code := g.api(t, adminToken, "GET", "/api/v1/audit", nil, nil); code != http.StatusOK {
		t.Errorf("GET /api/v1/audit after one refused call with a 1 MB '<' client name: %d", code)
	}
}

// A revoked token's open standalone event stream keeps receiving the
// session's notifications.
func TestRevokingClosesTheEventStream(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	tok := g.mint(t, "alpha", "claude")
	id := rawSession(t, g, "alpha", tok, "claude-code")
	req, _ := http.NewRequest("GET", g.url+"/p/alpha/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET stream: %d", resp.StatusCode)
	}
	if code := g.api(t, adminToken, "DELETE", "/api/v1/projects/alpha/agents/claude", nil, nil); code != 200 {
		t.Fatalf("revoke: %d", code)
	}
	if code, _ := post(t, g.url+"/p/alpha/mcp", tok, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": id}); code != 401 {
		t.Fatalf("POST after revoke: %d", code)
	}
	// Something happens on the server: a toolset is added.
	probe, err := mcp.NewRawTool(mcp.Tool{Name: "review_probe", Permission: "gitea.read", ReadOnly: true},
		json.RawMessage(`{"type":"object"}`), func(context.Context, *sdk.CallToolRequest, json.RawMessage) (*sdk.CallToolResult, error) {
			return nil, nil
		})
	if err == nil {
		err = g.srv.projects["alpha"].mcp.AddToolset(mcp.Toolset{ID: "review", Tools: []mcp.Tool{probe}})
	}
	if err != nil {
		t.Logf("AddToolset: %v (falling back to a resource)", err)
		g.srv.projects["alpha"].mcp.SDK().AddResource(&sdk.Resource{URI: "bridle://probe", Name: "probe"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return nil, nil
		})
	}
	got := make(chan string, 1)
	go func() {
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if strings.HasPrefix(line, "data:") {
				got <- line
				return
			}
		}
	}()
	select {
	case line := <-got:
		t.Errorf("a revoked token's event stream still receives: %s", strings.TrimSpace(line))
	case <-time.After(2 * time.Second):
	}
}

// /readyz and the project status count sessions that have ended until
// someone lists the sessions.
func TestSessionCountIsLive(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	tok := g.mint(t, "alpha", "claude")
	for range 3 {
		cs := g.mustConnect(t, "alpha", tok, "claude-code")
		callText(t, cs, "get_rules", nil)
		cs.Close()
	}
	time.Sleep(200 * time.Millisecond)
	var ps ProjectStatus
	g.api(t, adminToken, "GET", "/api/v1/projects/alpha", nil, &ps)
	if ps.Sessions != 0 {
		t.Errorf("project status: sessions = %d after every session was closed, want 0", ps.Sessions)
	}
}

// Another agent of the same project cannot use a session (the SDK's
// TokenInfo.UserID check): 403.
func TestSessionOfAnotherAgentIsRefused(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	claude := g.mint(t, "alpha", "claude")
	codex := g.mint(t, "alpha", "codex")
	id := rawSession(t, g, "alpha", claude, "claude-code")
	for _, m := range []string{"POST", "GET", "DELETE"} {
		var code int
		var body string
		switch m {
		case "POST":
			code, body = post(t, g.url+"/p/alpha/mcp", codex, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": id})
		default:
			req, _ := http.NewRequest(m, g.url+"/p/alpha/mcp", nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Authorization", "Bearer "+codex)
			req.Header.Set("Mcp-Session-Id", id)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			code, body = resp.StatusCode, string(b)
		}
		if code != http.StatusForbidden {
			t.Errorf("%s with codex's token on claude's session: %d %q, want 403", m, code, body)
		}
	}
}

// The redactor knows an agent token only from its minting until the
// server stops: after a restart no token is masked (and the admin
// credential never is), though TokenPrefix says the redactor recognises them.
func TestTokensAreMaskedAfterARestart(t *testing.T) {
	rules := newRules(t, "alpha")
	state := t.TempDir()
	same := func(c *Config, _ *Options) { c.StateDir = state }
	g1 := start(t, map[string]string{"alpha": rules}, same)
	tok := g1.mint(t, "alpha", "claude")
	g1.stop()
	g2 := start(t, map[string]string{"alpha": rules}, same)
	cs := g2.mustConnect(t, "alpha", tok, "claude-code")
	text, isErr := callText(t, cs, "remember", map[string]any{"text": "deploy note: the gateway token is " + tok + " and the admin one is " + adminToken, "kind": "note"})
	if isErr {
		t.Fatalf("remember: %s", text)
	}
	raw := g2.rawGet(t, "/api/v1/projects/alpha/memory")
	if strings.Contains(raw, tok) {
		t.Error("an agent token is served unmasked (admin API memory list) after a restart")
	}
	if strings.Contains(raw, adminToken) {
		t.Error("the admin credential is served unmasked (admin API memory list)")
	}
}

// The metrics' tool label is fixed at the first call: a toolset added
// later (an upstream MCP server's) is counted as "unknown" for good.
func TestMetricsLabelToolsAddedLater(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	tok := g.mint(t, "alpha", "claude")
	cs := g.mustConnect(t, "alpha", tok, "claude-code")
	callText(t, cs, "get_rules", nil)
	probe, err := mcp.NewRawTool(mcp.Tool{Name: "review_probe", Permission: "memory.read", ReadOnly: true},
		json.RawMessage(`{"type":"object"}`), func(context.Context, *sdk.CallToolRequest, json.RawMessage) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.srv.projects["alpha"].mcp.AddToolset(mcp.Toolset{ID: "review", Tools: []mcp.Tool{probe}}); err != nil {
		t.Fatal(err)
	}
	callText(t, cs, "review_probe", nil)
	_, body := get(t, g.url+"/metrics", nil)
	if !strings.Contains(body, `tool="review_probe"`) {
		t.Errorf("a tool added at run time is not labelled in the metrics (counted as unknown)")
	}
}
