package proposals

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/schema"
)

// Draft is a proposal before it exists: the change and who proposes it.
type Draft struct {
	Change Change `json:"change"`
	Origin Origin `json:"origin"`
}

// Prepared is a validated draft, ready for a backend to create.
type Prepared struct {
	Draft   Draft
	Title   string
	Body    string
	Branch  string
	Message string // commit message with trailers
	Labels  []string
	Rules   []byte // the new bridle.yaml
	Base    string // main's commit the change was made on
	// Files are every file the proposal commit writes, by slash path
	// relative to the rules file's directory: bridle.yaml and its renders
	// (under rendered/, or at the repository root for a rules folder).
	Files map[string][]byte
}

// Prepare applies d to main's rules (before, at commit base), validates the
// result, and builds the title, body, branch and commit message, with the
// renders in rendered/ beside bridle.yaml (a rules repository's layout).
// Invalid results fail with an error wrapping ErrInvalid and the
// diagnostics.
func Prepare(before []byte, base string, d Draft, version string) (Prepared, error) {
	return PrepareIn(before, base, d, version, Layout{RenderDir: scaffold.RenderDir})
}

// Layout is where a repository keeps the files a proposal commits besides
// bridle.yaml.
type Layout struct {
	// RenderDir holds the agents' files: a slash path relative to the rules
	// file's directory (scaffold.RenderDirFor).
	RenderDir string
	// Native also commits the agents' native enforcement files (Claude
	// Code settings, Codex rules) under RenderDir, as render --all writes
	// them, merged with what the base commit holds there: Read reads a
	// file of the base commit by slash path relative to RenderDir (nil,
	// nil when absent); RulesPath is the hook's rules path relative to
	// RenderDir. A rules folder in a project does this: RenderDir is the
	// project root, where the agents read them.
	Native    bool
	RulesPath string
	Read      func(path string) ([]byte, error)
}

// PrepareIn is Prepare with the files laid out as l says.
func PrepareIn(before []byte, base string, d Draft, version string, l Layout) (Prepared, error) {
	// The node-level edit below walks main's YAML: refuse a main whose YAML
	// cannot be parsed safely (alias cycles, bombs) before touching it.
	if f, diags := schema.Parse("bridle.yaml (main)", before); f == nil {
		return Prepared{}, &InvalidError{Diagnostics: diags}
	}
	d.Change.Rationale = strings.TrimSpace(MultiLine(d.Change.Rationale))
	d.Change = d.Change.Recorded(before).stamped(d.Origin)
	after, err := Apply(before, d.Change, d.Origin)
	if err != nil {
		return Prepared{}, err
	}
	old, _ := compiler.CompileBytes(compiler.Input{Name: "bridle.yaml", Data: before}, "proposal")
	snap, diags := compiler.CompileBytes(compiler.Input{Name: "bridle.yaml (proposed)", Data: after}, "proposal")
	if snap == nil {
		return Prepared{}, &InvalidError{Diagnostics: diags}
	}
	p := Prepared{
		Draft:  d,
		Title:  d.Change.Title(),
		Branch: Branch(d.Origin, d.Change),
		Rules:  after,
		Base:   base,
		Labels: []string{"bridle", "source/" + string(d.Origin.Source), "kind/" + string(d.Change.Kind)},
	}
	p.Body = body(d, before, old, snap)
	p.Message = message(p.Title, d)
	p.Files = map[string][]byte{"bridle.yaml": after}
	for _, r := range scaffold.Renders(snap, version) {
		p.Files[path.Join(l.RenderDir, r.Path)] = []byte(r.Content)
	}
	if l.Native && l.Read != nil {
		n, err := renderers.RenderNativeFrom(l.Read, &snap.Document, renderers.NativeOptions{RulesPath: l.RulesPath})
		if err != nil {
			return Prepared{}, fmt.Errorf("the agents' native files: %w", err)
		}
		var b strings.Builder
		for _, f := range n.Files {
			p.Files[path.Join(l.RenderDir, f.Path)] = []byte(f.Content)
			was, err := l.Read(f.Path)
			if err != nil {
				return Prepared{}, fmt.Errorf("the agents' native files: %w", err)
			}
			if string(was) == f.Content {
				continue
			}
			fmt.Fprintf(&b, "### %s (%s)\n\n", CodeSpan(f.Path), CodeSpan(f.Renderer))
			b.WriteString(Fence(udiff.Unified("a/"+f.Path, "b/"+f.Path, string(was), f.Content), "diff") + "\n")
		}
		if b.Len() > 0 {
			// What the agents' harnesses will enforce — and the hook they
			// will run — is for the reviewer to see too.
			p.Body = strings.Replace(p.Body, approvesLine, "## Effect on the agents' native enforcement files\n\n"+b.String()+approvesLine, 1)
		}
	}
	return p, nil
}

