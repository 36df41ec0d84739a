package panel

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

func apiProject(project, rest string) string {
	return "/api/v1/projects/" + url.PathEscape(project) + rest
}

// toProject sends /ui/PAGE to the page of the project last looked at (or
// the first).
func (p *Panel) toProject(page string) func(http.ResponseWriter, *http.Request, *call) {
	return func(w http.ResponseWriter, r *http.Request, c *call) {
		project := p.sessions.lastProject(c.ss)
		if project == "" {
			var ps []gateway.ProjectStatus
			if err := c.get("/api/v1/projects", &ps); err != nil {
				c.failed(w, "Projects", err)
				return
			}
			if len(ps) == 0 {
				p.problem(w, r, c, http.StatusNotFound, "No projects", "The gateway serves no project yet: add one to its configuration.")
				return
			}
			project = ps[0].ID
		}
		http.Redirect(w, r, projectPath(project, "/"+page), http.StatusSeeOther)
	}
}

// done records what an action did for the next page and sends the
// browser there (post, redirect, get).
func (c *call) done(w http.ResponseWriter, to string, f flash) {
	c.p.sessions.setFlash(c.ss, f)
	http.Redirect(w, c.r, to, http.StatusSeeOther)
}

// action calls the API for a form and says how it went: ok with its audit
// entry, or the API's error.
func (c *call) action(project, method, path string, in, out any) (f flash, err error) {
	t0 := time.Now()
	err = c.do(method, path, in, out)
	if err != nil {
		return flash{Text: err.Error()}, err
	}
	return flash{OK: true, Link: auditLink(project, t0, time.Now()), Label: "audit entry"}, nil
}

// Overview.

type overviewData struct {
	Sessions     []gateway.Session
	Integrations []gateway.BackendStatus
	Open         map[string]string // open proposals per project ("?" when the API could not say)
}

func (p *Panel) overview(w http.ResponseWriter, r *http.Request, c *call) {
	d := overviewData{Open: map[string]string{}}
	if err := c.get("/api/v1/sessions", &d.Sessions); err != nil {
		c.failed(w, "Sessions", err)
		return
	}
	if err := c.get("/api/v1/integrations", &d.Integrations); err != nil {
		c.failed(w, "Integrations", err)
		return
	}
	pg := c.page("Overview", "overview", "", nil)
	for _, ps := range pg.Projects {
		var one []listed
		n, err := c.getPage(apiProject(ps.ID, "/proposals?state=open&limit=1"), &one)
		d.Open[ps.ID] = strconv.Itoa(n)
		if err != nil {
			d.Open[ps.ID] = "?"
		}
	}
	pg.Data = d
	p.renderPage(w, http.StatusOK, "overview", pg)
}

// Approval queue.

type queueItem struct {
	Project string
	listed
	Source string
}

// listed is what the queue shows of a proposal: decoding the whole record
// (its change, its body) of every listed proposal is what a long queue
// would spend its time on.
type listed struct {
	Number    int             `json:"number"`
	Title     string          `json:"title"`
	State     proposals.State `json:"state"`
	Mergeable bool            `json:"mergeable"`
	Conflict  string          `json:"conflict"`
	Author    string          `json:"author"`
	CreatedAt time.Time       `json:"created_at"`
	Labels    []string        `json:"labels"`
	Draft     *struct {
		Origin proposals.Origin `json:"origin"`
	} `json:"draft"`
}

type queueData struct {
	Items                     []queueItem
	Pager                     pager
	Project, Source, Q, State string
	Errors                    []string
}

// sourceOf is who made a proposal: its recorded origin, else its labels
// (as the API's filter decides it: gateway.ProposalSource).
func sourceOf(origin *proposals.Origin, labels []string) string {
	pr := proposals.Proposal{Labels: labels}
	if origin != nil {
		pr.Draft = &proposals.Draft{Origin: *origin}
	}
	return gateway.ProposalSource(pr)
}

