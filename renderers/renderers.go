// Package renderers turns a normalised rules document into each agent's
// native instruction file: CLAUDE.md for Claude, AGENTS.md for Codex, and an
// explicit step-by-step AGENTS.md for weaker instruction-followers such as
// Kimi and DeepSeek.
//
// Promises:
//   - The full document is always rendered; guardrails are filtered only by
//     applies_to. Guardrails are grouped by tier, strongest first, and sorted
//     by id within a tier; conventions keep document order.
//   - Output is a pure function of the document, the agent and Meta: the same
//     input gives byte-identical output.
//   - Every file starts with a generated header naming the source commit and
//     content hash and saying how to change the rules (see Header).
//   - Rules text cannot restructure a render, even from a document that never
//     passed validation: one-line text is made inert inline (mdsafe.Line),
//     prose has its escaping constructs escaped (mdsafe.Prose), code spans are
//     fenced longer than their content's backtick runs. Text that validates is
//     rendered unchanged.
//   - Write and Check stay inside the output directory (ErrUnsafePath).
package renderers

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/internal/mdsafe"
	"github.com/bridle-dev/bridle/schema"
)

// Meta identifies what a render was made from.
type Meta struct {
	BridleVersion string // e.g. v0.1.0
	ContentHash   string // "sha256:<hex>" of the normalised document
	Commit        string // source commit, "" when not from git
	Ref           string // the ref the commit was read from, if any
	Dirty         bool   // rendered from a working tree that differs from Commit
	SelfCommit    bool   // the file is committed together with the rules it renders
	// Unapproved lists the parts of the rules no approved merge produced;
	// every render opens with them (see Header).
	Unapproved []schema.Unapproved
}

// Input is everything a renderer needs for one agent.
type Input struct {
	Doc     *schema.Document // normalised
	Agent   string
	Profile schema.AgentProfile // resolved, with defaults
	Meta    Meta
}

// A Renderer writes one output format.
type Renderer interface {
	// Name identifies the renderer, e.g. claude-md.
	Name() string
	// Fits reports whether the renderer is the one for a resolved
	// profile; For asks the registry in order.
	Fits(p schema.AgentProfile) bool
	// Render returns the file's content.
	Render(in Input) []byte
}

// registry is every renderer, in one flat list, most specific first: the
// stepwise style decides before the instruction format.
var registry = []Renderer{stepwise{}, claudeMD{}, agentsMD{}}

// Names lists the renderers' names.
func Names() []string {
	var out []string
	for _, r := range registry {
		out = append(out, r.Name())
	}
	return out
}

// For picks the renderer for a resolved profile from the registry: the
// first that fits.
func For(p schema.AgentProfile) Renderer {
	for _, r := range registry {
		if r.Fits(p) {
			return r
		}
	}
	return agentsMD{}
}

// File is one rendered file.
type File struct {
	Agent    string `json:"agent"`
	Renderer string `json:"renderer"`
	Path     string `json:"path"` // relative output path, e.g. agents/kimi/AGENTS.md
	Content  string `json:"content"`
	// Executable: the file is a program the harness runs (Cline's hook
	// file), written with mode 0755 instead of 0644.
	Executable bool `json:"executable,omitempty"`

	kind int // how Check compares it: kindMarkdown unless a native rendering
}

// Render renders doc for agent. The agent must have a profile in doc.
func Render(doc *schema.Document, agent string, meta Meta) (File, error) {
	if _, ok := doc.AgentProfiles[agent]; !ok {
		return File{}, fmt.Errorf("render %s: %w", agent, ErrUnknownAgent)
	}
	return RenderAs(doc, agent, doc.Resolved(agent), meta), nil
}

// RenderAs renders doc for agent with an explicit profile, which need not be
// in the document: the MCP sidecar uses it for agents it cannot identify.
func RenderAs(doc *schema.Document, agent string, p schema.AgentProfile, meta Meta) File {
	r := For(p)
	in := Input{Doc: doc, Agent: agent, Profile: p, Meta: meta}
	return File{Agent: agent, Renderer: r.Name(), Path: p.Output, Content: FrontMatter(p) + string(r.Render(in))}
}