// InvalidError carries the diagnostics of a proposal that would make the
// rules invalid.
type InvalidError struct{ Diagnostics schema.Diagnostics }

func (e *InvalidError) Error() string {
	return fmt.Sprintf("%v:\n%s", ErrInvalid, e.Diagnostics.Error())
}

func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Trailer keys of a proposal commit.
const (
	TrailerSource  = "Bridle-Source"
	TrailerAgent   = "Bridle-Agent"
	TrailerSession = "Bridle-Session"
	TrailerKind    = "Bridle-Kind"
	TrailerSubject = "Bridle-Subject"
	TrailerAuthor  = "Bridle-Author" // the proposing human, for source user
	// TrailerTriggeredBy is who started a vendor sync (Origin.TriggeredBy).
	TrailerTriggeredBy = "Bridle-Triggered-By"
	// TrailerDraft carries the whole draft (change and origin), base64 JSON:
	// rebase and approval read it from the commit, checked against the
	// branch's content, never from the editable pull-request body.
	TrailerDraft = "Bridle-Draft"
)

func message(title string, d Draft) string {
	var b strings.Builder
	b.WriteString(title + "\n\n")
	if r := strings.TrimSpace(d.Change.Rationale); r != "" {
		b.WriteString(wrap(OneLine(r, 2000), 72) + "\n\n")
	}
	fmt.Fprintf(&b, "%s: %s\n", TrailerSource, OneLine(string(d.Origin.Source), 20))
	if a := d.Origin.Agent; a != "" {
		fmt.Fprintf(&b, "%s: %s\n", TrailerAgent, OneLine(a, 80))
	}
	if s := d.Origin.Session; s != "" {
		fmt.Fprintf(&b, "%s: %s\n", TrailerSession, OneLine(s, 120))
	}
	if a := d.Origin.Author; a != "" && d.Origin.Source != schema.SourceAgent {
		fmt.Fprintf(&b, "%s: %s\n", TrailerAuthor, OneLine(a, 80))
	}
	if a := d.Origin.TriggeredBy; a != "" {
		fmt.Fprintf(&b, "%s: %s\n", TrailerTriggeredBy, OneLine(a, 80))
	}
	fmt.Fprintf(&b, "%s: %s\n", TrailerKind, d.Change.Kind)
	fmt.Fprintf(&b, "%s: %s\n", TrailerSubject, OneLine(d.Change.Subject(), 200))
	raw, _ := json.Marshal(d)
	fmt.Fprintf(&b, "%s: %s\n", TrailerDraft, base64.StdEncoding.EncodeToString(raw))
	return b.String()
}

func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		if n > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// approvesLine ends the human part of a pull request's body.
const approvesLine = "Merging this pull request approves the change.\n\n"

// changeMarker starts the machine-readable copy of the draft in a body.
const changeMarker = "<!-- bridle-draft "

// body is the pull request's description. Everything in it that an agent
// (or a vendor) wrote is quoted so that it stays inert text: the rationale
// and the change sit in fenced blocks whose fence is longer than any run of
// backticks inside, and names sit in code spans likewise, so no text can
// open a section, an HTML comment or a tag that hides the real change.
func body(d Draft, before []byte, old, snap *compiler.Snapshot) string {
	var b strings.Builder
	b.WriteString("## Rationale\n\n")
	if d.Change.Rationale != "" {
		b.WriteString("The proposer's words, quoted as written:\n\n")
		b.WriteString(Fence(d.Change.Rationale, "text"))
		b.WriteString("\n")
	} else {
		b.WriteString("_No rationale given._\n\n")
	}
	b.WriteString("## Proposed by\n\n")
	switch d.Origin.Source {
	case schema.SourceAgent:
		fmt.Fprintf(&b, "Agent %s, session %s.\n\n", CodeSpan(OneLine(d.Origin.Agent, 80)), CodeSpan(OneLine(d.Origin.Session, 120)))
	case schema.SourceVendor:
		fmt.Fprintf(&b, "The vendor of the %s profile, in its published guidance", CodeSpan(OneLine(d.Origin.Agent, 80)))
		if by := cmp.Or(d.Origin.TriggeredBy, d.Origin.Author); by != "" {
			fmt.Fprintf(&b, " (a sync started by %s)", CodeSpan(OneLine(by, 80)))
		}
		b.WriteString(".\n\n")
	default:
		fmt.Fprintf(&b, "%s.\n\n", orSomeone(d.Origin.Author))
	}
	b.WriteString("## Change\n\n")
	if d.Change.Kind == KindEdit {
		b.WriteString(Fence(udiff.Unified("a/bridle.yaml", "b/bridle.yaml", string(before), d.Change.Document), "diff"))
	} else {
		b.WriteString(Fence(changeYAML(d.Change), "yaml"))
	}
	b.WriteString("\n## Effect on each agent's rendered file\n\n")
	for _, r := range snap.Renders {
		before := ""
		if old != nil {
			if o, ok := old.Render(r.Agent); ok {
				before = stripHeader(o.Content)
			}
		}
		diff := udiff.Unified("a/"+r.Path, "b/"+r.Path, before, stripHeader(r.Content))
		fmt.Fprintf(&b, "### %s (%s)\n\n", CodeSpan(r.Path), CodeSpan(r.Agent))
		if diff == "" {
			b.WriteString("No change.\n\n")
			continue
		}
		b.WriteString(Fence(diff, "diff") + "\n")
	}
	b.WriteString(approvesLine)
	raw, _ := json.Marshal(d)
	b.WriteString(changeMarker + base64.StdEncoding.EncodeToString(raw) + " -->\n")
	return b.String()
}

