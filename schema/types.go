package schema

// CurrentVersion is the newest schema_version this build understands.
// Documents with a higher version are refused with an "upgrade bridle" error.
const CurrentVersion = 1

// AllAgents is the applies_to value that selects every agent.
const AllAgents = "all_agents"

// Document is the canonical rules document of one project (bridle.yaml).
type Document struct {
	// SchemaVersion is the document format version. It must be 1.
	SchemaVersion int `yaml:"schema_version" json:"schema_version" jsonschema:"required,minimum=1"`
	// Project describes the software project the rules govern.
	Project Project `yaml:"project" json:"project" jsonschema:"required"`
	// Guardrails are the project's policy rules, each with a severity tier.
	Guardrails []Guardrail `yaml:"guardrails,omitempty" json:"guardrails,omitempty"`
	// Patterns are the architecture patterns the project follows.
	Patterns Patterns `yaml:"patterns,omitempty" json:"patterns,omitzero"`
	// AgentProfiles describes each coding agent, keyed by agent name (claude, codex, kimi, deepseek, …).
	AgentProfiles map[string]AgentProfile `yaml:"agent_profiles,omitempty" json:"agent_profiles,omitempty"`
	// Permissions grants each agent what it may do; anything not granted is refused.
	Permissions map[string]Permissions `yaml:"permissions,omitempty" json:"permissions,omitempty"`
}

// Project describes the software project.
type Project struct {
	// ID is a short, stable slug for the project, e.g. runic-gateway.
	ID string `yaml:"id" json:"id" jsonschema:"required,pattern=^[a-z0-9][a-z0-9._-]*$,maxLength=64"`
	// Name is the human-readable project name.
	Name string `yaml:"name,omitempty" json:"name,omitempty" jsonschema:"maxLength=200"`
	// Overview is prose describing what the project is and does. Markdown paragraphs, lists, quotes, tables and closed code fences are fine; headings, rules, HTML and unclosed fences are not.
	Overview string `yaml:"overview,omitempty" json:"overview,omitempty" jsonschema:"maxLength=20000"`
	// Stack lists the languages, frameworks and services the project uses.
	Stack []string `yaml:"stack,omitempty" json:"stack,omitempty" jsonschema:"maxItems=200"`
	// Commands are the commands an agent runs to build, test and lint.
	Commands []Command `yaml:"commands,omitempty" json:"commands,omitempty" jsonschema:"maxItems=100"`
	// Conventions are the project's coding conventions.
	Conventions []Convention `yaml:"conventions,omitempty" json:"conventions,omitempty" jsonschema:"maxItems=1000"`
}

// Command is a named shell command, such as the test command.
type Command struct {
	// Name says what the command is for: build, test, lint, …
	Name string `yaml:"name" json:"name" jsonschema:"required,minLength=1,maxLength=64"`
	// Run is the command line.
	Run string `yaml:"run" json:"run" jsonschema:"required,minLength=1,maxLength=1000"`
}

// Convention is one coding convention.
type Convention struct {
	// ID is unique among conventions: lower-case letters, digits and dashes.
	ID string `yaml:"id" json:"id" jsonschema:"required,pattern=^[a-z0-9][a-z0-9-]*$,maxLength=80"`
	// Statement is the convention in one line.
	Statement string `yaml:"statement" json:"statement" jsonschema:"required,minLength=1,maxLength=1000"`
	// Rationale says why, in one line.
	Rationale string `yaml:"rationale,omitempty" json:"rationale,omitempty" jsonschema:"maxLength=2000"`
	// Source is the document the suggestion was read from.
	Source string `yaml:"source,omitempty" json:"source,omitempty" jsonschema:"maxLength=2000"`
	// DocumentHash is the sha256 of the document's normalised text when it was read.
	DocumentHash string `yaml:"document_hash,omitempty" json:"document_hash,omitempty" jsonschema:"maxLength=100"`
	// Section is the heading path the statement sits under in the document.
	Section string `yaml:"section,omitempty" json:"section,omitempty" jsonschema:"maxLength=500"`
	// Excerpt quotes the document's sentence, as evidence.
	Excerpt string `yaml:"excerpt,omitempty" json:"excerpt,omitempty" jsonschema:"maxLength=500"`
	// Status is pending (the default), withdrawn or dismissed.
	Status SuggestionStatus `yaml:"status,omitempty" json:"status,omitempty" jsonschema:"enum=pending,enum=withdrawn,enum=dismissed"`
}

