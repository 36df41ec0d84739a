package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/internal/mdsafe"
)

// Load parses and validates a rules document: Parse, then the JSON Schema,
// then the semantic checks. The file is nil only when the document could not
// be decoded at all; callers must still check diags.HasErrors().
func Load(name string, data []byte) (*File, Diagnostics) {
	f, diags := Parse(name, data)
	if f == nil {
		return nil, diags
	}
	diags = append(diags, f.Validate()...)
	return f, diags.Sort().Limit(MaxDiagnostics)
}

// Validate runs the JSON Schema and the semantic checks on a parsed file.
// The JSON Schema pass runs on a second goroutine beside the semantic
// checks; both only read the file.
func (f *File) Validate() Diagnostics {
	schemaDone := make(chan Diagnostics, 1)
	go func() { schemaDone <- f.schemaDiagnostics() }()
	var sem Diagnostics
	if f.decodeErr.Message == "" || f.partial {
		sem = f.semantic()
	}
	ds := <-schemaDone
	if len(ds) == 0 && f.decodeErr.Message != "" {
		ds = append(ds, f.decodeErr)
	}
	return append(ds, sem...).Sort()
}

var printer = message.NewPrinter(language.English)

// schemaDoc is the committed schema as plain values, for looking up the
// allowed property names behind an additionalProperties error.
var schemaDoc = sync.OnceValue(func() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(committed, &m)
	return m
})

func (f *File) schemaDiagnostics() Diagnostics {
	sch, err := compiled()
	if err != nil {
		return Diagnostics{{File: f.Name, Line: 1, Col: 1, Level: Error, Message: err.Error()}}
	}
	err = sch.Validate(f.value)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var ds Diagnostics
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		ds = append(ds, f.fromSchemaError(e)...)
	}
	walk(ve)
	return ds
}

// docPath turns a JSON pointer's tokens into a document path, using the value
// to tell sequence indexes from mapping keys.
func (f *File) docPath(tokens []string) string {
	p, v := "", f.value
	for _, t := range tokens {
		switch vv := v.(type) {
		case []any:
			i, _ := strconv.Atoi(t)
			p = JoinIndex(p, i)
			if i >= 0 && i < len(vv) {
				v = vv[i]
			} else {
				v = nil
			}
		case map[string]any:
			p = JoinKey(p, t)
			v = vv[t]
		default:
			p = JoinKey(p, t)
			v = nil
		}
	}
	return p
}

func (f *File) diag(p Pos, path, msg, fix string) Diagnostic {
	return Diagnostic{File: f.Name, Line: p.Line, Col: p.Col, Level: Error, Path: path, Message: msg, Fix: fix}
}

