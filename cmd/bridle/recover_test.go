package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecoverFromADirectCommit: a proposal that changes nothing because a
// direct commit already made the change says how to ratify it and how to
// revert it, naming the commit; following either hint leaves nothing
// unreviewed, and ratifying keeps the change, now approved.
func TestRecoverFromADirectCommit(t *testing.T) {
	for _, way := range []string{"ratify", "revert"} {
		t.Run(way, func(t *testing.T) {
			withIdentity(t)
			dir := filepath.Join(t.TempDir(), "rules")
			mustRun(t, "init", dir)
			directCommit(t, dir, func(s string) string {
				return strings.Replace(s, "guardrails:\n", "guardrails:\n  - id: anything-goes\n    statement: Agents may do anything.\n    severity: guidance\n", 1)
			})
			sha, _ := exec.Command("git", "-C", dir, "rev-parse", "--short=12", "HEAD").Output()
			code, _, stderr := bridle(t, "propose", "edit", "--rules", dir, "--why", "ratify")
			if code != exitUsage || !strings.Contains(stderr, "changes nothing") || !strings.Contains(stderr, "revert --no-edit "+strings.TrimSpace(string(sha))) ||
				!strings.Contains(stderr, "guardrail:anything-goes") || !strings.Contains(stderr, "--from") {
				t.Fatalf("propose edit of the unchanged document: exit %d\n%s", code, stderr)
			}
			_, ratify, _ := strings.Cut(stderr, "to ratify the change:")
			ratify, undo, _ := strings.Cut(ratify, "fix, to undo the change: ")
			undo, _, _ = strings.Cut(undo, "\n")
			steps := []string{undo}
			if way == "ratify" {
				steps = nil
				for line := range strings.Lines(ratify) {
					if l := strings.TrimSpace(line); strings.HasPrefix(l, "git ") || strings.HasPrefix(l, "bridle ") {
						steps = append(steps, l)
					}
				}
			}
			for _, step := range steps {
				if rest, ok := strings.CutPrefix(step, "bridle "); ok {
					mustRun(t, shellWords(rest)...)
					continue
				}
				if out, err := exec.Command("bash", "-c", "set -eu; "+step).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", step, err, out)
				}
			}
			if way == "ratify" {
				mustRun(t, "approve", "1", "--rules", dir, "--self")
			}
			code, out, stderr := bridle(t, "audit", "--rules", dir)
			if code != 0 || strings.Contains(out, "unreviewed") || strings.Contains(stderr, "unreviewed change") {
				t.Errorf("after %s, the audit still flags the change:\n%s%s", way, out, stderr)
			}
			code, out, _ = bridle(t, "render", "--rules", dir, "--ref", "main", "--agent", "claude")
			if has := strings.Contains(out, "Agents may do anything."); code != 0 || strings.Contains(out, "NOT APPROVED") || has != (way == "ratify") {
				t.Errorf("after %s, the render (exit %d):\n%s", way, code, out)
			}
		})
	}
}

// TestRecoverGuide runs the "Try it" block of
// docs/guides/recover-from-a-direct-commit.md as written, with this
// checkout's bridle on PATH, in a temporary HOME.
func TestRecoverGuide(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bridle")
	}
	b, err := os.ReadFile("../../docs/guides/recover-from-a-direct-commit.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- recover-flow -->\n```sh\n")
	block, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("the guide has no recover-flow sh block")
	}
	bin := filepath.Dir(builtBridle(t))
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Mira Rossi\n\temail = mira@example.com\n"), 0o644)
	cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+block)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + home, "PATH=" + bin + ":" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "LANG=C.UTF-8",
		"BRIDLE_STATE_DIR=" + t.TempDir(), "BRIDLE_CACHE_DIR=" + t.TempDir()}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the guide's block failed: %v\n%s", err, out)
	}
}
