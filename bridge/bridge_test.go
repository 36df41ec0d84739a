package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/bridge"
	"github.com/bridle-dev/bridle/internal/gatewaytest"
)

const token = gatewaytest.Token

// agent is the agent's end of a running bridge.
type agent struct {
	in    *io.PipeWriter
	msgs  chan message
	done  chan error
	mu    sync.Mutex
	lines []string
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func run(t testing.TB, opts bridge.Options) *agent {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	a := &agent{in: inW, msgs: make(chan message, 100), done: make(chan error, 1)}
	opts.In, opts.Out = inR, outW
	if opts.Token == "" {
		opts.Token = token
	}
	go func() {
		a.done <- bridge.Run(context.Background(), opts)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			a.mu.Lock()
			a.lines = append(a.lines, sc.Text())
			a.mu.Unlock()
			var m message
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m.Method = "unparsable: " + sc.Text()
			}
			a.msgs <- m
		}
		close(a.msgs)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-a.done:
		case <-time.After(15 * time.Second):
			t.Error("the bridge did not end after its input")
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, l := range a.lines {
			if strings.Contains(l, token) {
				t.Errorf("the token reached the agent: %s", l)
			}
		}
	})
	return a
}

func (a *agent) send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(a.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// next returns the next message the agent gets.
func (a *agent) next(t testing.TB, within time.Duration) message {
	t.Helper()
	select {
	case m, ok := <-a.msgs:
		if !ok {
			t.Fatal("the bridge closed its output")
		}
		return m
	case <-time.After(within):
		t.Fatalf("nothing from the bridge within %s", within)
	}
	return message{}
}

// call sends a request and returns its answer; other messages received
// meanwhile are returned too.
func (a *agent) call(t testing.TB, id int, method, params string) (message, []message) {
	t.Helper()
	if params == "" {
		params = "{}"
	}
	a.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	var others []message
	for {
		m := a.next(t, 20*time.Second)
		if string(m.ID) == fmt.Sprint(id) && m.Method == "" {
			return m, others
		}
		others = append(others, m)
	}
}

const initParams = `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}`

// initialize does the agent's handshake and fails unless it succeeds.
func (a *agent) initialize(t testing.TB) {
	t.Helper()
	resp, _ := a.call(t, 1, "initialize", initParams)
	if resp.Error != nil || !strings.Contains(string(resp.Result), `"gateway"`) {
		t.Fatalf("initialize: %+v %s", resp.Error, resp.Result)
	}
	a.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func (a *agent) echo(t testing.TB, id int, text string) message {
	t.Helper()
	resp, others := a.echoAll(t, id, text)
	if len(others) > 0 {
		t.Errorf("besides the answer, the agent got %+v", others)
	}
	return resp
}

func (a *agent) echoAll(t testing.TB, id int, text string) (message, []message) {
	t.Helper()
	return a.call(t, id, "tools/call", fmt.Sprintf(`{"name":"echo","arguments":{"text":%q}}`, text))
}

func wantEcho(t testing.TB, resp message, text string) {
	t.Helper()
	if resp.Error != nil || !strings.Contains(string(resp.Result), "echo: "+text) {
		t.Fatalf("tools/call echo: %+v %s", resp.Error, resp.Result)
	}
}

func testLog(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func TestBridgeListsAndCallsTools(t *testing.T) {
	g := gatewaytest.Start(t)
	a := run(t, bridge.Options{URL: g.URL()})
	a.initialize(t)
	resp, _ := a.call(t, 2, "tools/list", "")
	if resp.Error != nil || !strings.Contains(string(resp.Result), `"name":"echo"`) {
		t.Fatalf("tools/list: %+v %s", resp.Error, resp.Result)
	}
	wantEcho(t, a.echo(t, 3, "hi"), "hi")
	// String ids travel too.
	a.send(t, `{"jsonrpc":"2.0","id":"x","method":"ping"}`)
	if m := a.next(t, 5*time.Second); string(m.ID) != `"x"` || m.Error != nil {
		t.Errorf("ping: %+v", m)
	}
}

func TestBridgeForwardsListChanged(t *testing.T) {
	g := gatewaytest.Start(t)
	a := run(t, bridge.Options{URL: g.URL()})
	a.initialize(t)
	a.call(t, 2, "tools/list", "") // the standalone stream is open by now or soon
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		g.AddTool(fmt.Sprintf("new%d", time.Now().UnixNano()))
		select {
		case m := <-a.msgs:
			if m.Method == "notifications/tools/list_changed" {
				return
			}
			t.Fatalf("unexpected %+v", m)
		case <-time.After(200 * time.Millisecond):
		}
	}
	t.Fatal("notifications/tools/list_changed never reached the agent")
}

func TestBridgeSurvivesGatewayRestart(t *testing.T) {
	g := gatewaytest.Start(t)
	a := run(t, bridge.Options{URL: g.URL(), Logger: testLog(t)})
	a.initialize(t)
	a.call(t, 2, "tools/list", "")
	wantEcho(t, a.echo(t, 6, "before"), "before")

	g.Stop()
	g.Restart()
	resp, others := a.echoAll(t, 3, "after")
	wantEcho(t, resp, "after")

	// Down while the agent calls, back within the retry budget.
	g.Stop()
	go func() { time.Sleep(700 * time.Millisecond); g.Restart() }()
	resp, more := a.echoAll(t, 4, "while down")
	wantEcho(t, resp, "while down")
	resp, _ = a.call(t, 5, "tools/list", "")
	if resp.Error != nil {
		t.Fatalf("tools/list after restarts: %+v", resp.Error)
	}
	for _, m := range append(others, more...) {
		// A replayed initialize's answer never reaches the agent; a hint
		// to list tools again may.
		if m.Method != "notifications/tools/list_changed" {
			t.Errorf("the agent got %+v", m)
		}
	}
}

// A call the gateway was running when it stopped: re-sent when its tool is
// read-only, answered "interrupted" when it is not.
func TestBridgeCallCutByRestart(t *testing.T) {
	g := gatewaytest.Start(t)
	a := run(t, bridge.Options{URL: g.URL()})
	a.initialize(t)
	a.call(t, 2, "tools/list", "") // the bridge learns which tools are read-only
	g.Blocking.Store(true)
	for i, tc := range []struct {
		tool string
		code int // 0: answered by the restarted gateway
	}{{"echo", 0}, {"write", bridge.CodeInterrupted}} {
		id := 10 + i
		a.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"text":"block"}}}`, id, tc.tool))
		<-g.Blocked
		g.Stop()
		g.Blocking.Store(false)
		g.Restart()
		m := a.next(t, 15*time.Second)
		for m.Method == "notifications/tools/list_changed" {
			m = a.next(t, 15*time.Second)
		}
		switch {
		case string(m.ID) != fmt.Sprint(id):
			t.Errorf("%s: got %+v, want the answer to %d", tc.tool, m, id)
		case tc.code == 0:
			wantEcho(t, m, "block")
		case m.Error == nil || m.Error.Code != tc.code || !strings.Contains(m.Error.Message, "may or may not have run"):
			t.Errorf("%s: %+v %s", tc.tool, m.Error, m.Result)
		}
		g.Blocking.Store(true)
	}
}

func TestBridgeWrongToken(t *testing.T) {
	g := gatewaytest.Start(t)
	a := run(t, bridge.Options{URL: g.URL(), Token: "bridle_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"})
	start := time.Now()
	for id := 1; id <= 2; id++ { // refused every time, at once, and the bridge goes on
		resp, _ := a.call(t, id, "initialize", initParams)
		if resp.Error == nil || resp.Error.Code != bridge.CodeTokenRefused || !strings.Contains(resp.Error.Message, "refused this agent's token") {
			t.Fatalf("call %d: %+v", id, resp.Error)
		}
		if strings.Contains(resp.Error.Message, "BBBBBBBB") {
			t.Errorf("the error shows the token: %s", resp.Error.Message)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a refused token was retried (%s)", d)
	}
}

func TestBridgeGatewayDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/p/demo/mcp"
	ln.Close() // nothing listens there
	a := run(t, bridge.Options{URL: url, RetryBudget: 600 * time.Millisecond})
	start := time.Now()
	resp, _ := a.call(t, 1, "initialize", initParams)
	if resp.Error == nil || resp.Error.Code != bridge.CodeUnavailable || !strings.Contains(resp.Error.Message, "could not be reached") {
		t.Fatalf("%+v", resp.Error)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("answered after %s, want about the retry budget", d)
	}
}

func TestBridgeNoEndpoint(t *testing.T) {
	g := gatewaytest.Start(t)
	a := run(t, bridge.Options{URL: strings.Replace(g.URL(), "/demo/", "/nope/", 1)})
	resp, _ := a.call(t, 1, "initialize", initParams)
	if resp.Error == nil || resp.Error.Code != bridge.CodeUnavailable || !strings.Contains(resp.Error.Message, "no MCP endpoint") {
		t.Fatalf("%+v", resp.Error)
	}
}

func TestBridgeRefusesBadLines(t *testing.T) {
	g := gatewaytest.Start(t)
	a := run(t, bridge.Options{URL: g.URL(), MaxLine: 1024})
	for _, tc := range []struct {
		line string
		code int
		id   string
	}{
		{"not json", -32700, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":7}`, -32600, "7"},
		{`{"jsonrpc":"2.0","id":1,"method":"x","params":"` + strings.Repeat("a", 2000) + `"}`, -32600, "null"},
	} {
		a.send(t, tc.line)
		m := a.next(t, 5*time.Second)
		if m.Error == nil || m.Error.Code != tc.code || string(m.ID) != tc.id {
			t.Errorf("%.40s: got %+v id %s, want code %d id %s", tc.line, m.Error, m.ID, tc.code, tc.id)
		}
	}
	a.initialize(t) // and the bridge goes on
	wantEcho(t, a.echo(t, 2, "still here"), "still here")
}

