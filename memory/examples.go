package memory

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/bridle-dev/bridle/internal/lazyregexp"
)

// ExampleOptions says where example repositories may come from and what
// they may cost. The rules are hostile data (an agent can propose an
// example and trigger its indexing with refresh_pattern_example), so:
//
//   - Token goes only to TokenHosts, only over https (or plain http to a
//     loopback address, which never leaves the machine: local Gitea, tests),
//     and never to another host or scheme a redirect leads to. Other
//     examples are cloned without credentials.
//   - A local example (a path, or a file:// URL) must resolve, symlinks
//     followed, inside Root; with no Root, local examples are refused.
//     Symlinks inside an example are never followed.
//   - Limits cap each example; going over one is an error naming it.
type ExampleOptions struct {
	Token      string   // BRIDLE_EXAMPLES_TOKEN: basic-auth password for private repositories
	TokenHosts []string // BRIDLE_EXAMPLES_TOKEN_HOSTS, else GITEA_URL's host: host or host:port
	Root       string   // BRIDLE_EXAMPLES_ROOT, else the rules repository's directory
	Limits     Limits
}

// Limits cap one example. Zero fields take DefaultLimits.
type Limits struct {
	MaxFiles      int64 // BRIDLE_EXAMPLES_MAX_FILES: indexable files
	MaxFileBytes  int64 // BRIDLE_EXAMPLES_MAX_FILE_BYTES: larger files are skipped (and counted)
	MaxTotalBytes int64 // BRIDLE_EXAMPLES_MAX_BYTES: bytes of indexable files
	MaxChunks     int64 // BRIDLE_EXAMPLES_MAX_CHUNKS
}

// DefaultLimits fit a large service repository (go-git itself: ~1,100
// indexable files, 9 MB, 14,000 chunks) with room to spare, and keep a
// mistaken example (a home directory) from filling the disk.
var DefaultLimits = Limits{MaxFiles: 20000, MaxFileBytes: 256 << 10, MaxTotalBytes: 64 << 20, MaxChunks: 100000}

func (l Limits) orDefault() Limits {
	d := DefaultLimits
	for _, f := range []struct{ v, d *int64 }{{&l.MaxFiles, &d.MaxFiles}, {&l.MaxFileBytes, &d.MaxFileBytes},
		{&l.MaxTotalBytes, &d.MaxTotalBytes}, {&l.MaxChunks, &d.MaxChunks}} {
		if *f.v <= 0 {
			*f.v = *f.d
		}
	}
	return l
}

// ExampleOptionsFrom reads the options from the environment getenv reads;
// rulesDir is the default Root ("" for none, e.g. rules served from Gitea).
func ExampleOptionsFrom(getenv func(string) string, rulesDir string) (ExampleOptions, error) {
	o := ExampleOptions{Token: getenv("BRIDLE_EXAMPLES_TOKEN"), Root: getenv("BRIDLE_EXAMPLES_ROOT")}
	if o.Root == "" {
		o.Root = rulesDir
	}
	if hs := getenv("BRIDLE_EXAMPLES_TOKEN_HOSTS"); hs != "" {
		for h := range strings.SplitSeq(hs, ",") {
			if h = strings.TrimSpace(h); h != "" {
				o.TokenHosts = append(o.TokenHosts, h)
			}
		}
	} else if u, err := url.Parse(getenv("GITEA_URL")); err == nil && u.Host != "" {
		o.TokenHosts = []string{u.Host}
	}
	for _, f := range []struct {
		dst *int64
		env string
	}{{&o.Limits.MaxFiles, "BRIDLE_EXAMPLES_MAX_FILES"}, {&o.Limits.MaxFileBytes, "BRIDLE_EXAMPLES_MAX_FILE_BYTES"},
		{&o.Limits.MaxTotalBytes, "BRIDLE_EXAMPLES_MAX_BYTES"}, {&o.Limits.MaxChunks, "BRIDLE_EXAMPLES_MAX_CHUNKS"}} {
		if v := getenv(f.env); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return o, fmt.Errorf("%w: %s=%q: want a positive number", ErrInput, f.env, v)
			}
			*f.dst = n
		}
	}
	return o, nil
}

// scpLike is git's user@host:path form (ssh).
var scpLike = lazyregexp.New(`^[^/\\:@]+@[^/\\:]+:`)

// localPath classifies an example URL: a local path (resolved inside Root)
// or not.
func (o ExampleOptions) localPath(u string) (string, bool, error) {
	p, isFile := strings.CutPrefix(u, "file://")
	if !isFile && (strings.Contains(u, "://") || scpLike.MatchString(u)) {
		return "", false, nil
	}
	if o.Root == "" {
		return "", true, fmt.Errorf("%w: local example %q: local examples are indexed only inside BRIDLE_EXAMPLES_ROOT (or the rules repository's directory), and neither is set", ErrBadRepo, u)
	}
	root, err := filepath.Abs(o.Root)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return "", true, fmt.Errorf("%w: examples root %q: %w", ErrBadRepo, o.Root, err)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", true, fmt.Errorf("%w: local example %q: %w", ErrBadRepo, u, err)
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", true, fmt.Errorf("%w: local example %q is outside the examples root %s (set BRIDLE_EXAMPLES_ROOT to allow another directory)", ErrBadRepo, u, root)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", true, fmt.Errorf("%w: local example %q is not a directory", ErrBadRepo, u)
	}
	return real, true, nil
}

// auth returns the credentials for cloning u, or nil when the token may
// not go there.
func (o ExampleOptions) auth(u string) transport.AuthMethod {
	if o.Token == "" {
		return nil
	}
	pu, err := url.Parse(u)
	if err != nil || !o.mayReceive(pu) {
		return nil
	}
	return &scopedAuth{opts: o}
}

// mayReceive reports whether the token may be sent to u.
func (o ExampleOptions) mayReceive(u *url.URL) bool {
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !loopback(u.Hostname()) {
			return false
		}
	default:
		return false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	return slices.ContainsFunc(o.TokenHosts, func(h string) bool {
		h = strings.ToLower(h)
		if hh, hp, err := net.SplitHostPort(h); err == nil {
			return hh == host && hp == port
		}
		return h == host && (port == "" || port == "443" && u.Scheme == "https" || port == "80" && u.Scheme == "http")
	})
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// scopedAuth is basic auth that checks every request it is asked to sign:
// go-git re-applies credentials to the endpoint a redirect moved it to, so
// the check is made per request, not once per clone. (go-git also strips
// credentials from redirect hops that leave the origin and refuses https to
// http; this does not rely on it.)
type scopedAuth struct{ opts ExampleOptions }

func (a *scopedAuth) Name() string   { return "http-basic-auth-scoped" }
func (a *scopedAuth) String() string { return "http-basic-auth-scoped - bridle:*******" }

func (a *scopedAuth) SetAuth(r *http.Request) {
	if r.URL != nil && a.opts.mayReceive(r.URL) {
		r.SetBasicAuth("bridle", a.opts.Token)
	}
}

var _ githttp.AuthMethod = (*scopedAuth)(nil)
