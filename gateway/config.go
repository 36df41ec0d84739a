package gateway

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/vault"
)

// Config is bridle serve's configuration: a YAML file, then environment
// overrides (Env), then defaults (Defaults).
type Config struct {
	Listen         string                   `yaml:"listen"`    // BRIDLE_LISTEN; 127.0.0.1:7777
	StateDir       string                   `yaml:"state_dir"` // BRIDLE_STATE_DIR: tokens, audit, memory
	CacheDir       string                   `yaml:"cache_dir"` // BRIDLE_CACHE_DIR: mirrors, snapshots
	Log            LogConfig                `yaml:"log"`
	TLS            TLSConfig                `yaml:"tls"`
	Admin          AdminConfig              `yaml:"admin"`
	Auth           AuthConfig               `yaml:"auth"`
	AllowedOrigins []string                 `yaml:"allowed_origins"` // BRIDLE_ALLOWED_ORIGINS, comma separated
	MaxBodyBytes   int64                    `yaml:"max_body_bytes"`  // per request; 1 MiB
	Vendor         VendorConfig             `yaml:"vendor"`
	Projects       map[string]ProjectConfig `yaml:"projects"`
	// Secrets is the server-wide vault; each local project also has its
	// rules repository's secrets.enc.yaml.
	Secrets SecretsConfig `yaml:"secrets"`
}

// SecretsConfig is the server-wide vault (package vault): where its SOPS
// file lives, where Docker mounts secrets, and the age identity.
type SecretsConfig struct {
	// Dir holds the server-wide secrets.enc.yaml and .sops.yaml
	// (BRIDLE_SECRETS_DIR); a git repository gets a commit per change.
	// Default: none (Docker secrets and the environment only).
	Dir string `yaml:"dir"`
	// DockerDir is where Docker secrets are mounted (BRIDLE_DOCKER_SECRETS);
	// /run/secrets. "-" for none.
	DockerDir string `yaml:"docker_dir"`
	// AgeKeyFile is the age identity that decrypts the SOPS files
	// (SOPS_AGE_KEY_FILE; a Docker secret in Compose).
	AgeKeyFile string `yaml:"age_key_file"`
}

// VendorConfig is the vendor feed's periodic sync of every project.
type VendorConfig struct {
	// SyncInterval is how often each project's vendor_sources are synced
	// (BRIDLE_VENDOR_SYNC_INTERVAL): a Go duration of at least a minute, or
	// "off"; 24h when unset. The first sync is one interval after the
	// project was first served, and the last one is remembered across
	// restarts.
	SyncInterval string `yaml:"sync_interval"`
}

// DefaultVendorSyncInterval is how often vendor sources are synced when the
// configuration says nothing.
const DefaultVendorSyncInterval = 24 * time.Hour

// Interval is the sync interval; 0 when the sync is off.
func (v VendorConfig) Interval() (time.Duration, error) {
	switch s := strings.TrimSpace(v.SyncInterval); s {
	case "":
		return DefaultVendorSyncInterval, nil
	case "off", "0":
		return 0, nil
	default:
		d, err := time.ParseDuration(s)
		if err != nil || d < time.Minute {
			return 0, fmt.Errorf("%w: vendor.sync_interval %q: a duration of at least 1m (e.g. 24h), or off", ErrConfig, s)
		}
		return d, nil
	}
}

// LogConfig says how the server logs (to stderr).
type LogConfig struct {
	Format string `yaml:"format"` // text or json (BRIDLE_LOG_FORMAT)
	Level  string `yaml:"level"`  // debug, info, warn, error (BRIDLE_LOG_LEVEL)
}

// TLSConfig turns on TLS when both files are set.
type TLSConfig struct {
	CertFile string `yaml:"cert_file"` // BRIDLE_TLS_CERT_FILE
	KeyFile  string `yaml:"key_file"`  // BRIDLE_TLS_KEY_FILE
}