func TestBridgeEndOfInputClosesSession(t *testing.T) {
	g := gatewaytest.Start(t)
	a := run(t, bridge.Options{URL: g.URL()})
	a.initialize(t)
	// Answered even though the input ends right after the call.
	a.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"last"}}}`)
	a.in.Close()
	wantEcho(t, a.next(t, 10*time.Second), "last")
	select {
	case err := <-a.done:
		a.done <- err // for the cleanup
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the bridge did not end")
	}
	if g.Deletes() != 1 {
		t.Errorf("DELETE requests: %d, want 1", g.Deletes())
	}
}

func TestBridgeOptions(t *testing.T) {
	for _, o := range []bridge.Options{
		{URL: "ftp://x/p/a/mcp", Token: token, In: strings.NewReader(""), Out: io.Discard},
		{URL: "http://x/p/a/mcp", In: strings.NewReader(""), Out: io.Discard},
		{URL: "http://x/p/a/mcp", Token: token},
	} {
		if err := bridge.Run(context.Background(), o); !errors.Is(err, bridge.ErrOptions) {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// BenchmarkBridgeColdStart: a bridge started, initialize and tools/list
// answered through it, with the gateway already running.
func BenchmarkBridgeColdStart(b *testing.B) {
	g := gatewaytest.Start(b)
	for b.Loop() {
		a := run(b, bridge.Options{URL: g.URL()})
		a.initialize(b)
		if resp, _ := a.call(b, 2, "tools/list", ""); resp.Error != nil {
			b.Fatal(resp.Error)
		}
		a.in.Close()
		<-a.done
		a.done <- nil
	}
}

func TestBridgeEndpoint(t *testing.T) {
	for _, tc := range []struct{ server, project, want string }{
		{"https://bridle.example.com", "runic", "https://bridle.example.com/p/runic/mcp"},
		{"http://127.0.0.1:8080/", "runic-gateway", "http://127.0.0.1:8080/p/runic-gateway/mcp"},
		{"https://example.com/bridle", "a b", "https://example.com/bridle/p/a%20b/mcp"},
		{"bridle.example.com", "runic", ""},
		{"https://example.com?x=1", "runic", ""},
		{"https://example.com", "", ""},
		{"https://example.com", "a/b", ""},
	} {
		got, err := bridge.Endpoint(tc.server, tc.project)
		if got != tc.want || (tc.want == "") != errors.Is(err, bridge.ErrOptions) {
			t.Errorf("Endpoint(%q, %q) = %q, %v; want %q", tc.server, tc.project, got, err, tc.want)
		}
	}
}
