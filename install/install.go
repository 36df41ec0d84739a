// Package install adds Bridle's MCP server to a coding agent's MCP
// configuration, with the agent bound at launch (bridle mcp --agent NAME).
// What it writes where is read from the agents registry (agents.Config):
// the project's file (the first of Project and ProjectAlso that exists,
// else Project) or the user's, the key that holds the servers, and how the
// client spells a stdio entry and a streamable-HTTP entry. Adding an agent
// there needs no code here.
//
// A project's own MCP config is shareable (Options.Shared): the rules path
// in it is relative to the project, and the caller passes "bridle" (from
// PATH) as the command; a user's config gets absolute paths. In a project
// with a rules document (Doc), install also wires the harness's native
// rendering (agents.Harness.Native: Claude Code's .claude/settings.json,
// Codex's .codex/rules, …) the way render --all does, with the same merge
// (renderers.RenderNative), over the MCP config as install leaves it (some
// harnesses keep both in one file).
//
// With Server (a Bridle gateway) the client reaches the gateway's project
// instead: a client that speaks streamable HTTP itself (agents.Config.HTTP)
// gets its native remote entry, whose bearer token comes from the agent's
// own environment variable, agents.TokenEnv (BRIDLE_TOKEN_CLAUDE), so the
// file holds no token and can be committed, and no two agents' entries read
// one variable; any other client gets the stdio bridge, bridle mcp --server
// URL --project P --token-file-env V, which reads the token from the file
// the agent's variable V = agents.TokenFileEnv names. The variable is the
// user's to set.
//
// A client that does not pass its own environment on to the servers it
// starts (Codex passes HOME, PATH and a few more; Gemini CLI drops names
// holding TOKEN, KEY, SECRET, …) gets the variables Bridle's entry needs
// listed in the entry, spelled as the client spells them (GITEA_TOKEN with
// Gitea rules, the token file's variable for the bridge). A client that
// reads another harness's project file instead of its own when there is one
// (Copilot CLI reads Claude Code's .mcp.json, and then not .github/mcp.json)
// gets its entry there, under a name of its own, bridle-AGENT (EntryName),
// beside the other harness's: each harness's entry names its own agent, and
// who reads which file is said by ReadBy and ReadInstead.
//
// Promises: JSON files (JSON with comments too) are merged through
// internal/jsonc, keeping every other server, key, comment and the file's
// layout; TOML files are merged as text, keeping comments and every other
// table; YAML files (Continue's) are merged as YAML nodes, keeping every
// other entry, key and comment (the indentation becomes YAML's, by two),
// and a file of more than one document is refused; an entry already as Bridle would write it is left byte for byte; a
// file that does not parse is left untouched and reported with its
// file:line:column; writes are atomic and keep the file's mode; with DryRun
// nothing is written.
package install

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff"
	"github.com/google/renameio/v2"
	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/bridge"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/internal/jsonc"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

// Clients lists the agents Bridle can install into: the agents registry's
// installable agents, sorted.
func Clients() []string { return agents.Installable() }

// ServerName is the name Bridle's entry gets in a client's config (but see
// EntryName).
const ServerName = "bridle"

// BridgeTokenFileEnv is the variable the stdio bridge reads the token
// file's path from when its entry names none of its own (configs written
// before agents had their own variables).
const BridgeTokenFileEnv = "BRIDLE_TOKEN_FILE"

// Options says what to install where.
type Options struct {
	Client     string // an installable agent (Clients)
	ProjectDir string // project-scoped config when set (the agent's agents.Config.Project)
	Home       string // the user's home, for user-scoped configs
	ConfigPath string // overrides the config file
	Command    string // the bridle executable
	Rules      string // rules path passed to bridle mcp (relative to ProjectDir when Shared, else absolute)
	Ref        string // optional git ref
	// Agent is the agent to bind; defaults to Client. With Server it only
	// names the token's variable (agents.TokenEnv): the token is the
	// identity.
	Agent     string
	GiteaURL  string // serve a Gitea rules repository instead of Rules
	GiteaRepo string // OWNER/NAME
	DryRun    bool
	// Doc is the rules document whose enforce entries are wired into the
	// project's native files (Harness.Native); nil wires nothing.
	Doc *schema.Document
	// RulesPath is the hook's rules path relative to ProjectDir; empty
	// means Rules made relative to ProjectDir.
	RulesPath string
	// Server is a Bridle gateway's base URL: the client is set up to reach
	// GatewayProject there instead of running the sidecar on local rules
	// (Rules, Ref, Gitea and Doc are then unused: the token is the agent's
	// identity).
	Server         string
	GatewayProject string
}

