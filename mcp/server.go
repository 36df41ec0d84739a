package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/live"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/vault"
)

// Options configures a Server.
type Options struct {
	Rules string // rules path, as for bridle compile
	// Ref is the git ref the rules are read from; when empty, the rules'
	// branch (compiler.Branch): committed, never the work tree, so that an
	// edit nobody approved is never served as the rules.
	Ref string
	// Worktree serves the work tree's rules instead of a committed ref: an
	// authoring mode, loudly labelled, that never grants a permission the
	// committed rules do not (compiler.Options.Strict).
	Worktree bool
	Snapshot string // serve this compiled snapshot instead of compiling
	Agent    string // agent bound at launch (--agent / BRIDLE_AGENT); "" to identify by client
	Version  string // bridle version

	CacheDir string        // the cache root (live.CacheRoot() when empty, "-" for none)
	StateDir string        // audit logs; audit.DefaultDir() when empty
	Refresh  time.Duration // how often to re-check the rules; default 2s
	Redactor *redact.Redactor
	// Proposals opens the proposal backend on first use; nil disables the
	// proposals toolset (its tools are neither listed nor callable).
	Proposals func() (proposals.Backend, error)
	// Memory opens the vector store and the embedder on first use; nil
	// disables the memory and patterns toolsets.
	Memory func() (memory.Store, memory.Embedder, error)
	// MemoryOf, when set instead of Memory, opens the store of the project
	// a call is for (Project, else the rules' project.id), once per
	// project: the sidecar's store is the one the gateway and the CLI open
	// for that project (memory.OpenProject).
	MemoryOf func(project string) (memory.Store, memory.Embedder, error)
	// Examples says where pattern examples may be cloned from, with which
	// credentials, and how large they may be.
	Examples memory.ExampleOptions
	// Kanboard configures the Kanboard toolset; nil leaves it out.
	Kanboard *Kanboard
	// Secrets lists the vault's secrets (names and metadata, never a
	// value) for the list_secrets tool; nil leaves the secrets toolset out.
	Secrets func() []vault.Info
	// Listed, if set, is called once, after the first tools/list is answered.
	Listed func()
	// Prefetch starts loading a local rules source while the server is
	// still being built (a Gitea source is never touched before a request).
	Prefetch bool
	// Gitea, when set, makes main of this Gitea repository the rules
	// source (through a local mirror); Rules and Ref are then ignored.
	Gitea  *proposals.GiteaOptions
	Logger *slog.Logger // to stderr; discarded when nil
	Now    func() time.Time

	// Project, when set, names the project in audit events and memory
	// instead of the rules' project.id: the gateway's name for it, so that
	// two projects can never share a log or a memory namespace.
	Project string
	// TokenIdentity makes the bearer token the caller's identity (the
	// gateway): the agent is the one the request's auth.TokenInfo names
	// (TokenInfo.Extra[TokenAgent]); without one it is unknown. The client's
	// clientInfo is recorded, never trusted, and Agent is ignored.
	TokenIdentity bool
	// Observe, if set, is told of every session's initialize and of every
	// tools/call with its outcome and duration (sessions, metrics). It must
	// not block.
	Observe func(Observation)

	extraTools []Tool // tests add tools with permissions through this
}

// Server is a Bridle MCP server.
type Server struct {
	opts    Options
	src     *live.Rules // nil when the rules source could not be opened (srcErr)
	srcErr  error
	red     *redact.Redactor
	log     *slog.Logger
	session string // this sidecar's session id, recorded with every event
	sdk     *sdk.Server
	audits  func(project string) *audit.Log
	record  func(*compiler.Snapshot, audit.Event) // s.audit, bound once

	mu        sync.RWMutex
	tools     []Tool // every registered tool, in order
	announced string // the permissions (and approval state) sessions last listed tools under

	listedOnce sync.Once
	agentOnce  sync.Once
	warned     sync.Map // client names already warned about a harness mismatch
}

// Instructions are sent to every client at initialize.
const Instructions = `This project's rules are served by Bridle, the same for every coding agent.
At the start of every session, call get_rules and follow what it returns for the whole session.
Guardrails marked hard-instruction are required; enforcement rules are enforced by Bridle itself.
Before any action beyond the task you were given, call request_scope_approval and wait for the answer.
When a guardrail restricts commands or files and your own harness does not enforce it, call check_command or check_path first and obey the answer.
Never edit CLAUDE.md or AGENTS.md by hand: rule changes are proposed, and a human approves them by merging.`

