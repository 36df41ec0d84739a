// Package install adds Bridle's MCP server to a coding agent's MCP
// configuration, with the agent bound at launch (bridle mcp --agent NAME).
//
// For claude in a project (ProjectDir set) with a rules document (Doc), it
// also wires the project's .claude/settings.json the way render --all does,
// with the same merge (renderers.RenderNative): Bridle's permission rules
// and its bridle hook claude PreToolUse hook, recorded in
// .claude/bridle.json. Those entries are shareable: the hook runs bridle
// from PATH with --rules "$CLAUDE_PROJECT_DIR"/RULES, RULES relative to the
// project. A project's own MCP config is shareable too (Options.Shared):
// the rules path in it is relative to the project, and the caller passes
// "bridle" (from PATH) as the command; a user's config gets absolute
// paths. Codex needs no wiring:
// it loads <project>/.codex/rules/*.rules, which render writes, once the
// project is trusted.
//
// With Server (a Bridle gateway) the client reaches the gateway's project
// instead: a client that speaks streamable HTTP itself (agents.Config.HTTP:
// Claude Code, Codex) gets its native remote entry, whose bearer token comes
// from the BRIDLE_TOKEN environment variable, so the file holds no token and
// can be committed; any other client gets the stdio bridge, bridle mcp
// --server URL --project P, which reads the token from the file
// BRIDLE_TOKEN_FILE names. Either way the variable is the user's to set.
//
// Promises: it merges with what is there and never removes or changes
// another server; a file it cannot parse is left untouched and reported;
// writes are atomic; with DryRun nothing is written.
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/google/renameio/v2"
	"github.com/pelletier/go-toml/v2"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/bridge"
	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

// Clients Bridle can install into: the agents registry's installable agents.
var Clients = agents.Installable()

// ServerName is the name Bridle's entry gets in every config.
const ServerName = "bridle"

// The environment variables a gateway entry leaves to the user: the token
// itself for a client that reaches the gateway over HTTP, the file holding
// it for the stdio bridge.
const (
	TokenEnv     = "BRIDLE_TOKEN"
	TokenFileEnv = "BRIDLE_TOKEN_FILE"
)

// Options says what to install where.
type Options struct {
	Client     string // claude, codex or kimi
	ProjectDir string // project-scoped config when set (claude: .mcp.json, codex: .codex/config.toml, kimi: .kimi/mcp.json)
	Home       string // the user's home, for user-scoped configs
	ConfigPath string // overrides the config file
	Command    string // the bridle executable
	Rules      string // rules path passed to bridle mcp (relative to ProjectDir when Shared, else absolute)
	Ref        string // optional git ref
	Agent      string // agent to bind; defaults to Client
	GiteaURL   string // serve a Gitea rules repository instead of Rules
	GiteaRepo  string // OWNER/NAME
	DryRun     bool
	// Doc is the rules document whose enforce entries are wired into a
	// claude project's .claude/settings.json; nil wires nothing.
	Doc *schema.Document
	// RulesPath is the hook's rules path relative to ProjectDir; empty
	// means Rules made relative to ProjectDir.
	RulesPath string
	// Server is a Bridle gateway's base URL: the client is set up to reach
	// GatewayProject there instead of running the sidecar on local rules
	// (Rules, Ref, Agent, Gitea and Doc are then unused: the token is the
	// agent's identity).
	Server         string
	GatewayProject string
}

// Result says what changed.
type Result struct {
	Path    string
	Changed bool
	Diff    string // unified diff of the change
	// Settings are the project's native files install wired too
	// (.claude/bridle.json, .claude/settings.json), each with its change.
	Settings []Result
	// HTTP reports a gateway entry the client connects over HTTP itself
	// (token from TokenEnv); false with Server is the stdio bridge (token
	// file from TokenFileEnv).
	HTTP bool
}

// ErrUnknownClient is returned for a client Bridle cannot configure.
var ErrUnknownClient = errors.New("unknown client")

// Path returns the config file Install would change: --config, else the
// agent's project-scoped or user file from the agents registry.
func Path(o Options) (string, error) {
	cfg, err := clientConfig(o.Client)
	if err != nil {
		return "", err
	}
	switch {
	case o.ConfigPath != "":
		return o.ConfigPath, nil
	case o.ProjectDir != "" && cfg.Project == "":
		return "", fmt.Errorf("install %q --project: %w: it reads MCP servers from the user's ~/%s only", o.Client, ErrUnknownClient, cfg.User)
	case o.ProjectDir != "":
		return filepath.Join(o.ProjectDir, filepath.FromSlash(cfg.Project)), nil
	default:
		return filepath.Join(o.Home, filepath.FromSlash(cfg.User)), nil
	}
}

// clientConfig is where the agent's MCP client keeps its configuration.
func clientConfig(client string) (*agents.Config, error) {
	a, ok := agents.Lookup(client)
	if !ok || a.Harness == nil || a.Harness.Config == nil {
		return nil, fmt.Errorf("install %q: %w (use one of %s)", client, ErrUnknownClient, strings.Join(Clients, ", "))
	}
	return a.Harness.Config, nil
}