// AdminConfig is the admin: the credential's file and who the admin is (the
// name an approval through the admin API is attributed to).
type AdminConfig struct {
	TokenFile string `yaml:"token_file"` // BRIDLE_ADMIN_TOKEN_FILE; generated in the state directory when unset
	Name      string `yaml:"name"`       // BRIDLE_ADMIN_NAME; bridle serve: --admin-name, else git's committer identity
	Email     string `yaml:"email"`      // BRIDLE_ADMIN_EMAIL
	// NameFrom says where Name was read (configuration, environment,
	// flag, git), for the start-up log and the panel.
	NameFrom string `yaml:"-"`
}

// ProjectConfig is one project's rules source: a local repository or a
// Gitea repository, exactly one.
type ProjectConfig struct {
	Rules string       `yaml:"rules"` // a local rules repository (a single-host set-up)
	Gitea *GiteaConfig `yaml:"gitea"`
	// Kanboard gives the project's agents the Kanboard tools.
	Kanboard *KanboardConfig `yaml:"kanboard"`
	// Upstreams are existing MCP servers whose tools the project's agents
	// get through Bridle (prefixed by the upstream's name), with the
	// credentials Bridle injects.
	Upstreams map[string]UpstreamConfig `yaml:"upstreams"`
}

// KanboardConfig is a Kanboard server and who acts there for each agent.
type KanboardConfig struct {
	URL       string `yaml:"url"`        // base URL or …/jsonrpc.php; KANBOARD_URL when empty
	User      string `yaml:"user"`       // the application identity; KANBOARD_USER, else jsonrpc
	TokenFile string `yaml:"token_file"` // its token; KANBOARD_TOKEN_FILE when empty
	Token     string `yaml:"token"`      // or the vault's: secret:NAME
	// Projects are the Kanboard project ids the project may touch (default:
	// all the identity can see). Bridle enforces it for every identity.
	Projects []int `yaml:"projects"`
	// Agents map an agent to its own Kanboard user, so that Kanboard
	// attributes each change to the agent and enforces its own project
	// membership; an agent without one acts as the application identity.
	Agents map[string]KanboardUser `yaml:"agents"`

	projectsErr string // KANBOARD_PROJECTS, when it is not a list of ids
}

// KanboardUser is one agent's Kanboard user and personal access token.
type KanboardUser struct {
	User      string `yaml:"user"`
	TokenFile string `yaml:"token_file"`
	Token     string `yaml:"token"` // or the vault's: secret:NAME
}

// UpstreamConfig is an existing MCP server: a command (a stdio child) or a
// URL (streamable HTTP), exactly one.
type UpstreamConfig struct {
	Command []string          `yaml:"command"` // argv of a stdio child
	Env     map[string]string `yaml:"env"`     // its only variables beyond PATH, HOME and the locale
	// Secrets are variables whose values come from the vault or from
	// files: variable → secret:NAME or a file (a Docker secret). A variable
	// named *_FILE gets a 0600 copy's path. Rotating a vault secret
	// restarts the child with the new value.
	Secrets map[string]string `yaml:"secrets"`
	URL     string            `yaml:"url"`     // a streamable HTTP server
	Headers map[string]string `yaml:"headers"` // plain headers for it
	// BearerTokenFile sends Authorization: Bearer <the file's content>.
	BearerTokenFile string `yaml:"bearer_token_file"`
	// BearerToken is the same from the vault: secret:NAME, read per request.
	BearerToken string `yaml:"bearer_token"`
	// Permission is the permission family its tools need (gitea or
	// kanboard: read-only tools need FAMILY.read, others FAMILY.write);
	// default: the upstream's name.
	Permission string `yaml:"permission"`
	// Tools override single tools: read, write or deny (never exported).
	Tools map[string]string `yaml:"tools"`
}

// GiteaConfig is a Gitea rules repository.
type GiteaConfig struct {
	URL       string `yaml:"url"`        // GITEA_URL when empty
	Repo      string `yaml:"repo"`       // OWNER/NAME
	Path      string `yaml:"path"`       // the rules file in the repository
	Branch    string `yaml:"branch"`     // the rules' branch: served, protected, merged into; main when empty
	TokenFile string `yaml:"token_file"` // GITEA_TOKEN_FILE when empty: the bot's token (opens PRs, never merges)
	Token     string `yaml:"token"`      // or the vault's: secret:NAME
}