// queue asks the API for one page: the API filters, orders newest first
// and pages each project's proposals. Over several projects it asks each
// for the newest page×25 and merges them (a page of the merge is within
// those); over one it asks for the page itself.
func (p *Panel) queue(w http.ResponseWriter, r *http.Request, c *call) {
	q := r.URL.Query()
	d := queueData{Project: q.Get("project"), Source: q.Get("source"), Q: strings.TrimSpace(q.Get("q")), State: cmp.Or(q.Get("state"), "open")}
	pg := c.page("Approval queue", "queue", "", nil)
	var scope []string
	for _, ps := range pg.Projects {
		if d.Project == "" || ps.ID == d.Project {
			scope = append(scope, ps.ID)
		}
	}
	fetch := func(page int) (items []queueItem, total int, errs []string) {
		aq := url.Values{"state": {d.State}, "order": {"newest"}}
		if d.Source != "" {
			aq.Set("source", d.Source)
		}
		if d.Q != "" {
			aq.Set("q", d.Q)
		}
		if len(scope) == 1 {
			aq.Set("limit", strconv.Itoa(pageSize))
			aq.Set("offset", strconv.Itoa((page-1)*pageSize))
		} else {
			aq.Set("limit", strconv.Itoa(min(page*pageSize, gateway.MaxProposalPage)))
		}
		for _, id := range scope {
			var list []listed
			n, err := c.getPage(apiProject(id, "/proposals?"+aq.Encode()), &list)
			if err != nil {
				errs = append(errs, id+": "+err.Error())
				continue
			}
			total += n
			for _, pr := range list {
				var origin *proposals.Origin
				if pr.Draft != nil {
					origin = &pr.Draft.Origin
				}
				items = append(items, queueItem{Project: id, listed: pr, Source: sourceOf(origin, pr.Labels)})
			}
		}
		return items, total, errs
	}
	page := requestedPage(r)
	if maxPage := gateway.MaxProposalPage / pageSize; len(scope) > 1 && page > maxPage {
		// Merging needs each project's newest page×25, and a listing
		// answers at most MaxProposalPage.
		page = maxPage
		d.Errors = append(d.Errors, fmt.Sprintf("Across projects the queue pages back %d proposals; choose a project to page further.", gateway.MaxProposalPage))
	}
	items, total, errs := fetch(page)
	if last := max(1, (total+pageSize-1)/pageSize); page > last {
		page = last
		items, total, errs = fetch(page)
	}
	d.Errors = append(d.Errors, errs...)
	lo, hi, pgr := pageOf(r, total, page)
	if len(scope) != 1 {
		slices.SortStableFunc(items, func(a, b queueItem) int { return b.CreatedAt.Compare(a.CreatedAt) })
		items = items[min(lo, len(items)):min(hi, len(items))]
	}
	d.Items, d.Pager = items, pgr
	pg.Data = d
	p.renderPage(w, http.StatusOK, "queue", pg)
}

type proposalData struct {
	gateway.ProposalView
	Source string
	Change string // the recorded change as YAML
	Gitea  bool
	Own    bool // the signed-in person proposed it and may approve their own (the sole maintainer)
	// Signed: the person signed in through the provider, whose token the
	// gateway merges with on its own Gitea: no token to paste.
	Signed   bool
	Audit    string
	MergeURL string
}

func (p *Panel) proposal(w http.ResponseWriter, r *http.Request, c *call) {
	project, n := r.PathValue("project"), r.PathValue("number")
	var d proposalData
	if err := c.get(apiProject(project, "/proposals/"+url.PathEscape(n)), &d.ProposalView); err != nil {
		c.failed(w, "Proposal #"+n, err)
		return
	}
	d.Source = sourceOf(d.Origin, d.Labels)
	if me, err := c.whoami(); err == nil {
		d.Signed = me.Via == actor.ViaOIDC
		if d.Origin != nil && d.Origin.Source == schema.SourceUser {
			d.Own = me.SelfApprove && actor.SamePerson(d.Origin.Actor(), me.Actor)
		}
	}
	if d.Recorded != nil {
		d.Change = proposals.ChangeYAML(*d.Recorded)
	}
	var ps gateway.ProjectStatus
	if err := c.get(apiProject(project, ""), &ps); err == nil {
		d.Gitea = ps.Backend == "gitea"
	}
	d.Audit = "/ui/audit?" + url.Values{"project": {project}}.Encode()
	c.render(w, "proposal", fmt.Sprintf("Proposal #%s", n), "queue", project, d)
}

