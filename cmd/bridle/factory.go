package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/identity"
	"github.com/bridle-dev/bridle/kanboard"
	"github.com/bridle-dev/bridle/live"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/vault"
)

// factory is the CLI's wiring seam (on the lines of gh's cmdutil.Factory):
// the only code in the CLI that reads the environment — and, once the vault
// exists, the secrets — so that every command, the MCP server and the coming
// gateway get the same values from one place: the redactor, the Gitea
// configuration, the memory store's configuration, where caches, state and
// examples live, and whether this runs inside an agent's session. There is
// one per invocation (run builds it), so a test's environment is read fresh.
//
// Git's own variables (GIT_AUTHOR_NAME, …) are read by internal/identity, as
// git reads them.
type factory struct {
	getenv   func(string) string
	environ  func() []string
	redactor func() *redact.Redactor
	sidecar  *vault.Scope
}

func newFactory(getenv func(string) string, environ func() []string) *factory {
	f := &factory{getenv: getenv, environ: environ}
	f.redactor = sync.OnceValue(func() *redact.Redactor { return redact.FromEnv(f.environ()) })
	return f
}

// processFactory reads this process's environment.
func processFactory() *factory { return newFactory(os.Getenv, os.Environ) }

// Redactor masks this environment's secrets: everything the CLI prints
// (masked, below), every error, every proposal it checks, passes through it.
func (f *factory) Redactor() *redact.Redactor { return f.redactor() }

// masked is w with this environment's secrets masked in every write (the
// CLI writes whole lines and documents, so a secret is never split across
// two writes). The redactor is built on the first write.
func (f *factory) masked(w io.Writer) io.Writer { return maskedWriter{w: w, f: f} }

type maskedWriter struct {
	w io.Writer
	f *factory
}

