package gitea

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	sdk "code.gitea.io/sdk/gitea"
)

// OAuth2App is an OAuth2 application of the token's user: what people sign
// in to Bridle's panel with, Gitea being their OpenID Connect provider.
type OAuth2App struct {
	ID           int64
	Name         string
	ClientID     string
	ClientSecret string // shown by Gitea once, when the application is made
	RedirectURIs []string
}

// CreateOAuth2App makes a confidential OAuth2 application named name that
// sends people back to redirects. Not retried: a second call would make a
// second application. The client secret is added to the client's
// redactor, so no error of this client shows it.
func (c *Client) CreateOAuth2App(ctx context.Context, name string, redirects []string) (OAuth2App, error) {
	app, resp, err := c.SDK(ctx).CreateOauth2(sdk.CreateOauth2Option{Name: name, ConfidentialClient: true, RedirectURIs: redirects})
	if err != nil {
		return OAuth2App{}, c.Classify("create the OAuth2 application", resp, err)
	}
	c.redact.Add(app.ClientSecret)
	return OAuth2App{ID: app.ID, Name: app.Name, ClientID: app.ClientID, ClientSecret: app.ClientSecret, RedirectURIs: app.RedirectURIs}, nil
}

// Issuer is the issuer Gitea's OpenID Connect discovery document names
// (its ROOT_URL, as that document spells it): what a client's configuration
// must say exactly. ErrNotFound when Gitea's OAuth2 provider is off.
func (c *Client) Issuer(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.o.URL+"/.well-known/openid-configuration", nil)
	if err != nil {
		return "", fmt.Errorf("gitea discovery: %w", err)
	}
	resp, err := c.o.HTTP.Do(req)
	if err != nil {
		return "", c.classify("read the OpenID Connect discovery document", 0, err.Error(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", c.ClassifyResponse("read the OpenID Connect discovery document", resp)
	}
	var d struct {
		Issuer string `json:"issuer"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&d); err != nil || d.Issuer == "" {
		return "", &Error{Step: "read the OpenID Connect discovery document", Status: resp.StatusCode, Message: "no issuer in it"}
	}
	return d.Issuer, nil
}
