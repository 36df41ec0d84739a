// Package agents is the registry of the coding agents Bridle knows. An
// agent is a harness — Claude Code, Codex, Gemini CLI, OpenCode, Copilot,
// Cursor, … — and one entry holds every fact Bridle needs about it as data:
// the instruction file it reads and how that file is wrapped, the MCP client
// configuration it keeps (files, and how it spells a stdio server and a
// streamable-HTTP server with a bearer token from the environment), the
// clientInfo names it sends, the environment variables that mark its
// sessions, the step a person takes before it trusts a project, and the
// names of its native enforcement and hook protocol, whose code lives in
// renderers and enforce (a registry test there proves each name has one).
// A few entries are models rather than harnesses (DeepSeek): a profile may
// run any harness on any model, and such an entry only sets the render's
// style.
//
// Adding an agent is adding one entry to the list below; schema (profile
// defaults), renderers (the instruction file, its format and style, native
// files), install (the client configuration), enforce (bridle hook AGENT)
// and the MCP server (identity) read it from here.
//
// The package is a leaf: plain data, no imports of Bridle's. Nothing here
// runs at package initialisation beyond the list's literal.
package agents

import (
	"path"
	"slices"
	"strings"
)

// Instruction file formats: the flavour of the rendered markdown.
const (
	ClaudeMD = "CLAUDE.md"
	AgentsMD = "AGENTS.md"
)

// Renderer styles (schema.Style values).
const (
	Reference = "reference"
	Stepwise  = "stepwise"
)

// ConfigFormat is how an MCP client's configuration file is written.
type ConfigFormat string

// The configuration formats install can merge into.
const (
	// JSON is a JSON object (comments and trailing commas are accepted on
	// read and kept on write: several clients read JSON with comments).
	JSON ConfigFormat = "json"
	// TOML is TOML with [mcp_servers.NAME] tables (Codex).
	TOML ConfigFormat = "toml"
	// YAML is YAML whose servers are a list of entries, each named by its
	// name key (Continue's mcpServers: [{name: bridle, command: …}]).
	YAML ConfigFormat = "yaml"
)

// JSONServers and TOMLServers are the former names of JSON and TOML.
const (
	JSONServers = JSON
	TOMLServers = TOML
)

// Config is where an agent's MCP client keeps its server configuration and
// how it spells Bridle's entry.
type Config struct {
	Format ConfigFormat
	// Project is the project-scoped file, slash path relative to the
	// project root; "" when the client reads none (Windsurf).
	Project string
	// ProjectAlso are other names of the project file the client reads
	// (opencode.jsonc beside opencode.json): install changes the first of
	// Project and these that exists, else creates Project.
	ProjectAlso []string
	// AlsoReads are other harnesses' project files the client also reads
	// (Copilot CLI and Qwen Code read Claude Code's .mcp.json).
	AlsoReads []string
	// Instead: when one of AlsoReads exists, the client reads it instead of
	// its own project file (Copilot CLI); install then writes Bridle's entry
	// there, named bridle-AGENT beside the other harness's bridle.
	Instead bool
	// User is the user's own file, slash path relative to the home
	// directory.
	User string
	// Servers is the key of the object that maps server names to entries
	// (mcpServers, servers, mcp); for TOML the table prefix (mcp_servers);
	// for YAML the key of the list of entries, or with ServersMap of the
	// mapping from names to entries.
	Servers string
	// ServersMap: a YAML client's servers are a mapping from each entry's
	// key to the entry (Goose's extensions:), not a list; each entry still
	// carries its name.
	ServersMap bool
	// Preamble is what a file install creates starts with, before the
	// servers: keys the client requires of every such file (a Continue
	// block's name, version and schema); "" for none.
	Preamble string
	// Stdio spells an entry that launches a command.
	Stdio Stdio
	// HTTP spells a streamable-HTTP entry with a bearer token taken from an
	// environment variable; nil when the client cannot, and then install
	// --server writes the stdio bridge (bridle mcp --server).
	HTTP *HTTP
}

// Stdio is how a client spells a server it launches.
type Stdio struct {
	// Type is the value of the entry's "type" key ("stdio", "local"); ""
	// writes none.
	Type string
	// CommandKey is the key of the program ("cmd" for Goose); "" is
	// "command".
	CommandKey string
	// CommandList puts the program and its arguments in one "command" list
	// (OpenCode) instead of "command" and "args".
	CommandList bool
	// Extra are constant keys the entry also needs (Copilot CLI's
	// "tools": ["*"]).
	Extra map[string]any
	// EnvKey is the key under which the entry passes variables of the
	// client's own environment to the server, for a client that does not
	// pass them itself ("env" for Gemini CLI, which strips names holding
	// TOKEN, KEY, …; "env_vars" for Codex, which passes only HOME, PATH, …);
	// "" when the client passes its whole environment.
	EnvKey string
	// EnvValue spells a reference to a variable, %s for its name
	// ("${%s}"); "" when EnvKey holds a list of names (Codex's env_vars).
	EnvValue string
}

// HTTP is how a client spells a streamable-HTTP server whose bearer token
// comes from an environment variable, so the file holds no token.
type HTTP struct {
	// Type is the value of the entry's "type" key ("http", "remote"); ""
	// writes none.
	Type string
	// URL is the key of the server's address: url, httpUrl, serverUrl.
	URL string
	// Header is the Authorization header's value, with %s where the
	// variable's name goes: "Bearer ${%s}", "Bearer ${env:%s}",
	// "Bearer {env:%s}". "" when the client takes BearerEnv instead.
	Header string
	// BearerEnv is the key whose value names the variable holding the
	// token (Codex: bearer_token_env_var); "" when Header is used.
	BearerEnv string
	// EnvKeys is the key of a list naming the variables the client must
	// fetch before it expands Header (Goose's env_keys: its headers are
	// expanded only from the entry's envs and env_keys); "" for none.
	EnvKeys string
	// HeadersUnder is the key of the object the headers object is in
	// (Continue: requestOptions); "" when headers is the entry's own key.
	HeadersUnder string
	// Extra are constant keys the entry also needs.
	Extra map[string]any
}