func (o Options) args() []string {
	if o.Server != "" {
		return []string{"mcp", "--server", strings.TrimRight(o.Server, "/"), "--project", o.GatewayProject}
	}
	agent := o.Agent
	if agent == "" {
		agent = o.Client
	}
	if o.GiteaURL != "" {
		// The token stays out of the config: the client's environment
		// (GITEA_TOKEN or GITEA_TOKEN_FILE) provides it.
		return []string{"mcp", "--gitea", o.GiteaURL, "--repo", o.GiteaRepo, "--agent", agent}
	}
	// The ref is written out even when it is the default: the sidecar
	// serves committed rules only, and the config should say which.
	ref := o.Ref
	if ref == "" {
		ref = "main"
	}
	return []string{"mcp", "--rules", o.rulesArg(), "--ref", ref, "--agent", agent}
}

// Shared reports whether the config is a project's own file, committed for
// every teammate (ProjectDir set, no ConfigPath): it then holds no path of
// this machine.
func (o Options) Shared() bool { return o.ProjectDir != "" && o.ConfigPath == "" }

// RulesArg is the rules path Install gives bridle mcp for o.
func RulesArg(o Options) string { return o.rulesArg() }

// rulesArg is the rules path bridle mcp is given: relative to the project
// (slash-separated) in a shared config — bridle mcp finds a relative path
// from the directory the agent starts in or any parent of it — and
// absolute otherwise.
func (o Options) rulesArg() string {
	rules, err := filepath.Abs(o.Rules)
	if err != nil {
		return o.Rules
	}
	if o.Shared() {
		if proj, err := filepath.Abs(o.ProjectDir); err == nil {
			if rel, err := filepath.Rel(proj, rules); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(rel)
			}
		}
	}
	return rules
}

// Install adds or updates Bridle's entry in the client's MCP config.
func Install(o Options) (Result, error) {
	p, err := Path(o)
	if err != nil {
		return Result{}, err
	}
	before, mode, err := read(p)
	if err != nil {
		return Result{}, err
	}
	cfg, _ := clientConfig(o.Client) // Path checked it
	jsonEntry, tomlBody := stdioEntry(o.Command, o.args())
	remote := o.Server != "" && cfg.HTTP != nil
	if o.Server != "" {
		endpoint, err := bridge.Endpoint(o.Server, o.GatewayProject)
		if err != nil {
			return Result{}, fmt.Errorf("install %s: %w", o.Client, err)
		}
		if remote {
			jsonEntry, tomlBody = httpEntry(endpoint)
		}
	}
	var after []byte
	switch cfg.Format {
	case agents.TOMLServers:
		after, err = mergeTOML(before, tomlBody)
	default:
		after, err = mergeJSON(before, jsonEntry)
	}
	if err != nil {
		return Result{}, fmt.Errorf("install into %s: %w", p, err)
	}
	res := Result{Path: p, Changed: !bytes.Equal(before, after), HTTP: remote}
	if res.Changed {
		res.Diff = udiff.Unified(p, p, string(before), string(after))
	}
	if o.Client == "claude" && o.ProjectDir != "" && o.Doc != nil && o.Server == "" {
		if res.Settings, err = wireClaude(o); err != nil {
			return res, err
		}
	}
	if o.DryRun || !res.Changed {
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return res, fmt.Errorf("install into %s: %w", p, err)
	}
	if err := renameio.WriteFile(p, after, mode); err != nil {
		return res, fmt.Errorf("install into %s: %w", p, err)
	}
	return res, nil
}

// wireClaude merges Bridle's entries into the project's settings.json
// (renderers.RenderNative, limited to Claude's settings) and writes them
// unless DryRun.
func wireClaude(o Options) ([]Result, error) {
	rulesPath := o.RulesPath
	if rulesPath == "" {
		proj, err1 := filepath.Abs(o.ProjectDir)
		rules, err2 := filepath.Abs(o.Rules)
		rel, err3 := filepath.Rel(proj, rules)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("install: the rules path relative to the project: %w", err)
		}
		rulesPath = filepath.ToSlash(rel)
	}
	n, err := renderers.RenderNative(o.ProjectDir, o.Doc, renderers.NativeOptions{RulesPath: rulesPath, Kinds: []renderers.NativeKind{renderers.ClaudeSettings}})
	if err != nil {
		return nil, fmt.Errorf("install into %s: %w", o.ProjectDir, err)
	}
	var out []Result
	for _, f := range n.Files {
		p := filepath.Join(o.ProjectDir, filepath.FromSlash(f.Path))
		before, _ := os.ReadFile(p) // RenderNative read it through the safe-path checks
		r := Result{Path: p, Changed: string(before) != f.Content}
		if r.Changed {
			r.Diff = udiff.Unified(p, p, string(before), f.Content)
		}
		out = append(out, r)
	}
	for _, orphan := range n.Orphans {
		out = append(out, Result{Path: filepath.Join(o.ProjectDir, filepath.FromSlash(orphan.Path)), Changed: orphan.Intact, Diff: "removed " + orphan.Path + "\n"})
	}
	if o.DryRun {
		return out, nil
	}
	if _, err := renderers.Write(o.ProjectDir, n.Files); err != nil {
		return out, fmt.Errorf("install: %w", err)
	}
	if _, err := renderers.RemoveOrphans(o.ProjectDir, n.Orphans); err != nil {
		return out, fmt.Errorf("install: %w", err)
	}
	return out, nil
}

