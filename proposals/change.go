package proposals

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/bridle-dev/bridle/actor"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/schema"
)

// Kind is what a proposal changes.
type Kind string

// The kinds of proposal.
const (
	KindGuardrail Kind = "guardrail" // add a guardrail
	KindPattern   Kind = "pattern"   // add or replace a custom pattern (with its example repos)
	KindRules     Kind = "rules"     // replace one section of the project description
	KindPromote   Kind = "promote"   // promote a vendor suggestion into a guardrail
	KindVendor    Kind = "vendor"    // a vendor's new suggestions, withdrawn ones, dismissals (bridle vendor)
	// KindEdit replaces the whole document with a maintainer's edit of it
	// (bridle propose edit): the way to change what the other kinds cannot
	// (permissions, profiles, a guardrail's wording). It applies only to
	// the main it was made from; no agent tool proposes it.
	KindEdit Kind = "edit"
)

// MaxDocument is the largest document an edit may propose (the schema's
// limit on a rules file).
const MaxDocument = 2 << 20

// Sections update_rules may replace.
var Sections = []string{"project.name", "project.overview", "project.stack", "project.commands", "project.conventions", "patterns.standard"}

// Change is a document-level change. It is stored with the proposal, so a
// proposal can be re-applied to a newer main (rebase).
type Change struct {
	Kind      Kind                  `json:"kind"`
	Guardrail *schema.Guardrail     `json:"guardrail,omitempty"`
	Pattern   *schema.CustomPattern `json:"pattern,omitempty"`
	Section   string                `json:"section,omitempty"`
	Value     any                   `json:"value,omitempty"` // the new section value (string or list)
	Promote   *Promotion            `json:"promote,omitempty"`
	Vendor    *VendorUpdate         `json:"vendor,omitempty"`
	Document  string                `json:"document,omitempty"` // the whole new bridle.yaml, for an edit
	Rationale string                `json:"rationale"`
	// Was records what a replacing change (a section, or a pattern of the
	// same name) replaced when it was proposed, as canonical JSON ("null"
	// when there was nothing). Re-applying to a main where that value has
	// changed since is a conflict, not a silent overwrite. For an edit it
	// is the sha256 of the document the edit was made from.
	Was string `json:"was,omitempty"`
}

// Promotion names a vendor suggestion to turn into policy.
type Promotion struct {
	Agent      string          `json:"agent"`      // the profile holding the suggestion
	Suggestion string          `json:"suggestion"` // its id
	AppliesTo  []string        `json:"applies_to,omitempty"`
	Severity   schema.Severity `json:"severity,omitempty"` // the guardrail's tier; default the vendor's
}

// VendorUpdate changes one profile's vendor suggestions: new ones from a
// sync, earlier ones whose text left the vendor's document (withdrawn), and
// ones a human declined (dismissed: later syncs do not bring them back).
type VendorUpdate struct {
	Agent    string                    `json:"agent"` // the profile
	Add      []schema.VendorSuggestion `json:"add,omitempty"`
	Withdraw []string                  `json:"withdraw,omitempty"` // suggestion ids
	Dismiss  []string                  `json:"dismiss,omitempty"`  // suggestion ids
}

// MaxVendorAdd is the most suggestions one vendor proposal adds.
const MaxVendorAdd = 200

// Origin is who proposes, as a proposal's commit records it: OriginOf the
// actor the server authenticated; values an agent supplies elsewhere are
// ignored. Its fields are the commit's trailers (and the draft's JSON), so
// they stay as proposals already made record them.
type Origin struct {
	Source  schema.Source `json:"source"`
	Agent   string        `json:"agent,omitempty"`   // proposing agent (source agent), or the vendor's profile
	Session string        `json:"session,omitempty"` // agent session
	Author  string        `json:"author,omitempty"`  // the human, for source user
	// Subject, Email and EmailVerified are the proposing person's, as
	// their sign-in knew them (actor.Actor); a proposal made before they
	// were recorded has none.
	Subject       string `json:"subject,omitempty"`
	Email         string `json:"email,omitempty"`
	EmailVerified bool   `json:"email_verified,omitempty"`
	// TriggeredBy is who started the vendor sync that found a vendor's
	// suggestions (source vendor): a human, or the scheduled sync. It is
	// not the proposer, so it does not stop them approving the vendor's text.
	TriggeredBy string `json:"triggered_by,omitempty"`
}