// Result says what changed.
type Result struct {
	Path    string
	Changed bool
	Created bool   // the file was not there before
	Diff    string // unified diff of the change
	// Entry is the name of Bridle's entry in the file (EntryName).
	Entry string
	// Settings are the project's native files install wired too
	// (.claude/bridle.json, .claude/settings.json, …), each with its change.
	Settings []Result
	// HTTP reports a gateway entry the client connects over HTTP itself
	// (the token from TokenEnv); false with Server is the stdio bridge
	// (the token file from TokenEnv).
	HTTP bool
	// TokenEnv is, with Server, the variable the person sets where the
	// client starts: the token itself (HTTP), or the path of a file
	// holding it (the bridge).
	TokenEnv string
	// Env are the variables the entry lists for a client that does not
	// pass its own environment to the servers it starts.
	Env []string
	// Replaced describes Bridle's entry of the other kind this one
	// replaced (the local sidecar where a gateway now is, or the reverse);
	// "" when there was none.
	Replaced string
}

var (
	// ErrUnknownClient is returned for a client Bridle cannot configure.
	ErrUnknownClient = errors.New("unknown client")
	// ErrNoScope is returned for a scope the client has no file for (a
	// project's, for a client that reads only the user's).
	ErrNoScope = errors.New("no such configuration")
)

// Path returns the config file Install would change: --config, else the
// agent's project file (the first that exists of another harness's file
// the client reads instead of its own, agents.Config.Project and
// ProjectAlso; else Project) or its user file.
func Path(o Options) (string, error) {
	cfg, err := clientConfig(o.Client)
	if err != nil {
		return "", err
	}
	return path(o, cfg)
}

func path(o Options, cfg *agents.Config) (string, error) {
	switch {
	case o.ConfigPath != "":
		return o.ConfigPath, nil
	case o.ProjectDir != "":
		if cfg.Project == "" {
			return "", fmt.Errorf("install %s: %w: %s reads no project's file, only the user's ~/%s (install without --project)", o.Client, ErrNoScope, o.Client, cfg.User)
		}
		names := append([]string{cfg.Project}, cfg.ProjectAlso...)
		if cfg.Instead {
			names = append(slices.Clone(cfg.AlsoReads), names...) // read instead of its own when there
		}
		for _, name := range names {
			p := filepath.Join(o.ProjectDir, filepath.FromSlash(name))
			if _, err := os.Lstat(p); err == nil {
				return p, nil
			}
		}
		return filepath.Join(o.ProjectDir, filepath.FromSlash(cfg.Project)), nil
	default:
		if cfg.User == "" {
			return "", fmt.Errorf("install %s: %w: %s reads no user's file, only a project's %s (install with --project DIR)", o.Client, ErrNoScope, o.Client, cfg.Project)
		}
		return filepath.Join(o.Home, filepath.FromSlash(cfg.User)), nil
	}
}

// clientConfig is where the agent's MCP client keeps its configuration.
func clientConfig(client string) (*agents.Config, error) {
	a, ok := agents.Lookup(client)
	if !ok || a.Harness == nil || a.Harness.Config == nil {
		return nil, fmt.Errorf("install %q: %w (use one of %s)", client, ErrUnknownClient, strings.Join(Clients(), ", "))
	}
	return a.Harness.Config, nil
}

