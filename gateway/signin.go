package gateway

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/bridle-dev/bridle/vault"
)

// OIDCConfig is the OpenID Connect provider people sign in to the panel
// with (Gitea by default; any standard provider works the same): the
// authorization code flow with PKCE, its ID token verified against the
// provider's keys.
type OIDCConfig struct {
	// Issuer is the provider's issuer URL exactly as its discovery
	// document (ISSUER/.well-known/openid-configuration) names it; Gitea's
	// is its ROOT_URL (bridle serve oidc setup reads it from there).
	Issuer   string `yaml:"issuer"`
	ClientID string `yaml:"client_id"`
	// ClientSecret is the vault's secret:NAME; or ClientSecretFile, a file
	// holding it (a Docker secret). Never the value itself.
	ClientSecret     string `yaml:"client_secret"`
	ClientSecretFile string `yaml:"client_secret_file"`
	// Name is what the sign-in button names ("Sign in with NAME"); Gitea.
	Name string `yaml:"name"`
	// RedirectURL is the callback the provider sends people back to, as
	// registered with it; default: the panel's own address (the request's
	// scheme and Host) + /auth/callback.
	RedirectURL string `yaml:"redirect_url"`
}

// SignInPath and CallbackPath are the panel's addresses of the sign-in
// through the provider.
const (
	SignInPath   = "/auth/login"
	CallbackPath = "/auth/callback"
)

func (o *OIDCConfig) validate(bad func(format string, args ...any)) {
	if o == nil {
		return
	}
	if u, err := url.Parse(o.Issuer); err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Host))) {
		bad("auth.oidc.issuer %q: the provider's https URL (http only on the loopback), as its discovery document names it", o.Issuer)
	}
	if strings.TrimSpace(o.ClientID) == "" {
		bad("auth.oidc.client_id: set the client id the provider gave this gateway (bridle serve oidc setup makes one on Gitea)")
	}
	switch {
	case o.ClientSecret == "" && o.ClientSecretFile == "":
		bad("auth.oidc: set client_secret: secret:NAME (the vault) or client_secret_file")
	case o.ClientSecret != "" && o.ClientSecretFile != "":
		bad("auth.oidc: set client_secret or client_secret_file, not both")
	case o.ClientSecret != "":
		switch _, isRef, err := vault.ParseRef(o.ClientSecret); {
		case !isRef: // never echoed: it may be the secret itself
			bad("auth.oidc.client_secret: a value never goes in the configuration: store it in the vault (bridle secrets set NAME) and write secret:NAME, or give client_secret_file")
		case err != nil:
			bad("auth.oidc.client_secret: %v", err)
		}
	}
	if r := o.RedirectURL; r != "" {
		if u, err := url.Parse(r); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.Path != CallbackPath {
			bad("auth.oidc.redirect_url %q: the gateway's URL with the path %s", r, CallbackPath)
		}
	}
}

type providerTokenKey struct{}

// WithProviderToken is ctx carrying the OAuth access token the identity
// provider gave the signed-in person (the panel's session holds it, server
// side), beside the person (actor.With). The gateway uses it for one thing:
// approving on a Gitea project of that same Gitea, so that the merge is the
// person's own, never the bot's and never a pasted token. It is never
// logged, stored or answered.
func WithProviderToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, providerTokenKey{}, token)
}

// providerToken is the person's provider token for a Gitea at giteaURL:
// "" unless ctx carries one and that Gitea is the configured provider.
func (s *Server) providerToken(ctx context.Context, giteaURL string) string {
	tok, _ := ctx.Value(providerTokenKey{}).(string)
	o := s.cfg.Auth.OIDC
	if tok == "" || o == nil {
		return ""
	}
	a, err1 := url.Parse(strings.TrimSuffix(o.Issuer, "/"))
	b, err2 := url.Parse(strings.TrimSuffix(giteaURL, "/"))
	if err1 != nil || err2 != nil || a.Scheme != b.Scheme || !strings.EqualFold(a.Host, b.Host) || a.Path != b.Path {
		return "" // another server: the person's token never goes there
	}
	return tok
}

// SignIn is what the panel needs to sign people in through the provider.
// The client secret is read per sign-in (a rotation holds at once) and
// goes only to the provider's token endpoint.
type SignIn struct {
	Issuer, ClientID, Name, RedirectURL string
	Secret                              func() (string, error)
	// Groups reports whether a role is given by group (auth.roles, as in
	// force now): the sign-in then asks for the person's groups.
	Groups func() bool
}

// signIn is the configured provider's SignIn, nil when none is configured.
func (s *Server) signIn() (*SignIn, error) {
	o := s.cfg.Auth.OIDC
	if o == nil {
		return nil, nil
	}
	read, _, err := Credentials{Vault: s.vault, Redactor: s.red}.reader("auth.oidc", o.ClientSecret, o.ClientSecretFile)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(o.Name)
	if name == "" {
		name = "Gitea"
	}
	return &SignIn{Issuer: o.Issuer, ClientID: strings.TrimSpace(o.ClientID), Name: name, RedirectURL: o.RedirectURL,
		Groups: func() bool { return s.auth.Load().WantsGroups() }, Secret: func() (string, error) {
			v, err := read()
			if err != nil {
				return "", fmt.Errorf("auth.oidc client secret: %w", err)
			}
			s.red.Add(v)
			return v, nil
		}}, nil
}
