package vault_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/vault"
)

// plainCodec stands in for SOPS where encryption is not what is tested
// (vault/sopsfile tests the real codec): it stores the file as JSON.
type plainCodec struct{}

func (plainCodec) Decrypt(_ context.Context, b []byte) (vault.File, error) {
	var f vault.File
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%w: %v", vault.ErrFormat, err)
	}
	return f, nil
}

func (plainCodec) Encrypt(_ context.Context, f vault.File) ([]byte, error) { return json.Marshal(f) }

const recipient = "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"

func newVault(t *testing.T, o vault.Options) *vault.Scope {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
		if _, err := vault.Init(context.Background(), o.Dir, []string{recipient}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if o.Codec == nil {
		o.Codec = plainCodec{}
	}
	if o.DockerDir == "" {
		o.DockerDir = "-"
	}
	return vault.Open(context.Background(), o)
}

func TestSetRotateRevoke(t *testing.T) {
	ctx := context.Background()
	red := redact.New()
	var changes []vault.Change
	v := newVault(t, vault.Options{Redactor: red, OnChange: func(_ context.Context, c vault.Change) { changes = append(changes, c) }})
	const canary = "canary-value-1f3a9c"
	if _, err := v.Set(ctx, "gitea-bot", canary+"\n"); err != nil {
		t.Fatal(err)
	}
	if got, err := v.Get("gitea-bot"); err != nil || got != canary {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if red.Redact("x "+canary) != "x "+redact.Mask {
		t.Error("a set value is not registered with the redactor")
	}
	if _, err := v.Set(ctx, "gitea-bot", "again-value"); !errors.Is(err, vault.ErrExists) {
		t.Errorf("set twice: %v, want ErrExists", err)
	}
	if _, err := v.Rotate(ctx, "nope", "x-value"); !errors.Is(err, vault.ErrNotFound) {
		t.Errorf("rotate unknown: %v, want ErrNotFound", err)
	}
	calls := 0
	stop := v.Watch("gitea-bot", func() { calls++ })
	in, err := v.Rotate(ctx, "gitea-bot", "canary-value-2")
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || in.Rotated.IsZero() || in.Created.IsZero() || in.Source != vault.SourceSOPS || len(in.Fingerprint) != 12 {
		t.Errorf("after rotate: calls %d, info %+v", calls, in)
	}
	if in.Fingerprint == v.Fingerprint("canary-value-2") && in.Fingerprint == fmt.Sprintf("%x", []byte("canary-value-2"))[:12] {
		t.Error("the fingerprint is not keyed")
	}
	stop()
	if _, err := v.Revoke(ctx, "gitea-bot"); err != nil {
		t.Fatal(err)
	}
	_, err = v.Get("gitea-bot")
	if !errors.Is(err, vault.ErrRevoked) || !strings.Contains(err.Error(), "secret gitea-bot was revoked") {
		t.Errorf("after revoke: %v", err)
	}
	if calls != 1 {
		t.Error("a stopped watcher was called")
	}
	// The state is the file's: a new vault over the same directory agrees.
	again := vault.Open(ctx, vault.Options{Dir: v.Path()[:len(v.Path())-len(vault.FileName)-1], Codec: plainCodec{}, DockerDir: "-"})
	if _, err := again.Get("gitea-bot"); !errors.Is(err, vault.ErrRevoked) {
		t.Errorf("reopened: %v, want ErrRevoked", err)
	}
	if _, err := again.Set(ctx, "gitea-bot", "canary-value-3"); err != nil {
		t.Errorf("a revoked name cannot be set again: %v", err)
	}
	var ops []string
	for _, c := range changes {
		ops = append(ops, c.Op+" "+c.Name)
	}
	if strings.Join(ops, ",") != "set gitea-bot,rotate gitea-bot,revoke gitea-bot" {
		t.Errorf("changes = %v", ops)
	}
	out, _ := json.Marshal(struct {
		L []vault.Info
		C []vault.Change
	}{v.List(), changes})
	for _, c := range []string{canary, "canary-value-2"} {
		if strings.Contains(string(out), c) {
			t.Errorf("a value is in List or Change: %s", out)
		}
	}
}

func TestDockerAndEnv(t *testing.T) {
	docker := t.TempDir()
	write := func(name, val string) {
		if err := os.WriteFile(filepath.Join(docker, name), []byte(val), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("kanboard-claude", "docker-canary-aa11\n")
	write("empty", "")
	if err := os.Mkdir(filepath.Join(docker, "a-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop", filepath.Join(docker, "loop")); err != nil {
		t.Fatal(err)
	}
	fileVar := filepath.Join(t.TempDir(), "q")
	if err := os.WriteFile(fileVar, []byte("file-canary-bb22"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"QDRANT_KEY_FILE": fileVar, "EMBED_KEY": "env-canary-cc33", "MISSING_FILE": "/nonexistent/x"}
	var warnings []string
	red := redact.New()
	v := newVault(t, vault.Options{DockerDir: docker, Redactor: red, Getenv: func(k string) string { return env[k] },
		Warn: func(m string) { warnings = append(warnings, m) }})
	for name, want := range map[string]string{"kanboard-claude": "docker-canary-aa11", "qdrant-key": "file-canary-bb22", "embed-key": "env-canary-cc33"} {
		if got, err := v.Get(name); err != nil || got != want {
			t.Errorf("Get(%s) = %q, %v", name, got, err)
		}
		if strings.Contains(red.Redact(want), want) {
			t.Errorf("%s's value is not registered with the redactor", name)
		}
	}
	_, _ = v.Get("embed-key")
	if len(warnings) != 1 || !strings.Contains(warnings[0], "EMBED_KEY") {
		t.Errorf("warnings = %q, want one naming EMBED_KEY", warnings)
	}
	for _, name := range []string{"empty", "a-dir", "loop", "missing"} {
		_, err := v.Get(name)
		if !errors.Is(err, vault.ErrSource) || !strings.Contains(err.Error(), "secret "+name) {
			t.Errorf("Get(%s) = %v, want ErrSource naming it", name, err)
		}
	}
	if _, err := v.Rotate(context.Background(), "kanboard-claude", "x-value"); !errors.Is(err, vault.ErrReadOnly) {
		t.Errorf("rotate a Docker secret: %v, want ErrReadOnly", err)
	}
	if _, err := v.Get("nowhere"); !errors.Is(err, vault.ErrNotFound) {
		t.Errorf("Get(nowhere) = %v", err)
	}
	list := v.List()
	b, _ := json.Marshal(list)
	for _, c := range []string{"docker-canary-aa11", "file-canary-bb22", "env-canary-cc33"} {
		if strings.Contains(string(b), c) {
			t.Errorf("List holds a value: %s", b)
		}
	}
	byName := map[string]vault.Info{}
	for _, in := range list {
		byName[in.Name] = in
	}
	if in := byName["a-dir"]; in.Error == "" || in.Source != vault.SourceDocker {
		t.Errorf("List(a-dir) = %+v, want its error", in)
	}
	if in := byName["kanboard-claude"]; in.Fingerprint == "" || in.Location != filepath.Join(docker, "kanboard-claude") {
		t.Errorf("List(kanboard-claude) = %+v", in)
	}
}

func TestParentAndUsedBy(t *testing.T) {
	ctx := context.Background()
	server := newVault(t, vault.Options{})
	if _, err := server.Set(ctx, "shared", "server-canary"); err != nil {
		t.Fatal(err)
	}
	proj := newVault(t, vault.Options{Scope: "p1", Parent: server})
	if got, err := proj.Get("shared"); err != nil || got != "server-canary" {
		t.Fatalf("Get through the parent = %q, %v", got, err)
	}
	proj.Use("shared", "kanboard")
	if in := server.List()[0]; in.Name != "shared" || len(in.UsedBy) != 1 || in.UsedBy[0] != "p1: kanboard" {
		t.Errorf("server list = %+v", in)
	}
	if _, err := proj.Set(ctx, "shared", "project-canary"); err != nil {
		t.Fatal(err)
	}
	if got, _ := proj.Get("shared"); got != "project-canary" {
		t.Errorf("the project's own value does not come first: %q", got)
	}
}

// TestRotationUnderLoad: 32 consumers use a secret while it is rotated;
// none fails, and none started after Rotate returned uses the old value.
func TestRotationUnderLoad(t *testing.T) {
	ctx := context.Background()
	v := newVault(t, vault.Options{})
	if _, err := v.Set(ctx, "token", "old-value"); err != nil {
		t.Fatal(err)
	}
	var rotated atomic.Bool
	var failures, stale, calls atomic.Int64
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
				after := rotated.Load()
				tok, err := v.Get("token")
				calls.Add(1)
				if err != nil || (tok != "old-value" && tok != "new-value") {
					failures.Add(1)
				}
				if after && tok == "old-value" {
					stale.Add(1)
				}
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	if _, err := v.Rotate(ctx, "token", "new-value"); err != nil {
		t.Fatal(err)
	}
	rotated.Store(true)
	time.Sleep(20 * time.Millisecond)
	close(stop)
	wg.Wait()
	if failures.Load() != 0 || stale.Load() != 0 || calls.Load() < 64 {
		t.Errorf("%d calls: %d failed, %d used the old value after rotate returned", calls.Load(), failures.Load(), stale.Load())
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		in   string
		name string
		ref  bool
		bad  bool
	}{
		{"secret:gitea-bot", "gitea-bot", true, false},
		{" secret:kanboard_claude ", "kanboard_claude", true, false},
		{"/run/secrets/gitea", "", false, false},
		{"secret:", "", true, true},
		{"secret:Gitea", "", true, true},
		{"secret:x_unencrypted", "", true, true},
		{"secret:sops", "", true, true},
		{"secret:../etc/passwd", "", true, true},
	} {
		name, ref, err := vault.ParseRef(tc.in)
		if name != tc.name || ref != tc.ref || (err != nil) != tc.bad || (tc.bad && !errors.Is(err, vault.ErrBadName)) {
			t.Errorf("ParseRef(%q) = %q, %v, %v", tc.in, name, ref, err)
		}
	}
	if vault.EnvName("gitea-bot") != "GITEA_BOT" {
		t.Error(vault.EnvName("gitea-bot"))
	}
}

func TestParseConfig(t *testing.T) {
	const r2 = "age1lggyhqrw2nlhcxprm67z43rta597azn8gknawjehu9d9dl0jq3yqqvfafg"
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"creation_rules:\n  - age: " + recipient + "\n", []string{recipient}},
		{"creation_rules:\n  - path_regex: other\\.yaml$\n    age: " + r2 + "\n  - age: [" + recipient + ", " + r2 + "]\n", []string{recipient, r2}},
		{string(vault.Config([]string{recipient, r2})), []string{recipient, r2}},
		{"creation_rules:\n  - age: not-a-recipient\n", nil},
		{"creation_rules: [", nil},
		{"", nil},
	} {
		got, err := vault.ParseConfig([]byte(tc.in))
		if strings.Join(got, ",") != strings.Join(tc.want, ",") || (tc.want == nil) != (err != nil) {
			t.Errorf("ParseConfig(%q) = %v, %v", tc.in, got, err)
		}
		if err != nil && !errors.Is(err, vault.ErrFormat) {
			t.Errorf("ParseConfig(%q): %v does not wrap ErrFormat", tc.in, err)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(vault.Config([]string{recipient})))
	f.Add([]byte("creation_rules:\n  - path_regex: '['\n    age: [a, b]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := vault.ParseConfig(b)
		if err == nil && len(rs) == 0 {
			t.Fatal("no error and no recipients")
		}
		_, _, _ = vault.ParseRef(string(b))
	})
}

func TestServeCodecClassifies(t *testing.T) {
	var out strings.Builder
	if err := vault.ServeCodec(context.Background(), plainCodec{}, strings.NewReader(`{"op":"decrypt","encrypted":"bm90IGpzb24="}`), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"kind":"format"`) {
		t.Errorf("reply = %s", out.String())
	}
}

// Status says what a vault lacks before it can store a secret: a SOPS
// file's directory, recipients (bridle secrets init), the helper.
func TestStatus(t *testing.T) {
	ctx := context.Background()
	red := redact.New()
	none := vault.Open(ctx, vault.Options{Scope: "server", Redactor: red, DockerDir: "-"})
	if st := none.Status(); st.Dir != "" || st.Writable || len(st.Recipients) != 0 {
		t.Errorf("no directory: %+v", st)
	}
	bare := vault.Open(ctx, vault.Options{Scope: "alpha", Dir: t.TempDir(), Redactor: red, DockerDir: "-"})
	if st := bare.Status(); st.Writable || len(st.Recipients) != 0 || !strings.Contains(st.Helper, "bridle-sops") {
		t.Errorf("no .sops.yaml, no codec: %+v", st)
	}
	v := newVault(t, vault.Options{Redactor: red})
	st := v.Status()
	if !st.Writable || st.File || len(st.Recipients) != 1 || st.Recipients[0] != recipient || st.Helper != "" || st.Error != "" {
		t.Errorf("initialised: %+v", st)
	}
	if _, err := v.Set(ctx, "gitea-bot", "a-value-7f"); err != nil {
		t.Fatal(err)
	}
	if st := v.Status(); !st.Writable || !st.File || len(st.Recipients) != 1 {
		t.Errorf("after a set: %+v", st)
	}
}
