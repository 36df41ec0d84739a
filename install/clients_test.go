package install

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/agentclients"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/schema"
)

// The real-client tests run the agents' own CLIs, at the versions pinned in
// tests/agentclients, on the configs install writes: a project's stdio
// entry launching the built bridle on real rules, and the gateway entry
// against Bridle's gateway itself (in process), where each agent has its
// own token. They skip, saying how to install the CLIs, when those are
// missing, and fail then under BRIDLE_REQUIRE_AGENT_CLIENTS (scripts/test.sh).

// gatewayProject is the project the test gateway serves.
const gatewayProject = "demo"

// testGateway is Bridle's gateway serving one project from a committed
// rules repository, with a token minted for each agent. It records the
// agent the gateway holds each MCP session under, read from its admin API
// as each MCP request is answered: a client may close its session (DELETE)
// before it exits, and the admin API lists open sessions only.
type testGateway struct {
	server string            // base URL (install's --server)
	tokens map[string]string // agent → its token

	mu   sync.Mutex
	seen map[string]string // session id → agent
}

// rulesRepo makes a committed rules repository at dir (bridle init's).
func rulesRepo(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Mira Rossi", Email: "mira@example.com", When: time.Unix(1e9, 0)}
	if _, err := scaffold.Init(dir, scaffold.Options{Version: "test", Author: sig}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func startGateway(t *testing.T, agentNames ...string) *testGateway {
	t.Helper()
	adminFile := filepath.Join(t.TempDir(), "admin")
	const adminToken = "admin-credential-0123456789abcdef"
	if err := os.WriteFile(adminFile, []byte(adminToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := gateway.Config{StateDir: t.TempDir(), Admin: gateway.AdminConfig{TokenFile: adminFile, Name: "Mira Rossi"},
		Secrets:  gateway.SecretsConfig{DockerDir: "-"},
		Projects: map[string]gateway.ProjectConfig{gatewayProject: {Rules: rulesRepo(t, filepath.Join(t.TempDir(), "rules"))}}}.
		Defaults(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	srv, err := gateway.New(cfg, gateway.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	g := &testGateway{tokens: map[string]string{}, seen: map[string]string{}}
	for _, a := range agentNames {
		if g.tokens[a], _, err = srv.Tokens().Add(gatewayProject, a); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.server = "http://" + ln.Addr().String()
	h := srv.Handler()
	sessions := func() []gateway.Session {
		r := httptest.NewRequest(http.MethodGet, g.server+"/api/v1/sessions?project="+gatewayProject, nil)
		r.Header.Set("Authorization", "Bearer "+adminToken)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var out []gateway.Session
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Errorf("the admin API's sessions: %d %v %s", w.Code, err, w.Body)
		}
		return out
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if strings.HasPrefix(r.URL.Path, "/p/") {
			for _, s := range sessions() {
				g.mu.Lock()
				g.seen[s.ID] = s.Agent
				g.mu.Unlock()
			}
		}
	})}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	// The project's rules are loaded before a client connects, so that no
	// load is still writing into the state directory when the test ends.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var rd gateway.Ready
		resp, err := http.Get(g.server + "/readyz")
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&rd)
			resp.Body.Close()
		}
		if len(rd.Projects) == 1 && rd.Projects[0].Loaded {
			return g
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gateway's project did not load: %v %+v", err, rd)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sessionAgents are the agents of the sessions the gateway has held since
// the last call, each once, sorted.
func (g *testGateway) sessionAgents(*testing.T) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, a := range g.seen {
		out = append(out, a)
	}
	clear(g.seen)
	slices.Sort(out)
	return slices.Compact(out)
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// bridleBinary builds cmd/bridle once per test binary.
func bridleBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bridle-install-test")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "bridle")
		if out, err := exec.Command("go", "build", "-o", builtBin, "github.com/bridle-dev/bridle/cmd/bridle").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// realClient is how a test drives one agent CLI's MCP health check.
type realClient struct {
	agent    string // the registry's name
	cli, env string // the command and the variable overriding its path
	// trust records, in home, the person's one-time decision that the
	// client may use proj's servers, as the client records it.
	trust func(t *testing.T, home, proj string)
	// approve, when set, is the client's command approving the server,
	// run with the same environment as the health check.
	approve []string
	// status reads the bridle entry's state from the health check's
	// output: "connected", "failed", or "" when it is not there.
	status func(out string) string
	// check is the health check's arguments; nil for mcp list.
	check []string
	// vars is what the client needs in its environment besides the home
	// and the tokens (a stand-in API key, so that it does not ask to log
	// in).
	vars []string
}

// healthCheck is the client's health check's arguments.
func (c realClient) healthCheck() []string {
	if c.check == nil {
		return []string{"mcp", "list"}
	}
	return c.check
}

func lineStatus(connected, failed string) func(string) string {
	ok, bad := regexp.MustCompile(connected), regexp.MustCompile(failed)
	return func(out string) string {
		switch {
		case ok.MatchString(out):
			return "connected"
		case bad.MatchString(out):
			return "failed"
		}
		return ""
	}
}

func writeJSONFile(t *testing.T, p string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func realClients() []realClient {
	return []realClient{
		{
			agent: "gemini", cli: "gemini", env: "BRIDLE_GEMINI_BIN",
			trust: func(t *testing.T, home, proj string) {
				writeJSONFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), map[string]string{proj: "TRUST_FOLDER"})
			},
			status: lineStatus(`(?m)^✓ bridle: .* - Connected$`, `(?m)^✗ bridle: .* - Disconnected$`),
		},
		{
			agent: "qwen", cli: "qwen", env: "BRIDLE_QWEN_BIN",
			// Qwen's folder trust is off by default; a project's server
			// waits for its approval, bound to the expanded entry.
			trust:   func(*testing.T, string, string) {},
			approve: []string{"mcp", "approve", ServerName},
			status:  lineStatus(`(?m)^✓ bridle: .* - Connected$`, `(?m)^✗ bridle: .* - Disconnected$`),
		},
		{
			// amp mcp list reads the files only; mcp doctor connects (it
			// wants an API key to be there, not to be valid). A project's
			// server waits for its approval, bound to the entry as written.
			agent: "amp", cli: "amp", env: "BRIDLE_AMP_BIN",
			trust:   func(*testing.T, string, string) {},
			approve: []string{"mcp", "approve", ServerName},
			check:   []string{"mcp", "doctor"},
			vars:    []string{"AMP_API_KEY=not-a-key-no-model-is-called"},
			status:  lineStatus(`(?m)^bridle \(workspace: [a-z]+\): connected`, `(?m)^bridle \(workspace: [a-z]+\): error`),
		},
		{
			agent: "opencode", cli: "opencode", env: "BRIDLE_OPENCODE_BIN",
			trust:  func(*testing.T, string, string) {}, // none in 1.18.33
			status: lineStatus(`✓ bridle connected`, `✗ bridle failed`),
		},
	}
}

// TestInstallRealClients: for each CLI whose health check connects (Gemini
// CLI, Qwen Code, Amp, OpenCode), what install writes connects: the project's
// stdio entry launching the built bridle on real rules (and, for a client
// that does not pass its environment on, a stdio entry with Gitea rules
// hands the server GITEA_TOKEN); the gateway entry
// with the agent's own token variable, as a session the gateway holds
// under that agent; and not with a wrong token in that variable, even with
// another agent's valid token exported (so a harness never becomes another
// agent).
func TestInstallRealClients(t *testing.T) {
	for _, c := range realClients() {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel() // each waits on its CLI, mostly
			cli := agentclients.Bin(t, c.env, c.cli)
			bin := bridleBinary(t)
			g := startGateway(t, c.agent, "claude")
			home, proj := t.TempDir(), t.TempDir()
			rules := rulesRepo(t, filepath.Join(proj, "rules"))
			c.trust(t, home, proj)
			run := func(env map[string]string, args ...string) string {
				t.Helper()
				vars := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
					"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"), "NO_COLOR=1"}
				for _, a := range []string{c.agent, "claude"} {
					vars = append(vars, agents.TokenEnv(a)+"="+env[agents.TokenEnv(a)])
				}
				for _, name := range []string{"GITEA_TOKEN", "SOME_OTHER_TOKEN"} {
					vars = append(vars, name+"="+env[name])
				}
				vars = append(vars, c.vars...)
				out, errOut, err := agentclients.Run(t, proj, vars, "", cli, args...)
				if err != nil {
					t.Fatalf("%s %s: %v\n%s\n%s", c.cli, strings.Join(args, " "), err, out, errOut)
				}
				return agentclients.StripANSI(out + errOut)
			}
			check := func(what string, env map[string]string, want string) string {
				t.Helper()
				if c.approve != nil {
					run(env, c.approve...)
				}
				out := run(env, c.healthCheck()...)
				if got := c.status(out); got != want {
					t.Errorf("%s: %s %s says %q, want %q:\n%s", what, c.cli, strings.Join(c.healthCheck(), " "), got, want, out)
				}
				return out
			}

			if _, err := Install(Options{Client: c.agent, ProjectDir: proj, Command: bin, Rules: rules}); err != nil {
				t.Fatal(err)
			}
			check("stdio on the project's rules", nil, "connected")

			// GITEA_TOKEN reaches a server with Gitea rules, whether the
			// client passes its environment on (Qwen Code, OpenCode) or
			// the entry lists it (Gemini CLI drops names holding TOKEN);
			// a listing passes nothing else.
			command, dump := envDump(t)
			if _, err := Install(Options{Client: c.agent, ProjectDir: proj, Command: command, GiteaURL: "https://gitea.example.com", GiteaRepo: "team/rules"}); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"GITEA_TOKEN": "gitea-token-for-the-sidecar", "SOME_OTHER_TOKEN": "not-passed"}
			if c.approve != nil {
				run(env, c.approve...)
			}
			out := run(env, c.healthCheck()...)
			cfg, _ := clientConfig(c.agent)
			if b, err := os.ReadFile(dump); err != nil || !strings.Contains(string(b), "GITEA_TOKEN=gitea-token-for-the-sidecar\n") || cfg.Stdio.EnvKey != "" && strings.Contains(string(b), "SOME_OTHER_TOKEN") {
				t.Errorf("the server's environment (%v):\n%s\n%s mcp list:\n%s", err, b, c.cli, out)
			}

			if _, err := Install(Options{Client: c.agent, ProjectDir: proj, Command: bin, Server: g.server, GatewayProject: gatewayProject}); err != nil {
				t.Fatal(err)
			}
			own := map[string]string{agents.TokenEnv(c.agent): g.tokens[c.agent]}
			check("the gateway, with the agent's token", own, "connected")
			if got := g.sessionAgents(t); !slices.Contains(got, c.agent) || slices.Contains(got, "claude") {
				t.Errorf("the gateway's sessions are %v, want %s's", got, c.agent)
			}
			leak := map[string]string{agents.TokenEnv(c.agent): "bridle_not-this-agents-token-at-all-xxxxxxxxxxxx", agents.TokenEnv("claude"): g.tokens["claude"]}
			check("the gateway, with a wrong token and claude's exported", leak, "failed")
			if got := g.sessionAgents(t); slices.Contains(got, "claude") {
				t.Errorf("%s became claude: sessions %v", c.agent, got)
			}
		})
	}
}

