package mcp

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/redact"
)

// stdio runs f's server over pipes, as bridle mcp does; lines reads what it
// writes, one JSON-RPC message a line.
type stdio struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func serveStdio(t *testing.T, f *fixture) *stdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdio{in: inW, lines: make(chan string, 100), done: make(chan error, 1)}
	go func() {
		s.done <- f.srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}

func (s *stdio) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

type wireResponse struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// next returns the next response with id (skipping notifications).
func (s *stdio) next(t *testing.T, id string) (wireResponse, string) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("output ended before a response to id %s", id)
			}
			var r wireResponse
			if json.Unmarshal([]byte(l), &r) == nil && string(r.ID) == id {
				return r, l
			}
		case <-timeout:
			t.Fatalf("no response to id %s within 5s", id)
		}
	}
}

const (
	initLine        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// TestCallBeforeInitialize: the SDK refuses a call before initialize with
// a plain error (code 0 on the wire); the transport sends a real code.
func TestCallBeforeInitialize(t *testing.T) {
	s := serveStdio(t, newFixture(t, Options{}))
	for i, line := range []string{
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_rules"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"bridle://snapshot"}}`,
	} {
		s.send(t, line)
		id := []string{`"a"`, "2", "3"}[i]
		r, raw := s.next(t, id)
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Errorf("%s before initialize: %s", id, raw)
		}
	}
	s.send(t, initLine, initializedLine, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	if r, raw := s.next(t, "4"); r.Error != nil {
		t.Errorf("after initialize: %s", raw)
	}
}

// TestDuplicateInFlightID: a second call with the id of one still running
// is answered at once with Invalid Request, the first is answered normally,
// and the end of input does not wait for an answer to the duplicate.
func TestDuplicateInFlightID(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	slow := newTool(Tool{Name: "slow_test_tool", Toolset: "rules", ReadOnly: true, Description: "test-only"}, nil,
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			started <- struct{}{}
			<-release
			return text("done"), nil, nil
		})
	s := serveStdio(t, newFixture(t, Options{extraTools: []Tool{slow}}))
	s.send(t, initLine, initializedLine)
	s.next(t, "1")
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow_test_tool"}}`
	s.send(t, call)
	<-started
	s.send(t, call, `{"jsonrpc":"2.0","id":"7","method":"ping"}`) // "7" is another id than 7
	r, raw := s.next(t, "7")
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(r.Error.Message, "in flight") {
		t.Fatalf("duplicate id: %s", raw)
	}
	if r, raw := s.next(t, `"7"`); r.Error != nil {
		t.Errorf("string id 7 is not the number 7: %s", raw)
	}
	close(release)
	if r, raw := s.next(t, "7"); r.Error != nil || !strings.Contains(raw, "done") {
		t.Errorf("first call: %s", raw)
	}
	s.in.Close()
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("ServeStdio at end of input: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("end of input waited for an answer to the duplicate")
	}
}

