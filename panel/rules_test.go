package panel_test

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/kanboardtest"
	"github.com/bridle-dev/bridle/internal/upstreamtest"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
)

// commit writes bridle.yaml in the rules repository dir and commits it on
// main, as its owner.
func commit(t testing.TB, dir, content string) {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	if err := os.WriteFile(filepath.Join(dir, "bridle.yaml"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	wt.Add("bridle.yaml")
	if _, err := wt.Commit("The owner's edit", &git.CommitOptions{Author: &object.Signature{Name: "Mira Rossi", Email: "mira@example.com", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
}

// scaffoldSources matches a scaffold profile's default vendor_sources (on
// the internet).
var scaffoldSources = regexp.MustCompile(`(?m)^(  [a-z]+):\n    vendor_sources:\n(?:      - .*\n)+`)

// vendorRules is a rules repository of project id whose claude profile
// reads source and holds suggestions, one of them hostile (as hostile as
// the schema lets a rules file be: it refuses HTML in these fields).
func vendorRules(t testing.TB, id, source string) string {
	t.Helper()
	dir := newRules(t, id)
	src, _ := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	offline := scaffoldSources.ReplaceAllString(string(src), "$1: {}\n")
	edited := strings.Replace(offline, "  claude: {}\n", `  claude:
    vendor_sources:
      - url: `+source+`
    vendor_guardrail_suggestions:
      - id: read-before-edit
        statement: Read a file before editing it.
        severity: guidance
        source: https://docs.example/claude/best-practices
        section: Best practices > Editing
        excerpt: Always read the file you are about to change.
      - id: hostile-advice
        statement: Read [the guide](javascript:alert(1)) and **obey** it.
        source: javascript:alert(2)
        section: Setup > "Danger" & more
        excerpt: 'Click [here](javascript:alert(3)) and "quote" me & obey.'

      - id: old-advice
        statement: Old advice.
        status: withdrawn
      - id: declined-advice
        statement: Declined advice.
        status: dismissed
`, 1)
	if offline == string(src) || edited == offline {
		t.Fatal("the scaffold's profiles moved")
	}
	commit(t, dir, edited)
	return dir
}

// The Rules page lists each profile's vendor suggestions, quoted and
// inert, with their evidence and status; promoting and dismissing one open
// proposals through the admin API; the sync shows what it did.
func TestVendorSuggestionsOnTheRulesPage(t *testing.T) {
	guide := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte("# Guide\n\n- Always run the tests before you commit.\n"))
	}))
	defer guide.Close()
	e := start(t, nil, withRules("alpha", vendorRules(t, "alpha", guide.URL+"/guide.md")))
	b := e.browser(t)
	b.login()
	rules := b.get("/ui/projects/alpha/rules")
	if rules.code != 200 {
		t.Fatalf("rules: %d %s", rules.code, rules.body)
	}
	for _, bad := range liveMarkup(rules.body) {
		t.Errorf("rules page: %s", bad)
	}
	for _, want := range []string{"Read a file before editing it.", "Best practices &gt; Editing", "https://docs.example/claude/best-practices",
		"Setup &gt; &#34;Danger&#34; &amp; more", "Click [here](javascript:alert(3)) and &#34;quote&#34; me &amp; obey.", "Read [the guide](javascript:alert(1)) and **obey** it.", "javascript:alert(2)",
		">withdrawn<", ">dismissed<", ">pending<", "Sync vendor guidance now"} {
		if !strings.Contains(rules.body, want) {
			t.Errorf("the rules page lacks %q", want)
		}
	}
	if n := strings.Count(rules.body, `name="kind" value="promote"`); n != 3 {
		t.Errorf("%d promote forms; want 3 (none for the dismissed suggestion)", n)
	}

	promoted := b.follow("/ui/projects/alpha/propose", url.Values{"kind": {"promote"}, "agent": {"claude"}, "suggestion": {"read-before-edit"},
		"severity": {"hard-instruction"}, "applies_to": {"claude, codex"}, "why": {"Good advice."}})
	if !strings.Contains(promoted.body, "Opened proposal #1") {
		t.Fatalf("promote: %s", promoted.body)
	}
	dismissed := b.follow("/ui/projects/alpha/propose", url.Values{"kind": {"vendor"}, "agent": {"claude"}, "suggestion": {"hostile-advice"}, "why": {"Not for us."}})
	if !strings.Contains(dismissed.body, "Opened proposal #2") {
		t.Fatalf("dismiss: %s", dismissed.body)
	}
	var v gateway.ProposalView
	e.api(t, "GET", "/api/v1/projects/alpha/proposals/1", nil, &v)
	if p := v.Recorded.Promote; v.Recorded.Kind != proposals.KindPromote || p == nil || p.Agent != "claude" || p.Suggestion != "read-before-edit" ||
		p.Severity != schema.HardInstruction || strings.Join(p.AppliesTo, ",") != "claude,codex" || v.Recorded.Rationale != "Good advice." {
		t.Errorf("the promotion recorded: %+v", v.Recorded)
	}
	e.api(t, "GET", "/api/v1/projects/alpha/proposals/2", nil, &v)
	if d := v.Recorded.Vendor; v.Recorded.Kind != proposals.KindVendor || d == nil || d.Agent != "claude" || !slices.Equal(d.Dismiss, []string{"hostile-advice"}) ||
		v.Origin.Source != schema.SourceUser || v.Origin.Author != "Mira Rossi" {
		t.Errorf("the dismissal recorded: %+v %+v", v.Recorded, v.Origin)
	}
	if code := e.api(t, "POST", "/api/v1/projects/alpha/proposals/2/approve", gateway.ApproveRequest{Self: true}, nil); code != 200 {
		t.Fatalf("approve the dismissal: %d", code)
	}
	e.waitFor(t, "alpha", func(r gateway.Rules) bool {
		for _, s := range r.Snapshot.Document.AgentProfiles["claude"].VendorGuardrailSuggestions {
			if s.ID == "hostile-advice" {
				return s.Status == schema.SuggestionDismissed
			}
		}
		return false
	})
	if n := strings.Count(b.get("/ui/projects/alpha/rules").body, `name="kind" value="promote"`); n != 2 {
		t.Errorf("after the dismissal: %d promote forms, want 2", n)
	}

	synced := b.post("/ui/projects/alpha/vendor/sync", nil)
	if synced.code != 200 || !strings.Contains(synced.body, guide.URL) || !strings.Contains(synced.body, `href="/ui/projects/alpha/proposals/3"`) ||
		!strings.Contains(synced.body, "audit entry") {
		t.Errorf("the sync's page: %d %s", synced.code, synced.body)
	}
	for _, bad := range liveMarkup(synced.body) {
		t.Errorf("the sync's page: %s", bad)
	}
	var three proposals.Proposal
	if e.api(t, "GET", "/api/v1/projects/alpha/proposals/3", nil, &three); !strings.Contains(three.Title, "Vendor suggestions for claude: 1 new") {
		t.Errorf("the sync's proposal: %+v", three)
	}
}

// Editing a guardrail on the Rules page proposes main's bridle.yaml with
// that guardrail's lines changed, comments kept; it refuses an edit of what
// main no longer says, and the proposal applies only to the main it was
// made from.
func TestEditAGuardrail(t *testing.T) {
	e := start(t, []string{"alpha"})
	b := e.browser(t)
	b.login()
	rules := b.get("/ui/projects/alpha/rules")
	if !strings.Contains(rules.body, `action="/ui/projects/alpha/guardrails/small-changes/edit"`) {
		t.Fatalf("no edit form for small-changes:\n%s", rules.body)
	}
	var before gateway.RulesSource
	e.api(t, "GET", "/api/v1/projects/alpha/rules/source", nil, &before)
	// What the form says main says, as the browser would send it back.
	editForm := regexp.MustCompile(`(?s)action="/ui/projects/alpha/guardrails/small-changes/edit">.*?</form>`).FindString(rules.body)
	was := url.Values{}
	for _, m := range regexp.MustCompile(`name="(was_[a-z_]+)" value="([^"]*)"`).FindAllStringSubmatch(editForm, -1) {
		was.Set(m[1], html.UnescapeString(m[2]))
	}
	if want := (url.Values{"was_statement": {"Keep each change small enough to review in one sitting."}, "was_severity": {"guidance"}, "was_applies_to": {""}}); !reflect.DeepEqual(was, want) {
		t.Fatalf("the edit form's record of main: %v, want %v (as bridle.yaml writes it, not as compiled)", was, want)
	}
	form := func(statement string) url.Values {
		f := url.Values{"statement": {statement}, "severity": {"hard-instruction"}, "applies_to": {"claude"}, "why": {"Tests count too."}}
		for k, v := range was {
			f[k] = v
		}
		return f
	}
	const statement = "Keep each change, tests included, small enough to review in one sitting."
	p := b.follow("/ui/projects/alpha/guardrails/small-changes/edit", form(statement))
	if !strings.Contains(p.body, "Opened proposal #1 to edit guardrail small-changes") {
		t.Fatalf("edit: %s", p.body)
	}
	var v gateway.ProposalView
	e.api(t, "GET", "/api/v1/projects/alpha/proposals/1", nil, &v)
	if v.Recorded == nil || v.Recorded.Kind != proposals.KindEdit || v.Recorded.Rationale != "Tests count too." {
		t.Fatalf("the edit recorded: %+v", v.Recorded)
	}
	doc := v.Recorded.Document
	if !strings.Contains(doc, "# Severity tiers:") || !strings.Contains(doc, statement) {
		t.Errorf("the edited document lost its comments or the edit:\n%s", doc)
	}
	// Line for line, the document is main's but for the guardrail's three.
	old, edited := strings.Split(before.Document, "\n"), strings.Split(doc, "\n")
	i := slices.Index(old, "    statement: Keep each change small enough to review in one sitting.")
	if len(edited) != len(old)+1 || i < 0 || !slices.Equal(old[:i], edited[:i]) || !slices.Equal(old[i+2:], edited[i+3:]) ||
		!slices.Equal(edited[i:i+3], []string{"    statement: " + statement, "    severity: hard-instruction", "    applies_to: [claude]"}) {
		t.Errorf("the edit changed more than the guardrail's lines:\n%s", doc)
	}

	// What main no longer says is not edited.
	stale := b.follow("/ui/projects/alpha/guardrails/small-changes/edit", url.Values{"was_statement": {"Something else."}, "was_severity": {"guidance"},
		"statement": {"x"}, "severity": {"guidance"}})
	if !strings.Contains(stale.body, "changed on main since the page was drawn") {
		t.Errorf("a stale edit: %s", stale.body)
	}
	// An edit applies to the main it was made from only: main moves, and
	// approving it is a conflict, not a revert of what merged since.
	b.follow("/ui/projects/alpha/guardrails/small-changes/edit", form("Keep each change small."))
	b.follow("/ui/projects/alpha/propose", url.Values{"kind": {"rules"}, "section": {"project.name"}, "value": {"Alpha"}, "why": {"Named."}})
	if code := e.api(t, "POST", "/api/v1/projects/alpha/proposals/3/approve", gateway.ApproveRequest{Self: true}, nil); code != 200 {
		t.Fatalf("approve the section: %d", code)
	}
	var ae gateway.APIError
	if code := e.api(t, "POST", "/api/v1/projects/alpha/proposals/2/approve", gateway.ApproveRequest{Self: true}, &ae); code != http.StatusConflict {
		t.Errorf("approving an edit of an older main: %d %+v", code, ae)
	}
	if code := e.api(t, "POST", "/api/v1/projects/alpha/proposals/1/approve", gateway.ApproveRequest{Self: true}, &ae); code != http.StatusConflict {
		t.Errorf("approving the first edit after main moved: %d %+v", code, ae)
	}
	// Made again from the new main, it merges, and the page shows it.
	b.follow("/ui/projects/alpha/guardrails/small-changes/edit", form(statement))
	if code := e.api(t, "POST", "/api/v1/projects/alpha/proposals/4/approve", gateway.ApproveRequest{Self: true}, nil); code != 200 {
		t.Fatalf("approve the edit: %d", code)
	}
	e.waitFor(t, "alpha", func(r gateway.Rules) bool {
		for _, g := range r.Snapshot.Document.Guardrails {
			if g.ID == "small-changes" {
				return g.Statement == statement && g.Severity == schema.HardInstruction && slices.Equal(g.AppliesTo, []string{"claude"})
			}
		}
		return false
	})
	if r := b.get("/ui/projects/alpha/rules"); !strings.Contains(r.body, statement) {
		t.Errorf("the rules page does not show the edit")
	}
}

// The Overview shows each upstream MCP server with a Restart button; it
// restarts it through the admin API and says how it came back.
func TestRestartAnUpstream(t *testing.T) {
	fake := upstreamtest.NewServer()
	up := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return fake }, nil))
	t.Cleanup(up.Close) // after the gateway's stop (cleanups run last first): it holds a stream open
	e := start(t, nil, func(c *gateway.Config, _ *gateway.Options) {
		c.Projects["alpha"] = gateway.ProjectConfig{Rules: upstreamtest.Rules(t), Upstreams: map[string]gateway.UpstreamConfig{"gitea": {URL: up.URL}}}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		var bs []gateway.BackendStatus
		e.api(t, "GET", "/api/v1/integrations", nil, &bs)
		if slices.ContainsFunc(bs, func(s gateway.BackendStatus) bool { return s.Name == "upstream:gitea" && s.Up }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the upstream never came up: %+v", bs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	b := e.browser(t)
	b.login()
	ov := b.get("/")
	if !strings.Contains(ov.body, `action="/ui/projects/alpha/upstreams/gitea/restart"`) {
		t.Fatalf("no Restart button for the upstream:\n%s", ov.body)
	}
	if n := strings.Count(ov.body, "/restart\""); n != 1 {
		t.Errorf("%d Restart buttons; want one (upstreams only)", n)
	}
	after := b.follow("/ui/projects/alpha/upstreams/gitea/restart", nil)
	if !strings.Contains(after.body, "Restarted upstream gitea of alpha: it is up.") || !strings.Contains(after.body, "audit entry") {
		t.Errorf("after the restart: %s", after.body)
	}
	if nope := b.follow("/ui/projects/alpha/upstreams/nope/restart", nil); !strings.Contains(nope.body, "has no upstream") {
		t.Errorf("restarting no upstream: %s", nope.body)
	}
	a := b.get("/ui/audit?project=alpha")
	if !strings.Contains(a.body, "restarted upstream gitea") {
		t.Errorf("the audit page lacks the restart")
	}
}

// Text Kanboard holds is hostile too: a task titled with script and HTML,
// made through the MCP kanboard tools on the fake Kanboard, by a client
// whose name is a payload, renders inert on every page.
func TestHostileKanboardTextRendersInert(t *testing.T) {
	const appToken, claudeToken = "kanboard-app-token-0123456789", "claude-personal-token-9876543210"
	kb := kanboardtest.New(t, appToken)
	bot := kb.AddUser("claude-bot", claudeToken, "")
	board := kb.AddProject(`<b>Runic</b> board`, bot)
	secret := func(v string) string {
		f := filepath.Join(t.TempDir(), "token")
		os.WriteFile(f, []byte(v), 0o600)
		return f
	}
	e := start(t, nil, func(c *gateway.Config, _ *gateway.Options) {
		c.Projects["alpha"] = gateway.ProjectConfig{Rules: upstreamtest.Rules(t),
			Kanboard: &gateway.KanboardConfig{URL: kb.Endpoint(), User: "jsonrpc", TokenFile: secret(appToken), Projects: []int{board},
				Agents: map[string]gateway.KanboardUser{"claude": {User: "claude-bot", TokenFile: secret(claudeToken)}}}}
	})
	const client = `claude-code"><script>alert("client")</script>`
	cs := e.connectAs(t, "alpha", e.mint(t, "alpha", "claude"), client)
	title := `<script>alert("kanboard")</script><img src=x onerror=alert(1)> [x](javascript:alert(2))`
	out := tool(t, cs, "kanboard_create_task", map[string]any{"project_id": board, "title": title})
	if !strings.Contains(out, "alert") {
		t.Fatalf("the task was not created with its title: %s", out)
	}
	task := regexp.MustCompile(`"id":\s*(\d+)`).FindStringSubmatch(out)
	if task == nil {
		t.Fatalf("no task id in %s", out)
	}
	id, _ := strconv.Atoi(task[1])
	tool(t, cs, "kanboard_update_task", map[string]any{"task_id": id, "title": title + " (again)"})
	b := e.browser(t)
	b.login()
	sawClient := false
	for _, path := range append(pagesOf("alpha"), "/ui/audit?project=alpha&agent=claude", "/ui/audit?kind=write") {
		p := b.get(path)
		if p.code != 200 {
			t.Errorf("GET %s: %d", path, p.code)
			continue
		}
		for _, bad := range liveMarkup(p.body) {
			t.Errorf("GET %s: %s", path, bad)
		}
		if strings.Contains(p.body, `<script>alert("`) || strings.Contains(p.body, "<b>Runic") {
			t.Errorf("GET %s carries the payload as markup", path)
		}
		sawClient = sawClient || strings.Contains(p.body, `claude-code&#34;&gt;&lt;script&gt;alert(&#34;client&#34;)&lt;/script&gt;`)
	}
	if !sawClient {
		t.Errorf("the hostile client name is shown nowhere (escaped): the test proves less than it says")
	}
	a := b.get("/ui/audit?project=alpha&agent=claude")
	if !strings.Contains(a.body, "created Kanboard task") || !strings.Contains(a.body, "updated Kanboard task") {
		t.Errorf("the audit page lacks the Kanboard writes:\n%s", a.body)
	}
}

// A pattern's description is edited on the Patterns page; its example
// repositories stay as main has them.
func TestEditAPatternsDescription(t *testing.T) {
	e := start(t, []string{"alpha"})
	addPattern(t, e, "alpha", "layered", writeExample(t, e, "layered", 2))
	b := e.browser(t)
	b.login()
	if p := b.get("/ui/projects/alpha/patterns"); !strings.Contains(p.body, `id="edit-pattern-layered"`) {
		t.Fatalf("no edit for the pattern:\n%s", p.body)
	}
	const desc = "Handlers decode; services decide; stores persist."
	p := b.follow("/ui/projects/alpha/propose", url.Values{"kind": {"pattern"}, "edit": {"description"}, "name": {"layered"}, "description": {desc}, "why": {"Shorter."}})
	if !strings.Contains(p.body, "Opened proposal #2") {
		t.Fatalf("edit: %s", p.body)
	}
	var v gateway.ProposalView
	e.api(t, "GET", "/api/v1/projects/alpha/proposals/2", nil, &v)
	pat := v.Recorded.Pattern
	if pat == nil || pat.Description != desc || len(pat.ExampleRepos) != 1 || pat.ExampleRepos[0].ReferenceTag != "layered-1" || pat.ExampleRepos[0].ArchTag != "layered" {
		t.Errorf("the edit recorded: %+v", v.Recorded)
	}
	if nope := b.follow("/ui/projects/alpha/propose", url.Values{"kind": {"pattern"}, "edit": {"description"}, "name": {"nope"}, "description": {desc}}); !strings.Contains(nope.body, `was not edited: no pattern`) {
		t.Errorf("editing no pattern: %s", nope.body)
	}
}
