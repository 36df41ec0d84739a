// Package gitea is Bridle's Gitea client: its options, the SDK client built
// from them, one classifier for what Gitea answers, and retries of safe
// calls. Every user of Gitea — proposals, the rules mirror, init --gitea,
// the audit — goes through it, so "Gitea is down" and "the token was
// revoked" read the same everywhere and are told apart with errors.Is.
//
// Promises: the token is sent only to the configured server and never
// appears in an error (every message passes through a redactor that knows
// it, in every encoded form); a classified error wraps exactly one of the
// sentinels below; Retry retries only ErrUnavailable, with back-off, and
// stops when the context ends.
package gitea

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "code.gitea.io/sdk/gitea"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/bridle-dev/bridle/redact"
)

// Options say which Gitea to talk to, as whom.
type Options struct {
	URL   string // e.g. https://gitea.example.com
	Token string // never printed: errors are redacted of it
	// TokenSource, when set, is read for the token at every request and
	// git operation instead of Token (a rotated secret takes effect on the
	// next one; "" sends none).
	TokenSource func() string
	HTTP        *http.Client  // default: 20 s timeout
	Retry       time.Duration // base back-off for safe retries; default 200 ms
}

// ErrBadOptions is returned by New for options that name no server.
var ErrBadOptions = errors.New("bad gitea options")

// Client talks to one Gitea server with one token.
type Client struct {
	o      Options
	redact *redact.Redactor
}

// New returns a client. It does not contact the server.
func New(o Options) (*Client, error) {
	if o.URL == "" {
		return nil, fmt.Errorf("%w: no URL", ErrBadOptions)
	}
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: %q is not an http(s) URL", ErrBadOptions, o.URL)
	}
	o.URL = strings.TrimSuffix(o.URL, "/")
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 20 * time.Second}
	}
	if o.Retry == 0 {
		o.Retry = 200 * time.Millisecond
	}
	return &Client{o: o, redact: redact.New(o.Token)}, nil
}

// URL is the server's base URL, without a trailing slash.
func (c *Client) URL() string { return c.o.URL }

// HasToken reports whether the client authenticates.
func (c *Client) HasToken() bool { return c.token() != "" }

// token is the token to send now.
func (c *Client) token() string {
	if c.o.TokenSource == nil {
		return c.o.Token
	}
	t := c.o.TokenSource()
	c.redact.Add(t)
	return t
}

// SDK returns a Gitea SDK client bound to ctx.
func (c *Client) SDK(ctx context.Context) *sdk.Client {
	s, _ := sdk.NewClient(c.o.URL, sdk.SetToken(c.token()), sdk.SetHTTPClient(c.o.HTTP),
		sdk.SetContext(ctx), sdk.SetGiteaVersion(""), sdk.SetUserAgent("bridle"))
	return s
}

// Do sends an API request the SDK has no call for, with the token, and
// returns the response for Classify.
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	if t := c.token(); t != "" {
		req.Header.Set("Authorization", "token "+t)
	}
	return c.o.HTTP.Do(req)
}

// User is the token's user name (GET /user).
func (c *Client) User(ctx context.Context) (string, error) {
	s := c.SDK(ctx)
	u, err := Retry(ctx, c, "read the token's user", func() (*sdk.User, *sdk.Response, error) { return s.GetMyUserInfo() })
	if err != nil {
		return "", err
	}
	return u.UserName, nil
}

// RepoURL is the git URL of a repository, for clone and fetch.
func (c *Client) RepoURL(owner, repo string) string {
	return c.o.URL + "/" + url.PathEscape(owner) + "/" + url.PathEscape(repo) + ".git"
}

// GitAuth is the token as HTTP basic auth for git transport (go-git).
func (c *Client) GitAuth() *githttp.BasicAuth {
	return &githttp.BasicAuth{Username: "bridle", Password: c.token()}
}

// Redact masks the token in s.
func (c *Client) Redact(s string) string { return c.redact.Redact(s) }

// Retry runs a safe (read-only or idempotent) call up to 3 times while
// Gitea is unavailable, classifying every failure.
func Retry[T any](ctx context.Context, c *Client, step string, f func() (T, *sdk.Response, error)) (T, error) {
	var zero T
	var last error
	for i := 0; i < 3; i++ {
		v, resp, err := f()
		if err == nil {
			return v, nil
		}
		last = c.Classify(step, resp, err)
		if !errors.Is(last, ErrUnavailable) {
			return zero, last
		}
		select {
		case <-ctx.Done():
			return zero, last
		case <-time.After(c.o.Retry << i):
		}
	}
	return zero, last
}
