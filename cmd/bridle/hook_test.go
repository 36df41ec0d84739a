package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const enforcedRules = `schema_version: 1
project: {id: demo}
guardrails:
  - id: no-force-push
    statement: Never force-push to shared branches.
    severity: enforcement
    enforce:
      commands:
        forbid: ["git push --force", "git push -f"]
        ask: ["git push"]
      paths:
        no_read: [".env"]
        no_write: ["migrations/**"]
agent_profiles:
  claude: {}
permissions:
  claude: {}
`

// TestHookClaude feeds the hook what Claude Code sends before a tool call
// and checks its decision and message.
func TestHookClaude(t *testing.T) {
	t.Setenv("BRIDLE_CACHE_DIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "rules")
	if code, _, stderr := bridle(t, "init", dir); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	directCommit(t, dir, func(string) string { return enforcedRules })
	// The direct commit is unapproved, but its guardrail is served (marked)
	// and enforced: guardrails only restrict.
	project := t.TempDir()
	t.Setenv("CLAUDE_PROJECT_DIR", project)
	tests := []struct {
		tool, input, decision, want string
	}{
		{"Bash", `{"command":"git push --force origin main"}`, "deny", "no-force-push"},
		{"Bash", `{"command":"cd /tmp && FOO=1 git -C . push -f"}`, "deny", "Never force-push"},
		{"Bash", `{"command":"git push origin main"}`, "ask", "no-force-push"},
		{"Bash", `{"command":"git status"}`, "", ""},
		{"Read", `{"file_path":"` + filepath.Join(project, ".env") + `"}`, "deny", "no-force-push"},
		{"Write", `{"file_path":"` + filepath.Join(project, "migrations", "001.sql") + `","content":"x"}`, "deny", "no-force-push"},
		{"Read", `{"file_path":"` + filepath.Join(project, "main.go") + `"}`, "", ""},
		{"WebFetch", `{"url":"https://example.com"}`, "", ""},
	}
	for _, tt := range tests {
		in := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"` + tt.tool + `","tool_input":` + tt.input + `,"cwd":"` + project + `"}`
		code, out, stderr := bridleStdin(t, in, "hook", "claude", "--rules", dir)
		if code != 0 {
			t.Fatalf("%s %s: exit %d %s", tt.tool, tt.input, code, stderr)
		}
		if tt.decision == "" {
			if out != "" {
				t.Errorf("%s %s: %s, want no output (defer to Claude Code)", tt.tool, tt.input, out)
			}
			continue
		}
		var got struct {
			HookSpecificOutput struct {
				HookEventName, PermissionDecision, PermissionDecisionReason string
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v: %q", tt.input, err, out)
		}
		h := got.HookSpecificOutput
		if h.HookEventName != "PreToolUse" || h.PermissionDecision != tt.decision || !strings.Contains(h.PermissionDecisionReason, tt.want) {
			t.Errorf("%s %s: %+v, want %s naming %q", tt.tool, tt.input, h, tt.decision, tt.want)
		}
	}
	// Garbage in, or rules that cannot be loaded: the human decides.
	for _, c := range []struct{ in, rules string }{{"{not json", dir}, {`{"tool_name":"Bash","tool_input":{"command":"ls"}}`, t.TempDir()}} {
		code, out, _ := bridleStdin(t, c.in, "hook", "claude", "--rules", c.rules)
		if code != 0 || !strings.Contains(out, `"permissionDecision":"ask"`) {
			t.Errorf("hook on %q with rules %s: %d %s, want ask", c.in, c.rules, code, out)
		}
	}
}

func bridleStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(stdin)
	f.Seek(0, 0)
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old; f.Close() }()
	return bridle(t, args...)
}

// TestExplainEnforcement: explain reports, for the agent's harness, how each
// enforce entry is enforced and why (the translation-loss report).
func TestExplainEnforcement(t *testing.T) {
	t.Setenv("BRIDLE_CACHE_DIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "rules")
	if code, _, stderr := bridle(t, "init", dir); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	directCommit(t, dir, func(string) string { return enforcedRules })
	for agent, want := range map[string][]string{
		"claude": {"enforcement (claude):", "hook", `Read(./.env)`},
	} {
		code, out, stderr := bridle(t, "explain", "--rules", dir, "--ref", "main", "--agent", agent)
		for _, w := range want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("explain %s lacks %q: %d\n%s\n%s", agent, w, code, out, stderr)
			}
		}
	}
}

// TestHookMasksSecrets: the hook's reason quotes the command; a secret in
// it never reaches the output.
func TestHookMasksSecrets(t *testing.T) {
	const canary = "gtea_hook_canary_5b1e0c"
	t.Setenv("GITEA_TOKEN", canary)
	t.Setenv("BRIDLE_CACHE_DIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "rules")
	if code, _, stderr := bridle(t, "init", dir); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	directCommit(t, dir, func(string) string { return enforcedRules })
	in := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force https://x:` + canary + `@git.example/r"}}`
	code, out, _ := bridleStdin(t, in, "hook", "claude", "--rules", dir)
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || strings.Contains(out, canary) {
		t.Errorf("hook output: %d %s", code, out)
	}
}

// TestHookAmp: bridle hook amp, as Amp's delegate runs it, takes the tool
// from AGENT_TOOL_NAME and its arguments from stdin, and answers in exit
// codes: 2 (the guardrail on stderr, masked) rejects, 1 asks, 0 allows
// silently; input it cannot read is a reject saying why.
func TestHookAmp(t *testing.T) {
	const canary = "gtea_amp_hook_canary_7d2f"
	t.Setenv("GITEA_TOKEN", canary)
	t.Setenv("BRIDLE_CACHE_DIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "rules")
	if code, _, stderr := bridle(t, "init", dir); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	directCommit(t, dir, func(string) string { return enforcedRules })
	project := t.TempDir()
	t.Chdir(project)
	for _, tt := range []struct {
		tool, input string
		code        int
		want        string
	}{
		{"Bash", `{"cmd":"git push --force origin main"}`, 2, "no-force-push"},
		{"Bash", `{"cmd":"git push --force https://x:` + canary + `@git.example/r"}`, 2, "no-force-push"},
		{"Bash", `{"cmd":"git push origin main"}`, 1, "no-force-push"},
		{"Bash", `{"cmd":"git status"}`, 0, ""},
		{"Read", `{"path":"` + filepath.Join(project, ".env") + `"}`, 2, "no-force-push"},
		{"Read", `{"path":"` + filepath.Join(project, "main.go") + `"}`, 0, ""},
		{"Bash", `{`, 2, "could not read"},
		{"", `{"cmd":"ls"}`, 2, "AGENT_TOOL_NAME"},
	} {
		t.Setenv("AGENT_TOOL_NAME", tt.tool)
		code, out, stderr := bridleStdin(t, tt.input, "hook", "amp", "--rules", dir)
		if code != tt.code || out != "" || !strings.Contains(stderr, tt.want) || tt.code == 0 && stderr != "" || strings.Contains(stderr, canary) {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit %d naming %q", tt.tool, tt.input, code, out, stderr, tt.code, tt.want)
		}
	}
}
