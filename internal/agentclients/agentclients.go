// Package agentclients finds the real agent CLIs (Claude Code, Codex,
// Gemini CLI, OpenCode, Copilot CLI, Qwen Code, Amp, Continue, Auggie) that tests run on what
// Bridle generates, at the versions pinned in tests/agentclients (npm ci
// there installs them; the agents registry names each harness's pin), and
// FakeModel, a loopback model API that lets them run real sessions with no
// network model. It is for tests only.
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
var CLIs = []CLI{
	{Name: "codex", Env: "BRIDLE_CODEX_BIN"}, {Name: "claude", Env: "BRIDLE_CLAUDE_BIN"},
	{Name: "gemini", Env: "BRIDLE_GEMINI_BIN"}, {Name: "opencode", Env: "BRIDLE_OPENCODE_BIN"},
	{Name: "copilot", Env: "BRIDLE_COPILOT_BIN"}, {Name: "qwen", Env: "BRIDLE_QWEN_BIN"},
	{Name: "amp", Env: "BRIDLE_AMP_BIN"}, {Name: "cn", Env: "BRIDLE_CONTINUE_BIN"},
	{Name: "auggie", Env: "BRIDLE_AUGGIE_BIN"},
}

// Dir is the directory tests/agentclients, whose package.json pins the CLIs.
func Dir() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..", "tests", "agentclients")
}

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
	p := filepath.Join(Dir(), "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("agent CLI %s not found (%s missing)", name, filepath.Clean(p))
	}
	return p, nil
}

// Bin returns the path of the CLI name (codex, claude, …), as Find does. When
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

// StripANSI removes terminal escape sequences (colours, cursor moves) from
// s: several CLIs colour their output even into a pipe.
func StripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		// ESC [ parameters, intermediates, then one final byte; ESC ]
		// up to BEL or ESC \; any other ESC and the byte after it.
		switch {
		case i+1 < len(s) && s[i+1] == '[':
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
		case i+1 < len(s) && s[i+1] == ']':
			i += 2
			for i < len(s) && s[i] != 0x07 && !(s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\') {
				i++
			}
			if i < len(s) && s[i] == 0x1b {
				i++
			}
		default:
			i++
		}
	}
	return b.String()
}
