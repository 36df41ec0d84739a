package install

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/internal/agentclients"
	"github.com/bridle-dev/bridle/schema"
)

// ampRules are compiler/testdata/golden/enforce.txtar's guardrails, for an
// amp profile.
const ampRules = `schema_version: 1
project:
  id: enforced
guardrails:
  - id: no-force-push
    statement: Never force-push to shared branches.
    severity: enforcement
    enforce:
      commands:
        forbid: ["git push --force", "git push -f"]
        ask: ["git push"]
  - id: no-secret-files
    statement: Do not read secrets or edit migrations by hand.
    severity: hard-instruction
    enforce:
      paths:
        no_read: [".env", "secrets/**"]
        no_write: ["migrations/**"]
agent_profiles:
  amp: {}
`

// TestInstallRealAmpDelegate: what install --project writes for Amp with
// enforce entries (.amp/bridle-hook and the amp.permissions delegate
// entries beside the MCP entry in .amp/settings.json) is what the pinned
// amp runs: amp permissions test, which runs the delegate, run from the
// project's root with the built bridle on PATH, rejects a force-push and a
// Read of a no_read file with the guardrail as the reason, asks about a
// plain push, allows a harmless command, and keeps the person's own entry
// (after Bridle's, where it no longer applies to the tools Bridle
// delegates); started in a subdirectory Amp does not find the script and
// rejects; with bridle not on PATH the script rejects by itself.
func TestInstallRealAmpDelegate(t *testing.T) {
	amp := agentclients.Bin(t, "BRIDLE_AMP_BIN", "amp")
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	home, proj := t.TempDir(), t.TempDir()
	rules := filepath.Join(proj, "rules")
	if err := os.MkdirAll(rules, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rules, "bridle.yaml"), []byte(ampRules), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "bridle.yaml"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "rules"}} {
		if out, err := exec.Command(git, append([]string{"-C", rules}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	f, diags := schema.Load("bridle.yaml", []byte(ampRules))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	writeJSONFile(t, filepath.Join(proj, ".amp", "settings.json"), map[string]any{
		"amp.permissions": []any{map[string]any{"tool": "Bash", "action": "allow", "matches": map[string]any{"cmd": "git push *"}}}})
	if _, err := Install(Options{Client: "amp", ProjectDir: proj, Command: "bridle", Rules: rules, Doc: &f.Doc}); err != nil {
		t.Fatal(err)
	}
	settings, err := os.ReadFile(filepath.Join(proj, ".amp", "settings.json"))
	if err != nil || !strings.Contains(string(settings), `"to": ".amp/bridle-hook"`) || !strings.Contains(string(settings), "amp.mcpServers") || !strings.Contains(string(settings), "git push *") {
		t.Fatalf(".amp/settings.json (%v):\n%s", err, settings)
	}
	if b, err := os.ReadFile(filepath.Join(proj, ".amp", "bridle-hook")); err != nil || !strings.Contains(string(b), "exec bridle hook amp --rules rules\n") {
		t.Fatalf(".amp/bridle-hook (%v):\n%s", err, b)
	}
	bin := filepath.Dir(bridleBinary(t))
	cwd := proj
	test := func(path string, args ...string) (action, reason string) {
		t.Helper()
		env := []string{"HOME=" + home, "NO_COLOR=1", "PATH=" + path}
		out, errOut, err := agentclients.Run(t, cwd, env, "", amp, append([]string{"permissions", "test", "--workspace", "--json"}, args...)...)
		if !strings.Contains(out, "{") {
			t.Fatalf("amp permissions test %v: %v\n%s\n%s", args, err, out, errOut)
		}
		var got struct{ Action, Error string }
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &got); err != nil {
			t.Fatalf("amp permissions test --json: %v\n%s", err, out)
		}
		return got.Action, got.Error
	}
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, tc := range []struct {
		args         []string
		want, reason string
	}{
		{[]string{"Bash", "--cmd", "git push --force origin main"}, "reject", "no-force-push"},
		{[]string{"Bash", "--cmd", "git push origin main"}, "ask", ""},
		{[]string{"Bash", "--cmd", "go test ./..."}, "allow", ""},
		{[]string{"shell_command", "--command", "git push -f"}, "reject", "no-force-push"},
		{[]string{"Read", "--path", filepath.Join(proj, ".env")}, "reject", "no-secret-files"},
		{[]string{"Read", "--path", filepath.Join(proj, "README.md")}, "allow", ""},
		{[]string{"create_file", "--path", filepath.Join(proj, "migrations", "1.sql"), "--content", "x"}, "reject", "no-secret-files"},
		// Amp takes the first entry that matches and Bridle's come first:
		// the person's own allow of git push (kept, after Bridle's) cannot
		// let a force-push past the guardrail (a restriction of theirs on
		// these tools is refused at render: renderers.TestAmpHookFile).
		{[]string{"Bash", "--cmd", "git push --force origin feature"}, "reject", "no-force-push"},
	} {
		if action, reason := test(path, tc.args...); action != tc.want || !strings.Contains(reason, tc.reason) {
			t.Errorf("amp permissions test %q: %s %q, want %s naming %q", tc.args, action, reason, tc.want, tc.reason)
		}
	}
	// Amp spawns "to" from its working directory: started in a
	// subdirectory of the repository, it finds the project's settings
	// (upward) but not the script, and rejects (ENOENT): closed, not open.
	if out, err := exec.Command(git, "-C", proj, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	cwd = filepath.Join(proj, "src")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	if action, reason := test(path, "Bash", "--cmd", "go test ./..."); action != "reject" || !strings.Contains(reason, "ENOENT") {
		t.Errorf("from src/: %s %q, want a reject for ENOENT", action, reason)
	}
	cwd = proj
	// Without bridle on PATH (the system's directories only, for sh).
	if action, reason := test("/usr/bin:/bin", "Bash", "--cmd", "ls"); action != "reject" || !strings.Contains(reason, "not on PATH") {
		t.Errorf("without bridle: %s %q, want a reject saying so", action, reason)
	}
}
