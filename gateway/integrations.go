package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bridle-dev/bridle/kanboard"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/upstream"
	"github.com/bridle-dev/bridle/vault"
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

// Credentials reads a configuration's credentials: a secret:NAME
// reference through the vault (recorded as used by its consumer), or a
// file. Either way the value is added to the redactor when read.
type Credentials struct {
	Vault    *vault.Scope // nil: references are refused
	Redactor *redact.Redactor
}

// reader reads the credential ref or file names, per call, so that a
// rotation (or a remounted Docker secret) is picked up; nil when neither
// is set. name is the secret's, when ref names one.
func (c Credentials) reader(consumer, ref, file string) (read func() (string, error), name string, err error) {
	if ref != "" {
		name, _, err := vault.ParseRef(ref)
		if err != nil {
			return nil, "", fmt.Errorf("%w: %s: %w", ErrConfig, consumer, err)
		}
		if c.Vault == nil {
			return nil, "", fmt.Errorf("%w: %s: secret:%s, but there is no vault here", ErrConfig, consumer, name)
		}
		c.Vault.Use(name, consumer)
		return func() (string, error) { return c.Vault.Get(name) }, name, nil
	}
	if file == "" {
		return nil, "", nil
	}
	if !filepath.IsAbs(file) {
		// Not echoed: what stands where a path belongs may be the value,
		// written there by mistake.
		return nil, "", fmt.Errorf("%w: %s: give an absolute file path or secret:NAME (%d bytes given, not a path; the value itself never goes in the configuration)", ErrConfig, consumer, len(file))
	}
	return func() (string, error) { return nonEmptySecret(file, c.Redactor) }, "", nil
}

// clientCache is a client rebuilt whenever its credential changes.
type clientCache struct {
	mu  sync.Mutex
	tok string
	cl  *kanboard.Client
}

func (c *clientCache) get(read func() (string, error), build func(tok string) (*kanboard.Client, error)) (*kanboard.Client, error) {
	tok, err := read()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cl == nil || c.tok != tok {
		cl, err := build(tok)
		if err != nil {
			return nil, err
		}
		c.cl, c.tok = cl, tok
	}
	return c.cl, nil
}

// Kanboard is the Kanboard toolset's configuration for c: the application
// identity, and the agents' own users. Tokens are read per call (from the
// vault or their files), added to the redactor, and never leave the
// clients; a client is rebuilt when its token changes, so a rotation takes
// effect on the next call and a revocation fails it with vault.ErrRevoked.
// status is a client for health checks (nil when no token reads now).
func Kanboard(c KanboardConfig, cr Credentials) (kb *mcp.Kanboard, status *kanboard.Client, err error) {
	red := cr.Redactor
	build := func(user string) func(string) (*kanboard.Client, error) {
		return func(tok string) (*kanboard.Client, error) {
			red.Add(tok)
			red.AddUsers(user) // user:token in base64, as an echoed Authorization header shows it
			return kanboard.New(kanboard.Options{URL: c.URL, User: user, Token: tok})
		}
	}
	var app func() (*kanboard.Client, error)
	if c.Token != "" || c.TokenFile != "" {
		read, _, err := cr.reader("kanboard", c.Token, c.TokenFile)
		if err != nil {
			return nil, nil, err
		}
		// An empty token file is no application identity (Compose mounts
		// every declared secret).
		if tok, err := readSecret(c.TokenFile, red); c.Token != "" || err != nil || tok != "" {
			cache := &clientCache{}
			app = func() (*kanboard.Client, error) { return cache.get(read, build(c.User)) }
		}
	}
	users := map[string]func() (*kanboard.Client, error){}
	for _, agent := range slices.Sorted(maps.Keys(c.Agents)) {
		u := c.Agents[agent]
		read, _, err := cr.reader("kanboard (agent "+agent+")", u.Token, u.TokenFile)
		if err != nil {
			return nil, nil, err
		}
		if read == nil {
			return nil, nil, fmt.Errorf("%w: kanboard.agents.%s: no token", ErrConfig, agent)
		}
		cache := &clientCache{}
		users[agent] = func() (*kanboard.Client, error) { return cache.get(read, build(u.User)) }
	}
	if app == nil && len(users) == 0 {
		return nil, nil, fmt.Errorf("%w: kanboard: no token (token: secret:NAME, token_file, KANBOARD_TOKEN_FILE) and no agents with their own users", ErrConfig)
	}
	// A file's token is checked now, as before the vault: a missing file is
	// a configuration error at start. The vault's are checked per call.
	for _, agent := range slices.Sorted(maps.Keys(c.Agents)) {
		if u := c.Agents[agent]; u.Token == "" {
			if _, err := users[agent](); err != nil {
				return nil, nil, fmt.Errorf("%w: kanboard.agents.%s: the personal token in %s: %v", ErrConfig, agent, u.TokenFile, err)
			}
		}
	}
	if app != nil && c.Token == "" {
		if _, err := app(); err != nil {
			return nil, nil, fmt.Errorf("%w: kanboard token: %w", ErrConfig, err)
		}
	}
	kb = &mcp.Kanboard{Projects: slices.Clone(c.Projects), For: func(agent string) (*kanboard.Client, error) {
		if cl, ok := users[agent]; ok {
			return cl()
		}
		if app == nil {
			return nil, fmt.Errorf("agent %s has no Kanboard user here, and there is no application token", agent)
		}
		return app()
	}}
	first := app
	if first == nil {
		first = users[slices.Sorted(maps.Keys(users))[0]]
	}
	status, _ = first()
	return kb, status, nil
}

