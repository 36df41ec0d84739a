// Package gatewaytest is a stand-in for Bridle's gateway (bridle serve) in
// tests: a go-sdk streamable HTTP server (stateful sessions, Mcp-Session-Id)
// at /p/demo/mcp behind a bearer-token check that answers HTTP 401
// "unauthorized" as the gateway does. It can be stopped and started again on
// the same address, losing its sessions as a restarted process does. Its
// tools are echo (read-only) and write (not), both answering "echo: TEXT".
// It is for tests only.
package gatewaytest

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Token is the one token the gateway accepts; Project its one project.
const (
	Token   = "bridle_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	Project = "demo"
)

// Gateway is a running stand-in.
type Gateway struct {
	t       testing.TB
	addr    string
	deletes atomic.Int32
	// While Blocking is set, a call whose text is "block" signals Blocked
	// and waits until the gateway stops.
	Blocking atomic.Bool
	Blocked  chan struct{}

	mu  sync.Mutex
	hs  *http.Server
	srv *sdk.Server
}

type echoIn struct {
	Text string `json:"text"`
}

// Start serves a new gateway on a free local port until the test ends.
func Start(t testing.TB) *Gateway {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &Gateway{t: t, addr: ln.Addr().String(), Blocked: make(chan struct{}, 1)}
	g.serve(ln)
	t.Cleanup(g.Stop)
	return g
}

// Server is the gateway's base URL (what --server takes).
func (g *Gateway) Server() string { return "http://" + g.addr }

// URL is the project's MCP endpoint.
func (g *Gateway) URL() string { return g.Server() + "/p/" + Project + "/mcp" }

// Deletes counts the DELETE requests (sessions closed by the client).
func (g *Gateway) Deletes() int { return int(g.deletes.Load()) }

func (g *Gateway) serve(ln net.Listener) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "gateway", Version: "1"}, nil)
	echo := func(ctx context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
		if in.Text == "block" && g.Blocking.Load() {
			g.Blocked <- struct{}{}
			<-ctx.Done()
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "echoes", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, echo)
	sdk.AddTool(srv, &sdk.Tool{Name: "write", Description: "echoes, and is not read-only"}, echo)
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/p/"+Project+"/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+Token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodDelete {
			g.deletes.Add(1)
		}
		mcpHandler.ServeHTTP(w, r)
	})
	hs := &http.Server{Handler: mux}
	g.mu.Lock()
	g.hs, g.srv = hs, srv
	g.mu.Unlock()
	go hs.Serve(ln)
}

// Stop drops every connection and session at once.
func (g *Gateway) Stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hs != nil {
		g.hs.Close()
		g.hs = nil
	}
}

// Restart serves again on the same address, with no sessions.
func (g *Gateway) Restart() {
	g.t.Helper()
	var ln net.Listener
	var err error
	for range 50 {
		if ln, err = net.Listen("tcp", g.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		g.t.Fatal(err)
	}
	g.serve(ln)
}

// AddTool adds a tool, so the gateway announces
// notifications/tools/list_changed to its sessions.
func (g *Gateway) AddTool(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	sdk.AddTool(g.srv, &sdk.Tool{Name: name, Description: "new"},
		func(context.Context, *sdk.CallToolRequest, echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{}, nil, nil
		})
}