// Harness is what Bridle knows of one agent harness.
type Harness struct {
	// Instructions is the file Bridle renders for the harness by default,
	// slash path relative to the project root (CLAUDE.md, GEMINI.md,
	// .cursor/rules/bridle.mdc, …).
	Instructions string
	// FrontMatter is text the harness needs before the markdown (Cursor's
	// .mdc alwaysApply, Windsurf's trigger); "" for none.
	FrontMatter string
	// Reads are the other instruction files at the project root the harness
	// reads by itself, besides Instructions (AGENTS.md for most): when
	// another profile renders one of them, the harness reads that render
	// too, and explain says so.
	Reads []string
	// ReadsFirst: the harness reads only the first of Reads that exists
	// (OpenCode: AGENTS.md, else CLAUDE.md).
	ReadsFirst bool
	// Shares names the harnesses whose default render is this harness's
	// instruction file too, for a harness that reads no file Bridle could
	// render for it apart (Amp reads the first of AGENTS.md, AGENT.md and
	// CLAUDE.md in a directory, and no file a setting names): its profile
	// and theirs would write one file. A project keeps one of those
	// profiles, and the other harnesses read its render (explain says
	// whose); validation says so when it has both, and import never takes
	// the shared file for this harness's. nil for a harness with a file of
	// its own.
	Shares []string
	// Pointer names how Bridle points the harness at its own render when
	// Instructions is not a file the harness reads unasked: "" for none;
	// the native renderings that do it say so (OpenCode's instructions).
	Pointer string
	// Config is where the harness's MCP client keeps its configuration;
	// nil when Bridle cannot configure it.
	Config *Config
	// NoMCP: the harness has no MCP client (Aider), so nothing in it can
	// call Bridle's tools: its render names none of them (no get_rules, no
	// check_command) and its rules are prose only.
	NoMCP bool
	// SessionEnv are environment variables the harness sets in the
	// processes it starts (its shell commands, its MCP servers, its hooks):
	// one of them set says a process runs under it.
	SessionEnv []string
	// Trust is what a person does once before the harness uses a project's
	// MCP servers (and native files); install prints it. "" when nothing.
	Trust string
	// Native names the harness's native enforcement rendering
	// (renderers.NativeKind); "" when it has none Bridle writes.
	Native string
	// Hook names the pre-tool hook protocol bridle hook AGENT speaks
	// (enforce.Protocol); "" when the harness has no hook Bridle uses.
	Hook string
	// HookCannotAsk: the harness's hook cannot put a call to the person
	// (Gemini CLI's "ask" hangs a headless session; OpenCode's plugins,
	// Windsurf's, Crush's and Cline's hooks have no ask), so bridle hook
	// answers a verdict to ask with a deny saying a human must approve, and
	// the render and explain say so.
	HookCannotAsk bool
	// ProjectEnv is the variable the harness sets for its hooks to the
	// project's root, which the hook command names its rules from
	// ("$CLAUDE_PROJECT_DIR"/rules); "" when it sets none (the hook's
	// working directory, or the directory its input names, is used).
	ProjectEnv string
	// Client is how the tests run the real client here: the npm package and
	// version pinned in tests/agentclients; "" when none runs here, and
	// NoClient says why.
	Client   string
	NoClient string
}

// Agent is one known agent: a harness, or a model a harness runs.
type Agent struct {
	Name        string // the profile name in bridle.yaml: claude, codex, …
	DisplayName string
	Vendor      string
	// InstructionFormat and Style choose the renderer (renderers.For).
	InstructionFormat string
	Style             string
	// MCPClients are the clientInfo.name values its MCP client sends in a
	// session (never its health checks' names: those prove nothing).
	MCPClients []string
	// Harness is nil for a model (DeepSeek): its profile renders to
	// agents/NAME/AGENTS.md unless it names a harness.
	Harness *Harness
	// VendorSources are the vendor's published guidance on instructing the
	// agent, served as markdown: bridle init writes them into the agent's
	// profile (vendor_sources) for bridle vendor sync to read. None when
	// the vendor publishes no such document Bridle knows of.
	VendorSources []VendorSource
}

// VendorSource is one published guidance document.
type VendorSource struct {
	URL    string
	Format string // markdown or html
}

