package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The example, whose no-secret-access guardrail has an enforce block.
func enforceExample(t *testing.T) (project, rules string) {
	t.Helper()
	project = t.TempDir()
	rules = filepath.Join(project, "rules", "bridle.yaml")
	src, _ := os.ReadFile(filepath.Join(example, "bridle.yaml"))
	s := string(src)
	if !strings.Contains(s, "    enforce:\n") {
		t.Fatal("example changed: it has no enforce block any more")
	}
	os.MkdirAll(filepath.Dir(rules), 0o755)
	os.WriteFile(rules, []byte(s), 0o644)
	return project, rules
}

func TestRenderNativeFilesAndCheck(t *testing.T) {
	project, rules := enforceExample(t)
	code, _, stderr := bridle(t, "render", "--rules", rules, "--all", "--out", project)
	if code != 0 || !strings.Contains(stderr, ".codex/rules/bridle.rules") || !strings.Contains(stderr, ".claude/settings.json") {
		t.Fatalf("render: %d %s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(project, ".claude", "settings.json"))
	for _, own := range []string{"Edit(./.claude/settings.json)", "Edit(./.claude/bridle.json)", "Edit(./.codex/rules/**)"} {
		if !strings.Contains(string(b), own) {
			t.Errorf("settings.json does not protect Bridle's own file: no %s", own)
		}
	}
	// --rules is rules/bridle.yaml under the project: the hook gets it relative.
	if !strings.Contains(string(b), `--rules \"$CLAUDE_PROJECT_DIR\"/rules/bridle.yaml"`) || strings.Contains(string(b), project) {
		t.Errorf("hook command:\n%s", b)
	}
	if code, _, stderr := bridle(t, "render", "--rules", rules, "--all", "--out", project, "--check"); code != 0 {
		t.Errorf("check after render: %d %s", code, stderr)
	}
	p := filepath.Join(project, ".codex", "rules", "bridle.rules")
	r, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(r), "forbidden", "prompt", 1)), 0o644)
	code, _, stderr = bridle(t, "render", "--rules", rules, "--all", "--out", project, "--check")
	if code != exitOutdated || !strings.Contains(stderr, "bridle.rules  edited by hand") {
		t.Errorf("check after a hand edit: %d %s", code, stderr)
	}
	if code, _, stderr := bridle(t, "render", "--rules", rules, "--all", "--out", project, "--rules-path", "/abs"); code == 0 {
		t.Errorf("an absolute --rules-path was accepted: %s", stderr)
	}
}

func TestInstallCodexNote(t *testing.T) {
	code, _, stderr := bridle(t, "install", "codex", "--project", t.TempDir(), "--rules", example, "--dry-run")
	if code != 0 || !strings.Contains(stderr, "next: Codex reads a project's .codex/config.toml and .codex/rules only once the project is trusted") {
		t.Errorf("%d %s", code, stderr)
	}
}

// TestRenderCheckMasksTokensOnDisk: the check's diff shows what is on disk,
// and a token a person put there (no environment variable holds it) is
// masked in the text and the JSON output alike.
func TestRenderCheckMasksTokensOnDisk(t *testing.T) {
	project, rules := enforceExample(t)
	if code, _, stderr := bridle(t, "render", "--rules", rules, "--all", "--out", project); code != 0 {
		t.Fatalf("render: %d %s", code, stderr)
	}
	const token = "ghp_" + "Zx81Qw7Lm2Np4Rt6Vy9Bc3Df5Gh0Jk1Lm2Np4"
	p := filepath.Join(project, "CLAUDE.md")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, []byte("\nUse GITHUB_TOKEN="+token+" for the API.\n")...), 0o644)
	for _, args := range [][]string{
		{"render", "--rules", rules, "--all", "--out", project, "--check"},
		{"render", "--rules", rules, "--all", "--out", project, "--check", "--json"},
	} {
		code, stdout, stderr := bridle(t, args...)
		if code != exitOutdated || !strings.Contains(stdout, "GITHUB_TOKEN=") {
			t.Fatalf("%v: %d, no diff of the edit:\n%s\n%s", args, code, stdout, stderr)
		}
		if strings.Contains(stdout+stderr, token) || strings.Contains(stdout+stderr, token[4:20]) {
			t.Errorf("%v: the token is in the output:\n%s", args, stdout)
		}
	}
}
