package main

import (
	"strings"
	"testing"
)

// TestGrammar: counts agree with their nouns, lists read as text (not Go's
// [a b]), and nothing says "and 0 more".
func TestGrammar(t *testing.T) {
	isolated(t)
	for _, tt := range []struct {
		memories int
		want     string
	}{{0, "purged 0 memories of project p"}, {1, "purged 1 memory of project p"}, {2, "purged 2 memories of project p"}} {
		for i := 0; i < tt.memories; i++ {
			remember(t, "p", "Memory number "+strings.Repeat("i", i+1))
		}
		if _, _, stderr := bridle(t, "memory", "purge", "--yes", "--project", "p"); !strings.Contains(stderr, tt.want) {
			t.Errorf("purge: %q, want %q", stderr, tt.want)
		}
	}
	if _, _, stderr := bridle(t, "explain", "--rules", example, "--agent", "nobody"); !strings.Contains(stderr, "agents: claude, codex, deepseek, kimi") {
		t.Errorf("explain with an unknown agent lists the agents as %q", stderr)
	}
	dir := rulesInit(t)
	code, _, stderr := bridle(t, "proposals", "check", "--rules", dir, "--base", "main", "--head", handBranch(t, dir), "--strict")
	if code != exitFailure || !strings.Contains(stderr, "1 sensitive hand-made change\n") {
		t.Errorf("check --strict: exit %d, %q", code, stderr)
	}
	// One problem in the committed rules: the hook says which, and no "(and 0 more)".
	directCommit(t, dir, func(s string) string { return strings.Replace(s, "severity: guidance", "severity: hard", 1) })
	t.Setenv("BRIDLE_CACHE_DIR", t.TempDir())
	_, out, _ := bridleStdin(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, "hook", "claude", "--rules", dir)
	if !strings.Contains(out, "rules are invalid") || strings.Contains(out, "and 0 more") {
		t.Errorf("hook on rules with one problem: %s", out)
	}
}
