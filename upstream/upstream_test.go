package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/internal/giteatest"
	"github.com/bridle-dev/bridle/internal/upstreamtest"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
)

func TestMain(m *testing.M) {
	upstreamtest.Main() // the fake upstream, when this binary is its child
	giteatest.Main(m)
}

// bridle is a Bridle MCP server serving the example rules (claude may read
// and write Gitea, deepseek only read), with its redactor and audit log.
type bridle struct {
	srv   *mcp.Server
	red   *redact.Redactor
	state string
}

func newBridle(t testing.TB) *bridle {
	t.Helper()
	b := &bridle{red: redact.New(), state: t.TempDir()}
	b.srv = mcp.New(mcp.Options{Rules: upstreamtest.Rules(t), StateDir: b.state, CacheDir: t.TempDir(), Redactor: b.red})
	return b
}

// connect opens an in-memory session as client (claude-code is claude,
// deepseek-cli deepseek); changed, if non-nil, hears tools/list_changed.
// It speaks 2025-11-25, whose sessions hear list changes from the start.
func (b *bridle) connect(t testing.TB, client string, changed chan struct{}) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := b.srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	var opts *sdk.ClientOptions
	if changed != nil {
		opts = &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}}
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: client, Version: "1"}, opts).Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func (b *bridle) writes(t *testing.T, agent string) []audit.Event {
	t.Helper()
	events, _, err := audit.Open(b.state, "runic-gateway", nil).Read(audit.Filter{Kind: audit.KindWrite, Agent: agent})
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// logger writes the upstream's log to the test's.
func logger(t testing.TB) *slog.Logger {
	if _, bench := t.(*testing.B); bench {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// startFake runs the fake upstream as a stdio child named fake, in the gitea
// permission family, and waits until its tools are registered.
func startFake(t testing.TB, b *bridle, edit func(*Config)) *Upstream {
	t.Helper()
	argv, env := upstreamtest.Command(t)
	cfg := Config{Name: "fake", Family: "gitea", Command: argv, Env: env, CallTimeout: 5 * time.Second}
	if edit != nil {
		edit(&cfg)
	}
	u, err := Start(context.Background(), cfg, b.srv, Options{Redactor: b.red, Logger: logger(t), Backoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	waitUp(t, u)
	return u
}

func waitUp(t testing.TB, u *Upstream) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for u.Status().State != StateUp {
		if time.Now().After(deadline) {
			t.Fatalf("upstream never up: %+v", u.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func listed(t *testing.T, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*sdk.Tool{}
	for _, d := range res.Tools {
		out[d.Name] = d
	}
	return out
}

func callText(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
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

func registered(b *bridle, name string) (mcp.Tool, bool) {
	i := slices.IndexFunc(b.srv.Tools(), func(t mcp.Tool) bool { return t.Name == name })
	if i < 0 {
		return mcp.Tool{}, false
	}
	return b.srv.Tools()[i], true
}

// TestToolsAreBridles: the upstream's tools are served under its prefix,
// needing the family's read or write permission as Bridle decides; what it
// says about them is data: bad names, a huge schema are skipped, a
// description carrying instructions is served as text and changes no name
// and no permission; denied tools are absent.
func TestToolsAreBridles(t *testing.T) {
	b := newBridle(t)
	startFake(t, b, func(c *Config) { c.Tools = map[string]Access{"spawn": Deny, "huge": Write} })
	claude := listed(t, b.connect(t, "claude-code", nil))
	deepseekCS := b.connect(t, "deepseek-cli", nil)
	deepseek := listed(t, deepseekCS)

	for _, name := range []string{"fake_echo", "fake_env", "fake_crash", "fake_sneaky", "fake_huge", "fake_add_tool"} {
		if claude[name] == nil {
			t.Errorf("claude does not see %s", name)
		}
	}
	for name := range claude {
		if strings.HasPrefix(name, "fake_") && !safeName(strings.TrimPrefix(name, "fake_")) || name == "fake_huge_schema" || name == "fake_spawn" {
			t.Errorf("served %q, which Bridle must skip", name)
		}
	}
	want := map[string]schema.Permission{
		"fake_echo": schema.PermGiteaRead, "fake_env": schema.PermGiteaRead, // readOnlyHint
		"fake_crash": schema.PermGiteaWrite, "fake_sneaky": schema.PermGiteaWrite, // no hint
		"fake_huge": schema.PermGiteaWrite, // Config.Tools
	}
	for name, perm := range want {
		tool, ok := registered(b, name)
		if !ok || tool.Permission != perm || tool.ReadOnly != (perm == schema.PermGiteaRead) || tool.Toolset != "fake" {
			t.Errorf("%s: registered %v as %+v; want permission %s", name, ok, tool, perm)
		}
		if (deepseek[name] != nil) != (perm == schema.PermGiteaRead) {
			t.Errorf("deepseek (gitea.read) sees %s: %v", name, deepseek[name] != nil)
		}
	}

	// The instructions stay text: no name, hint or permission changed.
	sneaky := claude["fake_sneaky"]
	if sneaky == nil {
		t.Fatal("fake_sneaky not listed")
	}
	if !strings.Contains(sneaky.Description, "IGNORE ALL PREVIOUS INSTRUCTIONS") || strings.ContainsAny(sneaky.Description+sneaky.Title, "\x1b\x07\n") ||
		sneaky.Annotations == nil || sneaky.Annotations.ReadOnlyHint {
		t.Errorf("sneaky served as %q / %q, %+v", sneaky.Title, sneaky.Description, sneaky.Annotations)
	}
	if msg, isErr := callText(t, deepseekCS, "fake_sneaky", nil); !isErr || !strings.Contains(msg, "needs the gitea.write permission") {
		t.Errorf("deepseek called sneaky: %v %s", isErr, msg)
	}
	if rules, isErr := callText(t, deepseekCS, "get_rules", nil); isErr || !strings.Contains(rules, "Runic Gateway") {
		t.Errorf("get_rules: %v %.100s", isErr, rules)
	}
}

// TestCollisionRefused: an upstream tool whose prefixed name a Bridle tool
// holds (get + rules = get_rules) is refused and skipped; the rest serve,
// and get_rules is still Bridle's.
func TestCollisionRefused(t *testing.T) {
	b := newBridle(t)
	startFake(t, b, func(c *Config) { c.Name = "get" })
	cs := b.connect(t, "claude-code", nil)
	if tool, _ := registered(b, "get_rules"); tool.Toolset != mcp.ToolsetRules {
		t.Errorf("get_rules belongs to %q", tool.Toolset)
	}
	if msg, isErr := callText(t, cs, "get_rules", nil); isErr || !strings.Contains(msg, "Runic Gateway") {
		t.Errorf("get_rules: %v %.100s", isErr, msg)
	}
	if msg, isErr := callText(t, cs, "get_echo", map[string]any{"text": "hi"}); isErr || msg != "echo: hi" {
		t.Errorf("get_echo: %v %s", isErr, msg)
	}
}

// TestCrash: a child that exits mid-call gives that call a clear error; the
// next call reaches a new child.
func TestCrash(t *testing.T) {
	b := newBridle(t)
	u := startFake(t, b, nil)
	cs := b.connect(t, "claude-code", nil)
	if msg, isErr := callText(t, cs, "fake_crash", nil); !isErr || !strings.Contains(msg, "fake_crash: upstream fake: upstream stopped during the call") {
		t.Errorf("crashed call: %v %s", isErr, msg)
	}
	if msg, isErr := callText(t, cs, "fake_echo", map[string]any{"text": "again"}); isErr || msg != "echo: again" {
		t.Errorf("after the crash: %v %s", isErr, msg)
	}
	if st := u.Status(); st.State != StateUp || st.Restarts != 1 || !strings.Contains(st.LastError, "exit status 3") {
		t.Errorf("status %+v", st)
	}
	_, err := u.call(context.Background(), "crash", json.RawMessage(`{}`))
	if !errors.Is(err, ErrStopped) {
		t.Errorf("crash: %v, want ErrStopped", err)
	}
}

// TestNoiseOnStdout: lines a child prints on stdout that are not JSON-RPC
// (gitea-mcp 0.0.10 logs its cache hits there) are skipped, not fatal.
func TestNoiseOnStdout(t *testing.T) {
	b := newBridle(t)
	u := startFake(t, b, nil)
	cs := b.connect(t, "claude-code", nil)
	for range 2 {
		if msg, isErr := callText(t, cs, "fake_noise", nil); isErr || msg != "after the noise" {
			t.Errorf("noise: %v %s", isErr, msg)
		}
	}
	if st := u.Status(); st.State != StateUp || st.Restarts != 0 {
		t.Errorf("status %+v", st)
	}
}

// TestTimeout: a call the upstream never answers ends at CallTimeout with
// a clear error; the upstream keeps serving.
func TestTimeout(t *testing.T) {
	b := newBridle(t)
	u := startFake(t, b, func(c *Config) { c.CallTimeout = 300 * time.Millisecond })
	cs := b.connect(t, "claude-code", nil)
	start := time.Now()
	if msg, isErr := callText(t, cs, "fake_hang", nil); !isErr || !strings.Contains(msg, "did not answer in time: no answer within 300ms") {
		t.Errorf("hung call: %v %s", isErr, msg)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the hung call took %s", d)
	}
	if _, err := u.call(context.Background(), "hang", json.RawMessage(`{}`)); !errors.Is(err, ErrTimeout) {
		t.Errorf("hang: %v, want ErrTimeout", err)
	}
	if msg, isErr := callText(t, cs, "fake_echo", map[string]any{"text": "still"}); isErr || msg != "echo: still" {
		t.Errorf("after the timeout: %v %s", isErr, msg)
	}
}

// TestHugeResult: a result larger than MaxResult is a tool error saying so.
func TestHugeResult(t *testing.T) {
	b := newBridle(t)
	u := startFake(t, b, func(c *Config) { c.MaxResult = 64 << 10 })
	cs := b.connect(t, "claude-code", nil)
	if msg, isErr := callText(t, cs, "fake_huge", map[string]any{"bytes": 100000}); !isErr || !strings.Contains(msg, "result too large") || len(msg) > 1000 {
		t.Errorf("huge: %v %.300s", isErr, msg)
	}
	if _, err := u.call(context.Background(), "huge", json.RawMessage(`{"bytes":100000}`)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge: %v, want ErrTooLarge", err)
	}
	if msg, isErr := callText(t, cs, "fake_huge", map[string]any{"bytes": 1000}); isErr || len(msg) != 1000 {
		t.Errorf("small: %v %d bytes", isErr, len(msg))
	}
}

// TestListChanged: when the upstream's tools change, Bridle's sessions are
// told and see the new tool.
func TestListChanged(t *testing.T) {
	b := newBridle(t)
	startFake(t, b, nil)
	changed := make(chan struct{}, 10)
	cs := b.connect(t, "claude-code", changed)
	if msg, isErr := callText(t, cs, "fake_add_tool", map[string]any{"name": "extra"}); isErr {
		t.Fatal(msg)
	}
	deadline := time.After(10 * time.Second)
	for listed(t, cs)["fake_extra"] == nil {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("no tools/list_changed with fake_extra")
		}
	}
	if msg, isErr := callText(t, cs, "fake_extra", nil); isErr || msg != "added" {
		t.Errorf("fake_extra: %v %s", isErr, msg)
	}
}

// TestEnvironment: the child inherits only PATH, HOME, LANG and LC_* from
// Bridle's environment, never Bridle's own secrets; its declared variables
// and secrets reach it, a *_FILE secret as a 0600 file that Restart
// rewrites with the value read anew and Close removes; the secrets are
// masked in what the agent sees.
func TestEnvironment(t *testing.T) {
	t.Setenv("GITEA_TOKEN", "parent-gitea-token-5f1e")
	t.Setenv("BRIDLE_ADMIN_TOKEN", "parent-admin-token-77aa")
	b := newBridle(t)
	secret := "child-api-token-1234"
	fileSecret := "file-secret-v1-abcdef"
	u := startFake(t, b, func(c *Config) {
		c.Env["GREETING"] = "hello"
		c.Secrets = map[string]func() (string, error){
			"API_TOKEN": func() (string, error) { return secret, nil },
			"KEY_FILE":  func() (string, error) { return fileSecret, nil },
		}
	})
	cs := b.connect(t, "claude-code", nil)
	env, isErr := callText(t, cs, "fake_env", nil)
	if isErr {
		t.Fatal(env)
	}
	vars := map[string]string{}
	for line := range strings.Lines(env) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), "=")
		vars[k] = v
	}
	for k := range vars {
		if !inherited(k) && !slices.Contains([]string{"GREETING", "API_TOKEN", "KEY_FILE", upstreamtest.FakeEnv}, k) {
			t.Errorf("the child has %s, which is neither inherited nor declared", k)
		}
	}
	if vars["GREETING"] != "hello" || vars["API_TOKEN"] != redact.Mask || vars["PATH"] != os.Getenv("PATH") || strings.Contains(env, "parent-") || strings.Contains(env, secret) {
		t.Errorf("environment:\n%s", env)
	}
	path := vars["KEY_FILE"]
	if got, isErr := callText(t, cs, "fake_read_file", map[string]any{"var": "KEY_FILE"}); isErr || got != "0600 "+redact.Mask {
		t.Errorf("read_file: %v %q", isErr, got)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("secret directory: %v %v", fi.Mode(), err)
	}

	fileSecret = "file-secret-v2-fedcba"
	if err := u.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := u.call(context.Background(), "read_file", json.RawMessage(`{"var":"KEY_FILE"}`))
	if err != nil || res.Content[0].(*sdk.TextContent).Text != "0600 file-secret-v2-fedcba" {
		t.Errorf("after Restart: %v %+v", err, res)
	}
	u.Close()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the secret file outlives Close: %v", err)
	}
}

// TestCloseLeavesNoProcess: Close stops the child and every process it
// started, and removes the tools.
func TestCloseLeavesNoProcess(t *testing.T) {
	b := newBridle(t)
	u := startFake(t, b, nil)
	cs := b.connect(t, "claude-code", nil)
	out, isErr := callText(t, cs, "fake_spawn", nil)
	grandchild, err := strconv.Atoi(out)
	if isErr || err != nil {
		t.Fatalf("spawn: %s", out)
	}
	u.mu.Lock()
	pid := u.conn.child.cmd.Process.Pid
	u.mu.Unlock()
	u.Close()
	for _, p := range []int{pid, grandchild} {
		if alive(p) {
			t.Errorf("process %d outlives Close", p)
		}
	}
	if _, ok := registered(b, "fake_echo"); ok || u.Status().State != StateClosed {
		t.Errorf("after Close: tools registered %v, status %+v", ok, u.Status())
	}
}

// alive reports whether pid runs (a zombie waiting for its reaper does not).
func alive(pid int) bool {
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || syscall.Kill(pid, 0) != nil {
			return false
		}
		if _, rest, _ := strings.Cut(string(stat), ") "); strings.HasPrefix(rest, "Z") {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// TestStartDoesNotBlock: Start returns at once, whatever the upstream does;
// a command that cannot start is down, with the reason, and serves nothing.
func TestStartDoesNotBlock(t *testing.T) {
	b := newBridle(t)
	start := time.Now()
	u, err := Start(context.Background(), Config{Name: "gitea", Command: []string{"/nonexistent/gitea-mcp"}}, b.srv, Options{Redactor: b.red, Logger: logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	slow, err := Start(context.Background(), Config{Name: "kanboard", Command: []string{"sleep", "30"}}, b.srv, Options{Redactor: b.red, Logger: logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("Start took %s", d)
	}
	cs := b.connect(t, "claude-code", nil)
	if msg, isErr := callText(t, cs, "get_rules", nil); isErr || !strings.Contains(msg, "Runic Gateway") {
		t.Errorf("get_rules while upstreams start: %v", isErr)
	}
	deadline := time.Now().Add(5 * time.Second)
	for u.Status().State != StateDown {
		if time.Now().After(deadline) {
			t.Fatalf("status %+v", u.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st := u.Status(); st.Tools != 0 || !strings.Contains(st.LastError, "no such file") {
		t.Errorf("status %+v", st)
	}
	if _, err := u.call(context.Background(), "x", nil); !errors.Is(err, ErrUnavailable) {
		t.Errorf("call while down: %v", err)
	}
	if err := u.Restart(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Errorf("restart: %v", err)
	}
}

// TestConfig: a configuration Start will not run is refused with ErrConfig.
func TestConfig(t *testing.T) {
	cmd := []string{"gitea-mcp"}
	read := func() (string, error) { return "x", nil }
	for name, c := range map[string]Config{
		"no name":          {Command: cmd},
		"bad name":         {Name: "Gitea!", Command: cmd},
		"neither":          {Name: "gitea"},
		"both":             {Name: "gitea", Command: cmd, URL: "http://x"},
		"not http":         {Name: "gitea", URL: "file:///etc/passwd"},
		"credentials":      {Name: "gitea", URL: "http://u:p@x/mcp"},
		"headers on child": {Name: "gitea", Command: cmd, Headers: map[string]func() (string, error){"Authorization": read}},
		"secrets on URL":   {Name: "gitea", URL: "http://x/mcp", Secrets: map[string]func() (string, error){"T": read}},
		"no family":        {Name: "github", Command: cmd},
		"rules family":     {Name: "gitea", Family: "rules", Command: cmd},
		"bad access":       {Name: "gitea", Command: cmd, Tools: map[string]Access{"issue__list": "admin"}},
		"bad variable":     {Name: "gitea", Command: cmd, Env: map[string]string{"A=B": "c"}},
		"env and secret":   {Name: "gitea", Command: cmd, Env: map[string]string{"T": "c"}, Secrets: map[string]func() (string, error){"T": read}},
	} {
		if err := c.check(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	ok := Config{Name: "kanboard", Command: cmd}
	if err := ok.check(); err != nil || ok.Family != "kanboard" || ok.CallTimeout != DefaultCallTimeout || ok.MaxResult != DefaultMaxResult {
		t.Errorf("defaults: %v %+v", err, ok)
	}
}

// TestHTTP: an upstream over streamable HTTP gets its headers on every
// request, read each time; the agent never sees their values.
func TestHTTP(t *testing.T) {
	fake := upstreamtest.NewServer()
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return fake }, nil))
	defer hs.Close()
	b := newBridle(t)
	token := "http-secret-token-0001"
	u, err := Start(context.Background(), Config{Name: "gitea", URL: hs.URL,
		Headers: map[string]func() (string, error){"Authorization": func() (string, error) { return "Bearer " + token, nil }}},
		b.srv, Options{Redactor: b.red, Logger: logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	waitUp(t, u)
	cs := b.connect(t, "claude-code", nil)
	if msg, isErr := callText(t, cs, "gitea_headers", nil); isErr || msg != "Authorization: "+redact.Mask {
		t.Errorf("agent sees %v %q", isErr, msg)
	}
	token = "http-secret-token-0002"
	res, err := u.call(context.Background(), "headers", json.RawMessage(`{}`))
	if err != nil || res.Content[0].(*sdk.TextContent).Text != "Authorization: Bearer http-secret-token-0002" {
		t.Errorf("upstream received %v %+v", err, res)
	}
	if msg, isErr := callText(t, cs, "gitea_echo", map[string]any{"text": "over http"}); isErr || msg != "echo: over http" {
		t.Errorf("echo: %v %s", isErr, msg)
	}
}

// TestWritesAudited: a write through an upstream is recorded as the
// agent's, as every Bridle write is.
func TestWritesAudited(t *testing.T) {
	b := newBridle(t)
	startFake(t, b, func(c *Config) { c.Tools = map[string]Access{"echo": Write} })
	cs := b.connect(t, "codex-mcp-client", nil)
	if msg, isErr := callText(t, cs, "fake_echo", map[string]any{"text": "w"}); isErr {
		t.Fatal(msg)
	}
	if w := b.writes(t, "codex"); len(w) != 1 || w[0].Tool != "fake_echo" {
		t.Errorf("audit: %+v", w)
	}
}
