package sopsfile_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/vault"
	"github.com/bridle-dev/bridle/vault/sopsfile"
)

// TestMain lets the test binary be the bridle-sops helper, so that
// ExecCodec is tested across a real process boundary.
func TestMain(m *testing.M) {
	if os.Getenv("BRIDLE_TEST_SOPS_HELPER") == "1" {
		if err := vault.ServeCodec(context.Background(), sopsfile.Codec{}, os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type identity struct {
	file, recipient string
	content         string
}

func newIdentity(t *testing.T) identity {
	t.Helper()
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "age.key")
	if err := os.WriteFile(p, []byte(id.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return identity{file: p, recipient: id.Recipient().String(), content: id.String()}
}

// helper is an ExecCodec running this test binary as bridle-sops.
func helper(keyFile string) vault.ExecCodec {
	return vault.ExecCodec{Path: os.Args[0], Env: []string{"BRIDLE_TEST_SOPS_HELPER=1", "SOPS_AGE_KEY_FILE=" + keyFile, "HOME=/nonexistent"}}
}

const canary = "sops-canary-7d41e0b2"

// rulesDir is a directory with .sops.yaml for id, and a vault over it
// holding gitea-bot = canary.
func rulesDir(t *testing.T, id identity, red *redact.Redactor) (string, *vault.Scope) {
	t.Helper()
	dir := t.TempDir()
	if _, err := vault.Init(context.Background(), dir, []string{id.recipient}, nil); err != nil {
		t.Fatal(err)
	}
	v := vault.Open(context.Background(), vault.Options{Dir: dir, Codec: helper(id.file), DockerDir: "-", Redactor: red})
	if _, err := v.Set(context.Background(), "gitea-bot", canary); err != nil {
		t.Fatal(err)
	}
	return dir, v
}

func TestRoundTripThroughTheHelper(t *testing.T) {
	id := newIdentity(t)
	dir, v := rulesDir(t, id, redact.New())
	ctx := context.Background()
	if _, err := v.Set(ctx, "pem", "-----BEGIN KEY-----\nline-one-abcdefgh\nline-two-ijklmnop\n-----END KEY-----"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, vault.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(canary)) || bytes.Contains(b, []byte("line-one")) {
		t.Fatalf("a value is in clear in the file:\n%s", b)
	}
	if !bytes.Contains(b, []byte("ENC[AES256_GCM")) || !bytes.Contains(b, []byte(id.recipient)) || !bytes.Contains(b, []byte("created:")) {
		t.Errorf("not a SOPS file for %s with clear metadata:\n%s", id.recipient, b)
	}
	again := vault.Open(ctx, vault.Options{Dir: dir, Codec: sopsfile.Codec{Identities: []string{id.content}}, DockerDir: "-"})
	if got, err := again.Get("gitea-bot"); err != nil || got != canary {
		t.Fatalf("reopened in process: %q, %v", got, err)
	}
	if got, _ := again.Get("pem"); !strings.Contains(got, "\nline-two-ijklmnop\n") {
		t.Errorf("a multi-line value came back as %q", got)
	}
	// Re-keying: the new identity opens it, the old one no longer does.
	id2 := newIdentity(t)
	if err := v.Rekey(ctx, []string{id2.recipient}); err != nil {
		t.Fatal(err)
	}
	if _, err := vault.Open(ctx, vault.Options{Dir: dir, Codec: helper(id2.file), DockerDir: "-"}).Get("gitea-bot"); err != nil {
		t.Errorf("the new recipient cannot decrypt after rekey: %v", err)
	}
	if err := vault.Open(ctx, vault.Options{Dir: dir, Codec: helper(id.file), DockerDir: "-"}).Err(); !errors.Is(err, vault.ErrKey) {
		t.Errorf("the old identity still decrypts after rekey: %v", err)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, vault.ConfigName))
	if rs, err := vault.ParseConfig(cfg); err != nil || len(rs) != 1 || rs[0] != id2.recipient {
		t.Errorf(".sops.yaml after rekey names %v (%v)", rs, err)
	}
}

// TestFaults: a vault whose SOPS file cannot be opened fails the names it
// would hold with an error naming them and the cause, never a value, and
// Docker secrets keep working.
func TestFaults(t *testing.T) {
	ctx := context.Background()
	id := newIdentity(t)
	dir, _ := rulesDir(t, id, redact.New())
	file := filepath.Join(dir, vault.FileName)
	good, _ := os.ReadFile(file)
	docker := t.TempDir()
	if err := os.WriteFile(filepath.Join(docker, "kanboard"), []byte("docker-value-9911"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := newIdentity(t)
	tamper := func(old, new string) []byte { return bytes.Replace(good, []byte(old), []byte(new), 1) }
	encStart := bytes.Index(good, []byte("data:")) + len("data:")
	flipped := bytes.Clone(good)
	flipped[encStart] ^= 1
	if flipped[encStart] == '+' || flipped[encStart] == '/' || flipped[encStart] == '=' {
		flipped[encStart] = 'A'
	}
	for _, tc := range []struct {
		name  string
		file  []byte
		key   string
		codec vault.Codec
		want  error
	}{
		{"wrong key", good, other.file, nil, vault.ErrKey},
		{"missing key", good, filepath.Join(t.TempDir(), "none"), nil, vault.ErrKey},
		{"in-process, no identity", good, "", sopsfile.Codec{Identities: []string{}}, vault.ErrKey},
		{"tampered value", flipped, id.file, nil, vault.ErrIntegrity},
		{"tampered metadata", tamper("created: ", "created: 1"), id.file, nil, vault.ErrIntegrity},
		{"corrupted", good[:len(good)/2], id.file, nil, vault.ErrFormat},
		{"not sops", []byte("gitea-bot: " + canary + "\n"), id.file, nil, vault.ErrFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(file, tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			codec := tc.codec
			if codec == nil {
				codec = helper(tc.key)
			}
			v := vault.Open(ctx, vault.Options{Dir: dir, Codec: codec, DockerDir: docker})
			_, err := v.Get("gitea-bot")
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "secret gitea-bot") || strings.Contains(err.Error(), canary) {
				t.Errorf("Get = %v, want %v naming the secret and not its value", err, tc.want)
			}
			if got, err := v.Get("kanboard"); err != nil || got != "docker-value-9911" {
				t.Errorf("the rest of the vault stopped working: %q, %v", got, err)
			}
			if _, err := v.Rotate(ctx, "gitea-bot", "new-value-x"); !errors.Is(err, tc.want) {
				t.Errorf("a write over an unreadable file: %v, want %v (nothing written)", err, tc.want)
			}
			if b, _ := os.ReadFile(file); !bytes.Equal(b, tc.file) {
				t.Error("the file was rewritten")
			}
		})
	}
}

// TestSOPSCLI: what Bridle writes, the real sops CLI decrypts; what the
// CLI encrypts, Bridle reads. scripts/test.sh builds sops v3.13.3 and
// exports BRIDLE_SOPS_BIN and BRIDLE_REQUIRE_SOPS=1.
func TestSOPSCLI(t *testing.T) {
	bin := os.Getenv("BRIDLE_SOPS_BIN")
	if bin == "" {
		if os.Getenv("BRIDLE_REQUIRE_SOPS") != "" {
			t.Fatal("BRIDLE_REQUIRE_SOPS is set but BRIDLE_SOPS_BIN is not: run scripts/test.sh, which builds sops")
		}
		t.Skip("BRIDLE_SOPS_BIN not set: scripts/test.sh builds the sops CLI and runs this")
	}
	id := newIdentity(t)
	dir, _ := rulesDir(t, id, redact.New())
	sops := func(stdin []byte, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = []string{"SOPS_AGE_KEY_FILE=" + id.file, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
		cmd.Stdin = bytes.NewReader(stdin)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("sops %v: %v\n%s", args, err, errOut.Bytes())
		}
		return out
	}
	plain := sops(nil, "-d", vault.FileName)
	if !bytes.Contains(plain, []byte("gitea-bot: "+canary)) {
		t.Errorf("sops -d of Bridle's file:\n%s", plain)
	}
	// The CLI encrypts a file by .sops.yaml's rule; Bridle reads it.
	enc := sops([]byte("gitea-bot: from-the-cli-4411\nport: 5432\n"), "-e", "--input-type", "yaml", "--output-type", "yaml", "--filename-override", vault.FileName, "/dev/stdin")
	if err := os.WriteFile(filepath.Join(dir, vault.FileName), enc, 0o644); err != nil {
		t.Fatal(err)
	}
	v := vault.Open(context.Background(), vault.Options{Dir: dir, Codec: helper(id.file), DockerDir: "-"})
	if got, err := v.Get("gitea-bot"); err != nil || got != "from-the-cli-4411" {
		t.Errorf("Bridle reads the CLI's file: %q, %v", got, err)
	}
	if got, _ := v.Get("port"); got != "5432" {
		t.Errorf("a number came back as %q", got)
	}
}

// TestBridleDoesNotLinkSOPS: the bridle binary stays free of sops/v3 and
// its cloud SDKs (they cost every command ~17 ms of start-up).
func TestBridleDoesNotLinkSOPS(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/bridle-dev/bridle/cmd/bridle").Output()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "github.com/getsops/") || strings.HasPrefix(line, "github.com/aws/") || strings.HasPrefix(line, "github.com/bridle-dev/bridle/vault/sopsfile") {
			t.Errorf("cmd/bridle links %s", strings.TrimSpace(line))
		}
	}
}

func FuzzDecrypt(f *testing.F) {
	id, _ := age.GenerateX25519Identity()
	c := sopsfile.Codec{Identities: []string{id.String()}}
	good, err := c.Encrypt(context.Background(), vault.File{Secrets: map[string]string{"a": "value-1"}, Recipients: []string{id.Recipient().String()}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte("a: b\nsops:\n  mac: x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := c.Decrypt(context.Background(), b)
		if err != nil && !errors.Is(err, vault.ErrKey) && !errors.Is(err, vault.ErrIntegrity) && !errors.Is(err, vault.ErrFormat) {
			t.Fatalf("unclassified error: %v", err)
		}
	})
}