// Fence quotes s as a fenced code block that nothing in s can close: the
// fence is one backtick longer than the longest run of backticks in s (at
// least three). Markdown renders its content as literal text.
func Fence(s, info string) string {
	s = MultiLine(s)
	n := max(3, longestRun(s, '`')+1)
	f := strings.Repeat("`", n)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return f + info + "\n" + s + f + "\n"
}

// CodeSpan quotes a one-line s as an inline code span nothing in s can
// close.
func CodeSpan(s string) string {
	s = OneLine(s, 500)
	if s == "" {
		return "(none)"
	}
	f := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return f + pad + s + pad + f
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

func orSomeone(s string) string {
	if s == "" {
		return "A maintainer"
	}
	return OneLine(s, 80)
}

func stripHeader(s string) string {
	if i := strings.Index(s, "-->\n"); i >= 0 && strings.HasPrefix(s, "<!--") {
		return s[i+4:]
	}
	return s
}

// ChangeYAML is the change as the YAML it adds to the rules document.
func ChangeYAML(c Change) string { return changeYAML(c) }

func changeYAML(c Change) string {
	var v any
	switch c.Kind {
	case KindGuardrail:
		v = map[string]any{"guardrails": []any{c.Guardrail}}
	case KindPattern:
		v = map[string]any{"patterns": map[string]any{"custom": []any{c.Pattern}}}
	case KindRules:
		parent, key, _ := strings.Cut(c.Section, ".")
		v = map[string]any{parent: map[string]any{key: c.Value}}
	case KindPromote:
		v = map[string]any{"promote": c.Promote}
	case KindVendor:
		// Each suggestion with its evidence: the vendor's words, quoted
		// (the body fences this whole block), and where they were read.
		v = map[string]any{"agent_profiles": map[string]any{c.Vendor.Agent: map[string]any{
			"vendor_guardrail_suggestions (added)": c.Vendor.Add, "withdrawn": c.Vendor.Withdraw, "dismissed": c.Vendor.Dismiss}}}
	case KindEdit:
		return c.Document
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		return "# (could not render the change)\n"
	}
	return string(out)
}

// Description is a proposal's body as a person reads it: without the
// machine-readable copy of the draft (base64 in an HTML comment, hidden
// where the forge renders markdown) that Bridle appends to it.
func Description(body string) string {
	i := strings.LastIndex(body, changeMarker)
	if i < 0 {
		return body
	}
	rest := body[i:]
	j := strings.Index(rest, " -->")
	if j < 0 {
		return body
	}
	after := strings.TrimPrefix(rest[j+len(" -->"):], "\n")
	return strings.TrimRight(body[:i], "\n") + "\n" + after
}

// DraftFromBody recovers the draft stored in a proposal's body.
func DraftFromBody(body string) (Draft, bool) {
	i := strings.LastIndex(body, changeMarker)
	if i < 0 {
		return Draft{}, false
	}
	rest := body[i+len(changeMarker):]
	j := strings.Index(rest, " -->")
	if j < 0 {
		return Draft{}, false
	}
	raw, err := base64.StdEncoding.DecodeString(rest[:j])
	if err != nil {
		return Draft{}, false
	}
	var d Draft
	if json.Unmarshal(raw, &d) != nil {
		return Draft{}, false
	}
	return d, true
}

// AgentDiff is how a change affects one agent's rendered file.
type AgentDiff struct {
	Agent string `json:"agent"`
	Path  string `json:"path"`
	Diff  string `json:"diff"` // unified; "" when the file does not change
}

// RenderDiffs is the effect of going from old (nil for none) to snap on
// each agent's rendered file, in snap's agent order; headers (which name
// the version and the hash) are left out.
func RenderDiffs(old, snap *compiler.Snapshot) []AgentDiff {
	var out []AgentDiff
	for _, r := range snap.Renders {
		before := ""
		if old != nil {
			if o, ok := old.Render(r.Agent); ok {
				before = stripHeader(o.Content)
			}
		}
		out = append(out, AgentDiff{Agent: r.Agent, Path: r.Path, Diff: udiff.Unified("a/"+r.Path, "b/"+r.Path, before, stripHeader(r.Content))})
	}
	return out
}