func (f *File) fromSchemaError(e *jsonschema.ValidationError) Diagnostics {
	p := f.docPath(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		allowed := allowedProperties(e.SchemaURL)
		var ds Diagnostics
		for _, prop := range k.Properties {
			kp := JoinKey(p, prop)
			d := f.diag(f.KeyPos(kp), kp, "unknown key "+quote(prop), "")
			d.Suggest = Suggest(prop, allowed)
			if len(allowed) > 0 {
				d.Fix = "remove it or use one of: " + strings.Join(allowed, ", ")
			} else {
				d.Fix = "remove it"
			}
			ds = append(ds, d)
		}
		return ds
	case *kind.Required:
		var ds Diagnostics
		for _, m := range k.Missing {
			ds = append(ds, f.diag(f.KeyPos(p), p, fmt.Sprintf("missing required key %q", m), "add "+m+": …"))
		}
		return ds
	case *kind.Enum:
		var want []string
		for _, w := range k.Want {
			want = append(want, fmt.Sprint(w))
		}
		got := fmt.Sprint(k.Got)
		d := f.diag(f.Pos(p), p, quote(got)+" is not one of "+strings.Join(want, ", "),
			"use one of: "+strings.Join(want, ", "))
		d.Suggest = Suggest(got, want)
		return Diagnostics{d}
	case *kind.Type:
		want := strings.Join(k.Want, " or ")
		return Diagnostics{f.diag(f.Pos(p), p, fmt.Sprintf("must be %s %s, not %s %s", article(want), want, article(k.Got), k.Got),
			typeFix(k.Want))}
	case *kind.MinLength:
		if k.Want == 1 {
			return Diagnostics{f.diag(f.Pos(p), p, "must not be empty", "write a value or remove the key")}
		}
	case *kind.MaxLength:
		return Diagnostics{f.diag(f.Pos(p), p, fmt.Sprintf("is %d characters, longer than the %d allowed", k.Got, k.Want),
			"shorten it; put detail in a rationale or in the project overview")}
	case *kind.MaxItems:
		return Diagnostics{f.diag(f.Pos(p), p, fmt.Sprintf("has %d items, more than the %d allowed", k.Got, k.Want), "remove some items")}
	case *kind.Pattern:
		return Diagnostics{f.diag(f.Pos(p), p, quote(k.Got)+" is not a valid "+lastKey(p),
			"use lower-case letters, digits and dashes, starting with a letter or digit (e.g. no-secrets-in-logs)")}
	case *kind.Format:
		fix := "use the " + k.Want + " format"
		if k.Want == "date-time" {
			fix = "use an RFC 3339 timestamp such as 2026-03-01T12:00:00Z"
		}
		return Diagnostics{f.diag(f.Pos(p), p, quote(fmt.Sprint(k.Got))+" is not a valid "+k.Want, fix)}
	case *kind.Minimum:
		return Diagnostics{f.diag(f.Pos(p), p, shortenQuoted(k.LocalizedString(printer)), "")}
	}
	return Diagnostics{f.diag(f.Pos(p), p, shortenQuoted(e.ErrorKind.LocalizedString(printer)), "")}
}

func lastKey(p string) string {
	i := strings.LastIndexAny(p, ".]")
	if i >= 0 && i+1 < len(p) {
		return p[i+1:]
	}
	return "value"
}

func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an"
	}
	return "a"
}

func typeFix(want []string) string {
	switch {
	case slices.Contains(want, "array"):
		return "write a YAML list, one `- item` per line"
	case slices.Contains(want, "object"):
		return "write a YAML mapping of `key: value` lines, indented under this key"
	case slices.Contains(want, "boolean"):
		return "write true or false"
	case slices.Contains(want, "string"):
		return "quote the value"
	case slices.Contains(want, "integer"):
		return "write a whole number"
	}
	return ""
}