func read(p string) ([]byte, fs.FileMode, error) {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("install: %w", err)
	}
	if st.Size() > 64<<20 {
		return nil, 0, fmt.Errorf("install: %s is larger than 64 MiB; not touching it", p)
	}
	b, err := os.ReadFile(p)
	return b, st.Mode().Perm(), err
}

// stdioEntry is the entry that launches command args: as JSON, and as the
// body of a TOML table.
func stdioEntry(command string, args []string) (map[string]any, string) {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = strconv.Quote(a)
	}
	return map[string]any{"type": "stdio", "command": command, "args": args},
		fmt.Sprintf("command = %s\nargs = [%s]\n", strconv.Quote(command), strings.Join(quoted, ", "))
}

// httpEntry is the entry of a streamable HTTP server at url whose bearer
// token the client reads from TokenEnv: Claude Code's headers expand
// ${VAR}, Codex has bearer_token_env_var.
func httpEntry(url string) (map[string]any, string) {
	return map[string]any{"type": "http", "url": url, "headers": map[string]string{"Authorization": "Bearer ${" + TokenEnv + "}"}},
		fmt.Sprintf("url = %s\nbearer_token_env_var = %s\n", strconv.Quote(url), strconv.Quote(TokenEnv))
}

// mergeJSON sets mcpServers.bridle to entry in a JSON config, keeping every
// other key.
func mergeJSON(before []byte, entry map[string]any) ([]byte, error) {
	doc := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(before)) > 0 {
		if err := json.Unmarshal(before, &doc); err != nil {
			return nil, fmt.Errorf("the file is not a JSON object (%w); fix or move it, then run install again", err)
		}
	}
	if doc == nil { // the file held a bare `null`: nothing to keep
		doc = map[string]json.RawMessage{}
	}
	servers := map[string]json.RawMessage{}
	if raw, ok := doc["mcpServers"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &servers); err != nil {
			return nil, fmt.Errorf("mcpServers is not an object: %w", err)
		}
		if servers == nil {
			servers = map[string]json.RawMessage{}
		}
	}
	raw, _ := json.Marshal(entry)
	servers[ServerName] = raw
	s, _ := json.Marshal(servers)
	doc["mcpServers"] = s
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	if len(before) > 0 && jsonEqual(before, out) {
		return before, nil
	}
	return append(out, '\n'), nil
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

var tableRe = lazyregexp.New(`(?m)^\s*\[`)

// mergeTOML replaces or appends the [mcp_servers.bridle] table, whose body
// is given, as text, so comments and the layout of everything else survive.
func mergeTOML(before []byte, body string) ([]byte, error) {
	var check map[string]any
	if err := toml.Unmarshal(before, &check); err != nil {
		return nil, fmt.Errorf("the file is not valid TOML (%v); fix it, then run install again", err)
	}
	block := fmt.Sprintf("[mcp_servers.%s]\n%s", ServerName, body)

	text := string(before)
	header := regexp.MustCompile(`(?m)^[ \t]*\[\s*mcp_servers\s*\.\s*"?` + ServerName + `"?\s*\]\s*$`)
	var out string
	if loc := header.FindStringIndex(text); loc != nil {
		rest := text[loc[1]:]
		end := len(rest)
		if next := tableRe.FindStringIndex(rest); next != nil {
			end = next[0]
		}
		tail := strings.TrimLeft(rest[end:], "\n")
		out = text[:loc[0]] + block
		if tail != "" {
			out += "\n" + tail
		}
	} else {
		out = text
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if out != "" {
			out += "\n"
		}
		out += block
	}
	var after map[string]any
	if err := toml.Unmarshal([]byte(out), &after); err != nil {
		return nil, fmt.Errorf("merged config would not parse (%v); add the [mcp_servers.%s] table by hand", err, ServerName)
	}
	if servers, ok := check["mcp_servers"].(map[string]any); ok {
		got, _ := after["mcp_servers"].(map[string]any)
		for name := range servers {
			if name != ServerName && got[name] == nil {
				return nil, fmt.Errorf("merging would lose server %q; add the [mcp_servers.%s] table by hand", name, ServerName)
			}
		}
	}
	return []byte(out), nil
}
