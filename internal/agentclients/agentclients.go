// Package agentclients finds the real agent CLIs (Codex, Claude Code) that
// tests run on what Bridle generates, at the versions pinned in
// tests/agentclients (npm ci there installs them). It is for tests only.
package agentclients

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// CLI is one agent CLI the tests run: its command name and the variable
// that overrides its path.
type CLI struct{ Name, Env string }

// CLIs are the agent CLIs tests/agentclients pins.
var CLIs = []CLI{{Name: "codex", Env: "BRIDLE_CODEX_BIN"}, {Name: "claude", Env: "BRIDLE_CLAUDE_BIN"}}

// Find returns the path of the CLI name: $env if set (a path, or a command
// on $PATH), else tests/agentclients/node_modules/.bin/name; the error says
// what is missing.
func Find(env, name string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("%s=%s: %v", env, p, err)
		}
		return p, nil
	}
	_, self, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(self), "..", "..", "tests", "agentclients", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("agent CLI %s not found (%s missing)", name, filepath.Clean(p))
	}
	return p, nil
}

// Bin returns the path of the CLI name (codex, claude), as Find does. When
// it is missing the test is skipped with how to install it, or fails when
// BRIDLE_REQUIRE_AGENT_CLIENTS is set (scripts/test.sh sets it, so that
// CI never skips them quietly) or when $env names a path that is not there.
func Bin(t testing.TB, env, name string) string {
	t.Helper()
	p, err := Find(env, name)
	if err == nil {
		return p
	}
	if os.Getenv(env) != "" {
		t.Fatal(err)
	}
	msg := err.Error() + ": set " + env + ", or install it with: cd tests/agentclients && npm ci"
	if os.Getenv("BRIDLE_REQUIRE_AGENT_CLIENTS") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Run runs the CLI name in dir with env added to the environment and stdin
// as its input, for at most two minutes, and returns what it printed.
func Run(t testing.TB, dir string, env []string, stdin, name string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}
