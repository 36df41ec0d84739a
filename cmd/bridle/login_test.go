package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/gateway"
)

// TestLogoutWhenTheGatewayIsDown: the token is deleted here all the same,
// and logout says it could not be revoked and where to do it; the token
// is never printed.
func TestLogoutWhenTheGatewayIsDown(t *testing.T) {
	isolated(t)
	dir := t.TempDir()
	t.Setenv("BRIDLE_CONFIG_DIR", dir)
	t.Setenv("BRIDLE_SERVER", "")
	server := "http://" + freeAddr(t) // nothing listens there
	tok := gateway.NewToken()
	path, err := gateway.SaveCredential(dir, gateway.Credential{Server: server, Token: tok, ID: "0123456789abcdef", Name: "bridle login on test"})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the credential's file: %v %v", fi.Mode(), err)
	}
	code, out, stderr := bridle(t, "logout")
	if code != exitFailure || !strings.Contains(stderr, "deleted the token bridle login on test here, but the gateway could not revoke it") ||
		!strings.Contains(stderr, server+"/ui/account") {
		t.Errorf("logout, gateway down: exit %d\n%s", code, stderr)
	}
	if strings.Contains(out+stderr, tok) {
		t.Error("logout printed the token")
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the credential is still there: %v", err)
	}
	if code, _, stderr := bridle(t, "logout"); code != 0 || !strings.Contains(stderr, "Not signed in to any gateway") {
		t.Errorf("logout again: %d %s", code, stderr)
	}
}

// TestAdminVerbsSayHowToSignIn: with no admin credential and no sign-in,
// an admin verb with --server says to run bridle login; bad --server
// values are usage errors.
func TestAdminVerbsSayHowToSignIn(t *testing.T) {
	isolated(t)
	t.Setenv("BRIDLE_CONFIG_DIR", t.TempDir())
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", "")
	code, _, stderr := bridle(t, "approve", "1", "--server", "http://127.0.0.1:1", "--project", "acme")
	if code != exitUsage || !strings.Contains(stderr, "bridle login --server http://127.0.0.1:1") {
		t.Errorf("approve with no credential: %d %s", code, stderr)
	}
	for _, args := range [][]string{{"login", "--server", "ftp://example.org"}, {"login"}, {"logout", "--server", "not a url"}} {
		t.Setenv("BRIDLE_SERVER", "")
		if code, _, stderr := bridle(t, args...); code != exitUsage {
			t.Errorf("%v: %d %s", args, code, stderr)
		}
	}
}

// TestConfigDir: BRIDLE_CONFIG_DIR, else XDG_CONFIG_HOME/bridle (absolute
// only, as the XDG specification says), else ~/.config/bridle.
func TestConfigDir(t *testing.T) {
	for _, tc := range []struct{ dir, xdg, home, want string }{
		{"/c", "/x", "/h", "/c"},
		{"", "/x", "/h", "/x/bridle"},
		{"", "relative", "/h", "/h/.config/bridle"},
		{"", "", "/h", "/h/.config/bridle"},
	} {
		env := map[string]string{"BRIDLE_CONFIG_DIR": tc.dir, "XDG_CONFIG_HOME": tc.xdg, "HOME": tc.home}
		f := newFactory(func(k string) string { return env[k] }, os.Environ)
		if got, err := f.ConfigDir(); err != nil || got != filepath.FromSlash(tc.want) {
			t.Errorf("%+v: %q %v", tc, got, err)
		}
	}
}
