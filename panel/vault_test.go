package panel_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/giteatest"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/vault"
)

var (
	helperOnce sync.Once
	helperDir  string
	helperErr  error
)

// TestMain removes the SOPS helper the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	giteatest.StopShared()
	if helperDir != "" {
		os.RemoveAll(helperDir)
	}
	os.Exit(code)
}

// sopsHelper builds cmd/bridle-sops once per test run: the gateway opens
// and writes SOPS files through it, as bridle serve does.
func sopsHelper(t testing.TB) string {
	t.Helper()
	helperOnce.Do(func() {
		if helperDir, helperErr = os.MkdirTemp("", "bridle-sops"); helperErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(helperDir, vault.HelperName), "../cmd/bridle-sops").CombinedOutput()
		if err != nil {
			helperErr = fmt.Errorf("go build bridle-sops: %w\n%s", err, out)
		}
	})
	if helperErr != nil {
		t.Fatal(helperErr)
	}
	return filepath.Join(helperDir, vault.HelperName)
}

// vaultKit is what a gateway needs to keep secrets in SOPS files: the
// helper, an age identity, a Docker secrets directory of the test's own.
type vaultKit struct {
	helper, keyFile, recipient, docker, server string
}

func newVaultKit(t testing.TB) vaultKit {
	t.Helper()
	key, recipient, err := vault.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	k := vaultKit{helper: sopsHelper(t), keyFile: filepath.Join(t.TempDir(), "age.key"), recipient: recipient, docker: t.TempDir(), server: t.TempDir()}
	if err := os.WriteFile(k.keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return k
}

// init runs what bridle secrets init does in dir: a .sops.yaml naming the
// kit's recipient, committed when dir is a git repository.
func (k vaultKit) init(t testing.TB, dir string) {
	t.Helper()
	commit := func(_ context.Context, files map[string][]byte, msg string) (string, error) {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
			return "", nil
		}
		return scaffold.CommitIn(dir, files, &object.Signature{Name: "Mira Rossi", Email: "mira@example.com", When: time.Now()}, msg)
	}
	if _, err := vault.Init(context.Background(), dir, []string{k.recipient}, commit); err != nil {
		t.Fatal(err)
	}
}

// option serves the kit's vaults: the server-wide one in k.server (set up
// with init), the helper found through BRIDLE_SOPS.
func (k vaultKit) option() envOption {
	return func(c *gateway.Config, o *gateway.Options) {
		c.Secrets = gateway.SecretsConfig{Dir: k.server, DockerDir: k.docker, AgeKeyFile: k.keyFile}
		o.Getenv = func(name string) string {
			if name == "BRIDLE_SOPS" {
				return k.helper
			}
			return ""
		}
	}
}