// FrontMatter is the text a profile's harness needs before the markdown of
// a file in the directory of its instruction file (Cursor's .mdc rules
// with alwaysApply, Windsurf's rules with trigger: always_on), from the
// agents registry; "" for every other file.
func FrontMatter(p schema.AgentProfile) string {
	a, ok := agents.Lookup(Harness(p))
	if !ok || a.Harness == nil || a.Harness.FrontMatter == "" || path.Dir(p.Output) != path.Dir(a.Harness.Instructions) {
		return ""
	}
	return a.Harness.FrontMatter
}

// generated reports whether content is a file Bridle rendered: its header
// opens it, after the front matter a harness needs, if any.
func generated(content string) bool {
	return strings.HasPrefix(stripFrontMatter(content), HeaderStart)
}

// StripFrontMatter returns a render without the front matter a harness
// needs (FrontMatter): its markdown.
func StripFrontMatter(content string) string { return stripFrontMatter(content) }

// stripFrontMatter drops a leading "---" block (YAML front matter).
func stripFrontMatter(s string) string {
	if !strings.HasPrefix(s, "---\n") {
		return s
	}
	if end := strings.Index(s[4:], "\n---\n"); end >= 0 && end < 4096 {
		return s[4+end+5:]
	}
	return s
}

// ErrUnknownAgent is returned for an agent with no profile in the document.
var ErrUnknownAgent = fmt.Errorf("no agent profile")

// HeaderStart begins every generated file; it marks a file as Bridle's.
const HeaderStart = "<!-- Generated by Bridle. Do not edit: changes made here are overwritten."

// ContentPrefix starts the header line that carries the content hash.
const ContentPrefix = "     content: "

// SourcePrefix starts the header line that names the source commit and the
// bridle version; render --check ignores this line.
const SourcePrefix = "     source: "

// Header is the generated header of every file.
func Header(in Input) string {
	var b strings.Builder
	b.WriteString(HeaderStart + "\n")
	fmt.Fprintf(&b, "     rules: %s · agent: %s · renderer: %s\n", commentSafe(in.Doc.Project.ID), commentSafe(in.Agent), For(in.Profile).Name())
	b.WriteString(SourcePrefix + sourceLine(in.Meta) + " · bridle " + in.Meta.BridleVersion + "\n")
	b.WriteString(ContentPrefix + in.Meta.ContentHash + "\n")
	b.WriteString("     To change the rules, propose a change (`bridle propose …`, or the propose_guardrail\n")
	b.WriteString("     tool of the bridle MCP server); once a maintainer merges it, this file is rendered again. -->\n")
	b.WriteString(UnapprovedNotice(in.Meta.Unapproved))
	return b.String()
}

