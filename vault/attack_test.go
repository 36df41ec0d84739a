package vault_test

// Attacks on the vault from the release review: each test is one exploit
// attempt and passes when the defence holds.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/vault"
)

// TestAttackNamesCannotEscape: a name is looked up as a file under the
// Docker secrets directory and as NAME_FILE / NAME variables; traversal,
// absolute paths, NUL, upper case (another variable) and SOPS' own keys
// are refused before any source is read.
func TestAttackNamesCannotEscape(t *testing.T) {
	docker := t.TempDir()
	outside := filepath.Join(filepath.Dir(docker), "outside-canary")
	if err := os.WriteFile(outside, []byte("outside-canary-value"), 0o600); err != nil {
		t.Fatal(err)
	}
	var asked []string
	v := newVault(t, vault.Options{DockerDir: docker, Getenv: func(k string) string { asked = append(asked, k); return "" }})
	for _, name := range []string{"../outside-canary", "/etc/passwd", "a/../../x", "x\x00y", "..", ".", "", "GITEA_BOT",
		"a b", "a\nb", "sops", "bridle_unencrypted", "x_unencrypted", "é", strings.Repeat("a", 64), "-x", "_x", "1x"} {
		if _, err := v.Get(name); !errors.Is(err, vault.ErrBadName) {
			t.Errorf("Get(%q) = %v, want ErrBadName", name, err)
		}
		if _, err := v.Set(context.Background(), name, "value-1234"); !errors.Is(err, vault.ErrBadName) {
			t.Errorf("Set(%q) = %v, want ErrBadName", name, err)
		}
		if _, err := v.Revoke(context.Background(), name); !errors.Is(err, vault.ErrBadName) {
			t.Errorf("Revoke(%q) = %v, want ErrBadName", name, err)
		}
	}
	if len(asked) != 0 {
		t.Errorf("the environment was read for bad names: %q", asked)
	}
}

// TestAttackErrorsNeverHoldTheValue: every refusal of a change names the
// secret, never the value it was given or holds.
func TestAttackErrorsNeverHoldTheValue(t *testing.T) {
	ctx := context.Background()
	docker := t.TempDir()
	const dockerVal, envVal, val = "docker-canary-5e6f7a", "env-canary-8b9c0d", "sops-canary-1a2b3c"
	if err := os.WriteFile(filepath.Join(docker, "mounted"), []byte(dockerVal), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"FROM_ENV": envVal}
	v := newVault(t, vault.Options{DockerDir: docker, Getenv: func(k string) string { return env[k] }})
	if _, err := v.Set(ctx, "held", val); err != nil {
		t.Fatal(err)
	}
	var errs []error
	for _, f := range []func() error{
		func() error { _, err := v.Set(ctx, "held", val+"-again"); return err },
		func() error { _, err := v.Rotate(ctx, "mounted", dockerVal+"-new"); return err },
		func() error { _, err := v.Rotate(ctx, "from-env", envVal+"-new"); return err },
		func() error { _, err := v.Revoke(ctx, "mounted"); return err },
		func() error { _, err := v.Set(ctx, "big", strings.Repeat("x", vault.MaxValue)+val); return err },
		func() error { _, err := v.Set(ctx, "blank", " \r\n\t"); return err },
	} {
		err := f()
		if err == nil {
			t.Error("a refused change succeeded")
			continue
		}
		errs = append(errs, err)
	}
	msg := errors.Join(errs...).Error()
	for _, c := range []string{dockerVal, envVal, val} {
		if strings.Contains(msg, c) {
			t.Errorf("an error holds %s: %s", c, msg)
		}
	}
}

// TestAttackRevokeUnderLoad: 32 consumers use a secret while it is
// revoked; once Revoke returns, none gets the value.
func TestAttackRevokeUnderLoad(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, vault.Options{})
	if _, err := v.Set(ctx, "token", "revoked-value-77"); err != nil {
		t.Fatal(err)
	}
	var revoked atomic.Bool
	var leaked, calls atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 32 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				after := revoked.Load()
				tok, err := v.Get("token")
				calls.Add(1)
				if after && (tok != "" || !errors.Is(err, vault.ErrRevoked)) {
					leaked.Add(1)
				}
			}
		})
	}
	time.Sleep(10 * time.Millisecond)
	if _, err := v.Revoke(ctx, "token"); err != nil {
		t.Fatal(err)
	}
	revoked.Store(true)
	time.Sleep(10 * time.Millisecond)
	close(stop)
	wg.Wait()
	if leaked.Load() != 0 {
		t.Errorf("%d of %d calls got the value after Revoke returned", leaked.Load(), calls.Load())
	}
}

