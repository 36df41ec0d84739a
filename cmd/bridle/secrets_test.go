package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	helperOnce sync.Once
	helperPath string
	helperErr  error
)

// builtHelper builds cmd/bridle-sops once per test run (bridle runs it for
// the SOPS file).
func builtHelper(t testing.TB) string {
	t.Helper()
	helperOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bridle-sops")
		if err != nil {
			helperErr = err
			return
		}
		helperPath = filepath.Join(dir, "bridle-sops")
		if out, err := exec.Command("go", "build", "-o", helperPath, "../bridle-sops").CombinedOutput(); err != nil {
			helperErr = fmt.Errorf("go build bridle-sops: %v\n%s", err, out)
		}
	})
	if helperErr != nil {
		t.Fatal(helperErr)
	}
	return helperPath
}

// secretsSetUp runs bridle secrets init on dir with a fresh identity and
// returns the environment the other verbs need and the recipient.
func secretsSetUp(t *testing.T, dir string) (map[string]string, string) {
	t.Helper()
	env := map[string]string{"BRIDLE_SOPS": builtHelper(t), "SOPS_AGE_KEY_FILE": filepath.Join(t.TempDir(), "age.key"), "BRIDLE_DOCKER_SECRETS": "-"}
	for k, v := range env {
		t.Setenv(k, v)
	}
	code, out, stderr := bridle(t, "secrets", "init", "--rules", dir, "--identity", env["SOPS_AGE_KEY_FILE"])
	if code != 0 || !strings.HasPrefix(out, "age1") {
		t.Fatalf("secrets init: %d %s %s", code, out, stderr)
	}
	return env, strings.TrimSpace(out)
}

func valueFile(t *testing.T, v string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "value")
	if err := os.WriteFile(p, []byte(v+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSecretsVerbs: set, list, rotate, revoke and rekey on a rules
// repository; no value appears in any output, the audit log or the git
// history, and every change is a commit.
func TestSecretsVerbs(t *testing.T) {
	builtHelper(t) // before isolated: it moves HOME, and with it Go's build cache
	isolated(t)
	dir := rulesInit(t)
	_, recipient := secretsSetUp(t, dir)
	const v1, v2 = "cli-canary-one-3c2b1a", "cli-canary-two-6f5e4d"
	var outputs strings.Builder
	run := func(want int, args ...string) string {
		t.Helper()
		code, out, stderr := bridle(t, args...)
		outputs.WriteString(out + stderr)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, want, out, stderr)
		}
		return out + stderr
	}
	run(0, "secrets", "set", "gitea-bot", "--rules", dir, "--from-file", valueFile(t, v1))
	run(1, "secrets", "set", "gitea-bot", "--rules", dir, "--from-file", valueFile(t, v1))
	if out := run(0, "secrets", "list", "--rules", dir); !strings.Contains(out, "gitea-bot") || !strings.Contains(out, "secrets.enc.yaml") {
		t.Errorf("list:\n%s", out)
	}
	run(0, "secrets", "rotate", "gitea-bot", "--rules", dir, "--from-file", valueFile(t, v2))
	run(0, "secrets", "rekey", "--rules", dir, "--recipient", recipient)
	run(0, "secrets", "revoke", "gitea-bot", "--rules", dir)
	if out := run(0, "secrets", "list", "--rules", dir); !strings.Contains(out, "revoked") {
		t.Errorf("list after revoke:\n%s", out)
	}
	run(exitUsage, "secrets", "set", "gitea-bot", v1, "--rules", dir) // a value is never an argument
	run(exitUsage, "secrets", "revoke", "Not A Name", "--rules", dir)
	run(exitUsage, "secrets", "list", "--rules", dir, "--server", "http://127.0.0.1:1")
	logp, err := exec.Command("git", "-C", dir, "log", "-p").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	for _, subject := range []string{"secrets: set gitea-bot", "secrets: rotate gitea-bot", "secrets: revoke gitea-bot", "secrets: re-key"} {
		if !strings.Contains(string(logp), subject) {
			t.Errorf("no commit %q", subject)
		}
	}
	state, _ := os.ReadFile(filepath.Join(os.Getenv("BRIDLE_STATE_DIR"), "rules", "events.jsonl"))
	if strings.Count(string(state), `"kind":"vault"`) != 4 {
		t.Errorf("audit log:\n%s", state)
	}
	for where, text := range map[string]string{"output": outputs.String(), "git history": string(logp), "audit log": string(state)} {
		if strings.Contains(text, v1) || strings.Contains(text, v2) {
			t.Errorf("a secret value is in the %s", where)
		}
	}
}