// Severity is a guardrail's tier.
type Severity string

// The severity tiers, weakest first.
const (
	// Guidance: the model may deviate but shouldn't.
	Guidance Severity = "guidance"
	// HardInstruction: required; the agent checks its own actions.
	HardInstruction Severity = "hard-instruction"
	// Enforcement: Bridle itself gates the action.
	Enforcement Severity = "enforcement"
)

// Severities lists the tiers, strongest first: the order renderers use.
var Severities = []Severity{Enforcement, HardInstruction, Guidance}

// Rank orders tiers: a stronger tier has a lower rank.
func (s Severity) Rank() int {
	switch s {
	case Enforcement:
		return 0
	case HardInstruction:
		return 1
	default:
		return 2
	}
}

// Guardrail is one project policy rule.
type Guardrail struct {
	// ID is unique among guardrails: lower-case letters, digits and dashes.
	ID string `yaml:"id" json:"id" jsonschema:"required,pattern=^[a-z0-9][a-z0-9-]*$,maxLength=80"`
	// Statement is the rule in one line.
	Statement string `yaml:"statement" json:"statement" jsonschema:"required,minLength=1,maxLength=1000"`
	// Rationale says why the rule exists, in one line.
	Rationale string `yaml:"rationale,omitempty" json:"rationale,omitempty" jsonschema:"maxLength=2000"`
	// Severity is the tier: guidance, hard-instruction or enforcement.
	Severity Severity `yaml:"severity" json:"severity" jsonschema:"required,enum=guidance,enum=hard-instruction,enum=enforcement"`
	// ScopeApproval marks a scope rule: before an action beyond the task, the agent calls request_scope_approval and waits.
	ScopeApproval bool `yaml:"scope_approval,omitempty" json:"scope_approval,omitempty"`
	// EnforcedBy names the permission Bridle checks to enforce an enforcement-tier rule, e.g. secrets.read.
	EnforcedBy []string `yaml:"enforced_by,omitempty" json:"enforced_by,omitempty" jsonschema:"enum=gitea.read,enum=gitea.write,enum=kanboard.read,enum=kanboard.write,enum=rules.propose,enum=rules.approve,enum=secrets.read,enum=memory.read,enum=memory.write,enum=memory.forget"`
	// AppliesTo lists the agents the rule applies to; all_agents (the default) means every agent.
	AppliesTo []string `yaml:"applies_to,omitempty" json:"applies_to,omitempty" jsonschema:"maxItems=100"`
	// Enforce lists the commands and files the agent's own tooling refuses or asks about before it acts; hard-instruction and enforcement rules only.
	Enforce Enforce `yaml:"enforce,omitempty" json:"enforce,omitzero"`
	// Provenance records where the rule came from and who approved it.
	Provenance Provenance `yaml:"provenance,omitempty" json:"provenance,omitzero"`
}

// Enforce is what a guardrail asks the agents themselves to enforce. Bridle
// translates it into each agent's native rules (Claude Code permission
// rules, Codex .rules files) where the agent can express it, and into its
// hook or instructions where it cannot.
type Enforce struct {
	// Commands are shell commands, matched by their leading words.
	Commands CommandRules `yaml:"commands,omitempty" json:"commands,omitzero"`
	// Paths are files in the project, matched by glob.
	Paths PathRules `yaml:"paths,omitempty" json:"paths,omitzero"`
}

// IsZero reports whether the block enforces nothing.
func (e Enforce) IsZero() bool {
	return len(e.Commands.Forbid)+len(e.Commands.Ask)+len(e.Paths.NoRead)+len(e.Paths.NoWrite) == 0
}