// TestAttackServerRevokeShadowedInProject: the README's order is the
// project's SOPS file, then the server-wide one, then Docker secrets and
// the environment. A project scope looks in Docker and the environment
// (shared with the server) before its parent, so a server-wide secret also
// present there (an old GITEA_BOT kept from development, a stale Docker
// secret) is answered from there: the server's rotate and revoke never
// reach the project's consumers, and a revoked token keeps being used.
func TestAttackServerRevokeShadowedInProject(t *testing.T) {
	ctx := context.Background()
	env := map[string]string{"GITEA_BOT": "old-dev-token-4411"}
	getenv := func(k string) string { return env[k] }
	server := newVault(t, vault.Options{Getenv: getenv})
	if _, err := server.Set(ctx, "gitea-bot", "server-token-5522"); err != nil {
		t.Fatal(err)
	}
	proj := newVault(t, vault.Options{Scope: "p1", Parent: server, Getenv: getenv})
	if got, _ := proj.Get("gitea-bot"); got != "server-token-5522" {
		t.Errorf("project Get = %q, want the server-wide SOPS value (it comes before the environment)", got)
	}
	if _, err := server.Revoke(ctx, "gitea-bot"); err != nil {
		t.Fatal(err)
	}
	if got, err := proj.Get("gitea-bot"); !errors.Is(err, vault.ErrRevoked) {
		t.Errorf("after the server revoked it, the project still gets %q, %v", got, err)
	}
}

// TestAttackUnmaskableValuesAreRefused: the vault promises every value it
// holds is masked; the redactor skips values shorter than redact.MinLen
// and a few words (true, null, …). Set takes them anyway, and nothing
// masks them afterwards.
func TestAttackUnmaskableValuesAreRefused(t *testing.T) {
	for _, val := range []string{"abc", "true", "null", "nil"} {
		red := redact.New()
		v := newVault(t, vault.Options{Redactor: red})
		_, err := v.Set(context.Background(), "short", val)
		if err == nil && !red.Contains("the token is "+val) {
			t.Errorf("Set(%q) stored a value the redactor does not mask", val)
		}
	}
}

// TestAttackWhitespaceAroundAValue: a value given with a trailing space or
// tab (echo "tok " | bridle secrets set) is stored and registered with it;
// the consumer sends it in a header, where HTTP trims it, and a service
// that echoes the token it received shows it unmasked.
func TestAttackWhitespaceAroundAValue(t *testing.T) {
	for _, val := range []string{"ws-canary-123456 ", "ws-canary-123456\t", " ws-canary-123456"} {
		red := redact.New()
		v := newVault(t, vault.Options{Redactor: red})
		if _, err := v.Set(context.Background(), "padded", val); err != nil {
			continue
		}
		got, _ := v.Get("padded")
		if echoed := strings.TrimSpace(got); red.Redact("401: bad token "+echoed) != "401: bad token "+redact.Mask {
			t.Errorf("Set(%q): the token as sent (%q) is not masked", val, echoed)
		}
	}
}

// TestAttackFingerprintKey: the vault key is the owner's only, is kept
// across opens, and fingerprints under another key (another gateway, or
// someone guessing without the key) do not match.
func TestAttackFingerprintKey(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state", "vault.key")
	k1, err := vault.LoadKey(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{p, filepath.Dir(p)} {
		st, err := os.Stat(q)
		if err != nil || st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, %v; want no access for group and others", q, st.Mode().Perm(), err)
		}
	}
	k2, _ := vault.LoadKey(p)
	if string(k1) != string(k2) || len(k1) < 32 {
		t.Error("the vault key changed between opens")
	}
	a := newVault(t, vault.Options{Key: k1})
	b := newVault(t, vault.Options{})
	if a.Fingerprint("guess-value-1") == b.Fingerprint("guess-value-1") {
		t.Error("a fingerprint can be reproduced without the vault key")
	}
	if len(a.Fingerprint("x")) != 12 {
		t.Error("a fingerprint is not 12 hex digits")
	}
}

// TestAttackDockerSecretOddFiles: an oversized file in the Docker secrets
// directory fails its name, and the rest of the vault keeps answering.
func TestAttackDockerSecretOddFiles(t *testing.T) {
	docker := t.TempDir()
	if err := os.WriteFile(filepath.Join(docker, "big"), make([]byte, 70<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docker, "good"), []byte("good-canary-9999"), 0o600); err != nil {
		t.Fatal(err)
	}
	v := newVault(t, vault.Options{DockerDir: docker})
	if _, err := v.Get("big"); !errors.Is(err, vault.ErrSource) {
		t.Errorf("Get(big) = %v, want ErrSource", err)
	}
	if got, err := v.Get("good"); err != nil || got != "good-canary-9999" {
		t.Errorf("Get(good) = %q, %v", got, err)
	}
}

// TestAttackDockerSecretFIFO: a FIFO (or any non-regular file: a device, a
// socket) in the Docker secrets directory, or named by NAME_FILE, is not a
// secret. readSecretFile checks only for a directory and opens it: the open
// blocks until a writer comes, so List (list_secrets, the admin API's list)
// and every consumer of the name hang, each call leaking a goroutine.
func TestAttackDockerSecretFIFO(t *testing.T) {
	docker := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(docker, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	v := newVault(t, vault.Options{DockerDir: docker})
	done := make(chan error, 2)
	go func() { v.List(); done <- nil }()
	go func() { _, err := v.Get("fifo"); done <- err }()
	for range 2 {
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, vault.ErrSource) {
				t.Errorf("Get(fifo) = %v, want ErrSource", err)
			}
		case <-time.After(3 * time.Second):
			t.Fatal("List or Get hangs on a FIFO in the Docker secrets directory")
		}
	}
}
