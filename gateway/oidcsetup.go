package gateway

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/bridle-dev/bridle/gitea"
)

// OIDCSetupOptions say where to make the gateway's OAuth2 application.
type OIDCSetupOptions struct {
	Gitea string // Gitea's URL
	// Token is the person's own Gitea token (it may make OAuth2
	// applications: write:user); the application is theirs.
	Token string
	// Gateway is the gateway's URL as people's browsers reach it: the
	// redirect URI is Gateway + CallbackPath.
	Gateway string
	Name    string // the application's name; "Bridle"
	// SecretFile receives the client secret (mode 0600, made new: an
	// existing file is refused).
	SecretFile string
}

// OIDCSetup is what SetupGiteaOIDC made: never the client secret itself,
// which is only in SecretFile.
type OIDCSetup struct {
	Issuer, ClientID, Name, RedirectURL, SecretFile string
	AppID                                           int64
}

// Config is the auth.oidc configuration to paste into bridle serve's file.
func (s OIDCSetup) Config() string {
	return fmt.Sprintf("auth:\n  oidc:\n    issuer: %s\n    client_id: %s\n    client_secret_file: %s\n    name: Gitea\n    redirect_url: %s\n",
		yamlString(s.Issuer), yamlString(s.ClientID), yamlString(s.SecretFile), yamlString(s.RedirectURL))
}

func yamlString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// SetupGiteaOIDC makes the gateway's OAuth2 application on Gitea (a
// confidential client whose redirect URI is the gateway's CallbackPath),
// writes its client secret to o.SecretFile and answers what it made. The
// secret file is checked first, so nothing is made when it cannot be
// written.
func SetupGiteaOIDC(ctx context.Context, o OIDCSetupOptions) (OIDCSetup, error) {
	gw, err := url.Parse(strings.TrimSuffix(o.Gateway, "/"))
	if err != nil || gw.Host == "" || (gw.Scheme != "https" && gw.Scheme != "http") || gw.RawQuery != "" || gw.Fragment != "" {
		return OIDCSetup{}, fmt.Errorf("%w: --gateway %q: the gateway's URL as browsers reach it (https://bridle.example.org)", ErrInput, o.Gateway)
	}
	if strings.TrimSpace(o.Token) == "" {
		return OIDCSetup{}, fmt.Errorf("%w: no Gitea token: set GITEA_TOKEN_FILE to a file holding your own token (scope write:user)", ErrInput)
	}
	if o.SecretFile == "" || !filepath.IsAbs(o.SecretFile) {
		return OIDCSetup{}, fmt.Errorf("%w: --secret-file %q: an absolute path for the client secret", ErrInput, o.SecretFile)
	}
	if _, err := os.Lstat(o.SecretFile); !errors.Is(err, fs.ErrNotExist) {
		return OIDCSetup{}, fmt.Errorf("%w: --secret-file %s exists: choose a new file (a client secret is never written over another)", ErrInput, o.SecretFile)
	}
	if err := os.MkdirAll(filepath.Dir(o.SecretFile), 0o700); err != nil {
		return OIDCSetup{}, fmt.Errorf("oidc setup: %w", err)
	}
	name := strings.TrimSpace(o.Name)
	if name == "" {
		name = "Bridle"
	}
	gc, err := gitea.New(gitea.Options{URL: o.Gitea, Token: o.Token})
	if err != nil {
		return OIDCSetup{}, fmt.Errorf("%w: --gitea: %w", ErrInput, err)
	}
	issuer, err := gc.Issuer(ctx)
	if err != nil {
		return OIDCSetup{}, fmt.Errorf("oidc setup: is Gitea's OAuth2 provider on ([oauth2] ENABLE)? %w", err)
	}
	redirect := gw.String() + CallbackPath
	app, err := gc.CreateOAuth2App(ctx, name, []string{redirect})
	if err != nil {
		return OIDCSetup{}, fmt.Errorf("oidc setup: %w", err)
	}
	f, err := os.OpenFile(o.SecretFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = f.WriteString(app.ClientSecret + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return OIDCSetup{}, fmt.Errorf("oidc setup: application %d (%s) was made, but its secret could not be written to %s (delete the application in Gitea and run again): %w",
			app.ID, app.ClientID, o.SecretFile, err)
	}
	return OIDCSetup{Issuer: issuer, ClientID: app.ClientID, Name: app.Name, RedirectURL: redirect, SecretFile: o.SecretFile, AppID: app.ID}, nil
}