// TestInstallRealCopilot: Copilot CLI (whose mcp list and get read the
// configuration only) finds Bridle's entry where install writes it: in
// .github/mcp.json; and, once the project has Claude Code's .mcp.json (which
// Copilot then reads instead), in .mcp.json under its own name beside
// Claude's, with the command and then the gateway's URL install wrote.
func TestInstallRealCopilot(t *testing.T) {
	cli := agentclients.Bin(t, "BRIDLE_COPILOT_BIN", "copilot")
	home, proj := t.TempDir(), t.TempDir()
	writeJSONFile(t, filepath.Join(home, ".copilot", "config.json"), map[string]any{"trustedFolders": []string{proj}})
	rules := filepath.Join(proj, "rules")
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := agentclients.Run(t, proj, []string{"HOME=" + home, "COPILOT_HOME=", "NO_COLOR=1"}, "", cli, args...)
		if err != nil {
			t.Fatalf("copilot %s: %v\n%s\n%s", strings.Join(args, " "), err, out, errOut)
		}
		return agentclients.StripANSI(out + errOut)
	}
	install := func(client string, server string) {
		t.Helper()
		o := Options{Client: client, ProjectDir: proj, Command: "bridle", Rules: rules}
		if server != "" {
			o = Options{Client: client, ProjectDir: proj, Command: "bridle", Server: server, GatewayProject: gatewayProject}
		}
		if _, err := Install(o); err != nil {
			t.Fatal(err)
		}
	}
	entry := EntryName("copilot")
	listed := func(out, name string) bool {
		return regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(name) + ` \(`).MatchString(out)
	}
	command := "Command: bridle mcp --rules rules --ref main --agent copilot"

	install("copilot", "")
	if out := run("mcp", "get", entry); !strings.Contains(out, "Source: Workspace ("+filepath.Join(proj, ".github", "mcp.json")+")") || !strings.Contains(out, command) {
		t.Errorf("copilot mcp get %s, no .mcp.json:\n%s", entry, out)
	}
	install("claude", "")
	if out := run("mcp", "list"); listed(out, entry) || !listed(out, ServerName) {
		t.Errorf("copilot mcp list once .mcp.json is there: want claude's %s only (Copilot no longer reads .github/mcp.json):\n%s", ServerName, out)
	}
	install("copilot", "")
	if out := run("mcp", "list"); !listed(out, entry) || !listed(out, ServerName) {
		t.Errorf("copilot mcp list: want claude's %s and its own %s:\n%s", ServerName, entry, out)
	}
	shared := "Source: Workspace (" + filepath.Join(proj, ".mcp.json") + ")"
	if out := run("mcp", "get", entry); !strings.Contains(out, shared) || !strings.Contains(out, command) {
		t.Errorf("copilot mcp get %s:\n%s", entry, out)
	}
	const server = "https://bridle.example.com"
	install("copilot", server)
	out := run("mcp", "get", entry)
	for _, want := range []string{"Type: http", "URL: " + server + "/p/" + gatewayProject + "/mcp", "Authorization: ***", shared} {
		if !strings.Contains(out, want) {
			t.Errorf("copilot mcp get %s after install --server: no %q:\n%s", entry, want, out)
		}
	}
}