// CommandRules are commands: a program, its subcommand words and the
// options a simple command must carry (in any order and spelling, for the
// programs enforce knows), after its environment assignments and wrappers
// (sudo, env, bash -c, …) are looked through.
type CommandRules struct {
	// Forbid lists commands the agent must not run: "git push --force" matches git push --force origin, git push -f and git push origin main --force-with-lease; "rm -rf" matches rm -r -f x.
	Forbid []string `yaml:"forbid,omitempty" json:"forbid,omitempty" jsonschema:"maxItems=50,minLength=1,maxLength=200"`
	// Ask lists commands the agent runs only with the human's OK; forbid wins over ask.
	Ask []string `yaml:"ask,omitempty" json:"ask,omitempty" jsonschema:"maxItems=50,minLength=1,maxLength=200"`
}

// PathRules are globs relative to the project root (** crosses
// directories): "secrets/**", ".env", "**/*.pem".
type PathRules struct {
	// NoRead lists globs, relative to the project root, of files the agent must not read.
	NoRead []string `yaml:"no_read,omitempty" json:"no_read,omitempty" jsonschema:"maxItems=50,minLength=1,maxLength=300"`
	// NoWrite lists globs, relative to the project root, of files the agent must not create, edit or delete.
	NoWrite []string `yaml:"no_write,omitempty" json:"no_write,omitempty" jsonschema:"maxItems=50,minLength=1,maxLength=300"`
}

// Source says who originated a rule.
type Source string

// The origins of a rule.
const (
	SourceUser   Source = "user"
	SourceAgent  Source = "agent"
	SourceVendor Source = "vendor"
)

// Provenance records a rule's origin and approval.
type Provenance struct {
	// Source is who originated the rule: user, agent or vendor.
	Source Source `yaml:"source,omitempty" json:"source,omitempty" jsonschema:"enum=user,enum=agent,enum=vendor"`
	// Agent is the proposing agent, when source is agent, or the profile whose vendor suggested it.
	Agent string `yaml:"agent,omitempty" json:"agent,omitempty" jsonschema:"maxLength=80"`
	// AgentSession is the agent session that proposed the rule.
	AgentSession string `yaml:"agent_session,omitempty" json:"agent_session,omitempty" jsonschema:"maxLength=200"`
	// Vendor names the vendor that suggested the rule, when source is vendor.
	Vendor string `yaml:"vendor,omitempty" json:"vendor,omitempty" jsonschema:"maxLength=200"`
	// Document is the vendor's document the rule was suggested in, when source is vendor.
	Document string `yaml:"document,omitempty" json:"document,omitempty" jsonschema:"maxLength=2000"`
	// DocumentHash is that document's hash when the suggestion was read.
	DocumentHash string `yaml:"document_hash,omitempty" json:"document_hash,omitempty" jsonschema:"maxLength=100"`
	// ProposedBy is the person who proposed the rule, when source is user.
	ProposedBy string `yaml:"proposed_by,omitempty" json:"proposed_by,omitempty" jsonschema:"maxLength=200"`
	// PullRequest is the proposal (pull request) that brought the rule in.
	PullRequest string `yaml:"pull_request,omitempty" json:"pull_request,omitempty" jsonschema:"maxLength=500"`
	// ApprovedBy is who merged the proposal.
	ApprovedBy string `yaml:"approved_by,omitempty" json:"approved_by,omitempty" jsonschema:"maxLength=200"`
	// ApprovedAt is when the proposal was merged (RFC 3339).
	ApprovedAt string `yaml:"approved_at,omitempty" json:"approved_at,omitempty" jsonschema:"format=date-time"`

	// Verified is set by the compiler when these fields were resolved from
	// the rules repository's history (a merged proposal), not read from the
	// YAML. It is never read from the document.
	Verified bool `yaml:"-" json:"verified,omitempty"`
	// MergeCommit is the merge that approved the item, when Verified.
	MergeCommit string `yaml:"-" json:"merge_commit,omitempty"`
	// Baseline is set by the compiler when the item's current text is that
	// of the owner's baseline: the commit that first added the rules file.
	// Baseline is that commit.
	Baseline string `yaml:"-" json:"baseline,omitempty"`
	// Unapproved is set by the compiler when no approved merge produced the
	// item's current text; it says how the change came in.
	Unapproved string `yaml:"-" json:"unapproved,omitempty"`
}