// New builds a server. It does no I/O: the snapshot is compiled and the
// audit log opened on first use.
func New(opts Options) *Server {
	if opts.Refresh <= 0 {
		opts.Refresh = 2 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Redactor == nil {
		opts.Redactor = redact.FromEnv(os.Environ())
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = slog.New(opts.Redactor.Handler(log.Handler()))
	if opts.Worktree {
		opts.Ref = ""
	} else if opts.Ref == "" && opts.Gitea == nil && opts.Snapshot == "" {
		opts.Ref = compiler.Branch(opts.Rules)
	}
	lo := liveOptions(opts)
	lo.Log = log
	src, err := live.Open(lo)
	if err != nil {
		log.Error("rules source", "err", err)
	}
	s := &Server{
		opts:    opts,
		red:     opts.Redactor,
		log:     log,
		src:     src,
		srcErr:  err,
		session: newSessionID(),
	}
	s.audits = func(project string) *audit.Log {
		dir := opts.StateDir
		if dir == "" {
			d, err := audit.DefaultDir()
			if err != nil {
				return nil
			}
			dir = d
		}
		return audit.Open(dir, project, s.red)
	}
	if opts.Prefetch && s.src != nil && !s.src.Remote() {
		go s.src.Current()
	}
	s.record = s.audit
	for _, ts := range s.toolsets() {
		s.tools = append(s.tools, ts.tools()...)
	}
	s.tools = append(s.tools, opts.extraTools...)
	s.sdk = s.build()
	if s.src != nil {
		s.src.Subscribe(s.rulesChanged)
	}
	return s
}

// Err is why the server cannot serve any rules (a rules source it could not
// open, such as a Gitea URL that is not one), nil when it can. Every request
// fails with it; bridle mcp exits with it instead of serving.
func (s *Server) Err() error { return s.srcErr }

// Rules is the snapshot being served and how fresh it is, or why there is
// none (the gateway's readiness, admin API and metrics read it).
func (s *Server) Rules() (*compiler.Snapshot, Status, error) { return s.current() }

// Reload makes the next request check the rules again at once, not after
// Refresh: for the gateway, which has just merged an approval.
func (s *Server) Reload() {
	if s.src != nil {
		s.src.Invalidate()
	}
}

// current is the snapshot to serve, or why there is none.
func (s *Server) current() (*compiler.Snapshot, Status, error) {
	if s.src == nil {
		return nil, Status{}, s.srcErr
	}
	return s.src.Current()
}

// WarnUnknownAgent logs a warning, once, when the agent bound at launch
// (--agent, BRIDLE_AGENT) has no profile in the rules: it still serves, with
// the least privilege (read the rules, nothing else), but a typo should not
// pass silently. It loads a local rules source (as Prefetch does) but never
// touches a Gitea source; the first request checks those.
func (s *Server) WarnUnknownAgent() {
	if s.opts.Agent == "" || s.src == nil || s.src.Remote() {
		return
	}
	if snap, _, _ := s.src.Current(); snap != nil {
		s.checkAgent(snap)
	}
}

func (s *Server) checkAgent(snap *compiler.Snapshot) {
	if s.opts.Agent == "" || snap == nil {
		return
	}
	s.agentOnce.Do(func() {
		profiles := slices.Sorted(maps.Keys(snap.Document.AgentProfiles))
		if slices.Contains(profiles, s.opts.Agent) {
			return
		}
		msg := fmt.Sprintf("agent %q (from --agent or BRIDLE_AGENT) has no profile in the rules", s.opts.Agent)
		if sg := schema.Suggest(s.opts.Agent, profiles); sg != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", sg)
		}
		s.log.Warn(msg+"; serving it with no permissions: it may read the rules and nothing else", "profiles", strings.Join(profiles, ", "))
	})
}

// project is the project's name: Options.Project, else the rules' id.
func (s *Server) project(snap *compiler.Snapshot) string {
	switch {
	case s.opts.Project != "":
		return s.opts.Project
	case snap != nil:
		return snap.Document.Project.ID
	}
	return "unknown"
}

func newSessionID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "s-" + hex.EncodeToString(b)
}

// SDK returns the underlying go-sdk server, for in-process transports.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Tools returns every registered tool, in order, whether or not its toolset
// is enabled: what the server can serve, as ToolsMarkdown documents it.
func (s *Server) Tools() []Tool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.tools)
}

// ServeStdio serves one session over in and out until in ends or ctx is done.
// A local rules source is loaded in the background meanwhile, so that the
// first tools/list does not wait for it; a Gitea source is not touched
// before a request needs it.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	if s.src != nil && !s.src.Remote() && !s.opts.Prefetch {
		go s.src.Current()
	}
	err := s.sdk.Run(ctx, &LineTransport{In: in, Out: out, Logger: s.log, Redactor: s.red})
	// The end of input is not an error. The SDK (v1.8) already drops an
	// io.EOF read or write error by errors.Is; this covers one it wraps.
	if err == nil || ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func (s *Server) build() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "bridle", Title: "Bridle rules", Version: s.opts.Version}, &sdk.ServerOptions{
		Instructions: Instructions,
		Logger:       s.log,
		// Lists and reads depend on who asks, and rules change on merge.
		SetCacheable: func(_ context.Context, _ sdk.Request, c *sdk.Cacheable) {
			c.TTLMs, c.CacheScope = 0, "private"
		},
		Capabilities: &sdk.ServerCapabilities{
			// AddToolset and RemoveTools change the list while sessions run.
			Tools:     &sdk.ToolCapabilities{ListChanged: true},
			Resources: &sdk.ResourceCapabilities{},
		},
	})
	for _, t := range s.tools {
		t.add(srv)
	}
	s.addResources(srv)
	srv.AddReceivingMiddleware(s.redactMiddleware, s.permissionMiddleware)
	if s.opts.Observe != nil {
		srv.AddReceivingMiddleware(s.observeMiddleware)
	}
	return srv
}

// audit appends an event to the project's log; failures are logged, never
// returned to the agent.
func (s *Server) audit(snap *compiler.Snapshot, e audit.Event) {
	project := s.project(snap)
	if e.Session == "" {
		e.Session = s.session
	}
	e.Project, e.Source = project, "agent"
	l := s.audits(project)
	if l == nil {
		s.log.Warn("no state directory; audit event dropped", "kind", e.Kind)
		return
	}
	if err := l.Append(e); err != nil {
		s.log.Warn("audit event not written", "err", err)
	}
}