// TestInstallRealClaude: Claude Code health-checks the entries install
// writes into .mcp.json (initialize and a listing): the stdio entry on real
// rules, and the gateway's, Connected with claude's own variable, as a
// session the gateway holds under claude, and Failed (HTTP 401) with a
// wrong token there and another agent's exported.
func TestInstallRealClaude(t *testing.T) {
	cli := agentclients.Bin(t, "BRIDLE_CLAUDE_BIN", "claude")
	bin := bridleBinary(t)
	g := startGateway(t, "claude", "gemini")
	home, proj := t.TempDir(), t.TempDir()
	rules := rulesRepo(t, filepath.Join(proj, "rules"))
	// The person's decision, made here as Claude Code records it: the
	// project is trusted and its bridle server enabled.
	writeJSONFile(t, filepath.Join(home, ".claude.json"), map[string]any{"projects": map[string]any{proj: map[string]any{"hasTrustDialogAccepted": true, "enabledMcpjsonServers": []string{ServerName}}}})
	list := func(env ...string) string {
		t.Helper()
		out, errOut, err := agentclients.Run(t, proj, append([]string{"HOME=" + home}, env...), "", cli, "mcp", "list")
		if err != nil {
			t.Fatalf("claude mcp list: %v\n%s\n%s", err, out, errOut)
		}
		return out + errOut
	}
	if _, err := Install(Options{Client: "claude", ProjectDir: proj, Command: bin, Rules: rules}); err != nil {
		t.Fatal(err)
	}
	if out := list(); !strings.Contains(out, "✔ Connected") {
		t.Errorf("stdio: want Connected:\n%s", out)
	}
	if _, err := Install(Options{Client: "claude", ProjectDir: proj, Command: bin, Server: g.server, GatewayProject: gatewayProject}); err != nil {
		t.Fatal(err)
	}
	url := g.server + "/p/" + gatewayProject + "/mcp"
	if out := list("BRIDLE_TOKEN_CLAUDE=" + g.tokens["claude"]); !strings.Contains(out, url+" (HTTP) - ✔ Connected") {
		t.Errorf("the gateway with claude's token: want Connected:\n%s", out)
	}
	if got := g.sessionAgents(t); !slices.Contains(got, "claude") || slices.Contains(got, "gemini") {
		t.Errorf("the gateway's sessions are %v, want claude's", got)
	}
	if out := list("BRIDLE_TOKEN_CLAUDE=bridle_not-this-agents-token-at-all-xxxxxxxxxxxx", "BRIDLE_TOKEN_GEMINI="+g.tokens["gemini"]); !strings.Contains(out, "HTTP 401") {
		t.Errorf("a wrong token, gemini's exported: want HTTP 401:\n%s", out)
	}
}