// Patterns are the architecture patterns the project follows.
type Patterns struct {
	// Standard names well-known patterns, e.g. MVC, hexagonal.
	Standard []string `yaml:"standard,omitempty" json:"standard,omitempty" jsonschema:"maxItems=100"`
	// Custom are the project's own patterns, each with example repositories.
	Custom []CustomPattern `yaml:"custom,omitempty" json:"custom,omitempty" jsonschema:"maxItems=200"`
}

// CustomPattern is a project-specific architecture pattern.
type CustomPattern struct {
	// Name is unique among custom patterns: lower-case letters, digits and dashes.
	Name string `yaml:"name" json:"name" jsonschema:"required,pattern=^[a-z0-9][a-z0-9-]*$,maxLength=80"`
	// Description says what the pattern is and when to use it: prose, like the project overview.
	Description string `yaml:"description" json:"description" jsonschema:"required,minLength=1,maxLength=5000"`
	// ExampleRepos are repositories that show the pattern in real code.
	ExampleRepos []ExampleRepo `yaml:"example_repos,omitempty" json:"example_repos,omitempty" jsonschema:"maxItems=100"`
	// Provenance records where the pattern came from and who approved it.
	Provenance Provenance `yaml:"provenance,omitempty" json:"provenance,omitzero"`
}

// ExampleRepo is a repository that shows a pattern in real code.
type ExampleRepo struct {
	// URL is the repository: an https URL, an ssh URL or a local path.
	URL string `yaml:"url" json:"url" jsonschema:"required,minLength=1,maxLength=2000"`
	// Ref is the branch, tag or commit to index; the default branch when empty.
	Ref string `yaml:"ref,omitempty" json:"ref,omitempty" jsonschema:"maxLength=200"`
	// ReferenceTag identifies this example; unique across the document.
	ReferenceTag string `yaml:"reference_tag" json:"reference_tag" jsonschema:"required,pattern=^[a-z0-9][a-z0-9._-]*$,maxLength=120"`
	// ArchTag groups examples by architecture; defaults to the pattern name.
	ArchTag string `yaml:"arch_tag,omitempty" json:"arch_tag,omitempty" jsonschema:"pattern=^[a-z0-9][a-z0-9._-]*$,maxLength=120"`
	// Paths limits indexing to these paths inside the repository.
	Paths []string `yaml:"paths,omitempty" json:"paths,omitempty" jsonschema:"maxItems=200"`
	// LastIndexed is when the example was last indexed (RFC 3339).
	LastIndexed string `yaml:"last_indexed,omitempty" json:"last_indexed,omitempty" jsonschema:"format=date-time"`
}

// Style is how explicitly a renderer phrases the rules for a model.
type Style string

// The rendering styles.
const (
	// Reference renders the rules as a reference document, for strong instruction-followers.
	Reference Style = "reference"
	// Stepwise renders numbered, explicit, step-by-step procedures for weaker instruction-followers.
	Stepwise Style = "stepwise"
)