// Defaults.
const (
	DefaultListen       = "127.0.0.1:7777"
	DefaultMaxBodyBytes = 1 << 20
)

// ErrConfig marks a configuration that cannot be served.
var ErrConfig = errors.New("bad configuration")

var (
	projectID    = lazyregexp.New(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	upstreamName = lazyregexp.New(`^[a-z][a-z0-9_]{0,31}$`)
)

// PermissionFamilies are the permission families an upstream's tools may
// need (the rules grant FAMILY.read and FAMILY.write per agent).
var PermissionFamilies = []string{"gitea", "kanboard"}

// LoadConfig reads the file at path ("" for none). Unknown keys are errors
// at FILE:LINE:COL with a did-you-mean.
func LoadConfig(path string) (Config, error) {
	var c Config
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return ParseConfig(path, b)
}

// MaxConfig is the largest configuration file read.
const MaxConfig = 1 << 20

// ParseConfig parses a configuration document named name.
func ParseConfig(name string, b []byte) (Config, error) {
	var c Config
	if len(b) > MaxConfig {
		return c, fmt.Errorf("%w: %s is larger than %d bytes", ErrConfig, name, MaxConfig)
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) { // an empty file
			return c, nil
		}
		return c, fmt.Errorf("%w: %s: %v", ErrConfig, name, err)
	}
	if len(root.Content) == 0 {
		return c, nil
	}
	doc := root.Content[0]
	if err := checkKeys(name, doc, reflect.TypeFor[Config]()); err != nil {
		return c, err
	}
	if err := doc.Decode(&c); err != nil {
		return c, fmt.Errorf("%w: %s: %v", ErrConfig, name, err)
	}
	return c, nil
}

// checkKeys reports the first key of n that t has no field for.
func checkKeys(name string, n *yaml.Node, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fields := map[string]reflect.Type{}
		var names []string
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if tag == "" || tag == "-" {
				continue
			}
			fields[tag] = f.Type
			names = append(names, tag)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				msg := fmt.Sprintf("%s:%d:%d: %v: unknown key %q", name, k.Line, k.Column, ErrConfig, k.Value)
				if s := schema.Suggest(k.Value, names); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				slices.Sort(names)
				return &configError{msg: msg + "; known keys: " + strings.Join(names, ", ")}
			}
			if err := checkKeys(name, v, ft); err != nil {
				return err
			}
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkKeys(name, n.Content[i+1], t.Elem()); err != nil {
				return err
			}
		}
	}
	return nil
}

type configError struct{ msg string }

func (e *configError) Error() string { return e.msg }
func (e *configError) Unwrap() error { return ErrConfig }

