package renderers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/enforce"
	"github.com/bridle-dev/bridle/schema"
)

// nativeDoc has claude and codex profiles and, with enforce set, a
// guardrail forbidding a force-push (a git prefix: the hook is needed) and
// reading .env.
func nativeDoc(withEnforce bool, statement string) *schema.Document {
	g := schema.Guardrail{ID: "no-force-push", Severity: schema.Enforcement, Statement: statement}
	if withEnforce {
		g.Enforce = schema.Enforce{
			Commands: schema.CommandRules{Forbid: []string{"git push --force"}, Ask: []string{"npm publish"}},
			Paths:    schema.PathRules{NoRead: []string{".env"}},
		}
	}
	return &schema.Document{
		Project:       schema.Project{ID: "p"},
		AgentProfiles: map[string]schema.AgentProfile{"claude": {}, "codex": {}, "kimi": {}},
		Guardrails:    []schema.Guardrail{g},
	}
}

// userSettings is a settings file with the user's own rules, hooks and
// keys, in an order Bridle must keep.
const userSettings = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(go test:*)"
    ],
    "deny": [
      "Bash(rm -rf /)",
      "Read(./.env)"
    ],
    "defaultMode": "default"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./my-guard.sh",
            "timeout": 5
          }
        ]
      }
    ],
    "PostToolUse": []
  },
  "env": {
    "FOO": "1"
  }
}
`

func renderNative(t *testing.T, dir string, doc *schema.Document) Native {
	t.Helper()
	n, err := RenderNative(dir, doc, NativeOptions{RulesPath: "rules"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, n.Files); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveOrphans(dir, n.Orphans); err != nil {
		t.Fatal(err)
	}
	return n
}

func checkStates(t *testing.T, dir string, doc *schema.Document) map[string]State {
	t.Helper()
	n, err := RenderNative(dir, doc, NativeOptions{RulesPath: "rules"})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := CheckNative(dir, n)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]State{}
	for _, f := range fs {
		rel, _ := filepath.Rel(dir, f.Path)
		out[filepath.ToSlash(rel)] = f.State
	}
	return out
}

type settingsView struct {
	Permissions struct{ Allow, Deny, Ask []string }
	Hooks       map[string][]struct {
		Matcher string
		Hooks   []struct {
			Type, Command string
			Timeout       int
		}
	}
	Env   map[string]string
	Model string
}

func readSettings(t *testing.T, dir string) (settingsView, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v settingsView
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("settings.json does not parse: %v\n%s", err, b)
	}
	return v, string(b)
}

func TestClaudeSettingsKeepTheUsersEntries(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(userSettings), 0o644)
	on := nativeDoc(true, "Never force-push.")

	renderNative(t, dir, on)
	v, text := readSettings(t, dir)
	for _, want := range []string{"Bash(rm -rf /)", "Read(./.env)", "Bash(git push --force:*)", "Bash(git push --force)"} {
		if !contains(v.Permissions.Deny, want) {
			t.Errorf("deny lacks %q: %v", want, v.Permissions.Deny)
		}
	}
	if !contains(v.Permissions.Ask, "Bash(npm publish:*)") || !contains(v.Permissions.Allow, "Bash(go test:*)") {
		t.Errorf("ask/allow: %+v", v.Permissions)
	}
	pre := v.Hooks["PreToolUse"]
	if len(pre) != 2 || pre[0].Hooks[0].Command != "./my-guard.sh" || pre[1].Matcher != HookMatcher ||
		pre[1].Hooks[0].Command != `bridle hook claude --rules "$CLAUDE_PROJECT_DIR"/rules` || pre[1].Hooks[0].Timeout != HookTimeout || pre[1].Hooks[0].Type != "command" {
		t.Errorf("PreToolUse: %+v", pre)
	}
	if v.Env["FOO"] != "1" || v.Model != "opus" || !strings.Contains(text, `"PostToolUse": []`) {
		t.Errorf("lost keys:\n%s", text)
	}
	if i, j, k := strings.Index(text, `"$schema"`), strings.Index(text, `"model"`), strings.Index(text, `"env"`); !(i < j && j < k) {
		t.Errorf("key order changed:\n%s", text)
	}
	// The user's own Read(./.env) is not claimed by Bridle.
	m, _ := os.ReadFile(filepath.Join(dir, ".claude", "bridle.json"))
	if strings.Contains(string(m), "Read(./.env)") || !strings.Contains(string(m), "Bash(git push --force:*)") {
		t.Errorf("manifest:\n%s", m)
	}
	if st := checkStates(t, dir, on); st[".claude/settings.json"] != Current || st[".claude/bridle.json"] != Current || st[enforce.CodexPath] != Current {
		t.Errorf("check after render: %v", st)
	}

	// Re-rendering changes nothing.
	renderNative(t, dir, on)
	if _, again := readSettings(t, dir); again != text {
		t.Errorf("re-render changed settings.json:\n%s", again)
	}

	// The user deletes one of Bridle's entries: stale.
	os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(strings.Replace(text, `"Bash(git push --force)",`, "", 1)), 0o644)
	if st := checkStates(t, dir, on); st[".claude/settings.json"] != Stale {
		t.Errorf("check after removing an entry: %v", st)
	}
	renderNative(t, dir, on)

	// The enforce block goes: Bridle's entries go, the user's stay.
	off := nativeDoc(false, "Never force-push.")
	if st := checkStates(t, dir, off); st[".claude/settings.json"] != Stale || st[".claude/bridle.json"] != Orphaned || st[enforce.CodexPath] != Orphaned {
		t.Errorf("check after removing enforce: %v", st)
	}
	renderNative(t, dir, off)
	v, text = readSettings(t, dir)
	if strings.Contains(text, "git push") || strings.Contains(text, "bridle hook") || strings.Contains(text, "npm publish") {
		t.Errorf("Bridle's entries survived:\n%s", text)
	}
	if !contains(v.Permissions.Deny, "Read(./.env)") || !contains(v.Permissions.Deny, "Bash(rm -rf /)") || len(v.Hooks["PreToolUse"]) != 1 || v.Env["FOO"] != "1" {
		t.Errorf("the user's entries went:\n%s", text)
	}
	for _, p := range []string{".claude/bridle.json", enforce.CodexPath} {
		if _, err := os.Stat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s not removed: %v", p, err)
		}
	}
	if st := checkStates(t, dir, off); len(st) != 0 {
		t.Errorf("check after the removal: %v", st)
	}
}

func TestNoEnforceNoNativeFiles(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(`{"permissions":{"deny":["Bash(x)"]}}`), 0o644)
	n, err := RenderNative(dir, nativeDoc(false, "s"), NativeOptions{})
	if err != nil || len(n.Files) != 0 || len(n.Orphans) != 0 {
		t.Errorf("native files for a document without enforce: %+v %v", n, err)
	}
	n, err = RenderNative(t.TempDir(), nativeDoc(false, "s"), NativeOptions{})
	if err != nil || len(n.Files) != 0 || len(n.Orphans) != 0 {
		t.Errorf("native files in an empty dir: %+v %v", n, err)
	}
}

func TestCodexRulesCheck(t *testing.T) {
	dir := t.TempDir()
	on := nativeDoc(true, "Never force-push.")
	renderNative(t, dir, on)
	p := filepath.Join(dir, ".codex", "rules", "bridle.rules")
	b, err := os.ReadFile(p)
	if err != nil || !intactRules(b) {
		t.Fatalf("rules file: %v\n%s", err, b)
	}
	// Other rules: stale.
	if st := checkStates(t, dir, nativeDoc(true, "Never, ever force-push.")); st[enforce.CodexPath] != Stale {
		t.Errorf("other statement: %v", st)
	}
	// A hand edit: edited.
	os.WriteFile(p, []byte(strings.Replace(string(b), `"forbidden"`, `"prompt"`, 1)), 0o644)
	if st := checkStates(t, dir, on); st[enforce.CodexPath] != Edited {
		t.Errorf("hand edit: %v", st)
	}
	// A hand-edited orphan is reported and not removed.
	n := renderNative(t, dir, nativeDoc(false, "s"))
	if len(n.Orphans) != 2 || n.Orphans[len(n.Orphans)-1].Path != enforce.CodexPath {
		t.Errorf("orphans: %+v", n.Orphans)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("hand-edited orphan removed: %v", err)
	}
	// A file of the user's own is never Bridle's.
	os.WriteFile(p, []byte("prefix_rule(pattern=[\"make\"])\n"), 0o644)
	if st := checkStates(t, dir, nativeDoc(false, "s")); len(st) != 0 {
		t.Errorf("user's rules file reported: %v", st)
	}
}

func TestClaudeSettingsHostileStatement(t *testing.T) {
	dir := t.TempDir()
	doc := nativeDoc(true, "say \"hi\" \\ then\n\"}, \"x\": {\"\u2028")
	doc.Guardrails[0].ID = `a"b`
	renderNative(t, dir, doc)
	readSettings(t, dir) // parses
	if _, err := HookCommand("claude", "/abs/rules"); err == nil {
		t.Error("absolute rules path accepted")
	}
	if got, _ := HookCommand("my agent", "my rules/x'y"); got != `bridle hook claude --rules "$CLAUDE_PROJECT_DIR"/'my rules/x'\''y' --agent 'my agent'` {
		t.Errorf("hook command %s", got)
	}
}

func TestMergeClaudeSettingsBadFiles(t *testing.T) {
	for _, s := range []string{`{not json`, `[]`, `{"permissions": []}`, `{"permissions": {"deny": {}}}`, `{"hooks": {"PreToolUse": 1}}`} {
		if _, _, err := MergeClaudeSettings([]byte(s), nil, ClaudeWant{Deny: []string{"Bash(x)"}, Hook: "h"}); err == nil {
			t.Errorf("%s: merged", s)
		}
	}
	// An unchanged file comes back byte for byte, whatever its layout.
	in := []byte(`{"permissions":{"deny":["Bash(x)"]},"b":1}`)
	out, _, err := MergeClaudeSettings(in, nil, ClaudeWant{Deny: []string{"Bash(x)"}})
	if err != nil || string(out) != string(in) {
		t.Errorf("%s %v", out, err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