// allowedProperties finds the properties allowed by the schema object whose
// additionalProperties keyword failed, from the error's schema URL.
func allowedProperties(schemaURL string) []string {
	_, ptr, ok := strings.Cut(schemaURL, "#")
	if !ok {
		return nil
	}
	ptr = strings.TrimSuffix(ptr, "/additionalProperties")
	var cur any = schemaDoc()
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	m, _ := cur.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// semantic runs the checks a JSON Schema cannot express.
func (f *File) semantic() Diagnostics {
	c := checker{f: f, d: &f.Doc}
	c.known = append(c.d.Agents(), AllAgents)
	c.agents()
	c.project()
	c.guardrails()
	c.patterns()
	c.permissions()
	return c.ds
}

type checker struct {
	f     *File
	d     *Document
	ds    Diagnostics
	known []string // agents with a profile, then all_agents
}

func (c *checker) errorAt(p Pos, path, fix, format string, args ...any) *Diagnostic {
	c.ds = append(c.ds, c.f.diag(p, path, fmt.Sprintf(format, args...), fix))
	return &c.ds[len(c.ds)-1]
}

// Placeholder marks a value bridle init could not know (the project's
// overview, a stack or command it found no file for): validation warns
// while one remains.
const Placeholder = "TODO(bridle)"

// placeholder warns about a value still holding Placeholder.
func (c *checker) placeholder(path, v string) {
	if strings.Contains(v, Placeholder) {
		c.warnAt(c.f.Pos(path), path, "replace it with what is true of this project (agents read it as the rules)",
			"still bridle init's placeholder")
	}
}

func (c *checker) warnAt(p Pos, path, fix, format string, args ...any) *Diagnostic {
	d := c.f.diag(p, path, fmt.Sprintf(format, args...), fix)
	d.Level = Warning
	c.ds = append(c.ds, d)
	return &c.ds[len(c.ds)-1]
}

// unique reports repeated ids: the second and later occurrences point at
// the first.
func (c *checker) unique(what string, seen map[string]string, id, path string) {
	if id == "" {
		return
	}
	if first, dup := seen[id]; dup {
		c.errorAt(c.f.Pos(path), path, "make each "+what+" unique, or delete the repeated entry",
			"duplicate %s %s (first used at %s, line %d)", what, quote(id), first, c.f.Pos(first).Line)
		return
	}
	seen[id] = path
}

var agentNameRe = func(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func (c *checker) agents() {
	outputs := map[string]string{}
	clients := map[string]string{}
	for _, a := range c.d.Agents() {
		ap := JoinKey("agent_profiles", a)
		kp := c.f.KeyPos(ap)
		if !agentNameRe(a) || a == AllAgents || a == "unknown" {
			c.errorAt(kp, ap, "use a short lower-case name such as claude, codex or my-agent",
				"%s is not a valid agent name", quote(a))
			continue
		}
		if sg := c.misspeltAgent(a); sg != "" {
			// An agent of one's own is allowed; one a letter away from a
			// known agent, with no harness or model of its own, is most
			// likely that agent misspelt: its renders and permissions would
			// silently go to an agent no harness reads.
			d := c.warnAt(kp, ap, fmt.Sprintf("rename it to %s (here and under permissions:), or give an agent of your own a harness: or model:", sg),
				"%s is no agent Bridle knows", quote(a))
			d.Suggest = sg
		}
		p := c.d.Resolved(a)
		if h := c.d.AgentProfiles[a].Harness; h != "" && !slices.Contains(agents.Harnesses(), h) {
			hp := JoinKey(ap, "harness")
			d := c.errorAt(c.f.Pos(hp), hp, "use one of: "+strings.Join(agents.Harnesses(), ", ")+" (a model goes under model:)",
				"unknown harness %s", quote(h))
			d.Suggest = Suggest(h, agents.Harnesses())
		}
		c.oneLine(JoinKey(ap, "model"), c.d.AgentProfiles[a].Model)
		out := p.Output
		op := JoinKey(ap, "output")
		switch clean := path.Clean(out); {
		case path.IsAbs(out) || strings.HasPrefix(clean, "..") || strings.Contains(out, "\\"):
			c.errorAt(c.f.Pos(op), op, "use a relative path inside the output directory, e.g. agents/kimi/AGENTS.md",
				"output %s escapes the output directory", quote(out))
		case !strings.HasSuffix(out, ".md") && !strings.HasSuffix(out, ".mdc"):
			c.errorAt(c.f.Pos(op), op, "name a markdown file, e.g. agents/"+a+"/AGENTS.md", "output %s is not a .md (or Cursor .mdc) file", quote(out))
		default:
			key := strings.ToLower(clean)
			if other, dup := outputs[key]; dup {
				hint := fmt.Sprintf("set agent_profiles.%s.output to a path of its own, e.g. agents/%s/%s", a, a, path.Base(clean))
				if oh, ah := c.d.Resolved(other).Harness, p.Harness; agents.Share(oh, ah) {
					// Neither harness reads a file of its own (Amp reads
					// only AGENTS.md): one profile's render serves both.
					hint = fmt.Sprintf("keep the profile of %s or of %s, not both: both harnesses read %s, and the one left reads the other's render", other, a, clean)
				}
				c.errorAt(c.f.KeyPos(ap), ap, hint,
					"agents %s and %s would both write %s; no render may overwrite another", other, a, clean)
			} else {
				outputs[key] = a
			}
		}
		for i, cl := range p.MCPClients {
			cp := JoinIndex(JoinKey(ap, "mcp_clients"), i)
			if other, dup := clients[cl]; dup && other != a {
				c.errorAt(c.f.Pos(cp), cp, "list each MCP client name under one agent only",
					"MCP client %s already identifies agent %s", quote(cl), other)
			}
			clients[cl] = a
		}
		seen := map[string]string{}
		prof := c.d.AgentProfiles[a]
		for i, s := range prof.VendorGuardrailSuggestions {
			sp := JoinIndex(JoinKey(ap, "vendor_guardrail_suggestions"), i)
			c.unique("vendor suggestion id", seen, s.ID, JoinKey(sp, "id"))
			c.oneLine(JoinKey(sp, "statement"), s.Statement)
			c.oneLine(JoinKey(sp, "rationale"), s.Rationale)
			c.oneLine(JoinKey(sp, "section"), s.Section)
			c.oneLine(JoinKey(sp, "excerpt"), s.Excerpt)
		}
		urls := map[string]string{}
		for i, src := range prof.VendorSources {
			sp := JoinKey(JoinIndex(JoinKey(ap, "vendor_sources"), i), "url")
			c.unique("vendor source", urls, src.URL, sp)
			if err := VendorURL(src.URL); err != nil {
				c.errorAt(c.f.Pos(sp), sp, "use an https URL (or http on 127.0.0.1 / localhost for a local mirror)", "%v", err)
			}
		}
		c.oneLine(JoinKey(ap, "display_name"), prof.DisplayName)
	}
}

func (c *checker) project() {
	pr := c.d.Project
	c.oneLine("project.name", pr.Name)
	c.prose("project.overview", pr.Overview)
	c.placeholder("project.name", pr.Name)
	c.placeholder("project.overview", pr.Overview)
	for i, s := range pr.Stack {
		c.oneLine(JoinIndex("project.stack", i), s)
		c.placeholder(JoinIndex("project.stack", i), s)
	}
	names := map[string]string{}
	for i, cmd := range pr.Commands {
		p := JoinIndex("project.commands", i)
		c.unique("command name", names, cmd.Name, JoinKey(p, "name"))
		c.oneLine(JoinKey(p, "name"), cmd.Name)
		c.oneLine(JoinKey(p, "run"), cmd.Run)
		c.placeholder(JoinKey(p, "run"), cmd.Run)
	}
	ids := map[string]string{}
	for i, cv := range pr.Conventions {
		p := JoinIndex("project.conventions", i)
		c.unique("convention id", ids, cv.ID, JoinKey(p, "id"))
		c.oneLine(JoinKey(p, "statement"), cv.Statement)
		c.oneLine(JoinKey(p, "rationale"), cv.Rationale)
	}
}

func (c *checker) guardrails() {
	ids := map[string]string{}
	for i, g := range c.d.Guardrails {
		p := JoinIndex("guardrails", i)
		c.unique("guardrail id", ids, g.ID, JoinKey(p, "id"))
		c.oneLine(JoinKey(p, "statement"), g.Statement)
		c.oneLine(JoinKey(p, "rationale"), g.Rationale)
		c.appliesTo(JoinKey(p, "applies_to"), g.AppliesTo)
		c.provenance(JoinKey(p, "provenance"), g.Provenance)
		c.enforce(p, g)
		if len(g.EnforcedBy) > 0 && g.Severity != Enforcement {
			ep := JoinKey(p, "enforced_by")
			c.warnAt(c.f.KeyPos(ep), ep, "set severity: enforcement, or remove enforced_by",
				"enforced_by has no effect on a %s rule", g.Severity)
		}
		if g.ScopeApproval && g.Severity == Guidance {
			sp := JoinKey(p, "scope_approval")
			c.warnAt(c.f.KeyPos(sp), sp, "set severity: hard-instruction so the agent must ask before expanding scope",
				"scope_approval on a guidance rule is only advice")
		}
	}
}

func (c *checker) appliesTo(p string, agents []string) {
	known := c.known
	for i, a := range agents {
		ip := JoinIndex(p, i)
		if a == AllAgents {
			if len(agents) > 1 {
				c.warnAt(c.f.Pos(ip), ip, "list either all_agents or specific agents", "all_agents makes the other entries redundant")
			}
			continue
		}
		if _, ok := c.d.AgentProfiles[a]; !ok {
			d := c.errorAt(c.f.Pos(ip), ip, "add a profile under agent_profiles, or use one of: "+strings.Join(known, ", "),
				"unknown agent %s", quote(a))
			d.Suggest = Suggest(a, known)
		}
	}
}

func (c *checker) provenance(p string, pv Provenance) {
	switch pv.Source {
	case SourceAgent:
		if pv.Agent == "" {
			c.errorAt(c.f.KeyPos(p), p, "add agent: <name of the proposing agent>", "source is agent but no agent is named")
		}
	case SourceVendor:
		if pv.Vendor == "" && pv.Agent == "" {
			c.errorAt(c.f.KeyPos(p), p, "add vendor: <vendor name> or agent: <profile whose vendor suggested it>",
				"source is vendor but no vendor is named")
		}
	}
	if pv.ApprovedAt != "" && pv.ApprovedBy == "" {
		ap := JoinKey(p, "approved_at")
		c.warnAt(c.f.KeyPos(ap), ap, "add approved_by: <who merged it>", "approved_at without approved_by")
	}
	for _, k := range []struct{ key, v string }{
		{"agent", pv.Agent}, {"agent_session", pv.AgentSession}, {"vendor", pv.Vendor},
		{"proposed_by", pv.ProposedBy}, {"pull_request", pv.PullRequest}, {"approved_by", pv.ApprovedBy},
	} {
		c.oneLine(JoinKey(p, k.key), k.v)
	}
}

func (c *checker) patterns() {
	for i, s := range c.d.Patterns.Standard {
		c.oneLine(JoinIndex("patterns.standard", i), s)
	}
	names := map[string]string{}
	tags := map[string]string{}
	for i, cp := range c.d.Patterns.Custom {
		p := JoinIndex("patterns.custom", i)
		c.unique("pattern name", names, cp.Name, JoinKey(p, "name"))
		c.prose(JoinKey(p, "description"), cp.Description)
		c.provenance(JoinKey(p, "provenance"), cp.Provenance)
		for j, r := range cp.ExampleRepos {
			rp := JoinIndex(JoinKey(p, "example_repos"), j)
			c.unique("reference_tag", tags, r.ReferenceTag, JoinKey(rp, "reference_tag"))
			c.oneLine(JoinKey(rp, "url"), r.URL)
			c.oneLine(JoinKey(rp, "ref"), r.Ref)
			for k, pth := range r.Paths {
				pp := JoinIndex(JoinKey(rp, "paths"), k)
				if path.IsAbs(pth) || strings.HasPrefix(path.Clean(pth), "..") {
					c.errorAt(c.f.Pos(pp), pp, "use a path relative to the repository root", "path %s escapes the repository", quote(pth))
				}
			}
		}
	}
}

func (c *checker) permissions() {
	known := c.d.Agents()
	for _, a := range slices.Sorted(maps.Keys(c.d.Permissions)) {
		p := JoinKey("permissions", a)
		if _, ok := c.d.AgentProfiles[a]; !ok {
			fix, sg := "add a profile for it under agent_profiles, or fix the name", Suggest(a, known)
			if sg != "" && c.misspeltAgent(sg) == a {
				// The profile is the misspelt one (codx: beside
				// permissions.codex): point at it, not from the right name
				// to the wrong one.
				fix, sg = fmt.Sprintf("rename agent_profiles.%s to %s", sg, a), ""
			}
			d := c.errorAt(c.f.KeyPos(p), p, fix, "permissions for %s, which has no agent profile", quote(a))
			d.Suggest = sg
		}
		if c.d.Permissions[a].Rules.Approve {
			// Kept valid (documents that grant it still load), but said:
			// the grant changes nothing.
			ap := p + ".rules.approve"
			c.warnAt(c.f.Pos(ap), ap, "remove approve: true; a person approves by merging (bridle approve, the gateway's admin API or panel, or Gitea)",
				"grants nothing: an agent never approves a proposal, only a person does")
		}
	}
}

// misspeltAgent is the known agent a profile's name is most likely a
// misspelling of ("" for a known agent, one with a harness or model of its
// own, or one near no known agent without a profile).
func (c *checker) misspeltAgent(a string) string {
	prof := c.d.AgentProfiles[a]
	if _, known := agents.Lookup(a); known || prof.Harness != "" || prof.Model != "" {
		return ""
	}
	var free []string
	for _, n := range agents.Names() {
		if _, has := c.d.AgentProfiles[n]; !has {
			free = append(free, n)
		}
	}
	return Suggest(a, free)
}

// oneLine checks a field rendered on one line: no line breaks, no leading
// markdown heading, no HTML that hides or swallows text, and not blank.
// Control and invisible characters are refused for every string by the
// walk. Other markdown at the start of the text is made inert by the
// renderers (see internal/mdsafe), so it is not refused here.
func (c *checker) oneLine(p, s string) {
	if s == "" || !strings.ContainsAny(s, "\n#<") && strings.TrimSpace(s) != "" {
		return // the common case: nothing to report, no position needed
	}
	pos := c.f.Pos(p)
	switch {
	case strings.TrimSpace(s) == "":
		c.errorAt(pos, p, "write a value or remove the key", "is blank")
	case strings.Contains(s, "\n"):
		c.errorAt(pos, p, "write it on one line; use a rationale for more detail", "must be one line")
	case strings.HasPrefix(strings.TrimSpace(s), "#"):
		c.errorAt(pos, p, "remove the leading #; it would become a markdown heading", "must not start with #")
	}
	for _, pr := range mdsafe.CheckLine(s) {
		c.errorAt(pos, p, pr.Fix, "has %s (at character %d)", pr.What, pr.Col)
	}
}

// prose checks a multi-line field (the overview, pattern descriptions):
// paragraphs, lists, quotes, tables, emphasis, links and closed code fences
// are fine; anything that could swallow or restructure the sections a
// render puts after it is refused, each at its own line (see
// mdsafe.CheckProse): unclosed or nested code fences, headings, setext
// underlines, thematic breaks, HTML blocks and comments, link reference
// definitions.
func (c *checker) prose(p, s string) {
	for _, pr := range mdsafe.CheckProse(s) {
		c.errorAt(c.f.textPos(p, s, pr.Line, pr.Col), p, pr.Fix, "line %d of the text has %s (column %d)", pr.Line, pr.What, pr.Col)
	}
}

// VendorURL checks a vendor document's URL: https, or http on a loopback
// address (a local mirror); no credentials in it.
func VendorURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "":
		return fmt.Errorf("%s is not a URL", quote(raw))
	case u.User != nil:
		return fmt.Errorf("%s holds credentials", quote(raw))
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http":
		h := u.Hostname()
		if ip := net.ParseIP(h); h == "localhost" || ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("%s is plain http to another host", quote(raw))
	}
	return fmt.Errorf("%s is not https", quote(raw))
}
