package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveProcess is a real bridle serve process.
type serveProcess struct {
	cmd    *exec.Cmd
	stderr *strings.Builder
}

func startServe(t *testing.T, bin string, args ...string) *serveProcess {
	t.Helper()
	p := &serveProcess{cmd: exec.Command(bin, append([]string{"serve"}, args...)...), stderr: &strings.Builder{}}
	p.cmd.Stderr = p.stderr
	p.cmd.Env = os.Environ()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	return p
}

// waitHealthy polls url/healthz.
func waitHealthy(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not become healthy", url)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// The whole gateway path, as processes: bridle serve, a token from bridle
// agents add, an agent through the stdio bridge (bridle mcp --server); the
// gateway restarts mid-session and the agent's next call succeeds; SIGTERM
// stops it cleanly; no log line holds a credential.
func TestGatewayEndToEnd(t *testing.T) {
	bin := builtBinary(t) // before isolated: it moves HOME, and with it Go's build cache
	isolated(t)
	dir := rulesInit(t)
	state := t.TempDir()
	addr := freeAddr(t)
	url := "http://" + addr
	args := []string{"--rules", dir, "--project", "acme", "--listen", addr, "--state-dir", state, "--log-format", "json"}
	srv := startServe(t, bin, args...)
	waitHealthy(t, url)
	// The web panel is served at /, behind its sign-in.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if resp, err := noRedirect.Get(url + "/"); err != nil || resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?next=%2F" {
		t.Errorf("GET / of bridle serve: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if resp, err := http.Get(url + "/login"); err != nil || resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'none'") {
		t.Errorf("GET /login of bridle serve: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	admin := filepath.Join(state, "gateway", "admin-token")
	if !strings.Contains(srv.stderr.String(), admin) {
		t.Errorf("serve does not say where the generated admin credential is:\n%s", srv.stderr)
	}
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", admin)
	t.Setenv("BRIDLE_SERVER", url)
	code, out, stderr := bridle(t, "agents", "add", "--project", "acme", "--agent", "claude")
	if code != 0 {
		t.Fatalf("agents add: %s", stderr)
	}
	tokenFile := writeFile(t, out)

	agent := exec.Command(bin, "mcp", "--server", url, "--project", "acme", "--token-file", tokenFile)
	stdin, _ := agent.StdinPipe()
	stdout, _ := agent.StdoutPipe()
	var agentErr strings.Builder
	agent.Stderr = &agentErr
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); agent.Process.Kill(); agent.Wait() })
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 8<<20)
	id := 0
	rpc := func(method string, params any) map[string]any {
		t.Helper()
		id++
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		fmt.Fprintf(stdin, "%s\n", b)
		for lines.Scan() {
			var m map[string]any
			if json.Unmarshal(lines.Bytes(), &m) != nil {
				t.Fatalf("not JSON from the bridge: %s", lines.Text())
			}
			if m["id"] == float64(id) {
				return m
			}
		}
		t.Fatalf("the bridge ended: %v\n%s", lines.Err(), agentErr.String())
		return nil
	}
	rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "codex-mcp-client", "version": "1"}})
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	getRules := func() string {
		t.Helper()
		m := rpc("tools/call", map[string]any{"name": "get_rules", "arguments": map[string]any{}})
		b, _ := json.Marshal(m["result"])
		if m["error"] != nil || strings.Contains(string(b), `"isError":true`) {
			t.Fatalf("get_rules: %v %s\n%s", m["error"], b, agentErr.String())
		}
		return string(b)
	}
	if rules := getRules(); !strings.Contains(rules, "agent: claude") {
		t.Errorf("the token's agent (claude) was not served, whatever the client claimed:\n%.400s", rules)
	}

	// Restart the gateway on the same address and state.
	srv.cmd.Process.Signal(syscall.SIGTERM)
	if err := srv.cmd.Wait(); err != nil {
		t.Errorf("serve did not exit cleanly on SIGTERM: %v\n%s", err, srv.stderr)
	}
	first := srv.stderr.String()
	srv = startServe(t, bin, args...)
	waitHealthy(t, url)
	if rules := getRules(); !strings.Contains(rules, "agent: claude") {
		t.Errorf("after the restart: %.400s", rules)
	}
	tok := strings.TrimSpace(out)
	adminTok, _ := os.ReadFile(admin)
	for _, log := range []string{first, srv.stderr.String(), agentErr.String()} {
		if strings.Contains(log, tok) || strings.Contains(log, strings.TrimSpace(string(adminTok))) {
			t.Errorf("a credential is in a log:\n%s", log)
		}
	}
	stdin.Close()
	io.Copy(io.Discard, stdout)
}