// list is every known agent, in one flat list. What each entry says was
// checked against the harness's documentation or the real client; the
// agent's page in docs/agents says how.
var list = []Agent{
	{
		Name: "antigravity", DisplayName: "Antigravity", Vendor: "Google",
		InstructionFormat: AgentsMD, Style: Reference,
		Harness: &Harness{
			// Antigravity 2.0 (IDE and CLI, agy) reads the workspace rules
			// in .agents/rules/ (the legacy .agent/rules/ too), each with
			// Windsurf's trigger front matter, and the project's AGENTS.md.
			Instructions: ".agents/rules/bridle.md",
			FrontMatter:  "---\ntrigger: always_on\n---\n",
			Reads:        []string{AgentsMD},
			// Its MCP servers are the user's ~/.gemini/antigravity/
			// mcp_config.json (serverUrl for HTTP, as Windsurf spells
			// it); a project .agents/mcp_config.json is reported by third
			// parties only, so install writes the user's file. Whether
			// headers are expanded from the environment is not known: the
			// gateway is reached through the stdio bridge.
			Config: &Config{Format: JSON, User: ".gemini/antigravity/mcp_config.json", Servers: "mcpServers",
				Stdio: Stdio{}},
			// Its PreToolUse hooks (.agents/hooks.json, decision
			// deny/ask) are not wired: its rules are prose.
			NoClient: "Antigravity (IDE and agy CLI) downloads from antigravity.google, not from a registry this machine reaches: its files are tested against the documented formats (antigravity.google/docs rules-workflows and hooks, as installers cite them)",
		},
	},
	{
		Name: "augment", DisplayName: "Augment (Auggie)", Vendor: "Augment Code",
		// The MCP client of auggie 0.36.0 (and its editor extensions'
		// shared code) names itself augment-mcp-client.
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"augment-mcp-client"},
		Harness: &Harness{
			// Every .augment/rules/*.md whose type is always_apply, beside
			// the workspace guidelines .augment-guidelines, AGENTS.md and
			// CLAUDE.md.
			Instructions: ".augment/rules/bridle.md",
			FrontMatter:  "---\ntype: always_apply\n---\n",
			Reads:        []string{AgentsMD, ClaudeMD, ".augment-guidelines"},
			// auggie mcp add --project writes .augment/settings.json, the
			// user's ~/.augment/settings.json otherwise; a stdio server gets
			// auggie's whole environment. An HTTP entry's headers are sent
			// as written (no variable expansion in 0.36.0), so the gateway
			// is reached through the stdio bridge.
			Config: &Config{Format: JSON, Project: ".augment/settings.json", User: ".augment/settings.json", Servers: "mcpServers",
				Stdio: Stdio{Type: "stdio"}},
			// Its process tool sets AUGMENT_AGENT=1.
			SessionEnv: []string{"AUGMENT_AGENT"},
			// Its PreToolUse hook in .augment/settings.json runs bridle hook
			// augment (the command through bash -c, AUGMENT_PROJECT_DIR set
			// for it); Auggie acts on a deny only.
			Native: "augment-hooks", Hook: "augment", HookCannotAsk: true, ProjectEnv: "AUGMENT_PROJECT_DIR",
			Client: "@augmentcode/auggie@0.36.0",
		},
	},
	{
		Name: "claude", DisplayName: "Claude Code", Vendor: "Anthropic",
		InstructionFormat: ClaudeMD, Style: Reference, MCPClients: []string{"claude-code"},
		Harness: &Harness{
			Instructions: ClaudeMD,
			Config: &Config{Format: JSON, Project: ".mcp.json", User: ".claude.json", Servers: "mcpServers",
				Stdio: Stdio{Type: "stdio"},
				HTTP:  &HTTP{Type: "http", URL: "url", Header: "Bearer ${%s}"}},
			SessionEnv: []string{"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"},
			Trust:      "Claude Code asks once to approve a project's MCP server: accept bridle when it asks (claude mcp list shows it)",
			Native:     "claude-settings", Hook: "claude", ProjectEnv: "CLAUDE_PROJECT_DIR",
			Client: "@anthropic-ai/claude-code@2.1.328",
		},
		// The Claude Code docs serve each page as markdown at its .md address.
		VendorSources: []VendorSource{{URL: "https://code.claude.com/docs/en/memory.md", Format: "markdown"}},
	},
	{
		Name: "codex", DisplayName: "Codex CLI", Vendor: "OpenAI",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"codex-mcp-client"},
		Harness: &Harness{
			Instructions: AgentsMD,
			Config: &Config{Format: TOML, Project: ".codex/config.toml", User: ".codex/config.toml", Servers: "mcp_servers",
				// Codex passes a stdio server only HOME, LANG, PATH, …:
				// env_vars names the others it needs.
				Stdio: Stdio{EnvKey: "env_vars"},
				HTTP:  &HTTP{URL: "url", BearerEnv: "bearer_token_env_var"}},
			SessionEnv: []string{"CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_THREAD_ID"},
			Trust:      "Codex reads a project's .codex/config.toml and .codex/rules only once the project is trusted: answer yes when Codex asks, or set [projects.\"<path>\"] trust_level = \"trusted\" in ~/.codex/config.toml",
			Native:     "codex-rules",
			Client:     "@openai/codex@0.169.0",
		},
		// The AGENTS.md documentation in OpenAI's Codex repository.
		VendorSources: []VendorSource{{URL: "https://raw.githubusercontent.com/openai/codex/main/docs/agents_md.md", Format: "markdown"}},
	},
	{
		Name: "aider", DisplayName: "Aider", Vendor: "Aider",
		InstructionFormat: AgentsMD, Style: Reference,
		Harness: &Harness{
			// Aider reads no instruction file unasked: a conventions file
			// is given to the chat with --read, or for every session by
			// .aider.conf.yml's read: (the working directory's, the git
			// root's, the home's). Bridle renders CONVENTIONS.md and lists it
			// there (the aider-conf native rendering).
			Instructions: "CONVENTIONS.md",
			Pointer:      "read",
			// Aider has no MCP client and no pre-tool hook: its render
			// names none of Bridle's tools, and its rules are prose.
			NoMCP:    true,
			Native:   "aider-conf",
			NoClient: "Aider is a Python package, not on a registry this machine installs test CLIs from: its CONVENTIONS.md and .aider.conf.yml are tested with goldens against its source (Aider-AI/aider aider/main.py, aider/args.py, docs/usage/conventions.md)",
		},
	},
	{
		Name: "amp", DisplayName: "Amp", Vendor: "Amp",
		// Its sessions' and its mcp doctor's client are both
		// amp-mcp-client (seen with @ampcode/cli 0.0.1790142911).
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"amp-mcp-client"},
		Harness: &Harness{
			// Amp reads, in each directory, the first of AGENTS.md,
			// Agents.md, agents.md, AGENT.md, Agent.md, agent.md,
			// CLAUDE.md that exists (its binary's guidance-file list), and
			// no file a setting names: its file is AGENTS.md, Codex's
			// render too.
			Instructions: AgentsMD,
			Shares:       []string{"codex"},
			// .amp/settings.json (or .jsonc), found upward to the
			// repository's root, over the user's; the key is the dotted
			// "amp.mcpServers". ${VAR} is expanded from the environment;
			// url without a type is streamable HTTP (SSE as fallback); a
			// stdio server gets Amp's whole environment.
			Config: &Config{Format: JSON, Project: ".amp/settings.json", ProjectAlso: []string{".amp/settings.jsonc"}, User: ".config/amp/settings.json", Servers: "amp.mcpServers",
				Stdio: Stdio{},
				HTTP:  &HTTP{URL: "url", Header: "Bearer ${%s}"}},
			// Its shell commands get AGENT=amp and AI_AGENT=amp (which
			// other harnesses set too) and the thread's id.
			SessionEnv: []string{"AMP_CURRENT_THREAD_ID"},
			Trust:      "Amp runs a project's MCP server only once approved: run amp mcp approve bridle (the approval, kept in your ~/.config/amp/settings.json, is bound to the entry as written: approve again after bridle install changes it)",
			// Its amp.permissions "delegate" entries in .amp/settings.json
			// run .amp/bridle-hook (a script Bridle owns: a delegate is a
			// bare program, no arguments, no shell), which runs bridle
			// hook amp from the project's root; the tool's name is in
			// AGENT_TOOL_NAME, its arguments on stdin, exit 0/1/2 for
			// allow/ask/reject (enforce TestRealAmpDelegate). Amp sets no
			// variable naming the project.
			Native: "amp-permissions", Hook: "amp",
			Client: "@ampcode/cli@0.0.1790142911-g7618fb",
		},
	},
	{
		Name: "droid", DisplayName: "Factory Droid", Vendor: "Factory",
		// Its sessions' and its mcp list's client (one constant in the
		// droid 0.225.2 binary).
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"factory-cli"},
		Harness: &Harness{
			// In each directory from the working directory up to the git
			// root, and in its .factory/, .agents/ and .agent/, Droid reads
			// every one of CLAUDE.md and AGENTS.md that exists (its
			// binary's guideline discovery): .factory/AGENTS.md is a file of
			// its own, and the root's AGENTS.md and CLAUDE.md are read too.
			Instructions: ".factory/AGENTS.md",
			Reads:        []string{AgentsMD, ClaudeMD},
			// .factory/mcp.json (the project's) and ~/.factory/mcp.json;
			// ${VAR} in headers is expanded from the environment, and a
			// stdio server gets Droid's whole environment.
			Config: &Config{Format: JSON, Project: ".factory/mcp.json", User: ".factory/mcp.json", Servers: "mcpServers",
				Stdio: Stdio{Type: "stdio"},
				HTTP:  &HTTP{Type: "http", URL: "url", Header: "Bearer ${%s}"}},
			// Its PreToolUse hook (Claude Code's contract) in
			// .factory/settings.json runs bridle hook droid, with the
			// project's root in FACTORY_PROJECT_DIR.
			Native: "droid-hooks", Hook: "droid", ProjectEnv: "FACTORY_PROJECT_DIR",
			NoClient: "droid 0.225.2 (@factory/cli-linux-x64) installs 243 MB (the brief's limit is 150 MB; @factory/cli 0.225.1 has no Linux build of its own version on the registry here), so it is not pinned: it was run here by hand (droid mcp list; docs/agents/droid.md)",
		},
	},
	{
		Name: "gemini", DisplayName: "Gemini CLI", Vendor: "Google",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"gemini-cli-mcp-client"},
		Harness: &Harness{
			// GEMINI.md is Gemini CLI's default context file; it reads no
			// AGENTS.md unless context.fileName says so.
			Instructions: "GEMINI.md",
			Config: &Config{Format: JSON, Project: ".gemini/settings.json", User: ".gemini/settings.json", Servers: "mcpServers",
				// The whole settings file is expanded from the environment
				// ($VAR, ${VAR}); "url" with type "http" is streamable HTTP
				// (httpUrl is the deprecated spelling). Variables whose
				// names hold TOKEN, SECRET, KEY, … are not passed to a
				// stdio server unless its env lists them.
				Stdio: Stdio{EnvKey: "env", EnvValue: "${%s}"},
				HTTP:  &HTTP{Type: "http", URL: "url", Header: "Bearer ${%s}"}},
			SessionEnv: []string{"GEMINI_CLI"},
			Trust:      "Gemini CLI loads a project's .gemini/settings.json (MCP servers, hooks, policies) only in a trusted folder: trust it when Gemini asks, or add it to ~/.gemini/trustedFolders.json as \"TRUST_FOLDER\"",
			Native:     "gemini-settings", Hook: "gemini", HookCannotAsk: true, ProjectEnv: "GEMINI_PROJECT_DIR",
			Client: "@google/gemini-cli@0.61.0",
		},
	},
	{
		// Kilo Code's CLI and extension are built on OpenCode: its sessions
		// also set OPENCODE, so it stands before opencode in this list
		// (Session takes the first harness whose variable is set).
		Name: "kilo", DisplayName: "Kilo Code", Vendor: "Kilo",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"kilo"},
		Harness: &Harness{
			// Every .kilo/rules/*.md is an instruction file; Kilo also
			// reads the project's AGENTS.md.
			Instructions: ".kilo/rules/bridle.md",
			Reads:        []string{AgentsMD},
			// OpenCode's mcp spelling. Kilo drops a project file's entry
			// whose values name a variable ({env:VAR}) and expands them
			// only in the user's file, so the gateway is reached through
			// the stdio bridge; a stdio server gets Kilo's whole
			// environment. Kilo also reads OpenCode's opencode.json; its own
			// entry of the same name wins.
			Config: &Config{Format: JSON, Project: ".kilo/kilo.json", ProjectAlso: []string{".kilo/kilo.jsonc", "kilo.json", "kilo.jsonc"}, AlsoReads: []string{"opencode.json"},
				User: ".config/kilo/kilo.json", Servers: "mcp",
				Stdio: Stdio{Type: "local", CommandList: true, Extra: map[string]any{"enabled": true}}},
			SessionEnv: []string{"KILO"},
			// Kilo has OpenCode's permission rules and plugins, but Bridle
			// renders them for OpenCode's files only: its rules are prose.
			NoClient: "@kilocode/cli 7.7.7 installs 292 MB (the brief's limit is 150 MB), so it is not pinned in tests/agentclients: it was run here once by hand (kilo mcp list, kilo debug config; docs/agents/kilo.md)",
		},
	},
	{
		Name: "opencode", DisplayName: "OpenCode", Vendor: "SST",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"opencode"},
		Harness: &Harness{
			// OpenCode reads the project's AGENTS.md (else CLAUDE.md) by
			// itself, and the files its opencode.json lists under
			// instructions: Bridle renders its own file and lists it there.
			Instructions: ".opencode/bridle.md",
			Reads:        []string{AgentsMD, ClaudeMD},
			ReadsFirst:   true,
			Pointer:      "instructions",
			Config: &Config{Format: JSON, Project: "opencode.json", ProjectAlso: []string{"opencode.jsonc"}, User: ".config/opencode/opencode.json", Servers: "mcp",
				// {env:VAR} is its interpolation (${VAR} is sent as is);
				// without oauth: false a refused token starts OAuth
				// discovery instead of failing.
				Stdio: Stdio{Type: "local", CommandList: true, Extra: map[string]any{"enabled": true}},
				HTTP:  &HTTP{Type: "remote", URL: "url", Header: "Bearer {env:%s}", Extra: map[string]any{"enabled": true, "oauth": false}}},
			SessionEnv: []string{"OPENCODE"},
			Native:     "opencode-config", Hook: "opencode", HookCannotAsk: true,
			Client: "opencode-ai@1.18.33",
		},
	},
	{
		Name: "copilot", DisplayName: "GitHub Copilot CLI", Vendor: "GitHub",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"copilot-cli"},
		Harness: &Harness{
			// Copilot reads .github/copilot-instructions.md, AGENTS.md,
			// CLAUDE.md and GEMINI.md at the root and
			// .github/instructions/*.instructions.md whose applyTo matches:
			// Bridle's file is one of those, leaving the person's own
			// copilot-instructions.md alone.
			Instructions: ".github/instructions/bridle.instructions.md",
			FrontMatter:  "---\napplyTo: \"**\"\n---\n",
			Reads:        []string{AgentsMD, ClaudeMD, "GEMINI.md", ".github/copilot-instructions.md"},
			Config: &Config{Format: JSON, Project: ".github/mcp.json", User: ".copilot/mcp-config.json", Servers: "mcpServers",
				// Copilot reads the project's .mcp.json (Claude Code's)
				// instead of .github/mcp.json when there is one.
				AlsoReads: []string{".mcp.json"}, Instead: true,
				Stdio: Stdio{Type: "local", Extra: map[string]any{"tools": []string{"*"}}},
				HTTP:  &HTTP{Type: "http", URL: "url", Header: "Bearer ${%s}", Extra: map[string]any{"tools": []string{"*"}}}},
			SessionEnv: []string{"COPILOT_CLI", "COPILOT_AGENT_SESSION_ID"},
			Trust:      "Copilot CLI loads a project's MCP servers and hooks only in a trusted folder: trust it when Copilot asks, or add it to \"trustedFolders\" in ~/.copilot/config.json",
			// Copilot has no deny list in a file (only --deny-tool): its
			// enforcement is the preToolUse hook in .github/hooks.
			Native: "copilot-hooks", Hook: "copilot", ProjectEnv: "COPILOT_PROJECT_DIR",
			Client: "@github/copilot@1.0.102",
		},
	},
	{
		Name: "kimi", DisplayName: "Kimi", Vendor: "Moonshot AI",
		InstructionFormat: AgentsMD, Style: Stepwise, MCPClients: []string{"kimi-code"},
		Harness: &Harness{
			// Kimi Code CLI (MoonshotAI/kimi-code; it replaces the Python
			// Kimi CLI and migrates its configuration) reads the project's
			// AGENTS.md or .kimi-code/AGENTS.md. The stepwise render stays at
			// agents/kimi/AGENTS.md, as before harnesses; a profile that sets
			// output: .kimi-code/AGENTS.md gives Kimi a file of its own.
			Instructions: AgentsMD,
			Config: &Config{Format: JSON, Project: ".kimi-code/mcp.json", User: ".kimi-code/mcp.json", Servers: "mcpServers",
				// Its headers are not expanded; bearerTokenEnvVar names the
				// variable holding the token.
				Stdio: Stdio{},
				HTTP:  &HTTP{URL: "url", BearerEnv: "bearerTokenEnvVar"}},
			Trust: "Kimi Code enables a project's MCP servers only once you trust the folder at its workspace trust prompt",
			// Its hooks and permission rules live only in the user's
			// ~/.kimi-code/config.toml, which Bridle does not write.
			NoClient: "Kimi Code CLI is not on the npm registry this machine reaches; its mcp.json is tested against its documented format (MoonshotAI/kimi-code docs/en/customization/mcp.md)",
		},
		// The AGENTS.md page of Moonshot's kimi-cli documentation.
		VendorSources: []VendorSource{{URL: "https://raw.githubusercontent.com/MoonshotAI/kimi-cli/main/docs/en/customization/agents-md.md", Format: "markdown"}},
	},
	{
		Name: "qwen", DisplayName: "Qwen Code", Vendor: "Alibaba",
		// Its session's client name is qwen-cli-mcp-client-<server key>:
		// Bridle's entry is named bridle.
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"qwen-cli-mcp-client-bridle"},
		Harness: &Harness{
			// Qwen Code reads QWEN.md and AGENTS.md by default.
			Instructions: "QWEN.md",
			Reads:        []string{AgentsMD},
			Config: &Config{Format: JSON, Project: ".qwen/settings.json", User: ".qwen/settings.json", Servers: "mcpServers",
				// Qwen also reads .mcp.json; its own entry of the same
				// name wins.
				AlsoReads: []string{".mcp.json"},
				// Expanded from the environment at load like Gemini's;
				// httpUrl is streamable HTTP (url alone is SSE).
				Stdio: Stdio{},
				HTTP:  &HTTP{URL: "httpUrl", Header: "Bearer ${%s}"}},
			SessionEnv: []string{"QWEN_CODE"},
			Trust:      "Qwen Code asks once to approve a project's MCP server: run qwen mcp approve bridle in the environment the agent starts in (the approval is bound to the expanded entry, token included: approve again after a rotation)",
			Native:     "qwen-settings", Hook: "qwen", ProjectEnv: "QWEN_PROJECT_DIR",
			Client: "@qwen-code/qwen-code@0.24.4",
		},
	},
	{
		Name: "crush", DisplayName: "Crush", Vendor: "Charm",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"crush"},
		Harness: &Harness{
			// Crush reads every one of its default context paths that
			// exists (CRUSH.md, AGENTS.md, CLAUDE.md, GEMINI.md,
			// .github/copilot-instructions.md, .cursor/rules/, …): Bridle's
			// file is CRUSH.md, and the others' renders are read too.
			Instructions: "CRUSH.md",
			Reads:        []string{AgentsMD, ClaudeMD, "GEMINI.md", ".github/copilot-instructions.md", ".cursor/rules/bridle.mdc"},
			// .crush.json wins over crush.json in the same directory; the
			// user's is ~/.config/crush/crush.json. A stdio server gets
			// Crush's whole environment; headers go through shell
			// expansion ($VAR, ${VAR}).
			Config: &Config{Format: JSON, Project: ".crush.json", ProjectAlso: []string{"crush.json"}, User: ".config/crush/crush.json", Servers: "mcp",
				Stdio: Stdio{Type: "stdio"},
				HTTP:  &HTTP{Type: "http", URL: "url", Header: "Bearer ${%s}"}},
			SessionEnv: []string{"CRUSH"},
			// Its PreToolUse hook in .crush.json runs bridle hook crush,
			// with the project's root in CRUSH_PROJECT_DIR.
			Native: "crush-hooks", Hook: "crush", HookCannotAsk: true, ProjectEnv: "CRUSH_PROJECT_DIR",
			NoClient: "the Crush CLI is not pinned yet: its files are tested against the configuration its source parses (charmbracelet/crush internal/config/config.go, load.go)",
		},
	},
	{
		Name: "continue", DisplayName: "Continue", Vendor: "Continue",
		// The CLI's (cn) MCP client; the IDE extensions' name is not
		// known here.
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"continue-cli-client"},
		Harness: &Harness{
			// Every .continue/rules/**/*.md that applies always (no globs,
			// or alwaysApply: true) goes into the system prompt, beside the
			// first of AGENTS.md, AGENT.md, CLAUDE.md, CODEX.md at the
			// root.
			Instructions: ".continue/rules/bridle.md",
			FrontMatter:  "---\nname: Bridle\nalwaysApply: true\n---\n",
			Reads:        []string{AgentsMD, ClaudeMD},
			ReadsFirst:   true,
			// A project's .continue/mcpServers/*.yaml are blocks the IDE
			// extensions load, and cn loads with --mcp FILE; cn's own
			// servers are the user's ~/.continue/config.yaml's. Both are a
			// YAML list of entries; a block needs name, version and
			// schema. ${{ secrets.NAME }} is read from the environment
			// first (then .env files, then the Continue hub), and a stdio
			// server gets cn's whole environment.
			Config: &Config{Format: YAML, Project: ".continue/mcpServers/bridle.yaml", User: ".continue/config.yaml", Servers: "mcpServers",
				Preamble: "name: Bridle\nversion: 0.0.1\nschema: v1\n",
				Stdio:    Stdio{},
				HTTP:     &HTTP{Type: "streamable-http", URL: "url", Header: "Bearer ${{ secrets.%s }}", HeadersUnder: "requestOptions"}},
			// cn 1.5.47 loads Claude Code-style hooks (.continue/settings.json
			// and Claude Code's .claude/settings.json) but never fires them:
			// its rules are prose.
			// cn has no offline MCP check: the tests run headless
			// sessions against a stand-in model.
			Client: "@continuedev/cli@1.5.47",
		},
	},
	{
		Name: "cursor", DisplayName: "Cursor", Vendor: "Anysphere",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"cursor-vscode"},
		Harness: &Harness{
			// A rule that always applies; Cursor also reads AGENTS.md.
			Instructions: ".cursor/rules/bridle.mdc",
			FrontMatter:  "---\ndescription: The project's rules, from Bridle (bridle.yaml)\nglobs:\nalwaysApply: true\n---\n",
			Reads:        []string{AgentsMD},
			Config: &Config{Format: JSON, Project: ".cursor/mcp.json", User: ".cursor/mcp.json", Servers: "mcpServers",
				// ${env:NAME} is its interpolation; the transport follows
				// the URL.
				Stdio: Stdio{},
				HTTP:  &HTTP{URL: "url", Header: "Bearer ${env:%s}"}},
			SessionEnv: []string{"CURSOR_AGENT"},
			Trust:      "Cursor asks before it starts a project's MCP server: enable bridle when it asks (Settings → MCP)",
			Native:     "cursor-hooks", Hook: "cursor", ProjectEnv: "CURSOR_PROJECT_DIR",
			NoClient: "Cursor ships no CLI this machine can install (cursor-agent downloads from cursor.com): its files are tested against its documented formats",
		},
	},
	{
		Name: "warp", DisplayName: "Warp", Vendor: "Warp",
		InstructionFormat: AgentsMD, Style: Reference,
		Harness: &Harness{
			// Warp's project rules are AGENTS.md, or WARP.md, which wins
			// when both are in a directory: WARP.md is Warp's own file,
			// and with it Warp reads no AGENTS.md (no Reads).
			Instructions: "WARP.md",
			// Warp keeps its MCP servers in the app, in no file install
			// can write.
			NoClient: "Warp is a desktop terminal this machine cannot install, and its MCP servers live in the app: its WARP.md is tested with a golden against its documented format (docs.warp.dev, Rules)",
		},
	},
	{
		Name: "windsurf", DisplayName: "Windsurf", Vendor: "Cognition",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"windsurf-client"},
		Harness: &Harness{
			// A rule that is always on; Windsurf also reads AGENTS.md.
			Instructions: ".windsurf/rules/bridle.md",
			FrontMatter:  "---\ntrigger: always_on\n---\n",
			Reads:        []string{AgentsMD},
			// Windsurf reads MCP servers from the user's file only;
			// serverUrl is its HTTP key and ${env:NAME} its interpolation.
			Config: &Config{Format: JSON, User: ".codeium/windsurf/mcp_config.json", Servers: "mcpServers",
				Stdio: Stdio{},
				HTTP:  &HTTP{URL: "serverUrl", Header: "Bearer ${env:%s}"}},
			Native: "windsurf-hooks", Hook: "windsurf", HookCannotAsk: true,
			NoClient: "Windsurf is a desktop application this machine cannot install: its files are tested against its documented formats",
		},
	},
	{
		Name: "cline", DisplayName: "Cline", Vendor: "Cline",
		// The VS Code extension's MCP client names itself Cline; the CLI's
		// (the Cline SDK's) name is not settled (@cline/core), so it is not
		// listed.
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"Cline"},
		Harness: &Harness{
			// Every markdown file in .clinerules/ (the extension's and the
			// CLI's; the CLI also reads .cline/rules/) is a rule; both also
			// read the project's AGENTS.md.
			Instructions: ".clinerules/bridle.md",
			Reads:        []string{AgentsMD},
			// One user file, shared by the extension and the CLI
			// (~/.cline/data/settings/, or $CLINE_DATA_DIR/settings/); no
			// project file. Only the extension expands ${env:VAR}: the CLI
			// sends it as is, so the gateway is reached through the stdio
			// bridge, and the CLI passes its whole environment to a stdio
			// server.
			Config: &Config{Format: JSON, User: ".cline/data/settings/cline_mcp_settings.json", Servers: "mcpServers",
				Stdio: Stdio{Type: "stdio"}},
			// Its hook file .clinerules/hooks/PreToolUse (an executable
			// Bridle owns) runs bridle hook cline from the project's root;
			// Cline sets no variable naming it.
			Native: "cline-hooks", Hook: "cline", HookCannotAsk: true,
			NoClient: "the cline CLI (npm cline) has no offline configuration check (its mcp command is an interactive wizard) and is not pinned yet: its files are tested against the format its source parses (cline/cline sdk/packages/core/src/extensions/mcp/config-loader.ts)",
		},
	},
	{
		Name: "goose", DisplayName: "Goose", Vendor: "Block",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"goose"},
		Harness: &Harness{
			// Goose's context files are .goosehints and AGENTS.md (its
			// default CONTEXT_FILE_NAMES), at the project root and in the
			// directories its tools touch.
			Instructions: ".goosehints",
			Reads:        []string{AgentsMD},
			// Its MCP servers are extensions in the user's YAML
			// ~/.config/goose/config.yaml: extensions maps a key to an entry
			// (enabled, type, name, description, cmd, args, timeout), read
			// in block/goose crates/goose/src/config/extensions.rs and
			// agents/extension.rs. A streamable_http entry's headers are
			// expanded (${VAR}) only from its envs and env_keys
			// (agents/extension_manager.rs substitute_env_vars); env_keys
			// are read from the environment or Goose's secret store.
			Config: &Config{Format: YAML, User: ".config/goose/config.yaml", Servers: "extensions", ServersMap: true,
				Stdio: Stdio{Type: "stdio", CommandKey: "cmd",
					Extra: map[string]any{"enabled": true, "description": "Bridle: the project's rules, proposals and memory", "timeout": 300}},
				HTTP: &HTTP{Type: "streamable_http", URL: "uri", Header: "Bearer ${%s}", EnvKeys: "env_keys",
					Extra: map[string]any{"enabled": true, "description": "Bridle: the project's rules, proposals and memory", "timeout": 300}}},
			NoClient: "Goose ships as a native binary and desktop app, not on a registry this machine reaches: its .goosehints is tested with goldens and its extension entry is documented from its source (block/goose crates/goose/src/agents/extension.rs)",
		},
	},
	{
		Name: "junie", DisplayName: "Junie", Vendor: "JetBrains",
		InstructionFormat: AgentsMD, Style: Reference,
		Harness: &Harness{
			// Junie (its CLI and the JetBrains IDEs' plugin share these
			// files) takes its guidelines from .junie/AGENTS.md; the root
			// AGENTS.md and the older .junie/guidelines.md are read too,
			// and an older plugin reads .junie/guidelines.md unless its
			// Guidelines path says otherwise (docs/agents/junie.md).
			Instructions: ".junie/AGENTS.md",
			Reads:        []string{AgentsMD, ".junie/guidelines.md"},
			// .junie/mcp/mcp.json (the project's) and ~/.junie/mcp/mcp.json,
			// mcpServers with command/args/env. Whether Junie expands
			// variables in an HTTP entry's headers was not found, so the
			// gateway is reached through the stdio bridge (the IDE plugin
			// documents stdio only).
			Config: &Config{Format: JSON, Project: ".junie/mcp/mcp.json", User: ".junie/mcp/mcp.json", Servers: "mcpServers",
				Stdio: Stdio{}},
			// Its hooks (Early Access, the user's ~/.junie/config.json
			// only) cannot deny a tool call: its rules are prose.
			NoClient: "Junie's npm package (@jetbrains/junie) downloads its binary from GitHub releases in a postinstall script, not through a registry: its files are tested against the documented formats (junie.jetbrains.com/docs, JetBrains' Junie help)",
		},
	},
	{
		Name: "kiro", DisplayName: "Kiro", Vendor: "Amazon",
		InstructionFormat: AgentsMD, Style: Reference,
		Harness: &Harness{
			// A steering file that is always included; Kiro also reads
			// the project's AGENTS.md.
			Instructions: ".kiro/steering/bridle.md",
			FrontMatter:  "---\ninclusion: always\n---\n",
			Reads:        []string{AgentsMD},
			// The workspace's .kiro/settings/mcp.json wins over the user's;
			// ${VAR} in env and headers is expanded from the environment.
			Config: &Config{Format: JSON, Project: ".kiro/settings/mcp.json", User: ".kiro/settings/mcp.json", Servers: "mcpServers",
				Stdio: Stdio{},
				HTTP:  &HTTP{URL: "url", Header: "Bearer ${%s}"}},
			// Kiro's hooks (.kiro/hooks, agent preToolUse hooks) are not
			// wired: its rules are prose.
			NoClient: "Kiro (IDE and CLI) downloads from kiro.dev, not from a registry this machine reaches: its files are tested against its documented formats (kiro.dev/docs/mcp/configuration, kiro.dev/docs/cli/steering)",
		},
	},
	{
		Name: "zed", DisplayName: "Zed", Vendor: "Zed Industries",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"Zed"},
		Harness: &Harness{
			// Zed's agent reads one rules file per worktree root, the first
			// of .rules, .cursorrules, .windsurfrules, .clinerules,
			// .github/copilot-instructions.md, AGENT.md, AGENTS.md,
			// CLAUDE.md, GEMINI.md that exists: .rules comes first, so with
			// Bridle's .rules Zed reads no other (no Reads).
			Instructions: ".rules",
			// context_servers in the project's .zed/settings.json (JSON
			// with comments) or the user's; command/args/env for stdio,
			// url/headers for HTTP. Its settings expand no variables, so
			// the gateway is reached through the stdio bridge.
			Config: &Config{Format: JSON, Project: ".zed/settings.json", User: ".config/zed/settings.json", Servers: "context_servers",
				Stdio: Stdio{}},
			Trust: "Zed applies a project's .zed/settings.json and starts its MCP servers only in a trusted worktree: trust the project when Zed asks",
			// Zed's agent tool permissions (always_deny patterns) are not
			// rendered yet: its rules are prose.
			NoClient: "Zed is a desktop editor this machine cannot install: its files are tested against the settings its source parses (zed-industries/zed crates/settings_content/src/project.rs)",
		},
	},
	{
		Name: "deepseek", DisplayName: "DeepSeek", Vendor: "DeepSeek",
		InstructionFormat: AgentsMD, Style: Stepwise,
		// A model, not a harness: a profile runs it in a harness of its
		// choice (harness: opencode). DeepSeek publishes no guidance on
		// instructing its models that Bridle knows of.
	},
}