// OriginOf is the origin of a proposal a makes.
func OriginOf(a actor.Actor) Origin {
	switch a.Kind {
	case actor.Agent:
		return Origin{Source: schema.SourceAgent, Agent: a.Agent, Session: a.Session}
	case actor.Vendor:
		return Origin{Source: schema.SourceVendor, Agent: a.Agent}
	case actor.Bridle:
		return Origin{Source: schema.SourceUser, Author: a.String()}
	}
	o := Origin{Source: schema.SourceUser, Author: a.Name, Email: a.Email, EmailVerified: a.EmailVerified}
	if a.Subject != actor.BreakGlassSubject {
		o.Subject = a.Subject // the admin credential is held by whoever has it: its name is the person
	}
	return o
}

// Actor is who proposed: the agent, the vendor, or the person.
func (o Origin) Actor() actor.Actor {
	switch o.Source {
	case schema.SourceAgent:
		return actor.AgentOf("", o.Agent, o.Session)
	case schema.SourceVendor:
		return actor.VendorOf(o.Agent)
	}
	return actor.Actor{Kind: actor.Human, Subject: o.Subject, Name: o.Author, Email: o.Email, EmailVerified: o.EmailVerified}
}

// Errors a proposal can fail with, for errors.Is.
var (
	ErrInvalid  = errors.New("the proposed rules are invalid")
	ErrConflict = errors.New("conflicts with main")
	ErrNoChange = errors.New("the proposal changes nothing")
	ErrBadInput = errors.New("bad proposal")
	ErrNotFound = errors.New("no such proposal")
	ErrState    = errors.New("proposal is not open")
)

// Subject identifies what a change touches, e.g. guardrail:no-pii-in-logs.
func (c Change) Subject() string {
	switch c.Kind {
	case KindGuardrail:
		if c.Guardrail != nil {
			return "guardrail:" + c.Guardrail.ID
		}
	case KindPattern:
		if c.Pattern != nil {
			return "pattern:" + c.Pattern.Name
		}
	case KindRules:
		return "section:" + c.Section
	case KindPromote:
		if c.Promote != nil {
			return "guardrail:" + c.Promote.Suggestion
		}
	case KindEdit:
		sum := sha256.Sum256([]byte(c.Document))
		return "document:" + hex.EncodeToString(sum[:4])
	case KindVendor:
		if c.Vendor != nil {
			return "vendor:" + c.Vendor.Agent
		}
	}
	return string(c.Kind)
}

// Title is the proposal's one-line title.
func (c Change) Title() string {
	var t string
	switch c.Kind {
	case KindGuardrail:
		t = "Add guardrail " + c.Guardrail.ID
	case KindPattern:
		t = "Add pattern " + c.Pattern.Name
	case KindRules:
		t = "Update " + c.Section
	case KindPromote:
		t = fmt.Sprintf("Promote %s suggestion %s to a guardrail", c.Promote.Agent, c.Promote.Suggestion)
	case KindEdit:
		t = "Edit the rules"
		if r := OneLine(c.Rationale, 80); r != "" {
			t += ": " + r
		}
	case KindVendor:
		v := c.Vendor
		var parts []string
		if n := len(v.Add); n > 0 {
			parts = append(parts, fmt.Sprintf("%d new", n))
		}
		if n := len(v.Withdraw); n > 0 {
			parts = append(parts, fmt.Sprintf("%d withdrawn", n))
		}
		if n := len(v.Dismiss); n > 0 {
			parts = append(parts, fmt.Sprintf("%d dismissed", n))
		}
		t = fmt.Sprintf("Vendor suggestions for %s: %s", v.Agent, strings.Join(parts, ", "))
	}
	return OneLine(t, 120)
}

