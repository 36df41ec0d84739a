package compiler

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/schema"
)

// PR is a merged pull request, as the forge records it.
type PR struct {
	Number   int
	MergedBy string // the forge user who merged it
	MergedAt time.Time
	Poster   string // the forge user who opened it
}

// PRLookup answers which merged pull request produced commit on main (its
// merge commit, or the squashed commit). ok is false when none did; err is
// set when the forge could not be asked, and then the result is not cached.
//
// With a PRLookup the forge is the only judge of approval: a commit on main
// is approved when, and only when, a merged pull request produced it and a
// person other than its proposer merged it — never the bot (Options.Bot), an
// agent, whoever opened the pull request, or the person or agent its
// proposal commit records as proposing it (a person's own proposal counts
// when the merge records their explicit choice, SelfApprovedTrailer).
// Without one (a local repository), a merge commit made by `bridle approve`
// (it carries a Bridle-Proposal trailer) is an approval, unless an agent
// made it.
type PRLookup func(commit string) (pr PR, ok bool, err error)

// SelfApprovedTrailer, in a merge commit, records that the person who
// merged their own proposal chose to (a sole maintainer's --self): its value
// is their forge user.
const SelfApprovedTrailer = "Bridle-Self-Approved"

// AgentApprover is how a merge made for an agent names its approver
// (locally, "claude (agent)"): such a merge approves nothing.
const AgentApprover = " (agent)"

// NoClient is the mcp_clients entry of a profile no approval produced: a
// name no MCP client sends, so the profile identifies nobody.
const NoClient = "(unapproved profile)"

// maxHistory bounds how many first-parent commits a review walks; a longer
// history cannot be reviewed, and then nothing is approved.
const maxHistory = 100_000

// Approval is what the rules repository's history says about the served
// document: where the owner's baseline is, and every part of the document
// that no approved merge produced.
type Approval struct {
	// Baseline is the commit that first added the rules file on the
	// first-parent line: the owner's baseline, approved by definition.
	Baseline string `json:"baseline,omitempty"`
	// Truncated is set when the history could not be walked to its root (a
	// shallow clone, a missing commit, more than 100,000 commits): then
	// nothing is approved.
	Truncated bool `json:"truncated,omitempty"`
	// Unapproved lists the parts served without approval, sorted by subject.
	Unapproved []schema.Unapproved `json:"unapproved,omitempty"`
	// Incomplete is set when the forge could not be asked about every
	// commit: those commits count as unapproved until it answers, and the
	// snapshot is neither cached nor kept past the next refresh.
	Incomplete bool `json:"incomplete,omitempty"`
}

// item is the review's state of one subject of the document.
type item struct {
	value    string             // canonical JSON of the current value; "" when absent
	ok       bool               // the current value was approved
	approved string             // the last approved value; "" when none was
	prov     *schema.Provenance // the approving merge, when ok through one
	baseline string             // the baseline commit, when ok through it
	commit   string             // the commit that made an unapproved value
	at       time.Time          // when
	reason   string             // how an unapproved value came in
}

// review is the outcome of walking the history of one rules file.
type review struct {
	items     map[string]*item
	baseline  string
	truncated bool
	complete  bool // every forge lookup was answered: the review may be cached
}

// subjects splits a document into the parts approval is tracked for, each
// as canonical JSON.
func subjects(d *schema.Document) map[string]string {
	m := map[string]string{}
	if d == nil {
		return m
	}
	put := func(k string, v any) { m[k] = canonical(v) }
	put("schema_version", d.SchemaVersion)
	put("project.id", d.Project.ID)
	put("project.name", d.Project.Name)
	put("project.overview", d.Project.Overview)
	put("project.stack", d.Project.Stack)
	put("project.commands", d.Project.Commands)
	put("project.conventions", d.Project.Conventions)
	put("patterns.standard", d.Patterns.Standard)
	for _, g := range d.Guardrails {
		put("guardrail:"+g.ID, g)
	}
	for _, p := range d.Patterns.Custom {
		put("pattern:"+p.Name, p)
	}
	for a, p := range d.Permissions {
		put("permissions:"+a, p)
	}
	for a, p := range d.AgentProfiles {
		put("profile:"+a, p)
	}
	return m
}

