package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// builtBinary builds cmd/bridle once per test run.
func builtBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bridle-e2e")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "bridle")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// exampleRepo is a fresh rules repository holding the example, committed
// on main: the sidecar serves committed rules only.
func exampleRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(example, "bridle.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: "refs/heads/main"}})
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "bridle.yaml"), src, 0o644)
	}
	var wt *git.Worktree
	if err == nil {
		wt, err = repo.Worktree()
	}
	if err == nil {
		_, err = wt.Add("bridle.yaml")
	}
	if err == nil {
		_, err = wt.Commit("rules", &git.CommitOptions{Author: &object.Signature{Name: "Mira", Email: "m@x", When: time.Now()}})
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func mcpCmd(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.Command(builtBinary(t), append([]string{"mcp", "--rules", exampleRepo(t)}, args...)...)
	cmd.Env = append(os.Environ(), "BRIDLE_STATE_DIR="+t.TempDir(), "BRIDLE_CACHE_DIR="+t.TempDir(), "BRIDLE_AGENT=")
	return cmd
}

// TestMCPBinaryOverStdio drives the built binary with the Go SDK's client.
func TestMCPBinaryOverStdio(t *testing.T) {
	for _, c := range []struct{ client, want string }{
		{"claude-code", "project rules for Claude"},
		{"codex-mcp-client", "# AGENTS.md — Runic Gateway"},
	} {
		t.Run(c.client, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			client := sdk.NewClient(&sdk.Implementation{Name: c.client, Version: "1"}, nil)
			cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: mcpCmd(t)}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) < 4 {
				t.Fatalf("tools/list: %v", err)
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_rules"})
			if err != nil || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, c.want) {
				t.Fatalf("get_rules: %v", err)
			}
		})
	}
}

type rawSession struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRaw(t *testing.T) *rawSession {
	t.Helper()
	cmd := mcpCmd(t)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return &rawSession{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

func (r *rawSession) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (r *rawSession) recv(t *testing.T) map[string]any {
	t.Helper()
	done := make(chan map[string]any, 1)
	go func() {
		line, err := r.out.ReadString('\n')
		var m map[string]any
		if err == nil {
			json.Unmarshal([]byte(line), &m)
		}
		done <- m
	}()
	select {
	case m := <-done:
		if m == nil {
			t.Fatal("no response")
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for a response")
	}
	return nil
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}}`

// TestMCPBadInputKeepsServing sends malformed JSON-RPC, an oversized line
// and a batch; each gets an error response and the server keeps answering.
func TestMCPBadInputKeepsServing(t *testing.T) {
	r := startRaw(t)
	r.send(t, initLine)
	if m := r.recv(t); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	bad := []struct{ line, want string }{
		{"this is not json", "Parse error"},
		{`{"jsonrpc":"2.0","id":7,"params":{}}`, "Invalid Request"},
		{`[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, "batches are not supported"},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_guardrail","arguments":{"id":"` + strings.Repeat("A", 5<<20) + `"}}}`, "longer than"},
		{`{"jsonrpc":"2.0","id":10,"method":"no/such/method"}`, "not"},
		{`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"list_guardrails","arguments":{"tier":["x"]}}}`, "tier"},
	}
	for _, b := range bad {
		r.send(t, b.line)
		m := r.recv(t)
		if !strings.Contains(fmt.Sprint(m), b.want) {
			t.Errorf("%.60s: response %.300v, want %q", b.line, m, b.want)
		}
	}
	r.send(t, `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"get_rules","arguments":{}}}`)
	if m := r.recv(t); !strings.Contains(fmt.Sprint(m), "project rules for Claude") {
		t.Errorf("server stopped serving: %.200v", m)
	}
}

func waitExit(t *testing.T, cmd *exec.Cmd, within time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(within):
		t.Fatalf("did not exit within %v", within)
	}
}

func TestMCPExitsOnEOFAndSIGTERM(t *testing.T) {
	t.Run("stdin closed", func(t *testing.T) {
		cmd := mcpCmd(t)
		in, _ := cmd.StdinPipe()
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		cmd.Start()
		io.WriteString(in, initLine+"\n")
		time.Sleep(100 * time.Millisecond)
		start := time.Now()
		in.Close()
		waitExit(t, cmd, time.Second)
		t.Logf("exited %v after stdin closed", time.Since(start))
	})
	t.Run("SIGTERM", func(t *testing.T) {
		cmd := mcpCmd(t)
		in, _ := cmd.StdinPipe()
		defer in.Close()
		out, _ := cmd.StdoutPipe()
		cmd.Stderr = io.Discard
		cmd.Start()
		io.WriteString(in, initLine+"\n")
		// The answer to initialize means the signal handler is installed
		// (it is, before anything is served): a fixed sleep raced a slow
		// start under load.
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			t.Fatalf("no answer to initialize: %v", err)
		}
		go io.Copy(io.Discard, out)
		cmd.Process.Signal(syscall.SIGTERM)
		waitExit(t, cmd, 5*time.Second)
	})
}
