package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/panel"
)

type serveOptions struct {
	config, rules, project      string
	listen, stateDir, adminFile string
	adminName, adminEmail       string
	logFormat, logLevel         string
	tlsCert, tlsKey             string
	origins                     []string
	grace                       time.Duration
}

func newServeCmd(io *streams) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the gateway: MCP over HTTP for many projects and agents",
		Long: `Serve runs the gateway, the control plane that holds the rules, the proposals,
memory, the audit log and every credential, out of the agents' reach. Each
project is served at /p/PROJECT/mcp over MCP's streamable HTTP transport; an
agent authenticates with its own bearer token (bridle agents add), and the
token is its identity. The web panel is at / (sign in through the identity
provider of auth.oidc, or with the admin credential, the break-glass admin). The admin API is under /api/v1 (its OpenAPI document
at /api/v1/openapi.json), authenticated by the admin credential. /healthz says
the server is alive, /readyz whether every project's rules are loaded and
every backend answers, /metrics is Prometheus.

Settings, lowest precedence first: the configuration file (--config or
BRIDLE_CONFIG), the environment, then flags.

  setting            file key            environment                default
  listen address     listen              BRIDLE_LISTEN              127.0.0.1:7777
  state directory    state_dir           BRIDLE_STATE_DIR           ~/.local/state/bridle
  cache directory    cache_dir           BRIDLE_CACHE_DIR           STATE/cache
  log format         log.format          BRIDLE_LOG_FORMAT          text (or json)
  log level          log.level           BRIDLE_LOG_LEVEL           info
  admin credential   admin.token_file    BRIDLE_ADMIN_TOKEN_FILE    generated: STATE/gateway/admin-token
  admin's name       admin.name          BRIDLE_ADMIN_NAME          git's committer identity of the
  and e-mail         admin.email         BRIDLE_ADMIN_EMAIL         serving user (git config user.name)
                     (proposals, approvals and rejections made with the admin credential
                     are attributed to this person; the start-up log says who it is)
  sign-in            auth.oidc {issuer, client_id, client_secret: secret:NAME or
                     client_secret_file}: people sign in to the panel through Gitea
                     (bridle serve oidc setup) or any OpenID Connect provider
  roles              auth.roles {admin, approver, viewer}: lists of names ("*": everyone);
                     auth.sole_maintainer: the one person who may approve their own;
                     auth.break_glass: off turns the admin credential off. SIGHUP
                     reads auth: again
  TLS                tls.cert_file/key_file  BRIDLE_TLS_CERT_FILE/_KEY_FILE  off
  browser origins    allowed_origins     BRIDLE_ALLOWED_ORIGINS     none (same origin only)
  request size       max_body_bytes                                 1048576
  vendor sync        vendor.sync_interval  BRIDLE_VENDOR_SYNC_INTERVAL  24h (or off): bridle vendor sync
                     of every project, proposals only
  projects           projects.ID.rules (a local repository) or projects.ID.gitea
                     {url, repo, path, token_file}: GITEA_URL, GITEA_TOKEN_FILE fill url and token_file
  memory             QDRANT_URL, QDRANT_API_KEY_FILE, EMBEDDINGS_URL, EMBEDDINGS_MODEL,
                     EMBEDDINGS_API_KEY_FILE (one SQLite store per project by default)

With no configuration file, --rules DIR serves one local project, and
GITEA_URL with BRIDLE_GITEA_REPO one Gitea project. Secrets are read from
files (Docker secrets under /run/secrets), never from flags or plain
variables; none is ever logged.

On a first start without an admin credential, one is generated into the
state directory (mode 0600) and its path is logged, never its value. The
server binds 127.0.0.1 by default: for agents on other machines put it behind
a reverse proxy with TLS, or a WireGuard interface, or give it a certificate.
SIGTERM or Ctrl-C stop it gracefully: calls in flight finish (up to --grace).`,
		Example: `  bridle serve --rules ~/code/my-project/rules        # one local project
  bridle serve --config /etc/bridle/serve.yaml
  bridle agents add --server http://127.0.0.1:7777 --project my-project --agent claude`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, io, o) },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.config, "config", "", "the configuration `file` (default $BRIDLE_CONFIG)")
	fl.StringVar(&o.rules, "rules", "", "serve one local project: the rules repository `dir` (no configuration file needed)")
	fl.StringVar(&o.project, "project", "", "with --rules: the project's `id` (default the rules' project.id)")
	fl.StringVar(&o.listen, "listen", "", "listen on `addr` (default 127.0.0.1:7777)")
	fl.StringVar(&o.stateDir, "state-dir", "", "keep tokens and audit logs in `dir` (memory is in the data directory, $BRIDLE_DATA_DIR, shared with the sidecar)")
	fl.StringVar(&o.adminFile, "admin-token-file", "", "the admin credential's `file` (default $BRIDLE_ADMIN_TOKEN_FILE, else generated)")
	fl.StringVar(&o.adminName, "admin-name", "", "the `name` the admin's proposals, approvals and rejections are attributed to (default $BRIDLE_ADMIN_NAME, else git config user.name)")
	fl.StringVar(&o.adminEmail, "admin-email", "", "with --admin-name: the admin's e-mail `address`")
	fl.StringVar(&o.logFormat, "log-format", "", "stderr log `format`: text or json")
	fl.StringVar(&o.logLevel, "log-level", "", "stderr log `level`: debug, info, warn or error")
	fl.StringVar(&o.tlsCert, "tls-cert", "", "serve TLS with this certificate `file` (with --tls-key)")
	fl.StringVar(&o.tlsKey, "tls-key", "", "the TLS private key `file`")
	fl.StringSliceVar(&o.origins, "allow-origin", nil, "a browser `origin` allowed to call the server (repeatable)")
	fl.DurationVar(&o.grace, "grace", 10*time.Second, "on shutdown, wait this long for calls in flight")
	cmd.AddCommand(newServeHealthCmd(io), newServeOIDCCmd(io))
	return cmd
}

