package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every "install bridle-sops" hint is a command that works where it is
// printed: the test runs the one bridle prints with no helper anywhere,
// then the verb again. The gateway then opens the vault bridle secrets init
// made for the same user, and bridle secrets list --server prints the
// vault's error, never "no secrets yet", when the gateway cannot open it.
func TestSecretsHintsWork(t *testing.T) {
	if testing.Short() {
		t.Skip("installs bridle-sops")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	goEnv := func(name string) string {
		out, _ := exec.Command(goBin, "env", name).Output()
		return strings.TrimSpace(string(out))
	}
	machine := []string{"GOMODCACHE=" + goEnv("GOMODCACHE"), "GOCACHE=" + goEnv("GOCACHE"), "GOFLAGS=" + goEnv("GOFLAGS"), "GOTOOLCHAIN=local", "GOPROXY=off"}
	built := builtBinary(t)
	isolated(t)
	for _, v := range []string{"BRIDLE_SOPS", "SOPS_AGE_KEY_FILE", "XDG_CONFIG_HOME"} {
		t.Setenv(v, "")
	}
	t.Setenv("BRIDLE_DOCKER_SECRETS", "-")
	t.Setenv("PATH", filepath.Dir(goBin)+":/usr/bin:/bin") // no bridle-sops on it
	// A bridle of its own, in a directory of its own: the helper the hint
	// installs lands next to it.
	bin := filepath.Join(t.TempDir(), "bridle")
	copyFile(t, built, bin)
	dir := rulesInit(t)
	run := func(stdin string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	if code, out := run("", "secrets", "init", "--rules", dir); code != 0 {
		t.Fatalf("secrets init: %s", out)
	}
	code, out := run("s3cret-value-1", "secrets", "set", "api-key", "--rules", dir)
	hint := regexp.MustCompile(`install it with: (.+?); it is a separate binary`).FindStringSubmatch(out)
	if code == 0 || hint == nil {
		t.Fatalf("secrets set with no helper: exit %d, no hint to run:\n%s", code, out)
	}
	sh := exec.Command("bash", "-c", hint[1])
	sh.Dir = t.TempDir() // anywhere: the hint says where to run
	sh.Env = append(os.Environ(), machine...)
	if b, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("the hint %q fails: %v\n%s", hint[1], err, b)
	}
	if code, out := run("s3cret-value-1", "secrets", "set", "api-key", "--rules", dir); code != 0 {
		t.Fatalf("secrets set after running the hint: %s", out)
	}

	// The gateway opens the vault init made, with the identity init wrote.
	addr := freeAddr(t)
	url := "http://" + addr
	state := t.TempDir()
	srv := exec.Command(bin, "serve", "--rules", dir, "--project", "acme", "--listen", addr, "--state-dir", state)
	srv.Stderr = io.Discard
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	waitHealthy(t, url)
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", filepath.Join(state, "gateway", "admin-token"))
	if code, out := run("", "secrets", "list", "--server", url, "--project", "acme"); code != 0 || !strings.Contains(out, "api-key") {
		t.Errorf("secrets list --server on the vault init made: exit %d\n%s", code, out)
	}

	// A gateway that cannot open it: the error, not an empty list.
	t.Setenv("SOPS_AGE_KEY_FILE", filepath.Join(t.TempDir(), "missing.key"))
	addr2 := freeAddr(t)
	state2 := t.TempDir()
	srv2 := exec.Command(bin, "serve", "--rules", dir, "--project", "acme", "--listen", addr2, "--state-dir", state2)
	if err := srv2.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv2.Process.Kill(); srv2.Wait() })
	waitHealthy(t, "http://"+addr2)
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", filepath.Join(state2, "gateway", "admin-token"))
	code, out = run("", "secrets", "list", "--server", "http://"+addr2, "--project", "acme")
	if code == 0 || strings.Contains(out, "no secrets yet") {
		t.Errorf("secrets list --server on a vault the gateway cannot open: exit %d\n%s", code, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
}
