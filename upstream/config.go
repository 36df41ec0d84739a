package upstream

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
)

// Access is what Config.Tools grants an upstream's tool.
type Access string

// The accesses.
const (
	Read  Access = "read"  // needs FAMILY.read; served as read-only
	Write Access = "write" // needs FAMILY.write
	Deny  Access = "deny"  // never registered
)

// Defaults and limits.
const (
	DefaultCallTimeout = 60 * time.Second
	DefaultMaxResult   = 1 << 20
	// MaxSchema is the largest input schema served, in bytes.
	MaxSchema = 64 << 10
	// MaxToolName is the longest tool name Bridle serves, prefix included:
	// 64, the limit several model APIs put on function names (MCP allows 128).
	MaxToolName = 64
	maxTitle    = 200
	maxDesc     = 2000
	maxTools    = 500
)

// Config is one upstream MCP server, as the operator declares it. A Config
// is data (a gateway configuration entry); the dependencies an upstream runs
// with are Options.
type Config struct {
	// Name prefixes its tools (gitea → gitea_issue__list) and is the
	// toolset's id; 1 to 32 of a-z 0-9 _, starting with a letter.
	Name string
	// Command runs a stdio child: argv. Exactly one of Command and URL.
	Command []string
	// Dir is the child's working directory; "" for Bridle's.
	Dir string
	// Env holds the child's variables beyond PATH, HOME, LANG and LC_*, which
	// are the only ones it inherits.
	Env map[string]string
	// Secrets are variables whose values are read at each (re)start: set in
	// the child's environment, or, for a name ending in _FILE, written to a
	// 0600 file whose path the variable holds.
	Secrets map[string]func() (string, error)
	// URL is a streamable HTTP upstream.
	URL string
	// Headers are secret headers set on every request to URL, each value
	// read per request (Authorization, say) and masked everywhere.
	Headers map[string]func() (string, error)
	// PlainHeaders are headers that are not secret (they are not masked).
	PlainHeaders map[string]string
	// Family is the permission family its tools need (gitea, kanboard): one
	// whose FAMILY.read and FAMILY.write are permissions. Default: Name.
	Family string
	// Tools overrides the access of the upstream's tools, by the upstream's
	// name (issue__list, not gitea_issue__list).
	Tools map[string]Access
	// CallTimeout bounds each call; default DefaultCallTimeout.
	CallTimeout time.Duration
	// MaxResult bounds each result's JSON, in bytes; default DefaultMaxResult.
	MaxResult int
}

// Options are what an upstream runs with.
type Options struct {
	// Redactor is the mcp.Server's: every secret and header value read is
	// added to it. nil: a redactor of the upstream's own masks its results.
	Redactor *redact.Redactor
	Logger   *slog.Logger // nil: discarded
	// Backoff is the first delay before a restart after a crash, doubled up
	// to MaxBackoff; defaults 250 ms and 30 s.
	Backoff, MaxBackoff time.Duration
}

// ErrConfig is wrapped by Start for a Config it will not run.
var ErrConfig = errors.New("invalid upstream configuration")

var (
	namePattern    = lazyregexp.New(`^[a-z][a-z0-9_]{0,31}$`)
	envNamePattern = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// check validates c and fills in its defaults.
func (c *Config) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("upstream %q: %s: %w", c.Name, fmt.Sprintf(format, args...), ErrConfig)
	}
	if !namePattern.MatchString(c.Name) {
		return bad("the name is not 1 to 32 of a-z 0-9 _ starting with a letter")
	}
	switch {
	case len(c.Command) > 0 && c.URL != "":
		return bad("both a command and a URL")
	case len(c.Command) == 0 && c.URL == "":
		return bad("neither a command nor a URL")
	case len(c.Command) > 0 && c.Command[0] == "":
		return bad("an empty command")
	case c.URL != "":
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("URL %q is not an http(s) URL", c.URL)
		}
		if u.User != nil {
			return bad("URL holds credentials; give them as Headers")
		}
		if len(c.Env) > 0 || len(c.Secrets) > 0 {
			return bad("Env and Secrets are for a command; a URL takes Headers")
		}
	case len(c.Headers) > 0:
		return bad("Headers are for a URL; a command takes Env and Secrets")
	}
	for k := range c.Env {
		if !envNamePattern.MatchString(k) {
			return bad("variable name %q", k)
		}
		if _, dup := c.Secrets[k]; dup {
			return bad("variable %s is in both Env and Secrets", k)
		}
	}
	for k, f := range c.Secrets {
		if !envNamePattern.MatchString(k) || f == nil {
			return bad("secret %q: not a variable name with a reader", k)
		}
	}
	for k, f := range c.Headers {
		if k == "" || strings.ContainsAny(k, " :\r\n") || f == nil {
			return bad("header %q: not a header name with a reader", k)
		}
	}
	if c.Family == "" {
		c.Family = c.Name
	}
	for _, a := range []string{"read", "write"} {
		if !slices.Contains(schema.PermissionNames, c.Family+"."+a) {
			return bad("permission family %q has no %s.%s permission (families: gitea, kanboard, memory)", c.Family, c.Family, a)
		}
	}
	for name, a := range c.Tools {
		if a != Read && a != Write && a != Deny {
			return bad("tool %s: access %q is not read, write or deny", name, a)
		}
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	if c.MaxResult <= 0 {
		c.MaxResult = DefaultMaxResult
	}
	return nil
}

func (c *Config) permission(a Access) schema.Permission {
	return schema.Permission(c.Family + "." + string(a))
}
