package enforce

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestClaudeHook(t *testing.T) {
	r := load(t, reviewDoc, "claude")
	dir := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{"secrets", "migrations", "src"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".env", "secrets/k", "migrations/001.sql", "src/a.go", "README.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "creds"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"link": ".env", "sdir": "secrets", "mdir": "migrations", "src/up": "..", "out": filepath.Join(outside, "creds"),
		"readme": "README.md",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	abs := func(p string) string { return filepath.Join(dir, p) }
	for _, tc := range []struct {
		tool    string
		input   map[string]string
		verdict Verdict
	}{
		// P5 links to protected files
		{"Read", map[string]string{"file_path": abs("link")}, Forbid},
		{"Read", map[string]string{"file_path": abs("sdir/k")}, Forbid},
		{"Read", map[string]string{"file_path": abs("src/up/.env")}, Forbid},
		{"Read", map[string]string{"file_path": "link"}, Forbid},
		{"Write", map[string]string{"file_path": abs("mdir/002.sql")}, Forbid}, // a new file below a linked directory
		{"Edit", map[string]string{"file_path": abs("mdir/001.sql")}, Forbid},
		{"Read", map[string]string{"file_path": abs("out")}, Ask},
		// P6 Grep and Glob
		{"Grep", map[string]string{"pattern": "x"}, Ask},
		{"Grep", map[string]string{"pattern": "x", "path": dir}, Ask},
		{"Grep", map[string]string{"pattern": "x", "path": abs(".env")}, Forbid},
		{"Grep", map[string]string{"pattern": "x", "path": abs("link")}, Forbid},
		{"Grep", map[string]string{"pattern": "x", "path": abs("secrets")}, Forbid},
		{"Grep", map[string]string{"pattern": "x", "path": abs("sdir")}, Forbid},
		{"Grep", map[string]string{"pattern": "x", "path": dir, "glob": ".env*"}, Ask},
		{"Grep", map[string]string{"pattern": "x", "path": dir, "glob": "**/k"}, Ask},
		{"Grep", map[string]string{"pattern": "x", "path": dir, "glob": "*.go"}, Ask}, // secrets/** holds any name
		{"Glob", map[string]string{"pattern": "*", "path": abs("secrets")}, Forbid},
		{"Glob", map[string]string{"pattern": "*", "path": abs("sdir")}, Forbid},
		// self-protection
		{"Write", map[string]string{"file_path": abs(".claude/settings.json")}, Forbid},
		{"Edit", map[string]string{"file_path": abs(".codex/rules/bridle.rules")}, Forbid},
	} {
		in, _ := json.Marshal(tc.input)
		d := r.ClaudeHook(HookInput{ToolName: tc.tool, ToolInput: in, Cwd: dir}, dir)
		if d.Verdict != tc.verdict || d.Reason == "" {
			t.Errorf("%s %v = %s (%s), want %s", tc.tool, tc.input, d.Verdict, d.Reason, tc.verdict)
		}
	}
	for _, tc := range []struct {
		tool  string
		input map[string]string
	}{
		{"Read", map[string]string{"file_path": abs("readme")}},
		{"Read", map[string]string{"file_path": abs("src/a.go")}},
		{"Write", map[string]string{"file_path": abs("src/new.go")}},
		{"Grep", map[string]string{"pattern": "x", "path": abs("src")}},
		{"Glob", map[string]string{"pattern": "**/*.go"}},
		{"Glob", map[string]string{"pattern": "*", "path": abs("src")}},
	} {
		in, _ := json.Marshal(tc.input)
		if d := r.ClaudeHook(HookInput{ToolName: tc.tool, ToolInput: in, Cwd: dir}, dir); d.Verdict != Allow {
			t.Errorf("%s %v = %s (%s), want allow", tc.tool, tc.input, d.Verdict, d.Reason)
		}
	}
}

// TestClaudeHookGrepGlob: a Grep whose glob cannot match the protected
// file name is allowed.
func TestClaudeHookGrepGlob(t *testing.T) {
	r := load(t, "schema_version: 1\nproject: {id: demo}\nguardrails:\n  - {id: a, statement: s, severity: enforcement, enforce: {paths: {no_read: [\".env\"]}}}\n", "claude")
	in, _ := json.Marshal(map[string]string{"pattern": "x", "glob": "*.go"})
	if d := r.ClaudeHook(HookInput{ToolName: "Grep", ToolInput: in}, ""); d.Verdict != Allow {
		t.Errorf("Grep *.go = %s (%s), want allow", d.Verdict, d.Reason)
	}
	in, _ = json.Marshal(map[string]string{"pattern": "x", "glob": ".e*"})
	if d := r.ClaudeHook(HookInput{ToolName: "Grep", ToolInput: in}, ""); d.Verdict != Ask {
		t.Errorf("Grep .e* = %s (%s), want ask", d.Verdict, d.Reason)
	}
}
