package renderers

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/internal/agentclients"
)

// The real-client tests run the agents' own CLIs, at the versions pinned in
// tests/agentclients, on the native files render writes. They skip, saying
// how to install them, when the CLIs are missing (as enforce's do).

// A rendered settings.json — merged with the user's own rules and hooks,
// hook entry included — is valid for Claude Code 2.1.328: claude doctor
// reports no "Invalid settings" (it exits 0 either way). A negative control
// proves the check can fail.
func TestRealClaudeDoctorOnRenderedSettings(t *testing.T) {
	bin := agentclients.Bin(t, "BRIDLE_CLAUDE_BIN", "claude")
	home := t.TempDir()
	doctor := func(proj string) string {
		t.Helper()
		out, errOut, err := agentclients.Run(t, proj, []string{"HOME=" + home}, "", bin, "doctor")
		if err != nil || !strings.Contains(out, "Claude Code doctor") {
			t.Fatalf("claude doctor: %v\n%s\n%s", err, out, errOut)
		}
		return out
	}
	proj := t.TempDir()
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(userSettings), 0o644)
	renderNative(t, proj, nativeDoc(true, "say \"hi\" \\ then\n\"}, \"x\": {"))
	if b, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json")); !bytes.Contains(b, []byte("bridle hook claude")) {
		t.Fatalf("no hook written:\n%s", b)
	}
	if out := doctor(proj); strings.Contains(out, "Invalid settings") {
		t.Errorf("claude doctor refused the rendered settings:\n%s", out)
	}

	bad := t.TempDir()
	os.MkdirAll(filepath.Join(bad, ".claude"), 0o755)
	b, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
	os.WriteFile(filepath.Join(bad, ".claude", "settings.json"), bytes.Replace(b, []byte(`"type": "command",
            "command": "bridle`), []byte(`"type": "comand",
            "command": "bridle`), 1), 0o644)
	if out := doctor(bad); !strings.Contains(out, "Invalid settings") {
		t.Errorf("negative control: a bad hook type was not reported:\n%s", out)
	}
}

// The rendered .codex/rules/bridle.rules loads in Codex 0.169.0 and
// forbids what it should.
func TestRealCodexOnRenderedRules(t *testing.T) {
	bin := agentclients.Bin(t, "BRIDLE_CODEX_BIN", "codex")
	proj := t.TempDir()
	home := t.TempDir()
	renderNative(t, proj, nativeDoc(true, "say \"hi\" \\ then\n\"), decision=\"allow\", x=(\""))
	rules := filepath.Join(proj, ".codex", "rules", "bridle.rules")
	for _, tc := range []struct {
		argv     []string
		decision string
	}{
		{[]string{"git", "push", "--force"}, "forbidden"},
		{[]string{"npm", "publish"}, "prompt"},
		{[]string{"git", "status"}, ""},
	} {
		out, errOut, err := agentclients.Run(t, proj, []string{"RUST_BACKTRACE=0", "CODEX_HOME=" + home}, "", bin, append([]string{"execpolicy", "check", "--rules", rules}, tc.argv...)...)
		if err != nil {
			t.Fatalf("codex execpolicy check %v: %v (the file does not load?)\n%s", tc.argv, err, errOut)
		}
		var c struct{ Decision string }
		if err := json.Unmarshal([]byte(out), &c); err != nil || c.Decision != tc.decision {
			t.Errorf("%v: decision %q, want %q (%v)\n%s", tc.argv, c.Decision, tc.decision, err, out)
		}
	}
}