func (p *Panel) approve(w http.ResponseWriter, r *http.Request, c *call) {
	project, n := r.PathValue("project"), r.PathValue("number")
	back := projectPath(project, "/proposals/"+url.PathEscape(n))
	in := gateway.ApproveRequest{GiteaToken: strings.TrimSpace(r.PostFormValue("gitea_token")), Self: r.PostFormValue("self") == "on"}
	var pr proposals.Proposal
	f, err := c.action(project, "POST", apiProject(project, "/proposals/"+url.PathEscape(n)+"/approve"), in, &pr)
	if err != nil {
		var ae *apiError
		if ok := asAPIError(err, &ae); ok && ae.API.Code == "approve_in_gitea" {
			f = flash{Text: "This project's proposals are approved in Gitea, under your own Gitea identity: merge the pull request there, or give your own Gitea token below.",
				Link: ae.API.MergeURL, Label: "merge in Gitea"}
		}
		c.done(w, back, f)
		return
	}
	f.Text = fmt.Sprintf("Approved proposal #%d: merged by %s as %s. Agents receive it from their next get_rules.", pr.Number, pr.MergedBy, shortSHA(pr.MergeCommit))
	c.done(w, back, f)
}

func (p *Panel) reject(w http.ResponseWriter, r *http.Request, c *call) {
	project, n := r.PathValue("project"), r.PathValue("number")
	in := gateway.RejectRequest{Reason: strings.TrimSpace(r.PostFormValue("reason"))}
	var pr proposals.Proposal
	f, err := c.action(project, "POST", apiProject(project, "/proposals/"+url.PathEscape(n)+"/reject"), in, &pr)
	if err == nil {
		f.Text = fmt.Sprintf("Rejected proposal #%d.", pr.Number)
	}
	c.done(w, projectPath(project, "/proposals/"+url.PathEscape(n)), f)
}

// Rules.

type agentBudget struct {
	renderers.Explanation
	Error string
}

type rulesData struct {
	Status     gateway.ProjectStatus
	Snap       *compiler.Snapshot
	Agents     []agentBudget
	Sections   []string
	Values     map[string]string // each section's current value, for its edit form
	Severities []schema.Severity
	Vendor     []vendorProfile
	// Edits are the guardrails as main's bridle.yaml writes them (not as
	// compiled: the compiler fills defaults), which the edit forms edit.
	Edits map[string]*guardrailFields
}

func (p *Panel) rules(w http.ResponseWriter, r *http.Request, c *call) {
	project := r.PathValue("project")
	var rules gateway.Rules
	if err := c.get(apiProject(project, "/rules"), &rules); err != nil {
		c.failed(w, "Rules of "+project, err)
		return
	}
	d := rulesData{Status: rules.Status, Snap: rules.Snapshot, Sections: proposals.Sections,
		Severities: []schema.Severity{schema.Guidance, schema.HardInstruction, schema.Enforcement}}
	if d.Snap != nil {
		d.Vendor, d.Values = vendorProfiles(&d.Snap.Document), sectionValues(&d.Snap.Document)
		var src gateway.RulesSource
		if err := c.get(apiProject(project, "/rules/source"), &src); err == nil {
			d.Edits = guardrailsOf([]byte(src.Document))
		}
		for _, f := range d.Snap.Renders {
			var e renderers.Explanation
			b := agentBudget{}
			if err := c.get(apiProject(project, "/rules/"+url.PathEscape(f.Agent)+"/explain"), &e); err != nil {
				b.Error = err.Error()
			}
			b.Explanation = e
			if b.Agent == "" {
				b.Agent, b.Path = f.Agent, f.Path
			}
			d.Agents = append(d.Agents, b)
		}
	}
	c.render(w, "rules", "Rules", "rules", project, d)
}

type renderData struct {
	gateway.Render
	Explain renderers.Explanation
}

func (p *Panel) agentRender(w http.ResponseWriter, r *http.Request, c *call) {
	project, agent := r.PathValue("project"), r.PathValue("agent")
	var d renderData
	if err := c.get(apiProject(project, "/rules/"+url.PathEscape(agent)), &d.Render); err != nil {
		c.failed(w, "Render for "+agent, err)
		return
	}
	if err := c.get(apiProject(project, "/rules/"+url.PathEscape(agent)+"/explain"), &d.Explain); err != nil {
		c.failed(w, "Explain "+agent, err)
		return
	}
	c.render(w, "render", agent+": "+d.Path, "rules", project, d)
}

// textSections are the sections whose value is text; the others take a
// YAML list.
var textSections = []string{"project.name", "project.overview"}