func canonical(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// reviewHistory walks the first-parent line of from, oldest first, and
// tracks for every subject whether its current value came from the
// baseline or an approved merge. A commit's document that cannot be parsed
// changes nothing (the compile of that commit fails on its own).
func reviewHistory(repo *git.Repository, from plumbing.Hash, file string, lookup PRLookup, bot string) (*review, error) {
	var chain []*object.Commit
	c, err := repo.CommitObject(from)
	if err != nil {
		return nil, fmt.Errorf("review history: %w", err)
	}
	r := &review{items: map[string]*item{}, complete: true}
	for c != nil {
		chain = append(chain, c)
		if len(c.ParentHashes) == 0 {
			break
		}
		if len(chain) >= maxHistory {
			r.truncated = true
			break
		}
		next, err := repo.CommitObject(c.ParentHashes[0])
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			r.truncated = true // a shallow clone ends here
			break
		}
		if err != nil {
			return nil, fmt.Errorf("review history: %w", err)
		}
		c = next
	}
	if r.truncated {
		// A history cut short (a shallow clone, a missing commit, or one too
		// long to walk) cannot prove approval: fail closed, never take the
		// oldest commit reached for the owner's baseline.
		return r, nil
	}
	slices.Reverse(chain)

	blobs := map[plumbing.Hash]map[string]string{}
	subjectsAt := func(c *object.Commit) (map[string]string, bool) {
		f, err := c.File(file)
		if err != nil {
			return nil, false
		}
		if s, ok := blobs[f.Hash]; ok {
			return s, s != nil
		}
		var s map[string]string
		if f.Size <= schema.MaxSize {
			if data, err := f.Contents(); err == nil {
				if pf, _ := schema.Parse(file, []byte(data)); pf != nil {
					s = subjects(&pf.Doc)
				}
			}
		}
		blobs[f.Hash] = s
		return s, s != nil
	}

	var head map[string]string // the served document's subjects, for its agents
	if len(chain) > 0 {
		head, _ = subjectsAt(chain[len(chain)-1])
	}
	isAgent := agentNames(head)
	var prev map[string]string // the last parsed document on the line
	seen := map[plumbing.Hash]bool{}
	onChain := func(h plumbing.Hash) bool { return seen[h] }
	for _, c := range chain {
		seen[c.Hash] = true
		cur, ok := subjectsAt(c)
		if r.baseline == "" {
			if _, err := c.File(file); err != nil {
				continue // before the rules file existed
			}
			// The commit that first added the file is the baseline, even
			// when it does not parse: then nothing starts approved, and
			// whoever makes it parse later does not become the owner.
			r.baseline = c.Hash.String()
			if !ok {
				prev = map[string]string{}
				continue
			}
			for k, v := range cur {
				r.items[k] = &item{value: v, ok: true, approved: v, baseline: r.baseline}
			}
			prev = cur
			continue
		}
		if !ok {
			cur = map[string]string{} // the file was removed (or broken): everything is gone
			if _, err := c.File(file); err == nil {
				continue // present but unparseable: changes nothing
			}
		}
		approvedBy, proposal, refused, err := approval(repo, c, lookup, bot, onChain, isAgent)
		if err != nil {
			r.complete = false
		}
		var side map[string]string // the proposal's document, for merges
		if approvedBy != nil && proposal != nil {
			side, _ = subjectsAt(proposal)
		}
		for _, k := range unionKeys(prev, cur) {
			before, after := prev[k], cur[k]
			if before == after {
				continue
			}
			it := r.items[k]
			if it == nil {
				it = &item{}
				r.items[k] = it
			}
			it.value = after
			switch {
			case !it.ok && after == it.approved && it.approved != "":
				// Back to the approved text: approved again, as it was.
				it.ok, it.commit, it.reason = true, "", ""
			case approvedBy != nil && (proposal == nil || side[k] == after):
				it.ok, it.approved, it.prov, it.baseline, it.commit, it.reason = true, after, approvedBy, "", "", ""
			// Unapproved: prov and baseline keep the last approval's, for
			// when the approved text comes back.
			case approvedBy != nil:
				it.ok, it.commit, it.at, it.reason = false, c.Hash.String(), c.Committer.When, "changed by the merge commit beyond its proposal"
			case err != nil:
				it.ok, it.commit, it.at, it.reason = false, c.Hash.String(), c.Committer.When, "the forge could not be asked whether a pull request produced it"
			case refused != "":
				it.ok, it.commit, it.at, it.reason = false, c.Hash.String(), c.Committer.When, refused
			default:
				it.ok, it.commit, it.at, it.reason = false, c.Hash.String(), c.Committer.When, bypass(c, lookup)
			}
		}
		prev = cur
	}
	return r, nil
}