// envDump is a stand-in server command that writes its environment to
// dump and exits, for a client to start as it would start bridle.
func envDump(t *testing.T) (command, dump string) {
	t.Helper()
	dir := t.TempDir()
	dump = filepath.Join(dir, "env")
	command = filepath.Join(dir, "dump-env")
	if err := os.WriteFile(command, []byte("#!/bin/sh\nenv > '"+dump+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return command, dump
}

// TestInstallRealCodex: Codex reads the [mcp_servers.bridle] tables install
// writes and connects with them — the server's tools are in the model's
// prompt (codex debug prompt-input): the stdio entry on real rules; the
// gateway's (codex mcp list: the URL, a bearer token from codex's own
// variable) with codex's token, as a session the gateway holds under codex,
// and not with a wrong one, another agent's exported. A stdio entry with
// Gitea rules hands the server GITEA_TOKEN (Codex passes a server no
// variable its entry does not name).
func TestInstallRealCodex(t *testing.T) {
	cli := agentclients.Bin(t, "BRIDLE_CODEX_BIN", "codex")
	bin := bridleBinary(t)
	g := startGateway(t, "codex", "claude")
	// Not under /tmp: Codex refuses to put its helpers there, and says so.
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(cache, 0o755)
	root, err := os.MkdirTemp(cache, "bridle-codex-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home, proj := filepath.Join(root, "codexhome"), filepath.Join(root, "proj")
	rules := rulesRepo(t, filepath.Join(root, "rules"))
	os.MkdirAll(proj, 0o755)
	config := filepath.Join(home, "config.toml")
	run := func(env []string, args ...string) string {
		t.Helper()
		out, errOut, err := agentclients.Run(t, proj, append([]string{"CODEX_HOME=" + home, "RUST_BACKTRACE=0"}, env...), "", cli, args...)
		if err != nil {
			t.Fatalf("codex %s: %v\n%s", strings.Join(args, " "), err, errOut)
		}
		return out
	}
	connected := func(env ...string) bool {
		return strings.Contains(run(env, "debug", "prompt-input"), "mcp__"+ServerName)
	}

	if _, err := Install(Options{Client: "codex", ConfigPath: config, Command: bin, Rules: rules}); err != nil {
		t.Fatal(err)
	}
	if !connected() {
		t.Error("stdio on real rules: no bridle namespace in the prompt")
	}

	command, dump := envDump(t)
	if _, err := Install(Options{Client: "codex", ConfigPath: config, Command: command, GiteaURL: "https://gitea.example.com", GiteaRepo: "team/rules"}); err != nil {
		t.Fatal(err)
	}
	connected("GITEA_TOKEN=gitea-token-for-the-sidecar", "SOME_OTHER_TOKEN=not-passed")
	if b, err := os.ReadFile(dump); err != nil || !strings.Contains(string(b), "GITEA_TOKEN=gitea-token-for-the-sidecar\n") || strings.Contains(string(b), "SOME_OTHER_TOKEN") {
		t.Errorf("the server's environment (%v):\n%s", err, b)
	}

	if _, err := Install(Options{Client: "codex", ConfigPath: config, Command: "bridle", Server: g.server, GatewayProject: gatewayProject}); err != nil {
		t.Fatal(err)
	}
	if out := run(nil, "mcp", "list"); !strings.Contains(out, g.server) || !strings.Contains(out, "BRIDLE_TOKEN_CODEX") || !strings.Contains(out, "Bearer token") {
		t.Errorf("codex mcp list:\n%s", out)
	}
	for _, tc := range []struct {
		env  []string
		want bool
	}{
		{[]string{"BRIDLE_TOKEN_CODEX=" + g.tokens["codex"]}, true},
		{[]string{"BRIDLE_TOKEN_CODEX=bridle_not-this-agents-token-at-all-xxxxxxxxxxxx", "BRIDLE_TOKEN_CLAUDE=" + g.tokens["claude"]}, false},
	} {
		if got := connected(tc.env...); got != tc.want {
			t.Errorf("%.30s…: the bridle namespace in the prompt: %v, want %v", tc.env, got, tc.want)
		}
		if got := g.sessionAgents(t); slices.Contains(got, "claude") || tc.want && !slices.Contains(got, "codex") {
			t.Errorf("%.30s…: the gateway's sessions are %v", tc.env, got)
		}
	}
}

// TestClientsPinned: every harness the registry says the tests run here is
// pinned, at that version, in tests/agentclients.
func TestClientsPinned(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(agentclients.Dir(), "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Dependencies map[string]string }
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	for _, a := range agents.All() {
		if a.Harness == nil || a.Harness.Client == "" {
			continue
		}
		i := strings.LastIndex(a.Harness.Client, "@")
		if name, version := a.Harness.Client[:i], a.Harness.Client[i+1:]; i <= 0 || pkg.Dependencies[name] != version {
			t.Errorf("%s: the registry runs %s, tests/agentclients pins %q", a.Name, a.Harness.Client, pkg.Dependencies[a.Harness.Client[:max(i, 0)]])
		}
	}
}

// TestInstallRealContinue: Continue's cn, in headless sessions against a
// stand-in model (it has no offline MCP check), connects with what install
// writes: the stdio entry in the user's ~/.continue/config.yaml, merged
// beside the person's model (Bridle's tools reach the model); the
// gateway's entry there with the agent's own token, read as
// ${{ secrets.BRIDLE_TOKEN_CONTINUE }} from the environment, as a session
// the gateway holds under continue, and not with a wrong token and
// claude's exported; and the project's block .continue/mcpServers/
// bridle.yaml, which cn loads with --mcp.
func TestInstallRealContinue(t *testing.T) {
	cli := agentclients.Bin(t, "BRIDLE_CONTINUE_BIN", "cn")
	bin := bridleBinary(t)
	g := startGateway(t, "continue", "claude")
	proj := t.TempDir()
	rules := rulesRepo(t, filepath.Join(proj, "rules"))
	model := agentclients.NewFakeModel(t)
	newHome := func() string {
		home := t.TempDir()
		config := "# the person's own\nname: Mine\nversion: 0.0.1\nschema: v1\nmodels:\n  - name: stand-in\n    provider: openai\n    model: gpt-4o\n    apiKey: not-a-key\n    apiBase: " + model.URL + "/v1\n"
		if err := os.MkdirAll(filepath.Join(home, ".continue"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".continue", "config.yaml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		return home
	}
	run := func(home string, env []string, args ...string) (string, error) {
		t.Helper()
		vars := append([]string{"HOME=" + home, "NO_COLOR=1", "CONTINUE_CLI_ENABLE_TELEMETRY=0"}, env...)
		out, errOut, err := agentclients.Run(t, proj, vars, "", cli, append([]string{"-p", "say DONE"}, args...)...)
		return out + errOut, err
	}
	// session runs one headless session and reports whether Bridle's
	// get_rules tool was offered to the model.
	session := func(home string, env []string, args ...string) bool {
		t.Helper()
		before := len(model.Requests())
		out, err := run(home, env, args...)
		if err != nil {
			t.Fatalf("cn: %v\n%s", err, out)
		}
		reqs := model.Requests()[before:]
		if len(reqs) == 0 {
			t.Fatalf("cn asked the model nothing:\n%s", out)
		}
		return strings.Contains(reqs[0], `"get_rules"`)
	}

	home := newHome()
	if _, err := Install(Options{Client: "continue", Home: home, Command: bin, Rules: rules}); err != nil {
		t.Fatal(err)
	}
	if !session(home, nil) {
		t.Error("stdio in ~/.continue/config.yaml: get_rules was not offered to the model")
	}
	if _, err := Install(Options{Client: "continue", Home: home, Command: bin, Server: g.server, GatewayProject: gatewayProject}); err != nil {
		t.Fatal(err)
	}
	if !session(home, []string{"BRIDLE_TOKEN_CONTINUE=" + g.tokens["continue"]}) {
		t.Error("the gateway with continue's token: get_rules was not offered")
	}
	if got := g.sessionAgents(t); !slices.Contains(got, "continue") || slices.Contains(got, "claude") {
		t.Errorf("the gateway's sessions are %v, want continue's", got)
	}
	// A headless session whose server fails to load stops, saying why.
	if out, err := run(home, []string{"BRIDLE_TOKEN_CONTINUE=bridle_not-this-agents-token-at-all-xxxxxxxxxxxx", "BRIDLE_TOKEN_CLAUDE=" + g.tokens["claude"]}); err == nil || !strings.Contains(out, "bridle: Streamable HTTP error") || !strings.Contains(out, "unauthorized") {
		t.Errorf("a wrong token, claude's exported: want bridle refused as unauthorized (%v):\n%s", err, out)
	}
	if got := g.sessionAgents(t); slices.Contains(got, "claude") {
		t.Errorf("continue became claude: sessions %v", got)
	}

	// The project's block, in a home whose config has no Bridle entry.
	home = newHome()
	if _, err := Install(Options{Client: "continue", ProjectDir: proj, Command: bin, Rules: rules}); err != nil {
		t.Fatal(err)
	}
	if session(home, nil) {
		t.Error("cn offered get_rules without --mcp: it reads the project's blocks by itself, and the registry should say so")
	}
	if !session(home, nil, "--mcp", ".continue/mcpServers/bridle.yaml") {
		t.Error("the project's block with --mcp: get_rules was not offered")
	}
}

// TestInstallRealAugment: auggie (whose mcp list reads the configuration
// and connects nothing without an Augment account) lists the entries
// install writes where it reads them: the project's .augment/settings.json
// with the command and arguments install wrote, over the person's own
// server, and then the gateway's stdio bridge, and the user's
// ~/.augment/settings.json without --project.
func TestInstallRealAugment(t *testing.T) {
	cli := agentclients.Bin(t, "BRIDLE_AUGGIE_BIN", "auggie")
	home, proj := t.TempDir(), t.TempDir()
	writeJSONFile(t, filepath.Join(proj, ".augment", "settings.json"), map[string]any{"mcpServers": map[string]any{"github": map[string]any{"type": "stdio", "command": "gh-mcp"}}})
	type server struct {
		Name, Transport, Command, Source string
		Enabled                          bool
	}
	list := func() map[string]server {
		t.Helper()
		out, errOut, err := agentclients.Run(t, proj, []string{"HOME=" + home, "NO_COLOR=1"}, "", cli, "mcp", "list", "--json")
		if err != nil {
			t.Fatalf("auggie mcp list: %v\n%s\n%s", err, out, errOut)
		}
		var got struct{ Servers []server }
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &got); err != nil {
			t.Fatalf("auggie mcp list --json: %v\n%s", err, out)
		}
		m := map[string]server{}
		for _, s := range got.Servers {
			m[s.Name] = s
		}
		return m
	}
	// With enforce entries, install also merges Bridle's PreToolUse hook
	// into the same .augment/settings.json: auggie still reads the file
	// (its settings validation takes the hooks key) and warns of nothing.
	doc := enforceDoc()
	doc.AgentProfiles = map[string]schema.AgentProfile{"augment": {}}
	if _, err := Install(Options{Client: "augment", ProjectDir: proj, Command: "bridle", Rules: filepath.Join(proj, "rules"), Doc: doc}); err != nil {
		t.Fatal(err)
	}
	settings, err := os.ReadFile(filepath.Join(proj, ".augment", "settings.json"))
	if err != nil || !strings.Contains(string(settings), `"command": "bridle hook augment --rules \"$AUGMENT_PROJECT_DIR\"/rules"`) {
		t.Fatalf("no hook in .augment/settings.json (%v):\n%s", err, settings)
	}
	got := list()
	if s := got[ServerName]; s.Transport != "stdio" || s.Command != "bridle mcp --rules rules --ref main --agent augment" || !s.Enabled || got["github"].Command != "gh-mcp" {
		t.Errorf("after install --project: %+v", got)
	}
	if _, errOut, err := agentclients.Run(t, proj, []string{"HOME=" + home, "NO_COLOR=1"}, "", cli, "mcp", "list", "--json"); err != nil || strings.Contains(strings.ToLower(errOut), "hook") || strings.Contains(errOut, "nvalid") {
		t.Errorf("auggie on the settings with Bridle's hook: %v\n%s", err, errOut)
	}
	if _, err := Install(Options{Client: "augment", ProjectDir: proj, Command: "bridle", Server: "https://bridle.example.com", GatewayProject: gatewayProject}); err != nil {
		t.Fatal(err)
	}
	want := "bridle mcp --server https://bridle.example.com --project " + gatewayProject + " --token-file-env " + agents.TokenFileEnv("augment")
	if s := list()[ServerName]; s.Transport != "stdio" || s.Command != want {
		t.Errorf("after install --server: %+v, want the bridge %q", s, want)
	}
	if err := os.RemoveAll(filepath.Join(proj, ".augment")); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(Options{Client: "augment", Home: home, Command: "/usr/local/bin/bridle", Rules: "/srv/rules", Ref: "main"}); err != nil {
		t.Fatal(err)
	}
	if s := list()[ServerName]; s.Command != "/usr/local/bin/bridle mcp --rules /srv/rules --ref main --agent augment" {
		t.Errorf("after a user install: %+v", s)
	}
}
