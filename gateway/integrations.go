package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/bridle-dev/bridle/kanboard"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/upstream"
)

// readSecret is a secret file's content, trimmed; an empty file is no
// secret (Compose mounts every declared secret). The value is added to red.
func readSecret(file string, red *redact.Redactor) (string, error) {
	if file == "" {
		return "", nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(b))
	if v != "" {
		red.Add(v)
	}
	return v, nil
}

// nonEmptySecret is readSecret, refusing an empty file: an upstream given
// an empty credential would fail in ways that are harder to read.
func nonEmptySecret(file string, red *redact.Redactor) (string, error) {
	v, err := readSecret(file, red)
	if err == nil && v == "" {
		err = fmt.Errorf("the secret file %s is empty", file)
	}
	return v, err
}

// Kanboard is the Kanboard toolset's configuration for c: the application
// identity, and the agents' own users. Tokens are read from their files
// now, added to red, and never leave the clients.
func Kanboard(c KanboardConfig, red *redact.Redactor) (*mcp.Kanboard, *kanboard.Client, error) {
	tok, err := readSecret(c.TokenFile, red)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: kanboard token: %w", ErrConfig, err)
	}
	var app *kanboard.Client
	red.Add(kanboard.BasicAuth(c.User, tok))
	if tok != "" {
		if app, err = kanboard.New(kanboard.Options{URL: c.URL, User: c.User, Token: tok}); err != nil {
			return nil, nil, fmt.Errorf("%w: kanboard: %w", ErrConfig, err)
		}
	}
	users := map[string]*kanboard.Client{}
	for _, agent := range slices.Sorted(maps.Keys(c.Agents)) {
		u := c.Agents[agent]
		tok, err := readSecret(u.TokenFile, red)
		if err != nil || tok == "" {
			return nil, nil, fmt.Errorf("%w: kanboard.agents.%s: the personal token in %s: %v", ErrConfig, agent, u.TokenFile, err)
		}
		red.Add(kanboard.BasicAuth(u.User, tok))
		if users[agent], err = kanboard.New(kanboard.Options{URL: c.URL, User: u.User, Token: tok}); err != nil {
			return nil, nil, fmt.Errorf("%w: kanboard.agents.%s: %w", ErrConfig, agent, err)
		}
	}
	if app == nil && len(users) == 0 {
		return nil, nil, fmt.Errorf("%w: kanboard: no token (token_file, KANBOARD_TOKEN_FILE) and no agents with their own users", ErrConfig)
	}
	kb := &mcp.Kanboard{Projects: slices.Clone(c.Projects), For: func(agent string) (*kanboard.Client, error) {
		if cl, ok := users[agent]; ok {
			return cl, nil
		}
		if app == nil {
			return nil, fmt.Errorf("agent %s has no Kanboard user here, and there is no application token", agent)
		}
		return app, nil
	}}
	status := app
	if status == nil {
		status = users[slices.Sorted(maps.Keys(users))[0]]
	}
	return kb, status, nil
}

// StartUpstreams starts each of ups on srv, in name order; they connect in
// the background. Secrets are read from their files at each (re)start.
func StartUpstreams(ctx context.Context, ups map[string]UpstreamConfig, srv *mcp.Server, red *redact.Redactor, log *slog.Logger) ([]*upstream.Upstream, error) {
	var out []*upstream.Upstream
	for _, name := range slices.Sorted(maps.Keys(ups)) {
		uc := ups[name]
		cfg := upstream.Config{Name: name, Command: uc.Command, Env: uc.Env, URL: uc.URL, Family: uc.Permission, PlainHeaders: uc.Headers,
			Secrets: map[string]func() (string, error){}, Headers: map[string]func() (string, error){}, Tools: map[string]upstream.Access{}}
		for v, file := range uc.Secrets {
			cfg.Secrets[v] = func() (string, error) { return nonEmptySecret(file, red) }
		}
		if f := uc.BearerTokenFile; f != "" {
			cfg.Headers["Authorization"] = func() (string, error) {
				tok, err := nonEmptySecret(f, red)
				return "Bearer " + tok, err
			}
		}
		for tool, a := range uc.Tools {
			cfg.Tools[tool] = upstream.Access(a)
		}
		u, err := upstream.Start(ctx, cfg, srv, upstream.Options{Redactor: red, Logger: log})
		if err != nil {
			for _, started := range out {
				started.Close()
			}
			return nil, fmt.Errorf("%w: upstream %s: %w", ErrConfig, name, err)
		}
		out = append(out, u)
	}
	return out, nil
}