// approval says whether c is an approved change on main: the merge's
// provenance, and the proposal commit when c is a merge commit; or, for a
// merge that is no approval because of who made it, why (refused). A
// merged proposal must be one commit made on main itself (its parent on
// main's first-parent line, onChain): otherwise a commit hidden beneath the
// proposal would ride in with the approval. bot is the forge's bot user;
// isAgent says whether a name is an agent's.
func approval(repo *git.Repository, c *object.Commit, lookup PRLookup, bot string, onChain func(plumbing.Hash) bool, isAgent func(string) bool) (prov *schema.Provenance, proposal *object.Commit, refused string, err error) {
	if len(c.ParentHashes) >= 2 {
		p, err := repo.CommitObject(c.ParentHashes[1])
		if err != nil {
			return nil, nil, "", nil // a merge of history we do not have: not provable
		}
		if len(c.ParentHashes) != 2 || len(p.ParentHashes) != 1 || !onChain(p.ParentHashes[0]) {
			return nil, nil, "", nil
		}
		proposal = p
	}
	if lookup != nil {
		pr, ok, err := lookup(c.Hash.String())
		if err != nil || !ok {
			return nil, nil, "", err
		}
		p := mergeProvenance(c, proposal)
		p.PullRequest = strconv.Itoa(pr.Number)
		p.ApprovedBy = pr.MergedBy
		if !pr.MergedAt.IsZero() {
			p.ApprovedAt = pr.MergedAt.UTC().Format(time.RFC3339)
		}
		if why := pr.notApproval(c, proposal, bot, isAgent); why != "" {
			return nil, nil, why, nil
		}
		return &p, proposal, "", nil
	}
	if proposal == nil {
		return nil, nil, "", nil
	}
	n := Trailers(c.Message)["Bridle-Proposal"]
	if _, err := strconv.Atoi(n); err != nil {
		return nil, nil, "", nil
	}
	p := mergeProvenance(c, proposal)
	p.PullRequest = n
	if by := p.ApprovedBy; strings.HasSuffix(by, AgentApprover) || isAgent(by) {
		return nil, nil, fmt.Sprintf("merged by an agent (%s): only a person approves a change to the rules", oneLine(by)), nil
	}
	return &p, proposal, "", nil
}

// notApproval says why the forge's merge of pr into c (with its proposal
// commit, nil for a squash) approves nothing because of who merged it; ""
// when it approves. bot is the forge's bot user.
func (pr PR) notApproval(c, proposal *object.Commit, bot string, isAgent func(string) bool) string {
	by := pr.MergedBy
	from := proposal
	if from == nil {
		from = c
	}
	t := Trailers(from.Message)
	same := func(name string) bool { return name != "" && strings.EqualFold(strings.TrimSpace(name), by) }
	// A person may merge their own proposal when the merge says they chose
	// to (--self); an agent's proposal, never.
	self := t["Bridle-Source"] != string(schema.SourceAgent) && same(Trailers(c.Message)[SelfApprovedTrailer])
	switch {
	case strings.TrimSpace(by) == "":
		return "the forge does not say who merged it"
	case same(bot):
		return fmt.Sprintf("merged by %s, Bridle's own user on the forge (the proposals bot, whose token agents' changes go through): only a person's merge approves", oneLine(by))
	case strings.HasSuffix(by, AgentApprover) || isAgent(by):
		return fmt.Sprintf("merged by %s, an agent's name: only a person approves a change to the rules", oneLine(by))
	case t["Bridle-Source"] == string(schema.SourceAgent) && same(t["Bridle-Agent"]):
		return fmt.Sprintf("merged by %s, the agent that proposed it: someone else must approve it", oneLine(by))
	case self:
		return ""
	case same(pr.Poster):
		return fmt.Sprintf("merged by %s, who opened the pull request: someone else must approve it", oneLine(by))
	case t["Bridle-Source"] != string(schema.SourceAgent) && t["Bridle-Source"] != string(schema.SourceVendor) &&
		(same(t["Bridle-Author"]) || t["Bridle-Author"] == "" && same(from.Author.Name)):
		return fmt.Sprintf("merged by %s, who proposed it: someone else must approve it", oneLine(by))
	}
	return ""
}