// OpenCode 1.18.33 merges the rendered .opencode/opencode.json over the
// project's own opencode.json: its resolved configuration lists Bridle's
// render under instructions, and its flattened bash rules end with
// Bridle's, after the project's "*": "allow" (OpenCode takes the last
// match).
func TestRealOpenCodeOnRenderedConfig(t *testing.T) {
	bin := agentclients.Bin(t, "BRIDLE_OPENCODE_BIN", "opencode")
	proj := t.TempDir()
	home := t.TempDir()
	writeFile(t, proj, "opencode.json", `{"permission": {"bash": {"*": "allow"}}}`)
	doc := harnessDoc("opencode", true)
	n, err := RenderNative(proj, doc, NativeOptions{RulesPath: "rules"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(proj, n.Files); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "OPENCODE_DISABLE_AUTOUPDATE=1"}
	out, errOut, err := agentclients.Run(t, proj, env, "", bin, "debug", "config")
	if err != nil {
		t.Fatalf("opencode debug config: %v\n%s", err, errOut)
	}
	var cfg struct {
		Instructions []string `json:"instructions"`
	}
	if err := json.Unmarshal([]byte(out), &cfg); err != nil {
		t.Fatalf("debug config is not JSON: %v\n%s", err, out)
	}
	if len(cfg.Instructions) != 1 || cfg.Instructions[0] != ".opencode/bridle.md" {
		t.Errorf("instructions = %v", cfg.Instructions)
	}
	out, errOut, err = agentclients.Run(t, proj, env, "", bin, "debug", "agent", "build")
	if err != nil {
		t.Fatalf("opencode debug agent build: %v\n%s", err, errOut)
	}
	var rules []string
	for _, m := range regexpRules.FindAllStringSubmatch(out, -1) {
		rules = append(rules, m[1]+" "+m[2])
	}
	last := strings.Join(rules, "\n")
	if i := strings.LastIndex(last, "* allow"); i < 0 || !strings.Contains(last[i:], "git push --force * deny") || !strings.Contains(last[i:], "npm publish ask") {
		t.Errorf("bash rules in OpenCode's order:\n%s", last)
	}
}

// regexpRules reads the bash rules of opencode debug agent's JSON.
var regexpRules = regexp.MustCompile(`"permission":\s*"bash",\s*"pattern":\s*"([^"]*)",\s*"action":\s*"(\w+)"`)

// Copilot CLI 1.0.102 loads the rendered
// .github/instructions/bridle.instructions.md for every file (its applyTo
// front matter), beside the person's own copilot-instructions.md:
// copilot instruction list, which needs no model and no trust. (Copilot
// also loads AGENTS.md, CLAUDE.md and GEMINI.md at the root: explain says
// so.)
func TestRealCopilotLoadsTheRender(t *testing.T) {
	bin := agentclients.Bin(t, "BRIDLE_COPILOT_BIN", "copilot")
	proj := t.TempDir()
	home := t.TempDir()
	writeFile(t, proj, ".github/copilot-instructions.md", "# Ours\n")
	doc := harnessDoc("copilot", true)
	f, err := Render(doc, "copilot", Meta{BridleVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(proj, []File{f}); err != nil {
		t.Fatal(err)
	}
	if out, errOut, err := agentclients.Run(t, proj, nil, "", "git", "init", "-q"); err != nil {
		t.Fatalf("git init: %v %s %s", err, out, errOut)
	}
	out, errOut, err := agentclients.Run(t, proj, []string{"HOME=" + home, "COPILOT_HOME=" + filepath.Join(home, ".copilot")}, "", bin, "instruction", "list", "--json")
	if err != nil {
		t.Fatalf("copilot instruction list: %v\n%s\n%s", err, out, errOut)
	}
	var list []struct {
		SourcePath string   `json:"sourcePath"`
		ApplyTo    []string `json:"applyTo"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &list); err != nil {
		t.Fatalf("not a JSON list: %v\n%s", err, out)
	}
	got := map[string][]string{}
	for _, i := range list {
		got[i.SourcePath] = i.ApplyTo
	}
	// applyTo "**" is listed as no restriction at all (a narrower one,
	// "**/*.go", is listed as such).
	if a, ok := got[".github/instructions/bridle.instructions.md"]; !ok || len(a) != 0 && !slices.Equal(a, []string{"**"}) {
		t.Errorf("Bridle's render is not loaded for every file: %v\n%s", got, out)
	}
	if _, ok := got[".github/copilot-instructions.md"]; !ok {
		t.Errorf("the person's own instructions are not loaded beside it: %v", got)
	}
}