// EntryName is the name of Bridle's entry in client's config: ServerName,
// or bridle-CLIENT for a client whose entry may share a file with another
// harness's (Copilot CLI's goes into Claude Code's .mcp.json when there is
// one), so that neither replaces nor shadows the other.
func EntryName(client string) string {
	if c, err := clientConfig(client); err == nil && c.Instead {
		return ServerName + "-" + client
	}
	return ServerName
}

// ReadBy lists the installable agents other than client whose clients
// read file (a slash path relative to the project) and start the servers
// it holds as their own: the harness whose project file it is, and those
// that also read it (Copilot CLI and Qwen Code read .mcp.json).
func ReadBy(client, file string) []string {
	var out []string
	for _, name := range Clients() {
		if name == client {
			continue
		}
		c, _ := clientConfig(name)
		if c.Project == file || slices.Contains(c.ProjectAlso, file) || slices.Contains(c.AlsoReads, file) {
			out = append(out, name)
		}
	}
	return out
}

// ReadInstead lists the installable agents other than client whose clients
// read file, when it exists, instead of their own project file (Copilot
// CLI reads .mcp.json, when there is one, and not .github/mcp.json).
func ReadInstead(client, file string) []string {
	var out []string
	for _, name := range Clients() {
		if c, _ := clientConfig(name); name != client && c.Instead && slices.Contains(c.AlsoReads, file) {
			out = append(out, name)
		}
	}
	return out
}

// EnvListing lists the installable agents whose entries list the variables
// the server needs from the client's environment (the client passes it no
// others).
func EnvListing() []string {
	var out []string
	for _, name := range Clients() {
		if c, _ := clientConfig(name); c.Stdio.EnvKey != "" {
			out = append(out, name)
		}
	}
	return out
}

// tokenAgent is the agent whose token variable a gateway entry reads.
func (o Options) tokenAgent() string {
	if o.Agent != "" {
		return o.Agent
	}
	return o.Client
}

func (o Options) args() []string {
	if o.Server != "" {
		return []string{"mcp", "--server", strings.TrimRight(o.Server, "/"), "--project", o.GatewayProject,
			"--token-file-env", agents.TokenFileEnv(o.tokenAgent())}
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
		ref = compiler.Branch(o.Rules)
	}
	return []string{"mcp", "--rules", o.rulesArg(), "--ref", ref, "--agent", agent}
}