// Env applies the environment's overrides (BRIDLE_LISTEN, BRIDLE_STATE_DIR,
// BRIDLE_CACHE_DIR, BRIDLE_LOG_FORMAT, BRIDLE_LOG_LEVEL,
// BRIDLE_ADMIN_TOKEN_FILE, BRIDLE_ADMIN_NAME, BRIDLE_ADMIN_EMAIL, BRIDLE_TLS_CERT_FILE, BRIDLE_TLS_KEY_FILE,
// BRIDLE_ALLOWED_ORIGINS, BRIDLE_VENDOR_SYNC_INTERVAL, BRIDLE_SECRETS_DIR,
// BRIDLE_DOCKER_SECRETS, SOPS_AGE_KEY_FILE) and fills each Gitea project's URL and token file
// from GITEA_URL and GITEA_TOKEN_FILE when it names none.
func (c Config) Env(getenv func(string) string) Config {
	if c.Admin.Name != "" && c.Admin.NameFrom == "" {
		c.Admin.NameFrom = "configuration"
	}
	if v := strings.TrimSpace(getenv("BRIDLE_ADMIN_NAME")); v != "" {
		c.Admin.Name, c.Admin.Email, c.Admin.NameFrom = v, strings.TrimSpace(getenv("BRIDLE_ADMIN_EMAIL")), "environment"
	} else if v := strings.TrimSpace(getenv("BRIDLE_ADMIN_EMAIL")); v != "" {
		c.Admin.Email = v
	}
	for _, kv := range []struct {
		dst *string
		env string
	}{{&c.Listen, "BRIDLE_LISTEN"}, {&c.StateDir, "BRIDLE_STATE_DIR"}, {&c.CacheDir, "BRIDLE_CACHE_DIR"},
		{&c.Log.Format, "BRIDLE_LOG_FORMAT"}, {&c.Log.Level, "BRIDLE_LOG_LEVEL"},
		{&c.Admin.TokenFile, "BRIDLE_ADMIN_TOKEN_FILE"}, {&c.Vendor.SyncInterval, "BRIDLE_VENDOR_SYNC_INTERVAL"},
		{&c.TLS.CertFile, "BRIDLE_TLS_CERT_FILE"}, {&c.TLS.KeyFile, "BRIDLE_TLS_KEY_FILE"},
		{&c.Secrets.Dir, "BRIDLE_SECRETS_DIR"}, {&c.Secrets.DockerDir, "BRIDLE_DOCKER_SECRETS"}, {&c.Secrets.AgeKeyFile, "SOPS_AGE_KEY_FILE"}} {
		if v := strings.TrimSpace(getenv(kv.env)); v != "" {
			*kv.dst = v
		}
	}
	if v := getenv("BRIDLE_ALLOWED_ORIGINS"); strings.TrimSpace(v) != "" {
		c.AllowedOrigins = nil
		for o := range strings.SplitSeq(v, ",") {
			if o = strings.TrimSpace(o); o != "" {
				c.AllowedOrigins = append(c.AllowedOrigins, o)
			}
		}
	}
	projects := make(map[string]ProjectConfig, len(c.Projects))
	for id, p := range c.Projects {
		if k := p.Kanboard; k != nil {
			kc := *k
			kc.URL = cmp.Or(kc.URL, getenv("KANBOARD_URL"))
			kc.User = cmp.Or(kc.User, getenv("KANBOARD_USER"), "jsonrpc")
			if kc.Token == "" {
				kc.TokenFile = cmp.Or(kc.TokenFile, getenv("KANBOARD_TOKEN_FILE"))
			}
			if v := strings.TrimSpace(getenv("KANBOARD_PROJECTS")); len(kc.Projects) == 0 && v != "" {
				for f := range strings.SplitSeq(v, ",") {
					n, err := strconv.Atoi(strings.TrimSpace(f))
					if err != nil {
						kc.projectsErr, kc.Projects = v, nil
						break
					}
					kc.Projects = append(kc.Projects, n)
				}
			}
			p.Kanboard = &kc
		}
		if p.Gitea != nil {
			g := *p.Gitea
			if g.URL == "" {
				g.URL = getenv("GITEA_URL")
			}
			if g.TokenFile == "" && g.Token == "" {
				g.TokenFile = getenv("GITEA_TOKEN_FILE")
			}
			p.Gitea = &g
		}
		projects[id] = p
	}
	c.Projects = projects
	return c
}