// UnapprovedNotice is the warning every render and tool answer opens with
// when parts of the rules were changed without approval; "" when none were.
func UnapprovedNotice(us []schema.Unapproved) string {
	if len(us) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n> **UNAPPROVED CHANGES.** These parts of the rules were changed without an approved\n")
	b.WriteString("> proposal. They are marked NOT APPROVED below, and they grant no permission the approved\n")
	b.WriteString("> rules did not. Tell the human; `bridle audit` lists them for review.\n>\n")
	for _, u := range us {
		fmt.Fprintf(&b, "> - %s %s: %s", code(u.Subject), mdsafe.Inline(u.Change), mdsafe.Inline(u.Reason))
		if u.Commit != "" {
			b.WriteString(" (commit " + short(u.Commit) + ")")
		}
		b.WriteString(".")
		if u.Approved != "" {
			fmt.Fprintf(&b, " The approved rule still applies: \"%s\"", mdsafe.Inline(u.Approved))
			if !strings.HasSuffix(u.Approved, ".") {
				b.WriteString(".")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// commentSafe keeps a value from ending the header's HTML comment early
// ("-->", "--!>"): valid ids and agent names hold no ">".
// Committed returns files with the header's source line of a committed
// render (Meta.SelfCommit: "the rules in the commit that holds this file"),
// which is what a proposal commits: the same bytes without rendering again.
// Native files, which have no such line, are returned as they are.
func Committed(files []File, bridleVersion string) []File {
	line := SourcePrefix + sourceLine(Meta{SelfCommit: true}) + " · bridle " + bridleVersion + "\n"
	out := make([]File, len(files))
	for i, f := range files {
		out[i] = f
		if f.kind != kindMarkdown {
			continue
		}
		if at := strings.Index(f.Content, "\n"+SourcePrefix); at >= 0 {
			end := strings.IndexByte(f.Content[at+1:], '\n')
			if end >= 0 {
				out[i].Content = f.Content[:at+1] + line + f.Content[at+1+end+1:]
			}
		}
	}
	return out
}

func commentSafe(s string) string {
	return strings.ReplaceAll(mdsafe.Plain(s), ">", "\ufffd")
}

func sourceLine(m Meta) string {
	switch {
	case m.SelfCommit:
		return "the rules in the commit that holds this file"
	case m.Commit == "":
		return "working tree (not committed)"
	case m.Dirty:
		return "commit " + short(m.Commit) + " with uncommitted changes"
	case m.Ref != "":
		return "commit " + short(m.Commit) + " (" + m.Ref + ")"
	default:
		return "commit " + short(m.Commit)
	}
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// guardrailsFor returns the guardrails that apply to agent, strongest tier
// first and sorted by id within a tier.
func guardrailsFor(doc *schema.Document, agent string) []*schema.Guardrail {
	out := make([]*schema.Guardrail, 0, len(doc.Guardrails))
	for i := range doc.Guardrails {
		if g := &doc.Guardrails[i]; g.AppliesToAgent(agent) {
			out = append(out, g)
		}
	}
	slices.SortStableFunc(out, func(a, b *schema.Guardrail) int {
		if d := a.Severity.Rank() - b.Severity.Rank(); d != 0 {
			return d
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// byTier returns the run of gs (sorted by guardrailsFor) in tier s.
func byTier(gs []*schema.Guardrail, s schema.Severity) []*schema.Guardrail {
	lo := slices.IndexFunc(gs, func(g *schema.Guardrail) bool { return g.Severity == s })
	if lo < 0 {
		return nil
	}
	hi := lo
	for hi < len(gs) && gs[hi].Severity == s {
		hi++
	}
	return gs[lo:hi]
}

// sizeHint estimates a render's size so its buffer grows once.
func sizeHint(doc *schema.Document) int {
	return 4096 + len(doc.Project.Overview) + 400*len(doc.Guardrails) + 200*len(doc.Project.Conventions)
}

// Origin says in one line who proposed a rule and who approved it.
func Origin(p schema.Provenance) string {
	// Every field may come from an unvalidated document: inert inline.
	for _, f := range []*string{&p.Agent, &p.AgentSession, &p.Vendor, &p.ProposedBy, &p.PullRequest, &p.ApprovedBy, &p.ApprovedAt, &p.Unapproved, &p.Baseline} {
		*f = mdsafe.Inline(*f)
	}
	var who string
	switch p.Source {
	case schema.SourceAgent:
		who = "proposed by agent " + orUnknown(p.Agent)
		if p.AgentSession != "" {
			who += " (session " + p.AgentSession + ")"
		}
	case schema.SourceVendor:
		v := p.Vendor
		if v == "" {
			v = "the vendor"
		}
		who = "suggested by " + v
		if p.Agent != "" {
			who += " for " + p.Agent
		}
	default:
		who = "project policy"
		if p.ProposedBy != "" {
			who += ", proposed by " + p.ProposedBy
		}
	}
	switch {
	case p.Unapproved != "":
		return who + "; NOT APPROVED: " + p.Unapproved
	case p.Verified && p.Baseline != "":
		return who + "; in the owner's baseline (commit " + short(p.Baseline) + ")"
	case p.Verified:
		if p.PullRequest != "" {
			who += ", via proposal " + proposalRef(p.PullRequest)
		}
		if p.ApprovedAt != "" {
			return who + "; approved by " + p.ApprovedBy + " on " + day(p.ApprovedAt)
		}
		return who + "; approved by " + p.ApprovedBy
	}
	// Without the history, approval fields are only what the file claims.
	var claim []string
	if p.ApprovedBy != "" {
		claim = append(claim, "approved by "+p.ApprovedBy)
	}
	if p.ApprovedAt != "" {
		claim = append(claim, "on "+day(p.ApprovedAt))
	}
	if p.PullRequest != "" {
		claim = append(claim, "via proposal "+proposalRef(p.PullRequest))
	}
	if len(claim) == 0 {
		return who + "; approval not recorded"
	}
	return who + "; approval unverified (the rules file claims: " + strings.Join(claim, " ") + ")"
}

func proposalRef(pr string) string {
	if isDigits(pr) {
		return "#" + pr
	}
	return pr
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func day(ts string) string {
	if len(ts) >= 10 {
		return ts[:10]
	}
	return ts
}

// TierMeaning says what a tier means to the agent.
func TierMeaning(s schema.Severity) string {
	switch s {
	case schema.Enforcement:
		return "Bridle itself enforces these: it refuses the action unless your permissions allow it. A refusal is the rule working; do not try to work around it."
	case schema.HardInstruction:
		return "Required. Check every action of yours against these before you take it."
	default:
		return "Follow these unless you have a clear reason not to, and say so when you deviate."
	}
}

// TierTitle is a tier's heading.
func TierTitle(s schema.Severity) string {
	switch s {
	case schema.Enforcement:
		return "Enforced by Bridle"
	case schema.HardInstruction:
		return "Required"
	default:
		return "Guidance"
	}
}

// permissionUse says what each permission lets an agent do.
var permissionUse = []struct {
	name schema.Permission
	does string
}{
	{schema.PermRulesPropose, "propose rule changes (propose_guardrail, add_pattern, update_rules)"},
	{schema.PermRulesApprove, "approve (merge) rule proposals, which only a person may do: Bridle refuses it to every agent"},
	{schema.PermGiteaRead, "read repositories, issues and pull requests in Gitea"},
	{schema.PermGiteaWrite, "push branches and open or comment on pull requests in Gitea"},
	{schema.PermKanboardRead, "read tasks on the Kanboard board"},
	{schema.PermKanboardWrite, "create, move, comment on and close Kanboard tasks"},
	{schema.PermMemoryRead, "recall session memory (recall)"},
	{schema.PermMemoryWrite, "store session memory (remember)"},
	{schema.PermMemoryForget, "delete session memory (forget)"},
	{schema.PermSecretsRead, "read secrets from the vault"},
}

func permissions(doc *schema.Document, agent string) (allowed, denied []string) {
	p := doc.Permissions[agent]
	for _, u := range permissionUse {
		use := u.does + " (`" + string(u.name) + "`)"
		if p.Allows(string(u.name)) {
			allowed = append(allowed, use)
		} else {
			denied = append(denied, use)
		}
	}
	return allowed, denied
}

// scopeRules returns the ids of the guardrails that require scope approval.
func scopeRules(gs []*schema.Guardrail) []string {
	var ids []string
	for _, g := range gs {
		if g.ScopeApproval {
			ids = append(ids, g.ID)
		}
	}
	return ids
}

func commandsByName(doc *schema.Document, names ...string) []schema.Command {
	var out []schema.Command
	for _, c := range doc.Project.Commands {
		if slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// code renders s as an inline code span that s cannot close early: the
// fence is one backtick longer than the longest run of backticks in s.
func code(s string) string {
	s = mdsafe.Plain(s) // a code span holds no markup; only line breaks and refused characters matter
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	if longest == 0 {
		return "`" + s + "`"
	}
	fence := strings.Repeat("`", longest+1)
	return fence + " " + s + " " + fence
}

func codes(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = code(s)
	}
	return strings.Join(out, ", ")
}

// lead makes one-line user text that starts a line's content (a list item's
// first words) inert: see mdsafe.Line. Validation refuses what it cannot
// make inert; this is the defence for documents that did not pass through
// it (snapshots compiled elsewhere).
func lead(s string) string { return mdsafe.Line(s) }

// text makes one-line user text inert where it stands inside a line, after
// Bridle's own words or in a heading: see mdsafe.Inline.
func text(s string) string { return mdsafe.Inline(s) }

func texts(ss []string, sep string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = text(s)
	}
	return strings.Join(out, sep)
}

func backticks(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "`" + id + "`"
	}
	return strings.Join(out, ", ")
}

// paragraphs writes multi-line prose, trimmed, with every construct that
// could swallow or restructure the sections after it escaped (see
// mdsafe.Prose); prose that passed validation is written as it is.
func paragraphs(b *strings.Builder, prose string) {
	t := strings.TrimSpace(prose)
	if t == "" {
		return
	}
	b.WriteString(mdsafe.Prose(t))
	b.WriteString("\n\n")
}