// env are the variables of the client's environment the stdio entry's
// server needs: the Gitea token's, or the bridge's token file's.
func (o Options) env() []string {
	switch {
	case o.Server != "":
		return []string{agents.TokenFileEnv(o.tokenAgent())}
	case o.GiteaURL != "":
		return []string{"GITEA_TOKEN", "GITEA_TOKEN_FILE"}
	}
	return nil
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

// Install adds or updates Bridle's entry in the client's MCP config, then
// wires the project's native files.
func Install(o Options) (Result, error) {
	cfg, err := clientConfig(o.Client)
	if err != nil {
		return Result{}, err
	}
	return install(o, cfg)
}

// install is Install with the client's configuration given.
func install(o Options, cfg *agents.Config) (Result, error) {
	p, err := path(o, cfg)
	if err != nil {
		return Result{}, err
	}
	before, mode, err := read(p)
	if err != nil {
		return Result{}, err
	}
	res := Result{Path: p, Entry: EntryName(o.Client)}
	var e entry
	if o.Server != "" {
		endpoint, err := bridge.Endpoint(o.Server, o.GatewayProject)
		if err != nil {
			return Result{}, fmt.Errorf("install %s: %w", o.Client, err)
		}
		if cfg.HTTP != nil {
			res.HTTP, res.TokenEnv = true, agents.TokenEnv(o.tokenAgent())
			e = entry{url: endpoint, tokenEnv: res.TokenEnv}
		} else {
			res.TokenEnv = agents.TokenFileEnv(o.tokenAgent())
		}
	}
	if !res.HTTP {
		e = entry{command: o.Command, args: o.args()}
		if cfg.Stdio.EnvKey != "" {
			e.env = o.env()
			res.Env = e.env
		}
	}
	if was := entryOf(p, before, cfg, res.Entry); was.Present && was.Gateway != (o.Server != "") {
		// Bridle's entry is one per file: the other kind is replaced, and
		// said so (Result.Replaced), never silently.
		res.Replaced = "the local sidecar (bridle mcp"
		if r := was.Arg("--rules"); r != "" {
			res.Replaced += " on the rules in " + r
		}
		res.Replaced += ")"
		if was.Gateway {
			res.Replaced = "a gateway (" + cmp.Or(was.URL, was.Arg("--server")) + ")"
		}
	}
	var after []byte
	switch cfg.Format {
	case agents.TOML:
		after, err = mergeTOML(p, before, cfg.Servers, res.Entry, tomlBody(cfg, e))
	case agents.YAML:
		after, err = mergeYAML(p, before, cfg, res.Entry, jsonEntry(cfg, e))
	default:
		after, err = mergeJSON(p, before, []string{cfg.Servers, res.Entry}, jsonEntry(cfg, e))
	}
	if err != nil {
		return Result{}, fmt.Errorf("install %s: %w", o.Client, err)
	}
	res.Changed = !bytes.Equal(before, after)
	res.Created = before == nil
	if res.Changed {
		res.Diff = udiff.Unified(p, p, string(before), string(after))
	}
	var native renderers.Native
	if o.ProjectDir != "" && o.Doc != nil && o.Server == "" {
		if native, res.Settings, err = renderNative(o, p, after); err != nil {
			return res, err
		}
	}
	if o.DryRun {
		return res, nil
	}
	if res.Changed {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return res, fmt.Errorf("install into %s: %w", p, err)
		}
		if err := renameio.WriteFile(p, after, mode); err != nil {
			return res, fmt.Errorf("install into %s: %w", p, err)
		}
	}
	// After the MCP config: a native file may be the same file, rendered
	// over what install just wrote there.
	if _, err := renderers.Write(o.ProjectDir, native.Files); err != nil {
		return res, fmt.Errorf("install: %w", err)
	}
	if _, err := renderers.RemoveOrphans(o.ProjectDir, native.Orphans); err != nil {
		return res, fmt.Errorf("install: %w", err)
	}
	return res, nil
}