// OneLine makes agent-supplied text safe for a title, a trailer or a log
// line: control characters removed, whitespace folded, length capped.
func OneLine(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		if control(r) {
			return -1
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = strings.TrimSpace(s[:max])
		for !utf8ValidEnd(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

// MultiLine makes agent-supplied text safe for a pull request, a commit
// message, a prompt or a log: control characters (and the Unicode line and
// paragraph separators) removed, newlines and tabs kept, so the text cannot
// smuggle terminal escapes or forge lines.
func MultiLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if control(r) || r == '\u2028' || r == '\u2029' {
			return -1
		}
		return r
	}, s)
}

// control reports a character text from outside must not carry: C0 and C1
// controls, and the invisible format characters (zero-width characters,
// bidi overrides, Unicode tag characters) that can hide instructions from
// the human reading the text while a model still reads them.
func control(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x200b && unicode.Is(unicode.Cf, r)
}

func utf8ValidEnd(s string) bool {
	return s == "" || s[len(s)-1] < 0x80 || strings.ToValidUTF8(s, "\uFFFD") == s
}

var (
	slugUnsafe = lazyregexp.New(`[^a-z0-9-]+`)
	dashes     = lazyregexp.New(`-{2,}`)
)

// Slug makes a branch-name component from text: lower-case letters, digits
// and dashes, at most max bytes, never empty.
func Slug(s string, max int) string {
	s = strings.Trim(dashes.ReplaceAllString(slugUnsafe.ReplaceAllString(strings.ToLower(s), "-"), "-"), "-")
	if len(s) > max {
		s = strings.Trim(s[:max], "-")
	}
	if s == "" {
		s = "x"
	}
	return s
}

// Branch is the proposal branch: bridle/<source>/<agent>/<slug>.
func Branch(o Origin, c Change) string {
	who := o.Agent
	if who == "" {
		who = o.Author
	}
	if who == "" {
		who = "user"
	}
	_, subject, _ := strings.Cut(c.Subject(), ":")
	return "bridle/" + Slug(string(o.Source), 10) + "/" + Slug(who, 40) + "/" + Slug(string(c.Kind)+"-"+subject, 60)
}

// check rejects malformed changes before anything is touched.
func (c Change) check() error {
	switch c.Kind {
	case KindGuardrail:
		if c.Guardrail == nil {
			return fmt.Errorf("%w: a guardrail proposal needs a guardrail", ErrBadInput)
		}
	case KindPattern:
		if c.Pattern == nil {
			return fmt.Errorf("%w: a pattern proposal needs a pattern", ErrBadInput)
		}
	case KindRules:
		if !slices.Contains(Sections, c.Section) {
			return fmt.Errorf("%w: section %q cannot be updated; use one of %s", ErrBadInput, c.Section, strings.Join(Sections, ", "))
		}
		if c.Value == nil {
			return fmt.Errorf("%w: update_rules needs a value for %s", ErrBadInput, c.Section)
		}
	case KindPromote:
		if c.Promote == nil || c.Promote.Agent == "" || c.Promote.Suggestion == "" {
			return fmt.Errorf("%w: a promotion needs the agent and the suggestion id", ErrBadInput)
		}
	case KindVendor:
		v := c.Vendor
		switch {
		case v == nil || v.Agent == "":
			return fmt.Errorf("%w: a vendor update needs the agent profile", ErrBadInput)
		case len(v.Add)+len(v.Withdraw)+len(v.Dismiss) == 0:
			return ErrNoChange
		case len(v.Add) > MaxVendorAdd:
			return fmt.Errorf("%w: %d suggestions at once; at most %d", ErrBadInput, len(v.Add), MaxVendorAdd)
		}
		for _, sg := range v.Add {
			if sg.ID == "" || strings.TrimSpace(sg.Statement) == "" {
				return fmt.Errorf("%w: a vendor suggestion needs an id and a statement", ErrBadInput)
			}
		}
	case KindEdit:
		if strings.TrimSpace(c.Document) == "" {
			return fmt.Errorf("%w: an edit needs the new document", ErrBadInput)
		}
		if len(c.Document) > MaxDocument {
			return fmt.Errorf("%w: the edited document is larger than %d bytes", ErrBadInput, MaxDocument)
		}
	default:
		return fmt.Errorf("%w: unknown kind %q", ErrBadInput, c.Kind)
	}
	if len(c.Rationale) > 8000 {
		return fmt.Errorf("%w: rationale longer than 8000 characters", ErrBadInput)
	}
	return nil
}