var unsafeID = lazyregexp.New(`[^a-z0-9._-]+`)

func runServe(cmd *cobra.Command, io *streams, o serveOptions) error {
	if o.config == "" {
		o.config = io.f.ServeConfigFile()
	}
	cfg, err := gateway.LoadConfig(o.config)
	if err != nil {
		return usageErr("%w", err)
	}
	quick := len(cfg.Projects) == 0 // no project from a file: one from --rules or the environment
	if o.rules != "" {
		if len(cfg.Projects) > 0 {
			return usageErr("--rules serves one project without a configuration file; %s already lists projects", o.config)
		}
		id := o.project
		if id == "" {
			id = projectIDOf(o.rules)
		}
		cfg.Projects = map[string]gateway.ProjectConfig{id: {Rules: o.rules}}
	} else if o.project != "" {
		return usageErr("--project names the project of --rules")
	}
	if len(cfg.Projects) == 0 {
		if url, repo := io.f.GiteaProject(); url != "" && repo != "" {
			_, name, _ := strings.Cut(repo, "/")
			cfg.Projects = map[string]gateway.ProjectConfig{sanitizeID(name): {Gitea: &gateway.GiteaConfig{Repo: repo}}}
		}
	}
	if quick && len(cfg.Projects) == 1 {
		// The one project of a set-up with no file gets the environment's
		// Kanboard (KANBOARD_URL, …), as bridle mcp does.
		if kc, err := io.f.Kanboard(); err == nil && kc.URL != "" {
			for id, p := range cfg.Projects {
				p.Kanboard = &gateway.KanboardConfig{}
				cfg.Projects[id] = p
			}
		}
	}
	cfg, err = io.f.Gateway(cfg, func(cfg *gateway.Config) {
		o.apply(cfg)
	})
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.Log.Level)); err != nil {
		return usageErr("log level: %v", err)
	}
	hopts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(io.errOut, hopts)
	if cfg.Log.Format == "json" {
		h = slog.NewJSONHandler(io.errOut, hopts)
	}
	log := slog.New(h)
	mem, err := io.f.GatewayMemory()
	if err != nil {
		return usageErr("%w", err)
	}
	ex, err := io.f.Examples("")
	if err != nil {
		return usageErr("%w", err)
	}
	srv, err := gateway.New(cfg, gateway.Options{Version: version(), Redactor: io.f.Redactor(), Logger: log,
		Memory: mem, Examples: ex, Grace: o.grace, Getenv: io.f.getenv,
		UI: func(api http.Handler, signIn *gateway.SignIn) http.Handler {
			// The panel logs through the redactor the gateway fills (the
			// client secret, read per sign-in, is added to it).
			return panel.New(panel.Options{API: api, SignIn: signIn, Version: version(), Logger: slog.New(io.f.Redactor().Handler(log.Handler()))})
		}})
	if err != nil {
		if errors.Is(err, gateway.ErrConfig) {
			return usageErr("%w", err)
		}
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	base := srv.URL(ln.Addr())
	path, generated := srv.Admin()
	attrs := []any{"url", base, "projects", strings.Join(srv.Projects(), ","), "state", cfg.StateDir, "admin_credential", path}
	if generated {
		log.Warn("no admin credential was configured: generated one (mode 0600); read it from the file, give it to bridle agents with BRIDLE_ADMIN_TOKEN_FILE", "file", path)
	}
	log.Info("bridle serve listening", attrs...)
	if a := cfg.Admin; a.Name != "" {
		log.Info("acting for", "admin_name", a.Name, "admin_email", a.Email, "from", a.NameFrom)
	} else {
		log.Warn("no admin name: proposals, approvals and rejections through the API and the panel are refused until one is set; restart with --admin-name \"Your Name\" or BRIDLE_ADMIN_NAME, or tell git your name (git config --global user.name \"Your Name\")")
	}
	for _, id := range srv.Projects() {
		log.Info("project", "id", id, "mcp", base+"/p/"+id+"/mcp")
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.config != "" {
		go authOnHangup(ctx, srv, o.config, log)
	}
	return srv.Serve(ctx, ln)
}

// authOnHangup reads the configuration file again at each SIGHUP and puts
// its auth: section (roles, break-glass) in force from the next request.
func authOnHangup(ctx context.Context, srv *gateway.Server, path string, log *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		c, err := gateway.LoadConfig(path)
		if err == nil {
			err = srv.SetAuth(c.Auth)
		}
		if err != nil {
			log.Warn("SIGHUP: auth not reloaded; the roles in force stay", "err", err)
			continue
		}
		log.Info("SIGHUP: auth reloaded", "file", path)
	}
}

