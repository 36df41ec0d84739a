package panel

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/upstream"
	"github.com/bridle-dev/bridle/vendorsync"
)

// commaList is a form's comma-separated list, trimmed, empties dropped.
func commaList(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// vendorProfile is one agent profile's vendor guidance on the Rules page.
type vendorProfile struct {
	Agent       string
	Sources     []schema.VendorSource
	Suggestions []schema.VendorSuggestion
	Pending     int
}

// vendorProfiles are the profiles that read vendor guidance or hold
// suggestions, by name.
func vendorProfiles(doc *schema.Document) []vendorProfile {
	var out []vendorProfile
	for name, prof := range doc.AgentProfiles {
		if len(prof.VendorSources) == 0 && len(prof.VendorGuardrailSuggestions) == 0 {
			continue
		}
		vp := vendorProfile{Agent: name, Sources: prof.VendorSources, Suggestions: prof.VendorGuardrailSuggestions}
		for _, s := range prof.VendorGuardrailSuggestions {
			if s.Status == "" || s.Status == schema.SuggestionPending {
				vp.Pending++
			}
		}
		out = append(out, vp)
	}
	slices.SortFunc(out, func(a, b vendorProfile) int { return strings.Compare(a.Agent, b.Agent) })
	return out
}

// sectionValues are each proposable section's current value as its form
// takes it: text for name and overview, YAML for the lists.
func sectionValues(doc *schema.Document) map[string]string {
	list := func(v any) string {
		b, err := yaml.Marshal(v)
		if err != nil || strings.TrimSpace(string(b)) == "null" {
			return "[]\n"
		}
		return string(b)
	}
	return map[string]string{
		"project.name": doc.Project.Name, "project.overview": doc.Project.Overview,
		"project.stack": list(doc.Project.Stack), "project.commands": list(doc.Project.Commands),
		"project.conventions": list(doc.Project.Conventions), "patterns.standard": list(doc.Patterns.Standard),
	}
}

// editGuardrailForm proposes an edit of one guardrail: main's bridle.yaml
// as written (GET rules/source), that guardrail's lines changed, proposed
// whole as an edit made from that very document, so it applies only while
// main is still what was edited.
func (p *Panel) editGuardrailForm(w http.ResponseWriter, r *http.Request, c *call) {
	project, id := r.PathValue("project"), r.PathValue("id")
	f := r.PostFormValue
	back := projectPath(project, "/rules")
	var src gateway.RulesSource
	if err := c.get(apiProject(project, "/rules/source"), &src); err != nil {
		c.done(w, back, flash{Text: err.Error()})
		return
	}
	was := guardrailFields{Statement: f("was_statement"), Severity: f("was_severity"), AppliesTo: commaList(f("was_applies_to"))}
	to := guardrailFields{Statement: strings.TrimSpace(f("statement")), Severity: f("severity"), AppliesTo: commaList(f("applies_to"))}
	doc, err := editGuardrail([]byte(src.Document), id, was, to)
	if err != nil {
		c.done(w, back, flash{Text: "Guardrail " + id + " was not edited: " + err.Error()})
		return
	}
	why := strings.TrimSpace(f("why"))
	if why == "" {
		why = "Edit guardrail " + id + "."
	}
	ch := proposals.Change{Kind: proposals.KindEdit, Document: string(doc), Rationale: why}.Recorded([]byte(src.Document))
	var pr proposals.Proposal
	fl, err := c.action(project, "POST", apiProject(project, "/proposals"), gateway.ProposeRequest{Change: ch}, &pr)
	if err == nil {
		fl.Text = fmt.Sprintf("Opened proposal #%d to edit guardrail %s. It changes nothing until it is approved.", pr.Number, id)
		back = projectPath(project, "/proposals/"+strconv.Itoa(pr.Number))
	}
	c.done(w, back, fl)
}

// patternOnMain is custom pattern name as main's bridle.yaml writes it.
func (c *call) patternOnMain(project, name string) (schema.CustomPattern, error) {
	var src gateway.RulesSource
	if err := c.get(apiProject(project, "/rules/source"), &src); err != nil {
		return schema.CustomPattern{}, err
	}
	var doc struct {
		Patterns struct {
			Custom []schema.CustomPattern `yaml:"custom"`
		} `yaml:"patterns"`
	}
	if err := yaml.Unmarshal([]byte(src.Document), &doc); err != nil {
		return schema.CustomPattern{}, fmt.Errorf("main's bridle.yaml does not parse: %w", err)
	}
	for _, p := range doc.Patterns.Custom {
		if p.Name == name {
			return p, nil
		}
	}
	return schema.CustomPattern{}, fmt.Errorf("no pattern %q on main", name)
}

// vendorSyncData is what a vendor sync did, per profile.
type vendorSyncData struct {
	Results []vendorsync.Result
	Error   string
	Audit   string
}

// vendorSync runs the vendor sync (POST vendor/sync) and shows each
// profile's result: what is new, what was withdrawn, what could not be
// read, and the proposal it opened.
func (p *Panel) vendorSync(w http.ResponseWriter, r *http.Request, c *call) {
	project := r.PathValue("project")
	path := apiProject(project, "/vendor/sync")
	if a := r.PostFormValue("agent"); a != "" {
		path += "?agent=" + url.QueryEscape(a)
	}
	var d vendorSyncData
	f, err := c.action(project, "POST", path, nil, &d.Results)
	if statusOf(err) == http.StatusUnauthorized {
		c.failed(w, "Vendor sync", err)
		return
	}
	if err != nil {
		d.Error = err.Error()
	}
	d.Audit = f.Link
	c.render(w, "vendorsync", "Vendor sync", "rules", project, d)
}

// restartUpstream restarts an upstream MCP server (POST
// upstreams/{name}/restart) and says how it came back.
func (p *Panel) restartUpstream(w http.ResponseWriter, r *http.Request, c *call) {
	project, name := r.PathValue("project"), r.PathValue("name")
	var st upstream.Status
	f, err := c.action(project, "POST", apiProject(project, "/upstreams/"+url.PathEscape(name)+"/restart"), nil, &st)
	if err == nil {
		f.Text = fmt.Sprintf("Restarted upstream %s of %s: it is %s.", name, project, st.State)
	} else {
		var ae *apiError
		if errors.As(err, &ae) {
			f.Text = fmt.Sprintf("Upstream %s of %s did not come back: %s", name, project, ae.Error())
		}
	}
	c.done(w, "/", f)
}