// provenance is what the server records for the proposed item. Approval
// fields are never taken from the proposer: merging is the approval.
func (o Origin) provenance() schema.Provenance {
	p := schema.Provenance{Source: o.Source}
	switch o.Source {
	case schema.SourceAgent:
		p.Agent, p.AgentSession = o.Agent, o.Session
	case schema.SourceUser:
		p.ProposedBy = o.Author
	}
	return p
}

// stamped returns c with the provenance of the item it adds (a guardrail,
// a pattern) replaced by o's: whatever a caller put there — an approval, a
// pull request, another proposer — is dropped, here for every caller (the
// MCP tools, the admin API, the CLI), before anything is recorded or shown
// to a reviewer. c itself is not changed.
func (c Change) stamped(o Origin) Change {
	if c.Guardrail != nil {
		g := *c.Guardrail
		g.Provenance = o.provenance()
		c.Guardrail = &g
	}
	if c.Pattern != nil {
		p := *c.Pattern
		p.Provenance = o.provenance()
		c.Pattern = &p
	}
	return c
}

// Apply applies c, proposed by o, to the rules document src and returns the
// new document. It edits the YAML node tree and writes only the entries
// the change touches into src's text (splice), so blank lines, comments,
// quoting and key order survive and the diff is the change's lines. It fails with ErrConflict when the change collides with what the
// document already holds, and ErrNoChange when it changes nothing.
func Apply(src []byte, c Change, o Origin) ([]byte, error) { return apply(src, c, o, true) }

// applyReencoded is Apply as Bridle wrote changes before they were spliced:
// the whole document re-encoded. A branch made then holds that text, and
// the tamper check (Verify) accepts it too.
func applyReencoded(src []byte, c Change, o Origin) ([]byte, error) { return apply(src, c, o, false) }

func apply(src []byte, c Change, o Origin, spliceText bool) ([]byte, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.Kind == KindEdit {
		return applyEdit(src, c)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, fmt.Errorf("%w: main's bridle.yaml does not parse: %v", ErrInvalid, err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: main's bridle.yaml is not a mapping", ErrInvalid)
	}
	doc := root.Content[0]
	c = c.stamped(o)
	var err error
	switch c.Kind {
	case KindGuardrail:
		err = addGuardrail(doc, *c.Guardrail)
	case KindPromote:
		err = promote(doc, *c.Promote, o)
	case KindVendor:
		err = vendorUpdate(doc, *c.Vendor)
	case KindPattern:
		err = setPattern(doc, *c.Pattern, c.Was)
	case KindRules:
		err = setSection(doc, c.Section, c.Value, c.Was)
	}
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, fmt.Errorf("encode rules: %w", err)
	}
	enc.Close()
	var check any
	if err := yaml.Unmarshal(out.Bytes(), &check); err != nil {
		return nil, fmt.Errorf("%w: main's bridle.yaml cannot be changed safely: %v", ErrInvalid, err)
	}
	if bytes.Equal(normal(src), normal(out.Bytes())) {
		return nil, ErrNoChange
	}
	// The change goes into main's text, so that the diff a reviewer reads
	// is the change's lines only; when the document's shape does not allow
	// that, or the spliced text would not mean the re-encoded document, the
	// re-encoded document it is.
	var old yaml.Node
	if spliceText && yaml.Unmarshal(src, &old) == nil {
		if spliced, ok := splice(src, &old, &root); ok && bytes.Equal(normal(spliced), normal(out.Bytes())) {
			return spliced, nil
		}
	}
	return out.Bytes(), nil
}

// applyEdit is an edit: the new document, provided main is still the one
// it was made from (anything else would silently revert what merged since).
func applyEdit(src []byte, c Change) ([]byte, error) {
	if c.Was != "" && c.Was != docHash(src) {
		return nil, fmt.Errorf("%w: main's bridle.yaml changed since this edit was made from it; edit the new main and propose again", ErrConflict)
	}
	if bytes.Equal(normal(src), normal([]byte(c.Document))) {
		return nil, ErrNoChange
	}
	return []byte(c.Document), nil
}

func docHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// normal re-encodes a document so that formatting alone never counts as a change.
func normal(b []byte) []byte {
	var v any
	if yaml.Unmarshal(b, &v) != nil {
		return b
	}
	out, _ := yaml.Marshal(v)
	return out
}

func get(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// child returns m[key], creating it with kind when absent or null.
func child(m *yaml.Node, key string, kind yaml.Kind) *yaml.Node {
	n := get(m, key)
	if n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		n = &yaml.Node{Kind: kind}
		if kind == yaml.SequenceNode {
			n.Tag = "!!seq"
		} else {
			n.Tag = "!!map"
		}
		set(m, key, n)
	}
	return n
}

func encode(v any) (*yaml.Node, error) {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return &n, nil
}

func addGuardrail(doc *yaml.Node, g schema.Guardrail) error {
	seq := child(doc, "guardrails", yaml.SequenceNode)
	if seq.Kind != yaml.SequenceNode {
		return fmt.Errorf("%w: guardrails is not a list on main", ErrConflict)
	}
	for _, item := range seq.Content {
		if id := get(item, "id"); id != nil && id.Value == g.ID {
			return fmt.Errorf("%w: guardrail %q already exists on main (to change it, edit bridle.yaml and propose the edit: bridle propose edit)", ErrConflict, g.ID)
		}
	}
	n, err := encode(g)
	if err != nil {
		return err
	}
	seq.Content = append(seq.Content, n)
	return nil
}

func promote(doc *yaml.Node, p Promotion, o Origin) error {
	profiles := get(doc, "agent_profiles")
	var prof *yaml.Node
	if profiles != nil {
		prof = get(profiles, p.Agent)
	}
	if prof == nil {
		return fmt.Errorf("%w: no agent profile %q", ErrBadInput, p.Agent)
	}
	var sugg *schema.VendorSuggestion
	if list := get(prof, "vendor_guardrail_suggestions"); list != nil {
		for _, item := range list.Content {
			if id := get(item, "id"); id != nil && id.Value == p.Suggestion {
				var v schema.VendorSuggestion
				if err := item.Decode(&v); err != nil {
					return fmt.Errorf("%w: %v", ErrInvalid, err)
				}
				sugg = &v
			}
		}
	}
	if sugg == nil {
		return fmt.Errorf("%w: profile %s has no vendor suggestion %q", ErrBadInput, p.Agent, p.Suggestion)
	}
	if sugg.Status == schema.SuggestionDismissed {
		return fmt.Errorf("%w: vendor suggestion %q of profile %s was dismissed", ErrBadInput, p.Suggestion, p.Agent)
	}
	var d schema.Document
	_ = doc.Decode(&d)
	vendor := d.Resolved(p.Agent).Vendor
	sev := cmp.Or(p.Severity, sugg.Severity, schema.Guidance)
	applies := p.AppliesTo
	if len(applies) == 0 {
		applies = []string{p.Agent}
	}
	return addGuardrail(doc, schema.Guardrail{
		ID: sugg.ID, Statement: sugg.Statement, Rationale: sugg.Rationale, Severity: sev, AppliesTo: applies,
		Provenance: schema.Provenance{Source: schema.SourceVendor, Vendor: vendor, Agent: p.Agent, ProposedBy: o.Author,
			Document: sugg.Source, DocumentHash: sugg.DocumentHash},
	})
}