// StartUpstreams starts each of ups on srv, in name order; they connect in
// the background. Secrets are read from their files at each (re)start.
//
// A secret:NAME the vault rotates or revokes restarts the upstream with
// the new value (a revoked one leaves it down, saying so in its status).
func StartUpstreams(ctx context.Context, ups map[string]UpstreamConfig, srv *mcp.Server, cr Credentials, log *slog.Logger) ([]*upstream.Upstream, error) {
	red := cr.Redactor
	var out []*upstream.Upstream
	for _, name := range slices.Sorted(maps.Keys(ups)) {
		uc := ups[name]
		cfg := upstream.Config{Name: name, Command: uc.Command, Env: uc.Env, URL: uc.URL, Family: uc.Permission, PlainHeaders: uc.Headers,
			Secrets: map[string]func() (string, error){}, Headers: map[string]func() (string, error){}, Tools: map[string]upstream.Access{}}
		var watched []string
		for _, v := range slices.Sorted(maps.Keys(uc.Secrets)) {
			val := uc.Secrets[v]
			ref, file := "", val
			if _, isRef, _ := vault.ParseRef(val); isRef {
				ref, file = val, ""
			}
			read, secret, err := cr.reader("upstream "+name+" ("+v+")", ref, file)
			if err != nil {
				closeAll(out)
				return nil, err
			}
			cfg.Secrets[v] = read
			if secret != "" {
				watched = append(watched, secret)
			}
		}
		if read, _, err := cr.reader("upstream "+name+" (Authorization)", uc.BearerToken, uc.BearerTokenFile); err != nil {
			closeAll(out)
			return nil, err
		} else if read != nil {
			cfg.Headers["Authorization"] = func() (string, error) {
				tok, err := read()
				return "Bearer " + tok, err
			}
		}
		for tool, a := range uc.Tools {
			cfg.Tools[tool] = upstream.Access(a)
		}
		u, err := upstream.Start(ctx, cfg, srv, upstream.Options{Redactor: red, Logger: log})
		if err != nil {
			closeAll(out)
			return nil, fmt.Errorf("%w: upstream %s: %w", ErrConfig, name, err)
		}
		for _, secret := range watched {
			// The child holds the value in its environment: only a new
			// child gets the new one. Restart waits for that attempt, so
			// the rotation returns once the upstream runs with it.
			cr.Vault.Watch(secret, func() {
				if err := u.Restart(ctx); err != nil {
					log.Warn("upstream restart after a secret changed", "upstream", name, "secret", secret, "err", err)
				}
			})
		}
		out = append(out, u)
	}
	return out, nil
}

func closeAll(ups []*upstream.Upstream) {
	for _, u := range ups {
		u.Close()
	}
}
