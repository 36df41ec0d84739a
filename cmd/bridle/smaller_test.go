package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

// Shell completion is in bridle --help, and the command it names works.
func TestHelpNamesCompletion(t *testing.T) {
	_, out, _ := bridle(t, "--help")
	if !strings.Contains(out, "bridle completion bash") {
		t.Errorf("bridle --help does not say how to get shell completion:\n%s", out)
	}
	if code, out, stderr := bridle(t, "completion", "bash"); code != 0 || !strings.Contains(out, "bash completion") {
		t.Errorf("bridle completion bash: exit %d, %s", code, stderr)
	}
}

// A name that is not a secret's is named in the refusal (typed as a name;
// the value comes from stdin), for each verb that takes one.
func TestSecretsNameTheBadName(t *testing.T) {
	isolated(t)
	dir := rulesInit(t)
	for _, verb := range []string{"set", "rotate", "revoke"} {
		code, _, stderr := bridle(t, "secrets", verb, "Bad Name", "--rules", dir)
		if code != exitUsage || !strings.Contains(stderr, `"Bad Name" is not a secret name`) {
			t.Errorf("secrets %s \"Bad Name\": exit %d, %s", verb, code, stderr)
		}
	}
}

// A person adds a memory from the CLI; search finds it, as theirs.
func TestMemoryRememberForHumans(t *testing.T) {
	isolated(t)
	dir := rulesInit(t)
	code, out, stderr := bridle(t, "memory", "remember", "We chose SQLite:", "one file, no server.", "--rules", dir, "--kind", "decision", "--tag", "db", "--json")
	var r memory.Record
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Text != "We chose SQLite: one file, no server." || r.Payload["agent"] != "Mira Okafor" {
		t.Fatalf("memory remember: exit %d, %+v %s", code, r, stderr)
	}
	_, out, _ = bridle(t, "memory", "search", "sqlite", "--rules", dir, "--kind", "decision", "--tag", "db")
	if !strings.Contains(out, r.ID) {
		t.Errorf("memory search does not find what a person remembered:\n%s", out)
	}
	if code, _, stderr := bridle(t, "memory", "remember", "x", "--rules", dir, "--kind", "gossip"); code == 0 || !strings.Contains(stderr, "decision, context, history, note") {
		t.Errorf("a bad kind: exit %d, %s", code, stderr)
	}
}

// explain without --agent lists every agent of the rules (one line each,
// or every explanation as JSON), instead of an error.
func TestExplainListsEveryAgent(t *testing.T) {
	code, out, stderr := bridle(t, "explain", "--rules", example)
	if code != 0 {
		t.Fatalf("explain: exit %d, %s", code, stderr)
	}
	for _, a := range []string{"claude", "codex", "deepseek", "kimi"} {
		if !strings.Contains(out, "\n"+a+" ") {
			t.Errorf("explain does not list %s:\n%s", a, out)
		}
	}
	code, out, _ = bridle(t, "explain", "--rules", example, "--json")
	var all []renderers.Explanation
	if code != 0 || json.Unmarshal([]byte(out), &all) != nil || len(all) != 4 || all[0].Agent != "claude" {
		t.Errorf("explain --json: exit %d, %d explanations", code, len(all))
	}
}

// A minted token never lands in a file others may read: --out FILE is
// 0600, and so is stdout redirected to a file (agents add … > FILE).
func TestAgentTokenFilesAreOwnerOnly(t *testing.T) {
	isolated(t)
	dir := rulesInit(t)
	url, admin := testGateway(t, "proj", dir)
	t.Setenv("BRIDLE_SERVER", url)
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", admin)
	out := filepath.Join(t.TempDir(), "claude.token")
	if code, _, stderr := bridle(t, "agents", "add", "--project", "proj", "--agent", "claude", "--out", out); code != 0 {
		t.Fatalf("agents add --out: %s", stderr)
	}
	redirected := filepath.Join(t.TempDir(), "codex.token")
	f, err := os.OpenFile(redirected, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	code := run([]string{"agents", "add", "--project", "proj", "--agent", "codex"}, f, &errOut)
	f.Close()
	if code != 0 {
		t.Fatalf("agents add > file: %s", errOut.String())
	}
	for _, p := range []string{out, redirected} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want mode 0600", filepath.Base(p), st.Mode(), err)
		}
		if b, _ := os.ReadFile(p); !strings.HasPrefix(string(b), "bridle_") {
			t.Errorf("%s holds no token", filepath.Base(p))
		}
	}
}