// All returns every known agent, sorted by name. The entries are copies.
func All() []Agent {
	out := make([]Agent, len(list))
	for i, a := range list {
		out[i] = a.clone()
	}
	slices.SortFunc(out, func(a, b Agent) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup returns the known agent of that name.
func Lookup(name string) (Agent, bool) {
	for _, a := range list {
		if a.Name == name {
			return a.clone(), true
		}
	}
	return Agent{}, false
}

// Names lists the known agents' names, sorted.
func Names() []string { return namesWhere(func(Agent) bool { return true }) }

// Harnesses lists the agents that are harnesses, sorted.
func Harnesses() []string { return namesWhere(func(a Agent) bool { return a.Harness != nil }) }

// Installable lists the agents whose MCP client bridle install can
// configure, sorted.
func Installable() []string {
	return namesWhere(func(a Agent) bool { return a.Harness != nil && a.Harness.Config != nil })
}

// namesWhere lists the names of the agents keep takes, sorted.
func namesWhere(keep func(Agent) bool) []string {
	var out []string
	for _, a := range All() {
		if keep(a) {
			out = append(out, a.Name)
		}
	}
	return out
}

// Output is the default path of the file rendered for a profile running
// harness in format and style, chosen so that no render overwrites
// another: the harness's own instruction file when it has one of its own
// (GEMINI.md, .cursor/rules/bridle.mdc, …); otherwise, as before harnesses,
// CLAUDE.md-format profiles write CLAUDE.md, reference AGENTS.md ones
// AGENTS.md and stepwise ones agents/<name>/AGENTS.md.
func Output(name, harness, format, style string) string {
	if a, ok := Lookup(harness); ok && a.Harness != nil {
		if out := a.Harness.Instructions; out != AgentsMD && out != ClaudeMD {
			return out
		}
	}
	switch {
	case format == ClaudeMD:
		return ClaudeMD
	case style == Stepwise:
		return path.Join("agents", name, AgentsMD)
	default:
		return AgentsMD
	}
}

// Share reports whether the harnesses a and b read one instruction file
// that neither has apart (one's registry entry lists the other in Shares):
// a project keeps one profile rendering it, and the other harness reads
// that render.
func Share(a, b string) bool {
	x, okx := Lookup(a)
	y, oky := Lookup(b)
	return okx && oky && x.Harness != nil && y.Harness != nil &&
		(slices.Contains(x.Harness.Shares, b) || slices.Contains(y.Harness.Shares, a))
}

// TokenEnv is the environment variable a harness's gateway entry reads the
// agent's bearer token from: one per agent (BRIDLE_TOKEN_CLAUDE), so no
// two agents' configurations share a token, and exporting one agent's
// token never makes another harness that agent.
func TokenEnv(agent string) string { return "BRIDLE_TOKEN_" + envSuffix(agent) }

// TokenFileEnv is the environment variable naming the file that holds the
// agent's token, for the stdio bridge (bridle mcp --server).
func TokenFileEnv(agent string) string { return "BRIDLE_TOKEN_FILE_" + envSuffix(agent) }

// envSuffix is agent in upper case with every byte other than a letter or
// a digit as an underscore.
func envSuffix(agent string) string {
	b := []byte(agent)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			b[i] = '_'
		}
	}
	return string(b)
}