// Defaults fills what is still unset: the listen address, the state
// directory ($XDG_STATE_HOME/bridle, as the sidecars' audit logs), the cache
// directory (under the state directory), text logs at info, 1 MiB bodies.
func (c Config) Defaults(getenv func(string) string) (Config, error) {
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.StateDir == "" {
		d, err := audit.DirFrom(getenv)
		if err != nil {
			return c, err
		}
		c.StateDir = d
	}
	if c.CacheDir == "" {
		c.CacheDir = filepath.Join(c.StateDir, "cache")
	}
	if c.Log.Format == "" {
		c.Log.Format = "text"
	}
	if c.Log.Level == "" {
		c.Log.Level = "info"
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return c, nil
}

// Validate says what cannot be served, every problem at once.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...))
	}
	if _, err := c.Vendor.Interval(); err != nil {
		errs = append(errs, err)
	}
	c.Auth.validate(bad)
	if len(c.Projects) == 0 {
		bad("no projects: add one under projects: in the configuration file, or serve one with --rules DIR")
	}
	for _, id := range slices.Sorted(maps.Keys(c.Projects)) {
		p := c.Projects[id]
		if !projectID.MatchString(id) {
			bad("project %q: an id is lower-case letters, digits, '.', '_' and '-' (at most 63), starting with a letter or digit", id)
		}
		switch {
		case p.Rules == "" && p.Gitea == nil:
			bad("project %s: set rules: (a local repository) or gitea: {repo: OWNER/NAME}", id)
		case p.Rules != "" && p.Gitea != nil:
			bad("project %s: set rules: or gitea:, not both", id)
		case p.Gitea != nil:
			if p.Gitea.URL == "" {
				bad("project %s: gitea: no url (set gitea.url or GITEA_URL)", id)
			}
			if o, n, ok := strings.Cut(p.Gitea.Repo, "/"); !ok || o == "" || n == "" || strings.Contains(n, "/") {
				bad("project %s: gitea.repo %q is not OWNER/NAME", id, p.Gitea.Repo)
			}
			if b := p.Gitea.Branch; b != "" && (strings.HasPrefix(b, "-") || strings.ContainsAny(b, " ~^:?*[\\") || strings.Contains(b, "..") || strings.HasSuffix(b, "/")) {
				bad("project %s: gitea.branch %q is not a branch name", id, b)
			}
			checkRef(bad, "project "+id+": gitea", p.Gitea.Token, p.Gitea.TokenFile)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.Projects)) {
		c.Projects[id].checkIntegrations(id, bad)
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		bad("log.format %q: text or json", c.Log.Format)
	}
	if (c.TLS.CertFile == "") != (c.TLS.KeyFile == "") {
		bad("tls: set both cert_file and key_file, or neither")
	}
	for _, o := range c.AllowedOrigins {
		if !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") {
			bad("allowed_origins: %q is not an origin (scheme://host[:port])", o)
		}
	}
	return errors.Join(errs...)
}

// checkIntegrations reports what is wrong with p's Kanboard and upstreams.
func (p ProjectConfig) checkIntegrations(id string, bad func(string, ...any)) {
	if k := p.Kanboard; k != nil {
		if k.URL == "" {
			bad("project %s: kanboard: no url (set kanboard.url or KANBOARD_URL)", id)
		}
		if k.projectsErr != "" {
			bad("project %s: KANBOARD_PROJECTS %q is not a comma-separated list of Kanboard project ids", id, k.projectsErr)
		}
		for _, n := range k.Projects {
			if n <= 0 {
				bad("project %s: kanboard.projects (or KANBOARD_PROJECTS): %d is not a Kanboard project id", id, n)
			}
		}
		checkRef(bad, "project "+id+": kanboard", k.Token, k.TokenFile)
		if (k.TokenFile != "" || k.Token != "") && len(k.Projects) == 0 && k.projectsErr == "" {
			bad("project %s: kanboard: the application identity (token_file) may touch every Kanboard project: list the ones this project may under kanboard.projects (or KANBOARD_PROJECTS)", id)
		}
		for _, agent := range slices.Sorted(maps.Keys(k.Agents)) {
			u := k.Agents[agent]
			if u.User == "" || (u.TokenFile == "" && u.Token == "") {
				bad("project %s: kanboard.agents.%s: set user and token (secret:NAME) or token_file (the agent's own Kanboard user and personal token)", id, agent)
			}
			checkRef(bad, "project "+id+": kanboard.agents."+agent, u.Token, u.TokenFile)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.Upstreams)) {
		u := p.Upstreams[name]
		switch {
		case !upstreamName.MatchString(name):
			bad("project %s: upstream %q: a name is 1 to 32 of a-z, 0-9 and _, starting with a letter (it prefixes the tools: %s_…)", id, name, name)
		case (len(u.Command) == 0) == (u.URL == ""):
			bad("project %s: upstream %s: set command: (a stdio server) or url: (streamable HTTP), exactly one", id, name)
		case u.URL != "" && !strings.HasPrefix(u.URL, "https://") && !strings.HasPrefix(u.URL, "http://"):
			bad("project %s: upstream %s: url %q is not http(s)", id, name, u.URL)
		}
		checkRef(bad, "project "+id+": upstream "+name, u.BearerToken, u.BearerTokenFile)
		for _, v := range slices.Sorted(maps.Keys(u.Secrets)) {
			if _, isRef, err := vault.ParseRef(u.Secrets[v]); isRef && err != nil {
				bad("project %s: upstream %s: secrets.%s: %v", id, name, v, err)
			} else if !isRef && !filepath.IsAbs(strings.TrimSpace(u.Secrets[v])) {
				bad("project %s: upstream %s: secrets.%s: give secret:NAME or an absolute file path (%d bytes given, not echoed: never the value itself)", id, name, v, len(u.Secrets[v]))
			}
		}
		if fam := cmp.Or(u.Permission, name); !slices.Contains(PermissionFamilies, fam) {
			bad("project %s: upstream %s: permission %q: its tools need a permission the rules can grant: %s", id, name, fam, strings.Join(PermissionFamilies, " or "))
		}
		for _, tool := range slices.Sorted(maps.Keys(u.Tools)) {
			if a := u.Tools[tool]; a != "read" && a != "write" && a != "deny" {
				bad("project %s: upstream %s: tools.%s: %q is read, write or deny", id, name, tool, a)
			}
		}
	}
}

