package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// withIdentity gives the test a git identity of its own (a temporary HOME).
func withIdentity(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Mira Rossi\n\temail = mira@example.com\n"), 0o644)
	t.Setenv("BRIDLE_STATE_DIR", t.TempDir())
	t.Setenv("BRIDLE_CACHE_DIR", t.TempDir())
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, stderr := bridle(t, args...)
	if code != 0 {
		t.Fatalf("bridle %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
	}
	return stderr
}

// fixCommand is the command a failed check names after "run: ", as args.
func fixCommand(t *testing.T, stderr string) []string {
	t.Helper()
	_, after, ok := strings.Cut(stderr, "; run: bridle ")
	if !ok {
		t.Fatalf("the check names no command:\n%s", stderr)
	}
	line, _, _ := strings.Cut(after, "\n")
	return strings.Fields(line)
}

// TestCommittedRendersOneRule: right after an approval the plain check, the
// CI's check and the files a proposal committed agree; a stale file's hint
// names a command that satisfies the check that printed it, --ref included.
func TestCommittedRendersOneRule(t *testing.T) {
	withIdentity(t)
	dir := filepath.Join(t.TempDir(), "acme-rules")
	mustRun(t, "init", dir)
	mustRun(t, "propose", "guardrail", "--rules", dir, "--id", "no-force-push", "--severity", "hard-instruction",
		"--statement", "Never force-push.", "--why", "We lost work.")
	mustRun(t, "approve", "1", "--rules", dir, "--self")
	out := filepath.Join(dir, "rendered")
	for _, extra := range [][]string{nil, {"--no-history"}} {
		if code, _, stderr := bridle(t, append([]string{"render", "--rules", dir, "--all", "--out", out, "--check"}, extra...)...); code != 0 {
			t.Errorf("check %v after approve: exit %d\n%s", extra, code, stderr)
		}
	}
	// A published render (--ref, approvals resolved) is checked with the
	// same flags its hint repeats.
	pub := filepath.Join(t.TempDir(), "published")
	code, _, stderr := bridle(t, "render", "--rules", dir, "--ref", "main", "--all", "--out", pub, "--check")
	if code != exitOutdated {
		t.Fatalf("check of an empty dir: exit %d", code)
	}
	fix := fixCommand(t, stderr)
	if !strings.Contains(strings.Join(fix, " "), "--ref main") {
		t.Errorf("the hint drops --ref: %v", fix)
	}
	mustRun(t, fix[0:]...)
	if code, _, stderr := bridle(t, "render", "--rules", dir, "--ref", "main", "--all", "--out", pub, "--check"); code != 0 {
		t.Errorf("the hint's command did not satisfy its check:\n%s", stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(pub, "CLAUDE.md")); !bytes.Contains(b, []byte("approved by Mira Rossi")) {
		t.Errorf("the published render lacks the approval")
	}
}

// TestRenderIntoTheProjectRoot: --out . in a project never counts another
// rules directory's renders as orphans, and the hint for a real orphan
// removes it.
func TestRenderIntoTheProjectRoot(t *testing.T) {
	withIdentity(t)
	proj := t.TempDir()
	mustRun(t, "init", filepath.Join(proj, "rules-repo"), "--agents", "claude,codex,kimi") // a rules repository with rendered/ inside the project dir
	rules := filepath.Join(proj, "rules-repo")
	mustRun(t, "render", "--rules", rules, "--all", "--out", proj)
	code, _, stderr := bridle(t, "render", "--rules", rules, "--all", "--out", proj, "--check")
	if code != 0 || strings.Contains(stderr, "orphaned") {
		t.Fatalf("--out . with a rules folder below: exit %d\n%s", code, stderr)
	}
	kimi, _ := os.ReadFile(filepath.Join(proj, "agents", "kimi", "AGENTS.md"))
	os.MkdirAll(filepath.Join(proj, "agents", "gone"), 0o755)
	os.WriteFile(filepath.Join(proj, "agents", "gone", "AGENTS.md"), kimi, 0o644)
	code, _, stderr = bridle(t, "render", "--rules", rules, "--all", "--out", proj, "--check")
	if code != exitOutdated || !strings.Contains(stderr, "orphaned") {
		t.Fatalf("orphan not found: exit %d\n%s", code, stderr)
	}
	fix := fixCommand(t, stderr)
	if fix[len(fix)-1] != "--prune" {
		t.Errorf("the hint for an orphan does not remove it: %v", fix)
	}
	mustRun(t, fix...)
	if code, _, stderr := bridle(t, "render", "--rules", rules, "--all", "--out", proj, "--check"); code != 0 {
		t.Errorf("after the hint: exit %d\n%s", code, stderr)
	}
}

// TestRenderCheckJSON: render --check --json is one object that says
// whether the files are current and the command that makes them so.
func TestRenderCheckJSON(t *testing.T) {
	withIdentity(t)
	dir := filepath.Join(t.TempDir(), "rules")
	mustRun(t, "init", dir)
	_, out, _ := bridle(t, "render", "--rules", dir, "--all", "--out", t.TempDir(), "--check", "--json")
	var doc struct {
		Valid, Current bool
		Fix            string
		Files          []struct{ Path, State string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || !doc.Valid || doc.Current || len(doc.Files) != 2 ||
		!strings.HasPrefix(doc.Fix, "bridle render --rules ") {
		t.Errorf("render --check --json = %+v (%v)", doc, err)
	}
}

// TestInstallIsShareable: a project's MCP config names no path of this
// machine, and rules the sidecar could not serve are refused at install.
func TestInstallIsShareable(t *testing.T) {
	withIdentity(t)
	proj := t.TempDir()
	mustRun(t, "init", filepath.Join(proj, "rules"))
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "bridle.yaml"), []byte("schema_version: 1\n"), 0o644)
	for _, c := range []struct {
		rules, want string
	}{
		{filepath.Join(proj, "nope"), "fix: point --rules at the directory holding bridle.yaml"},
		{t.TempDir(), "fix: point --rules at the directory holding bridle.yaml"},
		{bad, "is not in a git repository"},
	} {
		code, _, stderr := bridle(t, "install", "claude", "--project", proj, "--rules", c.rules)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("install --rules %s: exit %d\n%s", c.rules, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(proj, ".mcp.json")); err == nil {
		t.Error("a refused install wrote .mcp.json")
	}
	mustRun(t, "install", "claude", "--project", proj, "--rules", filepath.Join(proj, "rules"))
	mustRun(t, "install", "codex", "--project", proj, "--rules", filepath.Join(proj, "rules"))
	for _, f := range []string{".mcp.json", ".codex/config.toml"} {
		b, _ := os.ReadFile(filepath.Join(proj, f))
		if bytes.Contains(b, []byte(proj)) || !bytes.Contains(b, []byte(`"rules"`)) || !bytes.Contains(b, []byte(`"bridle"`)) {
			t.Errorf("%s is not shareable:\n%s", f, b)
		}
	}
}

// TestBadRefIsNotInvalidRules: a ref that does not exist is an operation
// that failed (1), not invalid rules (3), with the fix.
func TestBadRefIsNotInvalidRules(t *testing.T) {
	withIdentity(t)
	dir := filepath.Join(t.TempDir(), "rules")
	mustRun(t, "init", dir)
	for _, cmd := range []string{"validate", "compile", "explain"} {
		args := []string{cmd, "--rules", dir, "--ref", "no-such-branch"}
		if cmd == "explain" {
			args = append(args, "--agent", "claude")
		}
		code, _, stderr := bridle(t, args...)
		if code != exitFailure || !strings.Contains(stderr, `unknown git ref "no-such-branch"`) || !strings.Contains(stderr, "fix:") {
			t.Errorf("%s with a bad ref: exit %d\n%s", cmd, code, stderr)
		}
	}
}

// TestOwnersEditIsApproved: a maintainer edits bridle.yaml in a project
// (a permission, which no other kind of proposal can change), proposes the
// edit and approves it; the agents then get the permission, the checkout is
// clean and the agents' files are current.
func TestOwnersEditIsApproved(t *testing.T) {
	withIdentity(t)
	proj := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", proj}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "the project")
	rules := filepath.Join(proj, "rules")
	mustRun(t, "init", rules, "--agents", "claude,codex,deepseek")
	p := filepath.Join(rules, "bridle.yaml")
	src, _ := os.ReadFile(p)
	edited := strings.Replace(string(src), "  deepseek:\n    memory: {read: true}", "  deepseek:\n    memory: {read: true, write: true}", 1)
	if edited == string(src) {
		t.Fatal("the scaffold changed: fix this test's edit")
	}
	os.WriteFile(p, []byte(edited), 0o644)
	mustRun(t, "propose", "edit", "--rules", rules, "--why", "deepseek keeps notes too")
	mustRun(t, "approve", "1", "--rules", rules, "--self")
	_, out, stderr := bridle(t, "explain", "--rules", rules, "--ref", "main", "--agent", "deepseek")
	if !strings.Contains(out, "memory.write") || strings.Contains(out+stderr, "NOT APPROVED") {
		t.Errorf("the approved edit does not grant memory.write:\n%s\n%s", out, stderr)
	}
	if st, err := exec.Command("git", "-C", proj, "status", "--porcelain").Output(); err != nil || len(st) != 0 {
		t.Errorf("after approving the edit, git status: %v\n%s", err, st)
	}
	mustRun(t, "render", "--rules", rules, "--all", "--out", proj, "--check")
	// Rewriting the agents' files changes nothing a proposal committed.
	mustRun(t, "render", "--rules", rules, "--all", "--out", proj)
	if st, _ := exec.Command("git", "-C", proj, "status", "--porcelain").Output(); len(st) != 0 {
		t.Errorf("render --all rewrote the committed files:\n%s", st)
	}
}

// TestApprovedEnforceReachesTheProject: in a project, a proposal that adds
// an enforce block commits the agents' native files too, so right after the
// approval the check CI runs passes and the checkout is clean.
func TestApprovedEnforceReachesTheProject(t *testing.T) {
	withIdentity(t)
	proj := t.TempDir()
	if out, err := exec.Command("sh", "-c", "cd "+proj+" && git init -q -b main && git -c user.name=x -c user.email=x@y commit -q --allow-empty -m p").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	rules := filepath.Join(proj, "rules")
	mustRun(t, "init", rules)
	p := filepath.Join(rules, "bridle.yaml")
	src, _ := os.ReadFile(p)
	edited := strings.Replace(string(src), "guardrails:\n", "guardrails:\n  - id: no-force-push\n    statement: Never force-push.\n    severity: enforcement\n"+
		"    enforce:\n      commands:\n        forbid: [\"git push --force\"]\n      paths:\n        no_read: [\".env\"]\n", 1)
	os.WriteFile(p, []byte(edited), 0o644)
	mustRun(t, "propose", "edit", "--rules", rules, "--why", "no force pushes")
	// The reviewer sees what the harnesses will enforce, and the hook.
	_, show, _ := bridle(t, "proposals", "show", "1", "--rules", rules)
	if !strings.Contains(show, "native enforcement files") || !strings.Contains(show, ".claude/settings.json") || !strings.Contains(show, "bridle hook claude") {
		t.Errorf("proposals show does not show the native files:\n%s", show)
	}
	mustRun(t, "approve", "1", "--rules", rules, "--self")
	if code, _, stderr := bridle(t, "render", "--rules", rules, "--all", "--out", proj, "--check"); code != 0 {
		t.Errorf("the check after approving an enforce block: exit %d\n%s", code, stderr)
	}
	for _, f := range []string{".claude/settings.json", ".claude/bridle.json", ".codex/rules/bridle.rules"} {
		if _, err := os.Stat(filepath.Join(proj, f)); err != nil {
			t.Errorf("%s is not in the checkout: %v", f, err)
		}
	}
	if st, _ := exec.Command("git", "-C", proj, "status", "--porcelain").Output(); len(st) != 0 {
		t.Errorf("git status after the approval:\n%s", st)
	}
	b, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
	if !strings.Contains(string(b), `"$CLAUDE_PROJECT_DIR"/rules`) && !strings.Contains(string(b), `Bash(git push --force:*)`) {
		t.Errorf("settings.json:\n%s", b)
	}
}

// TestMCPRefusesAGiteaItCannotUse: a Gitea URL that is not one stops the
// sidecar with the reason, instead of it serving some other rules.
func TestMCPRefusesAGiteaItCannotUse(t *testing.T) {
	withIdentity(t)
	dir := filepath.Join(t.TempDir(), "rules")
	mustRun(t, "init", dir) // local rules it must not fall back to
	code, _, stderr := bridle(t, "mcp", "--rules", dir, "--gitea", "gitea.example.com", "--repo", "acme/rules")
	if code != exitUsage || !strings.Contains(stderr, "not an http(s) URL") {
		t.Errorf("mcp with a bad Gitea URL: exit %d\n%s", code, stderr)
	}
}

// TestEverythingPrintedIsMasked: whatever a command prints, on stdout or
// stderr, data or status, holds no secret of the environment.
func TestEverythingPrintedIsMasked(t *testing.T) {
	withIdentity(t)
	const canary = "tok4canary9e1f"
	t.Setenv("GITEA_TOKEN", canary)
	dir := filepath.Join(t.TempDir(), "rules-"+canary)
	mustRun(t, "init", dir)
	for _, args := range [][]string{
		{"validate", "--rules", dir},
		{"validate", "--rules", dir, "--json"},
		{"render", "--rules", dir, "--all", "--out", t.TempDir(), "--check"},
		{"compile", "--rules", dir, "-o", "-"},
		{"explain", "--rules", dir, "--agent", "claude"},
	} {
		_, out, stderr := bridle(t, args...)
		if strings.Contains(out+stderr, canary) {
			t.Errorf("%v printed the secret:\n%.300s\n%.300s", args, out, stderr)
		}
		if args[len(args)-1] == "--json" || args[len(args)-1] == "-" {
			var v any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Errorf("%v: masking broke the JSON: %v", args, err)
			}
		}
	}
}

// TestMCPStopsOnAnUnknownRef: a --ref the repository does not have is a
// typo the sidecar stops on, with the fix.
func TestMCPStopsOnAnUnknownRef(t *testing.T) {
	withIdentity(t)
	dir := filepath.Join(t.TempDir(), "rules")
	mustRun(t, "init", dir)
	code, _, stderr := bridle(t, "mcp", "--rules", dir, "--ref", "mian")
	if code != exitFailure || !strings.Contains(stderr, `unknown git ref "mian"`) || !strings.Contains(stderr, "fix:") {
		t.Errorf("mcp --ref mian: exit %d\n%s", code, stderr)
	}
}

// TestNoOpenProposalsSaysWhereTheOthersAre: with every proposal closed, the
// open list says so instead of "none yet".
func TestNoOpenProposalsSaysWhereTheOthersAre(t *testing.T) {
	withIdentity(t)
	dir := filepath.Join(t.TempDir(), "acme", "rules")
	mustRun(t, "init", dir)
	mustRun(t, "propose", "guardrail", "--rules", dir, "--id", "one", "--statement", "One.", "--why", "x")
	mustRun(t, "reject", "1", "--rules", dir, "--reason", "not now")
	_, out, stderr := bridle(t, "proposals", "list", "--rules", dir)
	if out != "" || !strings.Contains(stderr, "no open proposals (1 is merged or closed: --state all lists them)") {
		t.Errorf("proposals list with one closed: %q %q", out, stderr)
	}
}

// TestProposeEditRefusesOversized: an edited document over the limit is
// refused, naming the limit, and creates nothing.
func TestProposeEditRefusesOversized(t *testing.T) {
	withIdentity(t)
	dir := filepath.Join(t.TempDir(), "acme", "rules")
	mustRun(t, "init", dir)
	big := filepath.Join(t.TempDir(), "big.yaml")
	os.WriteFile(big, bytes.Repeat([]byte("#"), 3<<20), 0o644)
	code, _, stderr := bridle(t, "propose", "edit", "--rules", dir, "--from", big, "--why", "x")
	if code != exitUsage || !strings.Contains(stderr, "larger than") {
		t.Errorf("oversized edit: exit %d %s", code, stderr)
	}
	if _, out, _ := bridle(t, "proposals", "list", "--rules", dir, "--state", "all", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("a proposal was created: %s", out)
	}
}