// propose guardrail adds an enforce: block from --forbid, --ask, --no-read
// and --no-write (a hard-instruction by default), kept through approval.
func TestProposeGuardrailEnforce(t *testing.T) {
	isolated(t)
	dir := rulesInit(t)
	code, out, stderr := bridle(t, "propose", "guardrail", "--rules", dir, "--id", "no-force-push", "--statement", "Never force-push.", "--why", "We lost work.",
		"--as", "Alice Agent", "--forbid", "git push --force", "--ask", "git push", "--no-read", ".env", "--no-read", "secrets/**", "--no-write", "secrets/**", "--json")
	var p proposals.Proposal
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("propose: exit %d, %s", code, stderr)
	}
	mustRun(t, "approve", strconv.Itoa(p.Number), "--rules", dir)
	_, out, _ = bridle(t, "compile", "--rules", dir, "-o", "-")
	var snap struct {
		Document schema.Document `json:"document"`
	}
	if err := json.Unmarshal([]byte(out), &snap); err != nil {
		t.Fatal(err)
	}
	want := schema.Enforce{Commands: schema.CommandRules{Forbid: []string{"git push --force"}, Ask: []string{"git push"}},
		Paths: schema.PathRules{NoRead: []string{".env", "secrets/**"}, NoWrite: []string{"secrets/**"}}}
	for _, g := range snap.Document.Guardrails {
		if g.ID == "no-force-push" {
			if !reflect.DeepEqual(g.Enforce, want) || g.Severity != schema.HardInstruction {
				t.Errorf("the approved guardrail: %s %+v, want %+v", g.Severity, g.Enforce, want)
			}
			return
		}
	}
	t.Errorf("no guardrail no-force-push on main")
}

// vendor sync with its sources unreachable says each URL once and how many
// of the sources it read.
func TestVendorSyncOfflineSummary(t *testing.T) {
	isolated(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/guide.md"
	ln.Close() // nothing listens: the connection is refused
	dir := vendorRules(t, url)
	code, _, stderr := bridle(t, "vendor", "sync", "--rules", dir)
	if code != exitFailure || strings.Count(stderr, url) != 1 || !strings.Contains(stderr, "0 of 1 source read") {
		t.Errorf("vendor sync offline: exit %d, %s", code, stderr)
	}
}

// install --server over the local sidecar's entry replaces it and says so,
// with how to go back; the reverse too.
func TestInstallSaysWhatItReplaced(t *testing.T) {
	isolated(t)
	dir := rulesInit(t)
	project := filepath.Dir(dir)
	mustRun(t, "install", "claude", "--project", project, "--rules", dir)
	code, _, stderr := bridle(t, "install", "claude", "--server", "http://127.0.0.1:7777", "--project", "acme", "--dir", project)
	if code != 0 || !strings.Contains(stderr, "it replaced") || !strings.Contains(stderr, "the local sidecar (bridle mcp on the rules in") || !strings.Contains(stderr, "to go back: bridle install claude") {
		t.Errorf("install --server over the sidecar: exit %d, %s", code, stderr)
	}
	code, _, stderr = bridle(t, "install", "claude", "--project", project, "--rules", dir)
	if code != 0 || !strings.Contains(stderr, "which reached a gateway (http://127.0.0.1:7777/p/acme/mcp)") {
		t.Errorf("install over the gateway's entry: exit %d, %s", code, stderr)
	}
}

// modeWriter writes to f, noting f's mode at each write.
type modeWriter struct {
	f     *os.File
	modes []os.FileMode
}

func (w *modeWriter) Write(p []byte) (int, error) {
	if st, err := w.f.Stat(); err == nil {
		w.modes = append(w.modes, st.Mode().Perm())
	}
	return w.f.Write(p)
}

// TestAgentsAddRedirectedIsPrivateFirst: bridle agents add … > FILE makes
// FILE readable by its owner only before any byte of the token is written,
// and warns (without the token) when FILE already held something (>>).
func TestAgentsAddRedirectedIsPrivateFirst(t *testing.T) {
	isolated(t)
	url, admin := testGateway(t, "proj", rulesInit(t))
	t.Setenv("BRIDLE_SERVER", url)
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", admin)
	file := filepath.Join(t.TempDir(), "tokens")
	for i, agent := range []string{"codex", "gemini"} {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(file, 0o644) // as a shell's > makes it, and >> finds it
		w := &modeWriter{f: f}
		var errOut bytes.Buffer
		root := newRoot(&streams{out: w, errOut: &errOut, f: processFactory(), protocol: f})
		root.SetArgs([]string{"agents", "add", "--project", "proj", "--agent", agent})
		err = root.Execute()
		f.Close()
		if err != nil {
			t.Fatalf("agents add %s > file: %v\n%s", agent, err, errOut.String())
		}
		if len(w.modes) == 0 || slices.ContainsFunc(w.modes, func(m os.FileMode) bool { return m != 0o600 }) {
			t.Errorf("agents add %s > file: modes when written %v, want 0600 before the first byte", agent, w.modes)
		}
		b, _ := os.ReadFile(file)
		toks := strings.Fields(string(b))
		warned := strings.Contains(errOut.String(), "already holds")
		if len(toks) != i+1 || warned != (i > 0) || strings.Contains(errOut.String(), toks[i]) {
			t.Errorf("agents add %s >> file: %d tokens, warned %v (want %v):\n%s", agent, len(toks), warned, i > 0, errOut.String())
		}
	}
}