// propose opens a proposal from one of the rules page's forms: a new
// guardrail, a section's new value, a pattern, or a vendor suggestion's
// promotion or dismissal.
func (p *Panel) propose(w http.ResponseWriter, r *http.Request, c *call) {
	project := r.PathValue("project")
	f := r.PostFormValue
	back := projectPath(project, "/rules")
	ch := proposals.Change{Kind: proposals.Kind(f("kind")), Rationale: strings.TrimSpace(f("why"))}
	switch ch.Kind {
	case proposals.KindGuardrail:
		ch.Guardrail = &schema.Guardrail{ID: strings.TrimSpace(f("id")), Statement: strings.TrimSpace(f("statement")),
			Severity: schema.Severity(f("severity")), Rationale: strings.TrimSpace(f("rationale")), AppliesTo: commaList(f("applies_to"))}
	case proposals.KindRules:
		ch.Section = f("section")
		if slices.Contains(textSections, ch.Section) {
			ch.Value = f("value")
		} else {
			var v any
			if err := yaml.Unmarshal([]byte(f("value")), &v); err != nil {
				c.done(w, back, flash{Text: fmt.Sprintf("%s takes a YAML list: %v", ch.Section, err)})
				return
			}
			ch.Value = jsonable(v)
		}
	case proposals.KindPromote:
		ch.Promote = &proposals.Promotion{Agent: f("agent"), Suggestion: f("suggestion"), Severity: schema.Severity(f("severity")),
			AppliesTo: commaList(f("applies_to"))}
	case proposals.KindVendor:
		ch.Vendor = &proposals.VendorUpdate{Agent: f("agent"), Dismiss: []string{f("suggestion")}}
	case proposals.KindPattern:
		back = projectPath(project, "/patterns")
		pat := &schema.CustomPattern{Name: strings.TrimSpace(f("name")), Description: strings.TrimSpace(f("description"))}
		if f("edit") == "description" {
			// A new description of a pattern on main: everything else as
			// main's bridle.yaml writes it.
			cur, err := c.patternOnMain(project, pat.Name)
			if err != nil {
				c.done(w, back, flash{Text: "Pattern " + pat.Name + " was not edited: " + err.Error()})
				return
			}
			cur.Description, cur.Provenance = pat.Description, schema.Provenance{}
			pat = &cur
		} else if u := strings.TrimSpace(f("url")); u != "" {
			pat.ExampleRepos = []schema.ExampleRepo{{URL: u, ReferenceTag: strings.TrimSpace(f("reference_tag")), ArchTag: strings.TrimSpace(f("arch_tag"))}}
		}
		ch.Pattern = pat
	default:
		c.done(w, back, flash{Text: "Propose a guardrail, a section, a pattern, a promotion or a dismissal."})
		return
	}
	var pr proposals.Proposal
	fl, err := c.action(project, "POST", apiProject(project, "/proposals"), gateway.ProposeRequest{Change: ch}, &pr)
	if err == nil {
		fl.Text = fmt.Sprintf("Opened proposal #%d: %s. It changes nothing until it is approved.", pr.Number, pr.Title)
		back = projectPath(project, "/proposals/"+strconv.Itoa(pr.Number))
	}
	c.done(w, back, fl)
}