// agentNames says whether a name is an agent's: one Bridle knows, or one
// with a profile or permissions in subjects (a document's, as subjects
// gives them). Case does not matter.
func agentNames(subjects map[string]string) func(string) bool {
	names := map[string]bool{}
	for _, a := range agents.Names() {
		names[a] = true
	}
	for k := range subjects {
		for _, prefix := range []string{"profile:", "permissions:"} {
			if a, ok := strings.CutPrefix(k, prefix); ok {
				names[strings.ToLower(a)] = true
			}
		}
	}
	return func(name string) bool { return names[strings.ToLower(strings.TrimSpace(name))] }
}

// oneLine is a forge or git name as a reason quotes it.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// bypass says how an unapproved commit came onto main.
func bypass(c *object.Commit, lookup PRLookup) string {
	switch {
	case len(c.ParentHashes) >= 2 && lookup != nil:
		return "merged outside a pull request"
	case len(c.ParentHashes) >= 2:
		return "merged without bridle approve"
	case Trailers(c.Message)["Bridle-Source"] != "":
		return "a proposal's commit fast-forwarded onto main without approval"
	default:
		return "a direct commit to main, not an approved proposal"
	}
}

// mergeProvenance is the origin of an approved change (the proposal
// commit's trailers, else its author) and its approval (the merge's author
// and time; the forge's record replaces them when there is one).
func mergeProvenance(merge, proposal *object.Commit) schema.Provenance {
	from := proposal
	if from == nil {
		from = merge
	}
	t := Trailers(from.Message)
	p := schema.Provenance{Source: schema.Source(t["Bridle-Source"]), Verified: true, MergeCommit: merge.Hash.String()}
	switch p.Source {
	case schema.SourceAgent:
		p.Agent, p.AgentSession = t["Bridle-Agent"], t["Bridle-Session"]
	case schema.SourceVendor:
		p.Agent = t["Bridle-Agent"]
	default:
		p.Source = schema.SourceUser
		p.ProposedBy = from.Author.Name
		if a := t["Bridle-Author"]; a != "" {
			p.ProposedBy = a
		}
	}
	if t["Bridle-Kind"] == "promote" {
		// A human promoted a vendor's suggestion: the rule is the vendor's,
		// proposed (promoted) by that human.
		p.Source = schema.SourceVendor
	}
	p.ApprovedBy = merge.Author.Name
	if a := Trailers(merge.Message)["Bridle-Approved-By"]; a != "" {
		p.ApprovedBy = a
	}
	p.ApprovedAt = merge.Author.When.UTC().Format(time.RFC3339)
	return p
}

func unionKeys(a, b map[string]string) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// worktree marks the subjects a work-tree document changes relative to
// the committed one as unapproved.
func (r *review) worktree(doc *schema.Document) {
	cur := subjects(doc)
	committed := map[string]string{}
	for k, it := range r.items {
		if it.value != "" {
			committed[k] = it.value
		}
	}
	for _, k := range unionKeys(committed, cur) {
		if committed[k] == cur[k] {
			continue
		}
		it := r.items[k]
		if it == nil {
			it = &item{}
			r.items[k] = it
		}
		it.value, it.ok, it.commit, it.at, it.reason = cur[k], false, "", time.Time{}, "an uncommitted edit in the work tree"
	}
}