// apply sets the flags that were given over the file's and the
// environment's settings.
func (o serveOptions) apply(cfg *gateway.Config) {
	for _, kv := range []struct {
		dst *string
		v   string
	}{{&cfg.Listen, o.listen}, {&cfg.StateDir, o.stateDir}, {&cfg.Admin.TokenFile, o.adminFile},
		{&cfg.Log.Format, o.logFormat}, {&cfg.Log.Level, o.logLevel}, {&cfg.TLS.CertFile, o.tlsCert}, {&cfg.TLS.KeyFile, o.tlsKey}} {
		if kv.v != "" {
			*kv.dst = kv.v
		}
	}
	if len(o.origins) > 0 {
		cfg.AllowedOrigins = o.origins
	}
	if n := strings.TrimSpace(o.adminName); n != "" {
		cfg.Admin.Name, cfg.Admin.Email, cfg.Admin.NameFrom = n, strings.TrimSpace(o.adminEmail), "flag"
	} else if e := strings.TrimSpace(o.adminEmail); e != "" {
		cfg.Admin.Email = e
	}
}

// projectIDOf is the project.id of the rules committed in dir, else the
// directory's name, as a project id.
func projectIDOf(rules string) string {
	if snap, _, err := compiler.Compile(compiler.Options{Rules: rules, Ref: compiler.Branch(rules), NoHistory: true}); err == nil && snap != nil && snap.Document.Project.ID != "" {
		return sanitizeID(snap.Document.Project.ID)
	}
	abs, _ := filepath.Abs(rules)
	return sanitizeID(filepath.Base(abs))
}

func sanitizeID(s string) string {
	id := strings.Trim(unsafeID.ReplaceAllString(strings.ToLower(s), "-"), "-._")
	if len(id) > 63 {
		id = id[:63]
	}
	if id == "" {
		return "default"
	}
	return id
}

func newServeHealthCmd(io *streams) *cobra.Command {
	var url string
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Check that a gateway answers /healthz (exit 0 or 1)",
		Long: `Health asks the gateway at --url for /healthz and exits 0 when it answers
200, 1 otherwise: a container's health check, which needs no shell.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return usageErr("--url: %w", err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return fmt.Errorf("health: %w", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("health: %s answered %s", url, resp.Status)
			}
			fmt.Fprintln(io.out, "ok")
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "http://127.0.0.1:7777/healthz", "the health `url`")
	return cmd
}