// checkRef reports a token: that is not a secret:NAME reference (a value
// never goes in the configuration), or one set beside its token_file.
func checkRef(bad func(string, ...any), where, ref, file string) {
	if ref == "" {
		return
	}
	switch _, isRef, err := vault.ParseRef(ref); {
	case !isRef: // never echoed: it may be the token itself
		bad("%s: token: a value never goes in the configuration: store it in the vault (bridle secrets set NAME) and write secret:NAME, or give a token_file", where)
	case err != nil:
		bad("%s: token: %v", where, err)
	}
	if file != "" {
		bad("%s: set the token (secret:NAME) or its file, not both", where)
	}
}

// ParseIntegrations reads the sidecar's integrations file (bridle mcp
// --config): a project entry's kanboard: and upstreams:, nothing else, with
// the environment's KANBOARD_* filling what it leaves out. Every problem is
// reported at once; unknown keys at FILE:LINE:COL.
func ParseIntegrations(name string, b []byte, getenv func(string) string) (ProjectConfig, error) {
	var p ProjectConfig
	if len(b) > MaxConfig {
		return p, fmt.Errorf("%w: %s is larger than %d bytes", ErrConfig, name, MaxConfig)
	}
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&root); err != nil && !errors.Is(err, io.EOF) {
		return p, fmt.Errorf("%w: %s: %v", ErrConfig, name, err)
	}
	if len(root.Content) > 0 {
		doc := root.Content[0]
		if err := checkKeys(name, doc, reflect.TypeFor[integrations]()); err != nil {
			return p, err
		}
		var in integrations
		if err := doc.Decode(&in); err != nil {
			return p, fmt.Errorf("%w: %s: %v", ErrConfig, name, err)
		}
		p = ProjectConfig{Kanboard: in.Kanboard, Upstreams: in.Upstreams}
	}
	p = Config{Projects: map[string]ProjectConfig{"sidecar": p}}.Env(getenv).Projects["sidecar"]
	var errs []error
	p.checkIntegrations("sidecar", func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: %s: "+format, append([]any{ErrConfig, name}, args...)...))
	})
	return p, errors.Join(errs...)
}

// integrations is what the sidecar's integrations file may hold.
type integrations struct {
	Kanboard  *KanboardConfig           `yaml:"kanboard"`
	Upstreams map[string]UpstreamConfig `yaml:"upstreams"`
}