// AgentProfile describes one coding agent.
type AgentProfile struct {
	// DisplayName is the agent's human-readable name, e.g. Claude Code.
	DisplayName string `yaml:"display_name,omitempty" json:"display_name,omitempty" jsonschema:"maxLength=200"`
	// Vendor is the company or project behind the agent's model.
	Vendor string `yaml:"vendor,omitempty" json:"vendor,omitempty" jsonschema:"maxLength=200"`
	// Capabilities lists what the agent can do, e.g. mcp, elicitation, subagents.
	Capabilities []string `yaml:"capabilities,omitempty" json:"capabilities,omitempty" jsonschema:"maxItems=100"`
	// Harness is the coding agent program the profile runs in (claude, codex, gemini, opencode, copilot, cursor, …): it decides the instruction file, the MCP client configuration and the native enforcement. By default the profile's own name when that is a known harness; none for a model such as deepseek, whose file is agents/NAME/AGENTS.md.
	Harness string `yaml:"harness,omitempty" json:"harness,omitempty" jsonschema:"maxLength=64"`
	// Model is the model the harness runs, e.g. deepseek-chat or kimi-k2: informational, except that a model Bridle knows to follow step-by-step instructions better (deepseek, kimi) makes stepwise the default style.
	Model string `yaml:"model,omitempty" json:"model,omitempty" jsonschema:"maxLength=200"`
	// InstructionFormat is the flavour of the rendered instructions: CLAUDE.md or AGENTS.md.
	InstructionFormat string `yaml:"instruction_format,omitempty" json:"instruction_format,omitempty" jsonschema:"enum=CLAUDE.md,enum=AGENTS.md"`
	// Style is how explicitly the rules are phrased: reference or stepwise.
	Style Style `yaml:"style,omitempty" json:"style,omitempty" jsonschema:"enum=reference,enum=stepwise"`
	// Output is where render --all writes this agent's file, relative to the output directory (a .md file, or .mdc for Cursor).
	Output string `yaml:"output,omitempty" json:"output,omitempty" jsonschema:"maxLength=300"`
	// MCPClients are the MCP clientInfo.name values that identify this agent, e.g. claude-code.
	MCPClients []string `yaml:"mcp_clients,omitempty" json:"mcp_clients,omitempty" jsonschema:"maxItems=50"`
	// VendorSources are the vendor's published guidance documents that bridle vendor sync reads for suggestions; bridle init writes each known vendor's documented ones.
	VendorSources []VendorSource `yaml:"vendor_sources,omitempty" json:"vendor_sources,omitempty" jsonschema:"maxItems=20"`
	// VendorGuardrailSuggestions are rules the vendor recommends. They are not policy until a merged proposal promotes one into guardrails.
	VendorGuardrailSuggestions []VendorSuggestion `yaml:"vendor_guardrail_suggestions,omitempty" json:"vendor_guardrail_suggestions,omitempty" jsonschema:"maxItems=500"`
}

// VendorSource is one published guidance document of an agent's vendor.
type VendorSource struct {
	// URL is the document: https, or http on a loopback address (a local mirror).
	URL string `yaml:"url" json:"url" jsonschema:"required,minLength=1,maxLength=2000"`
	// Format is markdown or html; by default the server's Content-Type decides.
	Format string `yaml:"format,omitempty" json:"format,omitempty" jsonschema:"enum=markdown,enum=html"`
	// Selector picks the section under one heading (its text, or a path "A > B"); empty for the whole document.
	Selector string `yaml:"selector,omitempty" json:"selector,omitempty" jsonschema:"maxLength=300"`
}

// SuggestionStatus is where a vendor suggestion stands.
type SuggestionStatus string

// Suggestion statuses.
const (
	SuggestionPending   SuggestionStatus = "pending"   // awaiting a human's promotion or dismissal (the default)
	SuggestionWithdrawn SuggestionStatus = "withdrawn" // its text is no longer in the vendor's document
	SuggestionDismissed SuggestionStatus = "dismissed" // a human declined it: later syncs do not bring it back
)