// vendorUpdate adds, withdraws and dismisses a profile's suggestions. A
// suggestion id already there is not added twice (a conflict); withdrawing
// or dismissing an id the profile does not have is a conflict too.
func vendorUpdate(doc *yaml.Node, v VendorUpdate) error {
	profiles := get(doc, "agent_profiles")
	var prof *yaml.Node
	if profiles != nil {
		prof = get(profiles, v.Agent)
	}
	if prof == nil || prof.Kind != yaml.MappingNode {
		return fmt.Errorf("%w: no agent profile %q", ErrBadInput, v.Agent)
	}
	list := child(prof, "vendor_guardrail_suggestions", yaml.SequenceNode)
	byID := map[string]*yaml.Node{}
	for _, item := range list.Content {
		if id := get(item, "id"); id != nil {
			byID[id.Value] = item
		}
	}
	for _, sg := range v.Add {
		if byID[sg.ID] != nil {
			return fmt.Errorf("%w: profile %s already has vendor suggestion %q", ErrConflict, v.Agent, sg.ID)
		}
		n, err := encode(sg)
		if err != nil {
			return err
		}
		list.Content = append(list.Content, n)
		byID[sg.ID] = n
	}
	for status, ids := range map[schema.SuggestionStatus][]string{schema.SuggestionWithdrawn: v.Withdraw, schema.SuggestionDismissed: v.Dismiss} {
		for _, id := range ids {
			item := byID[id]
			if item == nil {
				return fmt.Errorf("%w: profile %s has no vendor suggestion %q", ErrConflict, v.Agent, id)
			}
			st, _ := encode(string(status))
			set(item, "status", st)
		}
	}
	return nil
}

func setPattern(doc *yaml.Node, p schema.CustomPattern, was string) error {
	patterns := child(doc, "patterns", yaml.MappingNode)
	seq := child(patterns, "custom", yaml.SequenceNode)
	n, err := encode(p)
	if err != nil {
		return err
	}
	for i, item := range seq.Content {
		if name := get(item, "name"); name != nil && name.Value == p.Name {
			if was != "" && canonical(item) != was {
				return fmt.Errorf("%w: pattern %q was changed on main since this proposal was made", ErrConflict, p.Name)
			}
			seq.Content[i] = n
			return nil
		}
	}
	if was != "" && was != "null" {
		return fmt.Errorf("%w: pattern %q was removed on main since this proposal was made", ErrConflict, p.Name)
	}
	seq.Content = append(seq.Content, n)
	return nil
}

func setSection(doc *yaml.Node, section string, value any, was string) error {
	parent, key, _ := strings.Cut(section, ".")
	m := child(doc, parent, yaml.MappingNode)
	if was != "" && canonical(get(m, key)) != was {
		return fmt.Errorf("%w: %s was changed on main since this proposal was made", ErrConflict, section)
	}
	n, err := encode(value)
	if err != nil {
		return err
	}
	if s, ok := value.(string); ok && strings.Contains(s, "\n") {
		n.Style = yaml.LiteralStyle
	}
	set(m, key, n)
	return nil
}

// canonical is a node's value as canonical JSON, "null" for none.
func canonical(n *yaml.Node) string {
	if n == nil {
		return "null"
	}
	var v any
	if n.Decode(&v) != nil {
		return "?"
	}
	b, err := json.Marshal(jsonable(v))
	if err != nil {
		return "?"
	}
	return string(b)
}

// jsonable turns YAML's map[string]any / map[any]any trees into JSON-safe values.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonable(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonable(e)
		}
		return out
	case []any:
		for i := range x {
			x[i] = jsonable(x[i])
		}
	}
	return v
}

// Recorded returns c with Was filled from src, for replacing changes. It is
// called once, when the proposal is made.
func (c Change) Recorded(src []byte) Change {
	if c.Was == "" && c.Kind == KindEdit {
		c.Was = docHash(src)
	}
	if c.Was != "" || (c.Kind != KindRules && c.Kind != KindPattern) {
		return c
	}
	var root yaml.Node
	if yaml.Unmarshal(src, &root) != nil || len(root.Content) == 0 {
		return c
	}
	doc := root.Content[0]
	switch c.Kind {
	case KindRules:
		parent, key, _ := strings.Cut(c.Section, ".")
		if m := get(doc, parent); m != nil && m.Kind == yaml.MappingNode {
			c.Was = canonical(get(m, key))
		} else {
			c.Was = "null"
		}
	case KindPattern:
		c.Was = "null"
		if pats := get(doc, "patterns"); pats != nil {
			if seq := get(pats, "custom"); seq != nil {
				for _, item := range seq.Content {
					if name := get(item, "name"); name != nil && c.Pattern != nil && name.Value == c.Pattern.Name {
						c.Was = canonical(item)
					}
				}
			}
		}
	}
	return c
}

func yamlUnmarshal(b []byte, v any) error { return yaml.Unmarshal(b, v) }