// jsonable turns YAML's decoded maps into JSON's.
func jsonable(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

// Patterns.

type patternsData struct {
	Patterns []schema.CustomPattern
	Examples []memory.ExampleStatus
	Error    string
	// A search of the examples' chunks: the query, its arch tag filter,
	// and what the API found (code from the example repositories: shown
	// as text, never as markup).
	Query, ArchTag, SearchError string
	Searched                    bool
	Hits                        []mcp.PatternHit
}

func (p *Panel) patterns(w http.ResponseWriter, r *http.Request, c *call) {
	project := r.PathValue("project")
	var d patternsData
	var rules gateway.Rules
	if err := c.get(apiProject(project, "/rules"), &rules); err != nil {
		c.failed(w, "Patterns of "+project, err)
		return
	}
	if rules.Snapshot != nil {
		d.Patterns = rules.Snapshot.Document.Patterns.Custom
	}
	if err := c.get(apiProject(project, "/patterns"), &d.Examples); err != nil {
		d.Error = err.Error()
	}
	// Searching the indexed chunks, as agents do (search_pattern_examples).
	q := r.URL.Query()
	d.Query, d.ArchTag = strings.TrimSpace(q.Get("q")), strings.TrimSpace(q.Get("arch_tag"))
	if d.Query != "" {
		sq := url.Values{"q": {d.Query}, "limit": {"10"}}
		if d.ArchTag != "" {
			sq.Set("arch_tag", d.ArchTag)
		}
		d.Searched = true
		if err := c.get(apiProject(project, "/patterns/search?"+sq.Encode()), &d.Hits); err != nil {
			d.SearchError = err.Error()
		}
	}
	c.render(w, "patterns", "Patterns", "patterns", project, d)
}

type progressLine struct {
	gateway.Progress
	Percent int
	First   bool // the first line of its example
}

// reindex streams a page that grows as the API's NDJSON progress arrives:
// live progress with no script.
func (p *Panel) reindex(w http.ResponseWriter, r *http.Request, c *call) {
	project := r.PathValue("project")
	tag := r.PostFormValue("tag")
	path := apiProject(project, "/patterns/reindex")
	if tag != "" {
		path += "?tag=" + url.QueryEscape(tag)
	}
	pg := c.page("Re-indexing", "patterns", project, tag)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	p.executePart(w, "reindex", "reindex-top", pg)
	rc.Flush()
	current := ""
	t0 := time.Now()
	err := c.stream("POST", path, func(b []byte) {
		var l progressLine
		if json.Unmarshal(b, &l.Progress) != nil {
			return
		}
		if l.Total > 0 {
			l.Percent = l.Done * 100 / l.Total
		}
		if l.ReferenceTag != current {
			if current != "" {
				p.executePart(w, "reindex", "reindex-end-job", nil)
			}
			current, l.First = l.ReferenceTag, true
		}
		p.executePart(w, "reindex", "reindex-line", l)
		rc.Flush()
	})
	if current != "" {
		p.executePart(w, "reindex", "reindex-end-job", nil)
	}
	end := struct {
		Page         page
		Error, Audit string
	}{Page: pg, Audit: auditLink(project, t0, time.Now())}
	if err != nil {
		end.Error = err.Error()
	}
	p.executePart(w, "reindex", "reindex-bottom", end)
}

// Memory.

type memoryData struct {
	Items               []gateway.MemoryView
	Q, Kind, Agent, Tag string
	Limit               int
	More                string
	Kinds               []string
	Search              bool
	Error               string
}

func (p *Panel) memory(w http.ResponseWriter, r *http.Request, c *call) {
	project := r.PathValue("project")
	q := r.URL.Query()
	d := memoryData{Q: strings.TrimSpace(q.Get("q")), Kind: q.Get("kind"), Agent: strings.TrimSpace(q.Get("agent")),
		Tag: strings.TrimSpace(q.Get("tag")), Kinds: memory.Kinds}
	d.Limit, _ = strconv.Atoi(q.Get("limit"))
	d.Limit = min(max(d.Limit, 50), memory.MaxK*20)
	d.Search = d.Q != ""
	aq := url.Values{"limit": {strconv.Itoa(d.Limit)}}
	for k, v := range map[string]string{"q": d.Q, "kind": d.Kind, "agent": d.Agent, "tag": d.Tag} {
		if v != "" {
			aq.Set(k, v)
		}
	}
	if err := c.get(apiProject(project, "/memory?"+aq.Encode()), &d.Items); err != nil {
		if statusOf(err) == http.StatusUnauthorized {
			c.failed(w, "Memory", err)
			return
		}
		d.Error = err.Error()
	}
	if !d.Search && len(d.Items) == d.Limit && d.Limit < memory.MaxK*20 {
		mq := r.URL.Query()
		mq.Set("limit", strconv.Itoa(min(d.Limit*2, memory.MaxK*20)))
		d.More = r.URL.Path + "?" + mq.Encode()
	}
	c.render(w, "memory", "Memory", "memory", project, d)
}

func (p *Panel) forget(w http.ResponseWriter, r *http.Request, c *call) {
	project, id := r.PathValue("project"), r.PathValue("id")
	f, err := c.action(project, "DELETE", apiProject(project, "/memory/"+url.PathEscape(id)), nil, nil)
	if err == nil {
		f.Text = "Forgot memory " + id + "."
	}
	c.done(w, localPath(projectPath(project, "/memory")+"?"+r.PostFormValue("back")), f)
}

type purgeData struct {
	gateway.PurgeRequest
	Matched int
}

// purge is two steps: without confirm it asks the API how many memories
// the filter matches and asks the admin to confirm that number; with it,
// the API deletes them if the number still holds.
func (p *Panel) purge(w http.ResponseWriter, r *http.Request, c *call) {
	project := r.PathValue("project")
	f := r.PostFormValue
	in := gateway.PurgeRequest{Kind: f("kind"), Agent: strings.TrimSpace(f("agent")), Tag: strings.TrimSpace(f("tag"))}
	back := projectPath(project, "/memory")
	if f("confirm") == "" {
		var got gateway.Purged
		if err := c.do("POST", apiProject(project, "/memory/purge"), in, &got); err != nil {
			c.done(w, back, flash{Text: err.Error()})
			return
		}
		if got.Matched == 0 {
			c.done(w, back, flash{OK: true, Text: "No memory matches that filter: nothing to purge."})
			return
		}
		c.render(w, "purge", "Purge memory", "memory", project, purgeData{PurgeRequest: in, Matched: got.Matched})
		return
	}
	in.Confirm, _ = strconv.Atoi(f("confirm"))
	var got gateway.Purged
	fl, err := c.action(project, "POST", apiProject(project, "/memory/purge"), in, &got)
	switch {
	case err != nil:
	case got.Purged == 0:
		fl = flash{Text: fmt.Sprintf("Nothing was deleted: the filter now matches %d memories, not %d. Purge again to confirm the new number.", got.Matched, in.Confirm)}
	default:
		fl.Text = fmt.Sprintf("Purged %d memories.", got.Purged)
	}
	c.done(w, back, fl)
}

// Agents.

type agentRow struct {
	gateway.AgentView
	Clients []string
}

type agentsData struct {
	Agents   []agentRow
	Profiles []string // agents the rules have a profile for and no token yet
}

func (p *Panel) agents(w http.ResponseWriter, r *http.Request, c *call) {
	project := r.PathValue("project")
	var list []gateway.AgentView
	if err := c.get(apiProject(project, "/agents"), &list); err != nil {
		c.failed(w, "Agents of "+project, err)
		return
	}
	var d agentsData
	has := map[string]bool{}
	for _, a := range list {
		row := agentRow{AgentView: a}
		var e renderers.Explanation
		if c.get(apiProject(project, "/rules/"+url.PathEscape(a.Agent)+"/explain"), &e) == nil {
			row.Clients = e.MCPClients
		}
		has[a.Agent] = true
		d.Agents = append(d.Agents, row)
	}
	var rules gateway.Rules
	if c.get(apiProject(project, "/rules"), &rules) == nil && rules.Snapshot != nil {
		for name := range rules.Snapshot.Document.AgentProfiles {
			if !has[name] {
				d.Profiles = append(d.Profiles, name)
			}
		}
		slices.Sort(d.Profiles)
	}
	c.render(w, "agents", "Agents", "agents", project, d)
}

type mintedData struct {
	gateway.Minted
	Verb  string
	Audit string
}

// showMinted answers the token on this one response (never stored in the
// session, never in a URL; Cache-Control: no-store).
func (c *call) showMinted(w http.ResponseWriter, project, verb string, m gateway.Minted, f flash) {
	c.render(w, "minted", "Token for "+m.Agent.Agent, "agents", project, mintedData{Minted: m, Verb: verb, Audit: f.Link})
}

func (p *Panel) mint(w http.ResponseWriter, r *http.Request, c *call) {
	project := r.PathValue("project")
	var m gateway.Minted
	f, err := c.action(project, "POST", apiProject(project, "/agents"), gateway.AddAgentRequest{Agent: strings.TrimSpace(r.PostFormValue("agent"))}, &m)
	if err != nil {
		c.done(w, projectPath(project, "/agents"), f)
		return
	}
	c.showMinted(w, project, "Minted", m, f)
}

func (p *Panel) rotate(w http.ResponseWriter, r *http.Request, c *call) {
	project, agent := r.PathValue("project"), r.PathValue("agent")
	var m gateway.Minted
	f, err := c.action(project, "POST", apiProject(project, "/agents/"+url.PathEscape(agent)+"/rotate"), nil, &m)
	if err != nil {
		c.done(w, projectPath(project, "/agents"), f)
		return
	}
	c.showMinted(w, project, "Rotated", m, f)
}

func (p *Panel) revoke(w http.ResponseWriter, r *http.Request, c *call) {
	project, agent := r.PathValue("project"), r.PathValue("agent")
	f, err := c.action(project, "DELETE", apiProject(project, "/agents/"+url.PathEscape(agent)), nil, nil)
	if err == nil {
		f.Text = "Revoked the token of " + agent + ": its sessions are closed and the token is refused from now on."
	}
	c.done(w, projectPath(project, "/agents"), f)
}

// Audit.

type auditRow struct {
	audit.Event
	Link, LinkLabel string
	Detail          string
	Who             string // the agent, or the human an admin event names
}

type auditData struct {
	Events                                     []auditRow
	Project, Source, Agent, Kind, Since, Until string
	Older, Newest                              string
	Kinds                                      []string
	Error                                      string
}

const auditPage = 50

func (p *Panel) audit(w http.ResponseWriter, r *http.Request, c *call) {
	q := r.URL.Query()
	d := auditData{Project: q.Get("project"), Source: q.Get("source"), Agent: strings.TrimSpace(q.Get("agent")), Kind: q.Get("kind"),
		Since: strings.TrimSpace(q.Get("since")), Until: strings.TrimSpace(q.Get("until")),
		Kinds: []string{audit.KindMerge, audit.KindUnreviewed, audit.KindAdmin, audit.KindWrite, audit.KindRefusal, audit.KindScopeRequest, audit.KindScopePending, audit.KindScopeDecision}}
	aq := url.Values{"limit": {strconv.Itoa(auditPage)}}
	for k, v := range map[string]string{"project": d.Project, "source": d.Source, "agent": d.Agent, "kind": d.Kind} {
		if v != "" {
			aq.Set(k, v)
		}
	}
	for k, v := range map[string]string{"since": d.Since, "until": d.Until} {
		if v == "" {
			continue
		}
		t, err := parseTime(v)
		if err != nil {
			d.Error = k + ": " + err.Error()
			continue
		}
		aq.Set(k, t.UTC().Format(time.RFC3339Nano))
	}
	var events []audit.Event
	if d.Error == "" {
		if err := c.get("/api/v1/audit?"+aq.Encode(), &events); err != nil {
			if statusOf(err) == http.StatusUnauthorized {
				c.failed(w, "Audit", err)
				return
			}
			d.Error = err.Error()
		}
	}
	for _, e := range events {
		d.Events = append(d.Events, auditRowOf(e))
	}
	if len(events) == auditPage {
		oq := r.URL.Query()
		oq.Set("until", events[len(events)-1].Time.Add(-time.Nanosecond).UTC().Format(time.RFC3339Nano))
		d.Older = r.URL.Path + "?" + oq.Encode()
	}
	if d.Until != "" {
		nq := r.URL.Query()
		nq.Del("until")
		d.Newest = r.URL.Path + "?" + nq.Encode()
	}
	c.render(w, "audit", "Audit", "audit", "", d)
}

// parseTime reads RFC 3339, or a browser's datetime-local value (UTC), or
// a date.
func parseTime(v string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: give 2026-01-31, 2026-01-31T09:00 (UTC) or RFC 3339", v)
}

// auditRowOf links an event to what is behind it: the proposal, the
// merge commit, the session.
func auditRowOf(e audit.Event) auditRow {
	row := auditRow{Event: e, Who: e.Agent}
	switch a := e.Actor; {
	case a == nil || row.Who != "":
	case a.IsHuman() && a.Named():
		row.Who = a.String() // "Mira (break-glass)" for the admin credential
	case a.Kind == actor.Bridle:
		row.Who = a.Name
	}
	if n, err := strconv.Atoi(e.ID); err == nil && n > 0 && e.Project != "" &&
		(strings.Contains(e.Summary, "proposal") || strings.Contains(e.Summary, "proposed") || strings.HasPrefix(e.Tool, "propose")) {
		row.Link, row.LinkLabel = projectPath(e.Project, "/proposals/"+e.ID), "proposal #"+e.ID
	}
	if e.Session != "" && row.Link == "" {
		row.Link, row.LinkLabel = "/ui/audit?"+url.Values{"project": {e.Project}, "agent": {e.Agent}}.Encode(), "session "+shortSHA(e.Session)
	}
	var parts []string
	for _, k := range []string{"merged_by", "merge_commit", "reason", "proposal", "sessions_closed", "subject"} {
		if v, ok := e.Detail[k]; ok && v != nil && v != "" {
			s := fmt.Sprint(v)
			if k == "merge_commit" {
				s = shortSHA(s)
			}
			parts = append(parts, k+": "+s)
		}
	}
	row.Detail = strings.Join(parts, " · ")
	return row
}

func asAPIError(err error, target **apiError) bool { return errors.As(err, target) }