// TestStdioRedactsEverything: the transport masks what the SDK writes by
// itself (here: an error echoing the unknown tool's name).
func TestStdioRedactsEverything(t *testing.T) {
	const secret = "p&<a>\"ss\\word-123"
	s := serveStdio(t, newFixture(t, Options{Redactor: redact.New(secret)}))
	s.send(t, initLine, initializedLine)
	s.next(t, "1")
	name, _ := json.Marshal("tool-" + secret)
	s.send(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":`+string(name)+`}}`)
	_, raw := s.next(t, "5")
	if strings.Contains(raw, "word-123") {
		t.Errorf("leaked: %s", raw)
	}
}

// TestRedactionEveryChannel: a secret that JSON escapes (& < > " \) and a
// PEM key from a *_FILE variable never leave through a structured result,
// its text copy, a tool error, a JSON-RPC error's message or data, the audit
// log or the server's log, in any form.
func TestRedactionEveryChannel(t *testing.T) {
	const secret = "p&<a>\"ss\\word-123"
	key := testPEM(t)
	file := filepath.Join(t.TempDir(), "key.pem")
	os.WriteFile(file, []byte(key), 0o600)
	red := redact.FromEnv([]string{"APP_PASS=" + secret, "DEPLOY_KEY_FILE=" + file})
	lines := strings.Split(strings.TrimSpace(key), "\n")
	leaks := []string{"word-123", `\u0026\u003ca\u003e`, lines[2], lines[len(lines)/2]}

	type out struct {
		Text string   `json:"text"`
		Key  string   `json:"key"`
		Line []string `json:"lines"`
	}
	leaky := newTool(Tool{Name: "leaky_test_tool", Toolset: "rules", ReadOnly: true, Description: "test-only"}, nil,
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, out, error) {
			return nil, out{Text: "pw " + secret, Key: key, Line: lines}, nil
		})
	toolErr := newTool(Tool{Name: "tool_error_test_tool", Toolset: "rules", ReadOnly: true, Description: "test-only"}, nil,
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("login with %s failed: %w", secret, os.ErrPermission)
		})
	wireErr := newTool(Tool{Name: "wire_error_test_tool", Toolset: "rules", ReadOnly: true, Description: "test-only"}, nil,
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			data, _ := json.Marshal(map[string]string{"secret": secret, "line": lines[3]})
			return nil, nil, &jsonrpc.Error{Code: -32000, Message: "bad " + secret, Data: data}
		})
	var logs strings.Builder
	f := newFixture(t, Options{Redactor: red, extraTools: []Tool{leaky, toolErr, wireErr},
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	cs := f.connect(t, "kimi-cli", "", nil)
	ctx := context.Background()

	var seen []string
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "leaky_test_tool"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	seen = append(seen, string(b))
	var got out
	sc, _ := json.Marshal(res.StructuredContent)
	if json.Unmarshal(sc, &got) != nil || !strings.Contains(got.Text, redact.Mask) {
		t.Errorf("structured content is not masked valid JSON: %s", sc)
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); !ok || !json.Valid([]byte(tc.Text)) {
		t.Errorf("text copy is not valid JSON: %s", b)
	}
	txt, isErr := callText(t, cs, "tool_error_test_tool", nil)
	if !isErr {
		t.Error("tool error expected")
	}
	seen = append(seen, txt)
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "wire_error_test_tool"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("wire error expected, got %v", err)
	}
	seen = append(seen, je.Message, string(je.Data))
	callText(t, cs, "request_scope_approval", map[string]any{"action": "print " + secret + " and " + lines[4], "reason": "debug"})
	events, _ := os.ReadFile(audit.Open(f.state, "runic-gateway", nil).Path())
	seen = append(seen, string(events))
	f.srv.log.Error("login failed", "pw", secret, "err", errors.New(lines[5]))
	seen = append(seen, logs.String())
	for i, s := range seen {
		for _, l := range leaks {
			if strings.Contains(s, l) {
				t.Errorf("output %d leaked %q: %.300s", i, l, s)
			}
		}
	}
}

func testPEM(t *testing.T) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// TestUnknownLaunchAgentWarns: --agent with a name the rules have no
// profile for warns once with a suggestion, and serves least privilege.
func TestUnknownLaunchAgentWarns(t *testing.T) {
	var logs strings.Builder
	f := newFixture(t, Options{Agent: "claud", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	f.srv.WarnUnknownAgent()
	cs := f.connect(t, "claude-code", "", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tl, ok := f.srv.tool(tool.Name); ok && tl.Permission != "" {
			t.Errorf("unknown agent sees %s", tool.Name)
		}
	}
	if n := strings.Count(logs.String(), "has no profile"); n != 1 || !strings.Contains(logs.String(), `did you mean \"claude\"?`) {
		t.Errorf("want one warning with a suggestion, got %d:\n%s", n, logs.String())
	}
	logs.Reset()
	g := newFixture(t, Options{Agent: "claude", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	g.srv.WarnUnknownAgent()
	if logs.Len() != 0 {
		t.Errorf("a known agent warned: %s", logs.String())
	}
}