// apply makes doc the document to serve: approval fields come only from
// the history, unapproved parts are marked, and unapproved permissions
// and client mappings fall back to the approved state. It returns the
// approval summary.
func (r *review) apply(doc *schema.Document) *Approval {
	a := &Approval{Baseline: r.baseline, Truncated: r.truncated, Incomplete: !r.complete}
	if r.baseline == "" {
		// The rules file was never committed, or the history cannot be
		// walked to its root: nothing is approved.
		why := "never committed to a git repository"
		if r.truncated {
			why = "the history is incomplete (a shallow clone, a missing commit, or too long), so no approval can be verified"
		}
		for k, v := range subjects(doc) {
			if r.items[k] == nil {
				r.items[k] = &item{value: v, reason: why}
			}
		}
	}
	prov := func(key string, yamlSide schema.Provenance) schema.Provenance {
		it := r.items[key]
		switch {
		case it == nil:
			return schema.Provenance{Source: yamlSide.Source, Agent: yamlSide.Agent, AgentSession: yamlSide.AgentSession,
				Vendor: yamlSide.Vendor, ProposedBy: yamlSide.ProposedBy, Unapproved: "not in the reviewed history"}
		case it.ok && it.prov != nil:
			p := *it.prov
			if p.Source == schema.SourceVendor {
				// Which vendor, profile and document: the approved text says.
				p.Vendor = cmp.Or(p.Vendor, yamlSide.Vendor)
				p.Agent = cmp.Or(p.Agent, yamlSide.Agent)
				p.Document, p.DocumentHash = yamlSide.Document, yamlSide.DocumentHash
			}
			return p
		case it.ok:
			// The owner's baseline: who proposed it is as written; no
			// approval claim in the file is believed.
			return schema.Provenance{Source: yamlSide.Source, Agent: yamlSide.Agent, AgentSession: yamlSide.AgentSession,
				Vendor: yamlSide.Vendor, ProposedBy: yamlSide.ProposedBy, Verified: true, Baseline: it.baseline}
		default:
			return schema.Provenance{Source: yamlSide.Source, Agent: yamlSide.Agent, AgentSession: yamlSide.AgentSession,
				Vendor: yamlSide.Vendor, ProposedBy: yamlSide.ProposedBy, Unapproved: unapprovedNote(it)}
		}
	}
	for i := range doc.Guardrails {
		g := &doc.Guardrails[i]
		g.Provenance = prov("guardrail:"+g.ID, g.Provenance)
	}
	for i := range doc.Patterns.Custom {
		p := &doc.Patterns.Custom[i]
		p.Provenance = prov("pattern:"+p.Name, p.Provenance)
	}
	r.keepApprovedGuardrails(doc)
	// The project's commands are what agents run to build and test: one
	// changed without approval would be run by every other agent. The
	// approved ones are served; the change is listed as unapproved.
	if it := r.items["project.commands"]; it != nil && !it.ok && it.approved != "" {
		var cmds []schema.Command
		if json.Unmarshal([]byte(it.approved), &cmds) == nil {
			doc.Project.Commands = cmds
		}
	}
	for agent, perms := range doc.Permissions {
		if it := r.items["permissions:"+agent]; it != nil && !it.ok {
			var approved schema.Permissions
			if it.approved != "" {
				json.Unmarshal([]byte(it.approved), &approved)
			}
			doc.Permissions[agent] = perms.Intersect(approved)
		}
	}
	for agent, p := range doc.AgentProfiles {
		if it := r.items["profile:"+agent]; it != nil && !it.ok {
			if it.approved == "" {
				// A profile nobody approved identifies no client: left
				// empty, the built-in default (claude-code for claude)
				// would capture a client the approved profiles map.
				p.MCPClients = []string{NoClient}
			} else {
				var approved schema.AgentProfile
				json.Unmarshal([]byte(it.approved), &approved)
				p.MCPClients = approved.MCPClients
			}
			doc.AgentProfiles[agent] = p
		}
	}
	// A profile removed without approval keeps identifying its clients
	// (with no permissions unless the approved ones remain).
	for _, k := range slices.Sorted(maps.Keys(r.items)) {
		agent, ok := strings.CutPrefix(k, "profile:")
		if it := r.items[k]; ok && !it.ok && it.value == "" && it.approved != "" {
			var approved schema.AgentProfile
			if json.Unmarshal([]byte(it.approved), &approved) == nil {
				if doc.AgentProfiles == nil {
					doc.AgentProfiles = map[string]schema.AgentProfile{}
				}
				doc.AgentProfiles[agent] = approved
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.items)) {
		it := r.items[k]
		if it.ok {
			continue
		}
		u := schema.Unapproved{Subject: k, Commit: it.commit, Reason: it.reason}
		if !it.at.IsZero() {
			u.At = it.at.UTC().Format(time.RFC3339)
		}
		switch {
		case it.approved == "" && it.value == "":
			continue // added and removed again without approval
		case it.approved == "":
			u.Change = schema.Added
		case it.value == "":
			u.Change = schema.Removed
		default:
			u.Change = schema.Changed
		}
		if strings.HasPrefix(k, "guardrail:") && it.approved != "" {
			var g schema.Guardrail
			if json.Unmarshal([]byte(it.approved), &g) == nil {
				u.Approved = g.Statement
			}
		}
		a.Unapproved = append(a.Unapproved, u)
	}
	return a
}

// keepApprovedGuardrails keeps an approved guardrail in force when an
// unapproved change weakened it: a guardrail removed without approval is
// served again as approved (and marked), and one changed without approval
// keeps the approved severity if that was stronger and the approved enforce
// entries beside its own. Guardrails only restrict, so keeping both is the
// least privilege.
func (r *review) keepApprovedGuardrails(doc *schema.Document) {
	for _, k := range slices.Sorted(maps.Keys(r.items)) {
		it := r.items[k]
		id, ok := strings.CutPrefix(k, "guardrail:")
		if !ok || it.ok || it.approved == "" {
			continue
		}
		var approved schema.Guardrail
		if json.Unmarshal([]byte(it.approved), &approved) != nil {
			continue
		}
		if it.value == "" {
			approved.Provenance = schema.Provenance{Source: approved.Provenance.Source, Agent: approved.Provenance.Agent,
				AgentSession: approved.Provenance.AgentSession, Vendor: approved.Provenance.Vendor, ProposedBy: approved.Provenance.ProposedBy,
				Unapproved: "removed without approval (" + unapprovedNote(it) + "); the approved rule still applies"}
			doc.Guardrails = append(doc.Guardrails, approved)
			continue
		}
		for i := range doc.Guardrails {
			g := &doc.Guardrails[i]
			if g.ID != id {
				continue
			}
			if approved.Severity.Rank() < g.Severity.Rank() {
				g.Severity = approved.Severity
			}
			e, a := &g.Enforce, approved.Enforce
			e.Commands.Forbid = union(e.Commands.Forbid, a.Commands.Forbid)
			e.Commands.Ask = union(e.Commands.Ask, a.Commands.Ask)
			e.Paths.NoRead = union(e.Paths.NoRead, a.Paths.NoRead)
			e.Paths.NoWrite = union(e.Paths.NoWrite, a.Paths.NoWrite)
			// Narrowing who a rule applies to is a weakening too.
			if len(approved.AppliesTo) == 0 {
				approved.AppliesTo = []string{schema.AllAgents}
			}
			if len(g.AppliesTo) > 0 {
				g.AppliesTo = union(g.AppliesTo, approved.AppliesTo)
			}
		}
	}
}

func union(a, b []string) []string {
	for _, x := range b {
		if !slices.Contains(a, x) {
			a = append(a, x)
		}
	}
	return a
}

func unapprovedNote(it *item) string {
	if it.commit == "" {
		return it.reason
	}
	return it.reason + " (commit " + short(it.commit) + ")"
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
