// Package agentclients finds the real agent CLIs (Codex, Claude Code) that
// tests run on what Bridle generates, at the versions pinned in
// tests/agentclients (npm ci there installs them). It is for tests only.
package agentclients

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Bin returns the path of the CLI name (codex, claude): $env if set, else
// tests/agentclients/node_modules/.bin/name. When it is missing the test
// is skipped with how to install it, or fails when
// BRIDLE_REQUIRE_AGENT_CLIENTS is set (scripts/test.sh sets it, so that
// CI never skips them quietly).
func Bin(t testing.TB, env, name string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	_, self, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(self), "..", "..", "tests", "agentclients", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	msg := name + " not found: set " + env + ", or install it with: cd tests/agentclients && npm ci"
	if os.Getenv("BRIDLE_REQUIRE_AGENT_CLIENTS") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
