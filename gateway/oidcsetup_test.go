package gateway

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/internal/giteatest"
)

// TestSetupGiteaOIDC makes the gateway's OAuth2 application on a real
// Gitea: it exists there with the redirect URI, its secret is only in the
// new 0600 file, the configuration printed validates, and an existing
// secret file is refused before anything is made.
func TestSetupGiteaOIDC(t *testing.T) {
	srv := giteatest.Shared(t)
	tok := srv.CreateUser(t, "oidc-setup")
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "secrets", "oidc")
	s, err := SetupGiteaOIDC(ctx, OIDCSetupOptions{Gitea: srv.URL, Token: tok, Gateway: "https://bridle.example.org/", SecretFile: file})
	if err != nil {
		t.Fatal(err)
	}
	if s.Issuer != strings.TrimSuffix(srv.URL, "/") || s.RedirectURL != "https://bridle.example.org/auth/callback" || s.ClientID == "" {
		t.Errorf("setup = %+v", s)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", fi, err)
	}
	secret, _ := os.ReadFile(file)
	if len(strings.TrimSpace(string(secret))) < 16 {
		t.Fatalf("the secret file holds %d bytes", len(secret))
	}
	if strings.Contains(s.Config(), strings.TrimSpace(string(secret))) {
		t.Error("the printed configuration holds the client secret")
	}
	var apps []struct {
		ID           int64    `json:"id"`
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := srv.Do("GET", "/api/v1/user/applications/oauth2", tok, nil, &apps); err != nil {
		t.Fatal(err)
	}
	if len(apps) != 1 || apps[0].ClientID != s.ClientID || len(apps[0].RedirectURIs) != 1 || apps[0].RedirectURIs[0] != s.RedirectURL {
		t.Errorf("Gitea's applications: %+v", apps)
	}
	c, err := ParseConfig("pasted.yaml", []byte(s.Config()))
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	c.Auth.validate(func(format string, args ...any) { problems = append(problems, format) })
	if c.Auth.OIDC == nil || c.Auth.OIDC.ClientSecretFile != file || len(problems) > 0 {
		t.Errorf("the printed configuration: %+v %v", c.Auth.OIDC, problems)
	}
	// Again into the same file: refused, and no second application.
	if _, err := SetupGiteaOIDC(ctx, OIDCSetupOptions{Gitea: srv.URL, Token: tok, Gateway: "https://bridle.example.org", SecretFile: file}); !errors.Is(err, ErrInput) {
		t.Errorf("an existing secret file: %v", err)
	}
	srv.Do("GET", "/api/v1/user/applications/oauth2", tok, nil, &apps)
	if len(apps) != 1 {
		t.Errorf("a refused setup made an application: %d", len(apps))
	}
}