// Entry is Bridle's entry as a client's file holds it (Inspect).
type Entry struct {
	Path    string `json:"path"`
	Present bool   `json:"present"` // the file has the entry
	// Gateway: it reaches a gateway (a URL, or the bridge's --server);
	// else it runs the local sidecar.
	Gateway bool     `json:"gateway"`
	URL     string   `json:"url,omitempty"` // an HTTP entry's endpoint
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Raw is the entry as JSON, for what else it names (the token's
	// variable in a header).
	Raw string `json:"-"`
}

// Arg is the value of flag in the entry's arguments ("" without it).
func (e Entry) Arg(flag string) string {
	for i, a := range e.Args {
		if a == flag && i+1 < len(e.Args) {
			return e.Args[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

// Inspect reads Bridle's entry from the file Install would change for o
// (a file that is not there, or holds no entry, is an Entry not Present).
func Inspect(o Options) (Entry, error) {
	cfg, err := clientConfig(o.Client)
	if err != nil {
		return Entry{}, err
	}
	p, err := path(o, cfg)
	if err != nil {
		return Entry{}, err
	}
	before, _, err := read(p)
	if err != nil {
		return Entry{Path: p}, err
	}
	e := entryOf(p, before, cfg, EntryName(o.Client))
	e.Path = p
	return e, nil
}

func entryOf(file string, before []byte, cfg *agents.Config, name string) Entry {
	var m map[string]any
	switch cfg.Format {
	case agents.TOML:
		var all map[string]any
		if toml.Unmarshal(before, &all) != nil {
			return Entry{}
		}
		servers, _ := all[cfg.Servers].(map[string]any)
		m, _ = servers[name].(map[string]any)
	case agents.YAML:
		var all map[string]any
		if yaml.Unmarshal(before, &all) != nil {
			return Entry{}
		}
		if cfg.ServersMap {
			servers, _ := all[cfg.Servers].(map[string]any)
			m, _ = servers[name].(map[string]any)
			break
		}
		list, _ := all[cfg.Servers].([]any)
		for _, item := range list {
			if e, _ := item.(map[string]any); e != nil && e["name"] == name {
				m = e
			}
		}
	default:
		doc, err := jsonc.Parse(file, before)
		if err != nil {
			return Entry{}
		}
		raw, found := doc.Get(cfg.Servers, name)
		if !found || json.Unmarshal(raw, &m) != nil {
			return Entry{}
		}
	}
	if m == nil {
		return Entry{}
	}
	raw, _ := json.Marshal(m)
	e := Entry{Present: true, Raw: string(raw)}
	e.Command, _ = m[cmp.Or(cfg.Stdio.CommandKey, "command")].(string)
	for k, v := range m {
		if u, ok := v.(string); ok && (strings.Contains(strings.ToLower(k), "url") || k == "uri") {
			e.Gateway, e.URL = true, u
		}
	}
	args, _ := m["args"].([]any)
	for _, a := range args {
		s, _ := a.(string)
		e.Args = append(e.Args, s)
		if s == "--server" {
			e.Gateway = true
		}
	}
	return e
}

// renderNative renders the harness's native files for the project
// (renderers.RenderNative, limited to its kind), over the MCP config
// (at p) as install leaves it, and reports each file's change.
func renderNative(o Options, p string, config []byte) (renderers.Native, []Result, error) {
	a, _ := agents.Lookup(o.Client)
	if a.Harness == nil || a.Harness.Native == "" {
		return renderers.Native{}, nil, nil
	}
	rulesPath := o.RulesPath
	if rulesPath == "" {
		proj, err1 := filepath.Abs(o.ProjectDir)
		rules, err2 := filepath.Abs(o.Rules)
		rel, err3 := filepath.Rel(proj, rules)
		if err := errors.Join(err1, err2, err3); err != nil {
			return renderers.Native{}, nil, fmt.Errorf("install: the rules path relative to the project: %w", err)
		}
		rulesPath = filepath.ToSlash(rel)
	}
	configRel, err := filepath.Rel(o.ProjectDir, p)
	if err != nil {
		return renderers.Native{}, nil, fmt.Errorf("install: %w", err)
	}
	configRel = filepath.ToSlash(configRel)
	var root *os.Root
	if r, err := os.OpenRoot(o.ProjectDir); err == nil {
		root = r
		defer root.Close()
	}
	readFile := func(rel string) ([]byte, error) {
		if rel == configRel {
			return config, nil
		}
		if root == nil {
			return nil, nil
		}
		b, err := root.ReadFile(filepath.FromSlash(rel))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("install: %w", err)
		}
		return b, nil
	}
	n, err := renderers.RenderNativeFrom(readFile, o.Doc, renderers.NativeOptions{RulesPath: rulesPath,
		Kinds: []renderers.NativeKind{renderers.NativeKind(a.Harness.Native)}})
	if err != nil {
		return n, nil, fmt.Errorf("install into %s: %w", o.ProjectDir, err)
	}
	var out []Result
	for _, f := range n.Files {
		before, _ := readFile(f.Path)
		fp := filepath.Join(o.ProjectDir, filepath.FromSlash(f.Path))
		r := Result{Path: fp, Changed: string(before) != f.Content}
		if r.Changed {
			r.Diff = udiff.Unified(fp, fp, string(before), f.Content)
		}
		out = append(out, r)
	}
	for _, orphan := range n.Orphans {
		out = append(out, Result{Path: filepath.Join(o.ProjectDir, filepath.FromSlash(orphan.Path)), Changed: orphan.Intact, Diff: "removed " + orphan.Path + "\n"})
	}
	return n, out, nil
}

// maxConfig bounds the config files install reads.
const maxConfig = 16 << 20

func read(p string) ([]byte, fs.FileMode, error) {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("install: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("install: %s is not a regular file; not touching it", p)
	}
	if st.Size() > maxConfig {
		return nil, 0, fmt.Errorf("install: %s is larger than %d MiB; not touching it", p, maxConfig>>20)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, 0, fmt.Errorf("install: %w", err)
	}
	return b, st.Mode().Perm(), nil
}

// entry is what Bridle's entry says, before a client spells it: a command
// to launch (with the variables it needs from the client's environment), or
// a streamable-HTTP endpoint whose bearer token is in tokenEnv.
type entry struct {
	command  string
	args     []string
	env      []string
	url      string
	tokenEnv string
}

// member is one key of an entry, in the order Bridle writes them.
type member struct {
	key   string
	value any
}

// jsonObject is a JSON object whose keys keep their order.
type jsonObject []member

func (obj jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range obj {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// members spells e as client does: type, command and args (or one command
// list), its environment, url, headers (or the bearer variable's key), and
// the constant keys the client also needs.
func members(cfg *agents.Config, e entry) []member {
	var out []member
	var extra map[string]any
	if e.url != "" {
		h := cfg.HTTP
		if h.Type != "" {
			out = append(out, member{"type", h.Type})
		}
		out = append(out, member{h.URL, e.url})
		if h.Header != "" {
			headers := member{"headers", jsonObject{{"Authorization", fmt.Sprintf(h.Header, e.tokenEnv)}}}
			if h.HeadersUnder != "" {
				headers = member{h.HeadersUnder, jsonObject{headers}}
			}
			out = append(out, headers)
		}
		if h.BearerEnv != "" {
			out = append(out, member{h.BearerEnv, e.tokenEnv})
		}
		if h.EnvKeys != "" {
			out = append(out, member{h.EnvKeys, []string{e.tokenEnv}})
		}
		extra = h.Extra
	} else {
		s := cfg.Stdio
		if s.Type != "" {
			out = append(out, member{"type", s.Type})
		}
		if s.CommandList {
			out = append(out, member{"command", append([]string{e.command}, e.args...)})
		} else {
			out = append(out, member{cmp.Or(s.CommandKey, "command"), e.command}, member{"args", e.args})
		}
		if key, value := s.EnvKey, s.EnvValue; key != "" && len(e.env) > 0 {
			if value == "" {
				out = append(out, member{key, e.env})
			} else {
				var env jsonObject
				for _, name := range e.env {
					env = append(env, member{name, fmt.Sprintf(value, name)})
				}
				out = append(out, member{key, env})
			}
		}
		extra = s.Extra
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.ContainsFunc(out, func(m member) bool { return m.key == k }) {
			out = append(out, member{k, extra[k]})
		}
	}
	return out
}

// jsonEntry is the entry as a JSON object.
func jsonEntry(cfg *agents.Config, e entry) jsonObject {
	return jsonObject(members(cfg, e))
}

// tomlBody is the body of the entry's TOML table.
func tomlBody(cfg *agents.Config, e entry) string {
	var b strings.Builder
	for _, m := range members(cfg, e) {
		fmt.Fprintf(&b, "%s = %s\n", tomlKey(m.key), tomlValue(m.value))
	}
	return b.String()
}

// tomlKey is k as a TOML key: bare when it can be, else quoted.
func tomlKey(k string) string {
	bare := k != ""
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			bare = false
			break
		}
	}
	if bare {
		return k
	}
	return strconv.Quote(k)
}

// tomlValue spells v (a string, bool, number, list or object of those) as
// an inline TOML value.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case []any:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = tomlValue(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case jsonObject:
		q := make([]string, len(v))
		for i, m := range v {
			q[i] = tomlKey(m.key) + " = " + tomlValue(m.value)
		}
		return "{ " + strings.Join(q, ", ") + " }"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		obj := make(jsonObject, len(keys))
		for i, k := range keys {
			obj[i] = member{k, v[k]}
		}
		return tomlValue(obj)
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// mergeJSON sets the member at path to entry in the JSON (with comments)
// file name holding before, through internal/jsonc: everything else stays
// as it was. An entry already equal to entry is left as it is.
func mergeJSON(name string, before []byte, path []string, e jsonObject) ([]byte, error) {
	doc, err := jsonc.Parse(name, before)
	if err != nil {
		return nil, err
	}
	if got, ok := doc.Get(path...); ok && jsonEqual(got, e) {
		return before, nil
	}
	if err := doc.Set(e, path...); err != nil {
		return nil, err
	}
	return doc.Bytes(), nil
}

// jsonEqual reports whether got holds the same JSON value as want.
func jsonEqual(got []byte, want any) bool {
	w, err := json.Marshal(want)
	if err != nil {
		return false
	}
	var x, y any
	if json.Unmarshal(got, &x) != nil || json.Unmarshal(w, &y) != nil {
		return false
	}
	a, _ := json.Marshal(x)
	b, _ := json.Marshal(y)
	return bytes.Equal(a, b)
}

// tableRe finds the next table header.
var tableRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*\[`) })

// mergeTOML replaces or appends the [SERVERS.NAME] table, whose body is
// given, as text, so comments and the layout of everything else survive.
func mergeTOML(file string, before []byte, servers, name, body string) ([]byte, error) {
	var check map[string]any
	if err := toml.Unmarshal(before, &check); err != nil {
		return nil, tomlErr(file, err)
	}
	if v, ok := check[servers]; ok {
		if _, table := v.(map[string]any); !table {
			return nil, fmt.Errorf("%s: %s is a TOML %s, not a table (fix it by hand, then run again)", file, servers, tomlKind(v))
		}
	}
	block := fmt.Sprintf("[%s.%s]\n%s", tomlKey(servers), tomlKey(name), body)

	text := string(before)
	header := regexp.MustCompile(`(?m)^[ \t]*\[\s*"?` + regexp.QuoteMeta(servers) + `"?\s*\.\s*"?` + regexp.QuoteMeta(name) + `"?\s*\][ \t]*(#.*)?$`)
	var out string
	if loc := header.FindStringIndex(text); loc != nil {
		rest := text[loc[1]:]
		end := len(rest)
		if next := tableRe().FindStringIndex(rest); next != nil {
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
	if out == text {
		return before, nil
	}
	var after map[string]any
	if err := toml.Unmarshal([]byte(out), &after); err != nil {
		return nil, fmt.Errorf("%s: merged, the file would not parse (%v); add the [%s.%s] table by hand", file, err, servers, name)
	}
	if list, ok := check[servers].(map[string]any); ok {
		got, _ := after[servers].(map[string]any)
		for other := range list {
			if other != name && got[other] == nil {
				return nil, fmt.Errorf("%s: merging would lose server %q; add the [%s.%s] table by hand", file, other, servers, name)
			}
		}
	}
	return []byte(out), nil
}

func tomlKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, float64:
		return "number"
	default:
		return "value"
	}
}

// tomlErr names the file, line and column of a TOML syntax error.
func tomlErr(file string, err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Errorf("%s:%d:%d: %s (fix the file, or move it away, and run again)", file, row, col, de.Error())
	}
	return fmt.Errorf("%s: not valid TOML (%w); fix the file, or move it away, and run again", file, err)
}

// MarshalYAML spells obj as a YAML mapping, its keys in order.
func (obj jsonObject) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, m := range obj {
		var k, v yaml.Node
		k.SetString(m.key)
		if err := v.Encode(m.value); err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &k, &v)
	}
	return n, nil
}

// mergeYAML puts e, named name, into the list of entries under
// cfg.Servers of the YAML document before (a new file starts from
// cfg.Preamble): it replaces the entry of that name, or is appended. Every
// other key, entry and comment is kept (the layout is YAML's, indented by
// two); an entry already as Bridle would write it leaves before as it is.
func mergeYAML(file string, before []byte, cfg *agents.Config, name string, e jsonObject) ([]byte, error) {
	src := before
	if len(bytes.TrimSpace(before)) == 0 {
		src = []byte(cfg.Preamble)
	}
	var doc, next yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w (fix the file, or move it away, and run again)", file, err)
	}
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		// Writing back one document would drop the others.
		return nil, fmt.Errorf("%s: more than one YAML document, or text after the first (fix it by hand, then run again)", file)
	}
	var check any
	if err := doc.Decode(&check); err != nil && doc.Kind != 0 {
		// Duplicate keys and the like: what the client would refuse too.
		return nil, fmt.Errorf("%s: %w (fix the file, or move it away, and run again)", file, err)
	}
	if doc.Kind == 0 { // nothing but comments, or no preamble
		doc = yaml.Node{Kind: yaml.DocumentNode, HeadComment: doc.HeadComment, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: the document is a YAML %s, not a mapping (fix it by hand, then run again)", file, kindName(root))
	}
	item := &yaml.Node{}
	if err := item.Encode(append(jsonObject{{"name", name}}, e...)); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Kind == yaml.ScalarNode && k.Value == cfg.Servers {
			list = root.Content[i+1]
		}
	}
	if cfg.ServersMap {
		return mergeYAMLMap(file, before, &doc, root, list, cfg.Servers, name, item)
	}
	switch {
	case list == nil:
		var k yaml.Node
		k.SetString(cfg.Servers)
		list = &yaml.Node{Kind: yaml.SequenceNode}
		root.Content = append(root.Content, &k, list)
	case list.Kind == yaml.ScalarNode && list.Tag == "!!null":
		*list = yaml.Node{Kind: yaml.SequenceNode, LineComment: list.LineComment}
	case list.Kind != yaml.SequenceNode:
		return nil, fmt.Errorf("%s: %s is a YAML %s: not a list (fix it by hand, then run again)", file, cfg.Servers, kindName(list))
	}
	found := false
	for i, old := range list.Content {
		if !yamlNamed(old, name) {
			continue
		}
		found = true
		if yamlEqual(old, item) {
			return before, nil
		}
		item.HeadComment, item.LineComment, item.FootComment = old.HeadComment, old.LineComment, old.FootComment
		list.Content[i] = item
		break
	}
	if !found {
		list.Content = append(list.Content, item)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return b.Bytes(), nil
}

// mergeYAMLMap is mergeYAML for servers kept as a mapping from key to
// entry (Goose's extensions): item replaces the entry under name, or is
// added after the others.
func mergeYAMLMap(file string, before []byte, doc, root, servers *yaml.Node, key, name string, item *yaml.Node) ([]byte, error) {
	switch {
	case servers == nil:
		var k yaml.Node
		k.SetString(key)
		servers = &yaml.Node{Kind: yaml.MappingNode}
		root.Content = append(root.Content, &k, servers)
	case servers.Kind == yaml.ScalarNode && servers.Tag == "!!null":
		*servers = yaml.Node{Kind: yaml.MappingNode, LineComment: servers.LineComment}
	case servers.Kind != yaml.MappingNode:
		return nil, fmt.Errorf("%s: %s is a YAML %s: not a mapping of extensions (fix it by hand, then run again)", file, key, kindName(servers))
	}
	found := false
	for i := 0; i+1 < len(servers.Content); i += 2 {
		k := servers.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value != name {
			continue
		}
		found = true
		old := servers.Content[i+1]
		if yamlEqual(old, item) {
			return before, nil
		}
		item.HeadComment, item.LineComment, item.FootComment = old.HeadComment, old.LineComment, old.FootComment
		servers.Content[i+1] = item
		break
	}
	if !found {
		var k yaml.Node
		k.SetString(name)
		servers.Content = append(servers.Content, &k, item)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return b.Bytes(), nil
}

// yamlNamed reports whether n is a mapping whose name key is name.
func yamlNamed(n *yaml.Node, name string) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, v := n.Content[i], n.Content[i+1]; k.Value == "name" && v.Kind == yaml.ScalarNode && v.Value == name {
			return true
		}
	}
	return false
}

// yamlEqual reports whether two entries hold the same values, as JSON
// would hold them.
func yamlEqual(a, b *yaml.Node) bool {
	var x, y any
	if a.Decode(&x) != nil || b.Decode(&y) != nil {
		return false
	}
	xj, err1 := json.Marshal(x)
	yj, err2 := json.Marshal(y)
	return err1 == nil && err2 == nil && bytes.Equal(xj, yj)
}

// kindName names a YAML node's kind as an error says it.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	}
	return "scalar"
}