// Session returns the harness whose session getenv shows this process
// runs in (one of its SessionEnv variables is set), and that variable; ok
// is false when none is set. A harness built on another sets both
// harnesses' variables (Kilo Code sets OPENCODE too): it comes first in
// the list, so it is the one named.
func Session(getenv func(string) string) (agent, variable string, ok bool) {
	for _, a := range list {
		if a.Harness == nil {
			continue
		}
		for _, v := range a.Harness.SessionEnv {
			if getenv(v) != "" {
				return a.Name, v, true
			}
		}
	}
	return "", "", false
}

// ForClient returns the known agent whose MCP client sends name as its
// clientInfo.name.
func ForClient(name string) (Agent, bool) {
	for _, a := range list {
		if slices.Contains(a.MCPClients, name) {
			return a.clone(), true
		}
	}
	return Agent{}, false
}

func (a Agent) clone() Agent {
	a.MCPClients = slices.Clone(a.MCPClients)
	a.VendorSources = slices.Clone(a.VendorSources)
	if a.Harness != nil {
		h := *a.Harness
		h.Reads = slices.Clone(h.Reads)
		h.Shares = slices.Clone(h.Shares)
		h.SessionEnv = slices.Clone(h.SessionEnv)
		if h.Config != nil {
			c := *h.Config
			c.ProjectAlso = slices.Clone(c.ProjectAlso)
			c.AlsoReads = slices.Clone(c.AlsoReads)
			if c.HTTP != nil {
				x := *c.HTTP
				c.HTTP = &x
			}
			h.Config = &c
		}
		a.Harness = &h
	}
	return a
}