func (m maskedWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(m.w, m.f.Redactor().Redact(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Proposals is the proposal backend's configuration: the flags' values,
// the rest from GITEA_URL, BRIDLE_GITEA_REPO, GITEA_TOKEN(_FILE).
func (f *factory) Proposals(c proposals.Config) (proposals.Config, error) {
	c.Version = version()
	return proposals.ConfigFrom(f.getenv, c)
}

// Memory is the memory store's and embedder's configuration.
func (f *factory) Memory() memory.Config { return memory.ConfigFrom(f.getenv, memory.Config{}) }

// ProjectMemory opens project's memory store: the same one whichever way
// the project is served (bridle mcp, bridle serve) or worked on (bridle
// memory, bridle patterns).
func (f *factory) ProjectMemory(project string) (memory.Store, memory.Embedder, error) {
	return memory.OpenProject(f.Memory(), project)
}

// Examples says where pattern examples may come from; rulesDir anchors
// local ones ("" for none).
func (f *factory) Examples(rulesDir string) (memory.ExampleOptions, error) {
	return memory.ExampleOptionsFrom(f.getenv, rulesDir)
}

// StateDir is where the audit logs live.
func (f *factory) StateDir() (string, error) { return audit.DirFrom(f.getenv) }

// CacheRoot is the one cache root ("" when caching is off).
func (f *factory) CacheRoot() string { return live.CacheRootFrom(f.getenv) }

// CacheDir is CacheRoot as live.Options and mcp.Options take it ("-" for
// none).
func (f *factory) CacheDir() string {
	if r := f.CacheRoot(); r != "" {
		return r
	}
	return "-"
}

// CompileCache is the compile cache under the cache root.
func (f *factory) CompileCache() compiler.Cache { return live.CompileCache(f.CacheRoot()) }

// BoundAgent is the agent bound at launch by BRIDLE_AGENT ("" when unset).
func (f *factory) BoundAgent() string { return strings.TrimSpace(f.getenv("BRIDLE_AGENT")) }

// AgentSession names the variable that shows this process runs inside a
// coding agent's session (its shell tool), or "" when none does. Approving
// is a human's act; an agent that runs the CLI is refused.
func (f *factory) AgentSession() string {
	if f.getenv("BRIDLE_AGENT") != "" {
		return "BRIDLE_AGENT"
	}
	_, v, _ := agents.Session(f.getenv)
	return v
}

// SessionAgent is the harness whose session variable AgentSession found
// ("" for none, or BRIDLE_AGENT).
func (f *factory) SessionAgent() string {
	a, _, _ := agents.Session(f.getenv)
	return a
}

// HarnessProjectDir is the project a harness runs its hook in, from the
// variable the agents registry names (CLAUDE_PROJECT_DIR, …).
func (f *factory) HarnessProjectDir(variable string) string {
	if variable == "" {
		return ""
	}
	return f.getenv(variable)
}

// InCI reports a Gitea or GitHub Actions runner.
func (f *factory) InCI() bool {
	return f.getenv("GITEA_ACTIONS") == "true" || f.getenv("GITHUB_ACTIONS") == "true"
}

// TokenFile is BRIDLE_TOKEN_FILE: the file holding an agent's gateway token
// (the bridge reads it; a token is never a flag value).
func (f *factory) TokenFile() string { return strings.TrimSpace(f.getenv("BRIDLE_TOKEN_FILE")) }

// AdminTokenFile is BRIDLE_ADMIN_TOKEN_FILE: the file holding the gateway's
// admin credential (bridle serve checks it; bridle agents … --server sends it).
func (f *factory) AdminTokenFile() string {
	return strings.TrimSpace(f.getenv("BRIDLE_ADMIN_TOKEN_FILE"))
}

// ConfigDir is the user's bridle configuration directory, where bridle
// login keeps its tokens: BRIDLE_CONFIG_DIR, else $XDG_CONFIG_HOME/bridle,
// else ~/.config/bridle.
func (f *factory) ConfigDir() (string, error) {
	if d := strings.TrimSpace(f.getenv("BRIDLE_CONFIG_DIR")); d != "" {
		return d, nil
	}
	if d := strings.TrimSpace(f.getenv("XDG_CONFIG_HOME")); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "bridle"), nil
	}
	if h := strings.TrimSpace(f.getenv("HOME")); h != "" {
		return filepath.Join(h, ".config", "bridle"), nil
	}
	return "", fmt.Errorf("no configuration directory: set BRIDLE_CONFIG_DIR (or HOME)")
}

// ServerURL is BRIDLE_SERVER: the gateway the CLI's admin verbs and the
// bridge talk to when --server is not given ("" for none).
func (f *factory) ServerURL() string { return strings.TrimSpace(f.getenv("BRIDLE_SERVER")) }

// Gateway is bridle serve's configuration: c (the file's) with the
// environment's overrides, then flags applied by the caller, then, with no
// admin name yet, git's committer identity of the serving user, then the
// defaults (which depend on the state directory).
func (f *factory) Gateway(c gateway.Config, flags func(*gateway.Config)) (gateway.Config, error) {
	c = c.Env(f.getenv)
	flags(&c)
	if c.Admin.Name == "" {
		// The person serving is the admin until sign-in exists: git's
		// committer identity of this user, as bridle approve uses it.
		if p, err := identity.Of(identity.Committer, nil); err == nil {
			c.Admin.Name, c.Admin.NameFrom = p.Name, "git"
			c.Admin.Email = cmp.Or(c.Admin.Email, p.Email)
		}
	}
	if c.Secrets.AgeKeyFile == "" {
		// The identity bridle secrets init made for this user, as the CLI
		// finds it: the gateway opens the vault the CLI does.
		c.Secrets.AgeKeyFile = f.ageKeyFile()
	}
	return c.Defaults(f.getenv)
}

// GatewayMemory is the memory configuration for the gateway: as Memory,
// and the keys' *_FILE forms (QDRANT_API_KEY_FILE, EMBEDDINGS_API_KEY_FILE,
// Docker secrets) read, their values added to the redactor.
func (f *factory) GatewayMemory() (memory.Config, error) {
	c := f.Memory()
	for _, kv := range []struct {
		dst *string
		env string
	}{{&c.QdrantKey, "QDRANT_API_KEY_FILE"}, {&c.EmbeddingsKey, "EMBEDDINGS_API_KEY_FILE"}} {
		file := strings.TrimSpace(f.getenv(kv.env))
		if *kv.dst != "" || file == "" {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return c, fmt.Errorf("%s: %w", kv.env, err)
		}
		*kv.dst = strings.TrimSpace(string(b))
		f.Redactor().Add(*kv.dst)
	}
	return c, nil
}

// ServeConfigFile is BRIDLE_CONFIG: bridle serve's configuration file.
func (f *factory) ServeConfigFile() string { return strings.TrimSpace(f.getenv("BRIDLE_CONFIG")) }

// GiteaProject is GITEA_URL and BRIDLE_GITEA_REPO: with both set and no
// configuration file, bridle serve serves that one repository.
func (f *factory) GiteaProject() (url, repo string) {
	return strings.TrimSpace(f.getenv("GITEA_URL")), strings.TrimSpace(f.getenv("BRIDLE_GITEA_REPO"))
}

// Kanboard is the Kanboard configuration: KANBOARD_URL, KANBOARD_USER,
// KANBOARD_TOKEN or KANBOARD_TOKEN_FILE, KANBOARD_PROJECTS. A token read
// from a file is added to the redactor (one in the environment already is).
func (f *factory) Kanboard() (kanboard.Config, error) {
	c, err := kanboard.ConfigFrom(f.getenv)
	if c.TokenFromFile {
		f.Redactor().Add(c.Token)
	}
	// The token, and its user's Basic credential in every alphabet, as an
	// echoed Authorization header shows it.
	if c.Token != "" {
		f.Redactor().Add(c.Token)
		f.Redactor().AddUsers(c.User)
	}
	return c, err
}

// SidecarCredentials are the credentials bridle mcp --config may use: a
// secret:NAME is read from Docker secrets (/run/secrets, or
// BRIDLE_DOCKER_SECRETS), NAME_FILE or NAME — never from a SOPS file, which
// only the gateway and bridle secrets open (the sidecar must start in
// milliseconds, and an agent's process should not hold the vault's key).
func (f *factory) SidecarCredentials(log *slog.Logger) gateway.Credentials {
	if f.sidecar == nil {
		f.sidecar = vault.Open(context.Background(), vault.Options{Scope: "sidecar", DockerDir: f.getenv("BRIDLE_DOCKER_SECRETS"),
			Getenv: f.getenv, Redactor: f.Redactor(), Warn: func(m string) { log.Warn(m) }})
	}
	return gateway.Credentials{Vault: f.sidecar, Redactor: f.Redactor()}
}