// VendorSuggestion is a rule a vendor recommends for its agent.
type VendorSuggestion struct {
	// ID is unique within the profile.
	ID string `yaml:"id" json:"id" jsonschema:"required,pattern=^[a-z0-9][a-z0-9-]*$,maxLength=80"`
	// Statement is the suggested rule in one line.
	Statement string `yaml:"statement" json:"statement" jsonschema:"required,minLength=1,maxLength=1000"`
	// Severity is the tier the vendor suggests.
	Severity Severity `yaml:"severity,omitempty" json:"severity,omitempty" jsonschema:"enum=guidance,enum=hard-instruction,enum=enforcement"`
	// Rationale says why, in one line.
	Rationale string `yaml:"rationale,omitempty" json:"rationale,omitempty" jsonschema:"maxLength=2000"`
	// Source is the document the suggestion was read from.
	Source string `yaml:"source,omitempty" json:"source,omitempty" jsonschema:"maxLength=2000"`
	// DocumentHash is the sha256 of the document's normalised text when it was read.
	DocumentHash string `yaml:"document_hash,omitempty" json:"document_hash,omitempty" jsonschema:"maxLength=100"`
	// Section is the heading path the statement sits under in the document.
	Section string `yaml:"section,omitempty" json:"section,omitempty" jsonschema:"maxLength=500"`
	// Excerpt quotes the document's sentence, as evidence.
	Excerpt string `yaml:"excerpt,omitempty" json:"excerpt,omitempty" jsonschema:"maxLength=500"`
	// Status is pending (the default), withdrawn or dismissed.
	Status SuggestionStatus `yaml:"status,omitempty" json:"status,omitempty" jsonschema:"enum=pending,enum=withdrawn,enum=dismissed"`
}

// Permissions is what one agent may do. Every field defaults to false.
type Permissions struct {
	Gitea    ReadWrite       `yaml:"gitea,omitempty" json:"gitea,omitzero"`
	Kanboard ReadWrite       `yaml:"kanboard,omitempty" json:"kanboard,omitzero"`
	Rules    RulesPermission `yaml:"rules,omitempty" json:"rules,omitzero"`
	Secrets  SecretsAccess   `yaml:"secrets,omitempty" json:"secrets,omitzero"`
	Memory   MemoryAccess    `yaml:"memory,omitempty" json:"memory,omitzero"`
}

// ReadWrite grants read and write access to a service.
type ReadWrite struct {
	Read  bool `yaml:"read,omitempty" json:"read,omitempty"`
	Write bool `yaml:"write,omitempty" json:"write,omitempty"`
}

// RulesPermission grants proposing and approving rule changes.
type RulesPermission struct {
	// Propose allows opening proposals (pull requests).
	Propose bool `yaml:"propose,omitempty" json:"propose,omitempty"`
	// Approve allows merging proposals.
	Approve bool `yaml:"approve,omitempty" json:"approve,omitempty"`
}

// SecretsAccess grants reading secrets from the vault.
type SecretsAccess struct {
	Read bool `yaml:"read,omitempty" json:"read,omitempty"`
}

// MemoryAccess grants access to session memory.
type MemoryAccess struct {
	Read   bool `yaml:"read,omitempty" json:"read,omitempty"`
	Write  bool `yaml:"write,omitempty" json:"write,omitempty"`
	Forget bool `yaml:"forget,omitempty" json:"forget,omitempty"`
}

// PermissionNames lists every permission in dotted form, e.g. rules.approve.
var PermissionNames = []string{
	"gitea.read", "gitea.write",
	"kanboard.read", "kanboard.write",
	"rules.propose", "rules.approve",
	"secrets.read",
	"memory.read", "memory.write", "memory.forget",
}

// Allows reports whether p grants the dotted permission name (e.g. "rules.approve").
// Unknown names are never granted.
func (p Permissions) Allows(name string) bool {
	switch name {
	case "gitea.read":
		return p.Gitea.Read
	case "gitea.write":
		return p.Gitea.Write
	case "kanboard.read":
		return p.Kanboard.Read
	case "kanboard.write":
		return p.Kanboard.Write
	case "rules.propose":
		return p.Rules.Propose
	case "rules.approve":
		return p.Rules.Approve
	case "secrets.read":
		return p.Secrets.Read
	case "memory.read":
		return p.Memory.Read
	case "memory.write":
		return p.Memory.Write
	case "memory.forget":
		return p.Memory.Forget
	}
	return false
}
