package panel_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/schema"
)

var update = flag.Bool("update", false, "rewrite docs/screenshots/*.png from the screenshot test")

// RequireBrowser is the variable that makes a missing Chromium a failure,
// not a skip (scripts/test.sh sets it).
const RequireBrowser = "BRIDLE_REQUIRE_BROWSER"

// chromiumPath is Debian's chromium (or $BRIDLE_CHROMIUM). Without one the
// browser tests skip, unless RequireBrowser is 1.
func chromiumPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("BRIDLE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(RequireBrowser) == "1" {
		t.Fatalf("%s=1 but no Chromium was found: apt-get install chromium (or set BRIDLE_CHROMIUM)", RequireBrowser)
	}
	t.Skip("no Chromium (apt-get install chromium); the browser tests skip")
	return ""
}

// newChrome starts headless Chromium with a fresh profile for the test and
// returns its tab's context.
func newChrome(t testing.TB) context.Context {
	t.Helper()
	path := chromiumPath(t)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("font-render-hinting", "none"),
		chromedp.UserDataDir(t.TempDir()))
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 860)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// must runs browser steps, failing the test with what failed.
func must(t testing.TB, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %s: %v", what, err)
	}
}

// markPage marks the page the browser shows, so that newPage can tell
// the page a form's submission brings from it: a flash the old page still
// shows must not pass for the new one's.
func markPage() chromedp.Action[chromedp.Void] {
	return chromedp.EvaluateAsDevTools[chromedp.Void](`document.documentElement.setAttribute("data-test-stale", "1")`)
}

// newPage waits for a page markPage did not mark that shows css. It asks
// again after each answer rather than polling in the page: the page it asks
// may be the old one, going away mid-question.
func newPage(css string) chromedp.Action[chromedp.Void] {
	q, _ := json.Marshal(css)
	ready := `!document.documentElement.hasAttribute("data-test-stale") && document.readyState === "complete" && document.querySelector(` + string(q) + `) !== null`
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for {
			if ok, err := chromedp.EvaluateAsDevTools[bool](ready)(ctx, tg); err == nil && ok {
				return chromedp.Void{}, nil
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, fmt.Errorf("no new page showing %s: %w", css, ctx.Err())
			case <-tick.C:
			}
		}
	}
}

// submit clicks sel, which leaves the page (a form's button, a link), and
// waits for the page that brings which shows want: never for want on the
// page it left, which may show it too (a flash, a table). Every click that
// navigates goes through submit (TestBrowserClicksWaitForTheirPage).
func submit(sel, want string) chromedp.Action[chromedp.Void] {
	return steps(markPage(), chromedp.Click(chromedp.CSS(sel)), newPage(want))
}

// unfold clicks a <details>' summary and waits for a field inside it: the
// same page, no navigation.
func unfold(summary, field string) chromedp.Action[chromedp.Void] {
	return steps(chromedp.Click(chromedp.CSS(summary)), chromedp.WaitVisible(chromedp.CSS(field)))
}

// steps is one action running each of as in turn.
func steps(as ...chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		for _, a := range as {
			if _, err := a(ctx, tg); err != nil {
				return chromedp.Void{}, err
			}
		}
		return chromedp.Void{}, nil
	}
}

func text(t testing.TB, ctx context.Context, css string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		t.Fatalf("browser: text of %s: %v", css, err)
	}
	return s
}

// signIn opens path, which sends the browser to the sign-in form, signs in
// and waits for sel on the page it comes back to.
func signIn(t testing.TB, ctx context.Context, e *env, path, sel string) {
	t.Helper()
	must(t, ctx, "sign in",
		chromedp.Navigate(e.url+path),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), adminToken),
		submit("button[type=submit]", sel))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasSuffix(loc, path) {
		t.Fatalf("after sign-in the browser is at %q (%v), not %s", loc, err, path)
	}
}

// The whole approval path, checked from both sides: an agent proposes over
// MCP, the admin approves in the browser, the agent's next get_rules has
// the rule with the admin as approver, and the audit page shows both.
func TestApproveInTheBrowser(t *testing.T) {
	ctx := newChrome(t)
	e := start(t, []string{"alpha"})
	cs := e.connect(t, "alpha", e.mint(t, "alpha", "claude"))
	tool(t, cs, "propose_guardrail", map[string]any{"id": "no-friday-deploys", "severity": "hard-instruction",
		"statement": "Never deploy to production on a Friday.", "why": "The Friday outage in March."})
	if got := tool(t, cs, "get_rules", nil); strings.Contains(got, "no-friday-deploys") {
		t.Fatal("the proposal is served before it is approved")
	}

	signIn(t, ctx, e, "/ui/queue", "table")
	if q := text(t, ctx, "table"); !strings.Contains(q, "no-friday-deploys") || !strings.Contains(q, "agent") {
		t.Fatalf("the queue does not show the agent's proposal:\n%s", q)
	}
	must(t, ctx, "open the proposal",
		submit("td.title a", ".decide"))
	if body := text(t, ctx, "main"); !strings.Contains(body, "The Friday outage in March.") || !strings.Contains(body, "CLAUDE.md") {
		t.Fatalf("the proposal page lacks the rationale or the claude diff:\n%s", body)
	}
	must(t, ctx, "approve",
		submit(`form[action$="/approve"] button`, ".flash.ok"))
	if f := text(t, ctx, ".flash.ok"); !strings.Contains(f, "Approved proposal #1") || !strings.Contains(f, "Mira Rossi") {
		t.Fatalf("flash after approving: %q", f)
	}

	// The agent's side: its next get_rules carries the rule, approved by the admin.
	deadline := time.Now().Add(15 * time.Second)
	var rules string
	for time.Now().Before(deadline) {
		if rules = tool(t, cs, "get_rules", nil); strings.Contains(rules, "no-friday-deploys") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(rules, "Never deploy to production on a Friday.") || !strings.Contains(rules, "approved by Mira Rossi") {
		t.Fatalf("get_rules after the approval:\n%s", rules)
	}

	// The audit entry the flash links to, and the timeline with both events.
	must(t, ctx, "follow the audit link",
		submit(".flash.ok a", "table.audit"))
	if a := text(t, ctx, "table.audit"); !strings.Contains(a, "approved proposal #1") || strings.Contains(a, "propose_guardrail") {
		t.Fatalf("the action's audit link shows more or less than its entry:\n%s", a)
	}
	must(t, ctx, "the project's timeline", chromedp.Navigate(e.url+"/ui/audit?project=alpha"), chromedp.WaitVisible(chromedp.CSS("table.audit")))
	a := text(t, ctx, "table.audit")
	for _, want := range []string{"approved proposal #1", "propose_guardrail", "claude"} {
		if !strings.Contains(a, want) {
			t.Errorf("the audit page lacks %q:\n%s", want, a)
		}
	}
}

func TestMemoryInTheBrowser(t *testing.T) {
	ctx := newChrome(t)
	e := start(t, []string{"alpha"})
	cs := e.connect(t, "alpha", e.mint(t, "alpha", "claude"))
	tool(t, cs, "remember", map[string]any{"text": "We chose SQLite for the job queue: one file, no server.", "kind": "decision", "tags": []string{"queue"}})
	for _, n := range []string{"one", "two", "three"} {
		tool(t, cs, "remember", map[string]any{"text": "Scratch note " + n + " about the build.", "kind": "note", "tags": []string{"scratch"}})
	}
	signIn(t, ctx, e, "/ui/projects/alpha/memory", "ul.memories")
	must(t, ctx, "search",
		chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "which database for the queue"),
		submit(`form.filters button`, `.memory-head .muted.small + .muted.small`))
	if first := text(t, ctx, "ul.memories li"); !strings.Contains(first, "SQLite") {
		t.Fatalf("the best hit is not the queue decision:\n%s", first)
	}
	must(t, ctx, "forget it",
		submit(`ul.memories li form button`, ".flash.ok"))
	if f := text(t, ctx, ".flash.ok"); !strings.Contains(f, "Forgot memory") {
		t.Fatalf("flash after forgetting: %q", f)
	}
	if got := tool(t, cs, "recall", map[string]any{"query": "SQLite job queue", "k": 5}); strings.Contains(got, "SQLite") {
		t.Errorf("the agent still recalls the forgotten memory: %s", got)
	}
	must(t, ctx, "count a purge",
		chromedp.SetValue(chromedp.CSS(`form.purge select[name=kind]`), "note"),
		submit(`form.purge button`, ".confirm"))
	if c := text(t, ctx, "h1"); !strings.Contains(c, "Purge 3 memories?") {
		t.Fatalf("the confirmation does not name the count: %q", c)
	}
	must(t, ctx, "confirm the purge",
		submit(`.confirm button.danger`, ".flash.ok"))
	if f := text(t, ctx, ".flash.ok"); !strings.Contains(f, "Purged 3 memories") {
		t.Fatalf("flash after purging: %q", f)
	}
	if got := tool(t, cs, "recall", map[string]any{"query": "scratch note build", "k": 5}); strings.Contains(got, "Scratch note") {
		t.Errorf("the purged notes are still recalled: %s", got)
	}
}

// writeExample makes a small Go repository in the examples root.
func writeExample(t testing.TB, e *env, name string, files int) string {
	t.Helper()
	dir := filepath.Join(e.examples, name)
	for i := range files {
		p := filepath.Join(dir, "internal", "svc", "file"+itoa(i)+".go")
		os.MkdirAll(filepath.Dir(p), 0o755)
		body := "package svc\n\n// Handler" + itoa(i) + " decodes the request, calls the service and encodes the answer.\nfunc Handler" + itoa(i) + "() error {\n\treturn nil\n}\n"
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReindexInTheBrowser(t *testing.T) {
	ctx := newChrome(t)
	e := start(t, []string{"alpha"})
	addPattern(t, e, "alpha", "layered-service", writeExample(t, e, "layered", 40))
	signIn(t, ctx, e, "/ui/projects/alpha/patterns", "table")
	if row := text(t, ctx, "table"); !strings.Contains(row, "layered-service-1") || !strings.Contains(row, "never") {
		t.Fatalf("the example before indexing:\n%s", row)
	}
	must(t, ctx, "re-index",
		submit(`td.actions button`, "#done"))
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS(".jobs")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, `class="step"`) || !strings.Contains(html, "<progress") || !strings.Contains(html, "Indexed") {
		t.Fatalf("no progress was shown:\n%s", html)
	}
	must(t, ctx, "back to patterns", chromedp.Navigate(e.url+"/ui/projects/alpha/patterns"), chromedp.WaitVisible(chromedp.CSS("table")))
	if row := text(t, ctx, "table"); strings.Contains(row, "never") {
		t.Errorf("the example is still never indexed:\n%s", row)
	}
}

// Editing a guardrail and promoting a vendor suggestion in the browser:
// each form unfolds from its row (no script: <details>), and submitting it
// lands on the proposal it opened, which records what was typed.
func TestEditAndPromoteInTheBrowser(t *testing.T) {
	ctx := newChrome(t)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	e := start(t, nil, withRules("alpha", vendorRules(t, "alpha", "https://docs.example/guide.md")))
	signIn(t, ctx, e, "/ui/projects/alpha/rules", "table.rules")
	const statement = "Keep each change small enough to review in one sitting, tests included."
	must(t, ctx, "unfold the edit of small-changes",
		unfold("#edit-small-changes", "#e-st-small-changes"))
	must(t, ctx, "edit small-changes",
		chromedp.SetValue(chromedp.CSS("#e-st-small-changes"), statement),
		chromedp.SetValue(chromedp.CSS("#e-sev-small-changes"), "hard-instruction"),
		chromedp.SendKeys(chromedp.CSS("#e-why-small-changes"), "Tests are part of the change."),
		submit(`form[action$="/guardrails/small-changes/edit"] button`, ".flash[role=status]"))
	if f := text(t, ctx, ".flash[role=status]"); !strings.Contains(f, "Opened proposal #1 to edit guardrail small-changes") {
		t.Fatalf("after the edit: %q", f)
	}
	if body := text(t, ctx, "main"); !strings.Contains(body, statement) || !strings.Contains(body, "Tests are part of the change.") {
		t.Errorf("the edit's proposal page lacks the edit or its rationale:\n%s", body)
	}

	must(t, ctx, "promote read-before-edit",
		chromedp.Navigate(e.url+"/ui/projects/alpha/rules#vendor"),
		unfold("#promote-claude-read-before-edit", "#p-sev-claude-read-before-edit"),
		chromedp.SetValue(chromedp.CSS("#p-sev-claude-read-before-edit"), "enforcement"),
		chromedp.Clear(chromedp.CSS("#p-ap-claude-read-before-edit")),
		chromedp.SendKeys(chromedp.CSS("#p-ap-claude-read-before-edit"), "claude, codex"),
		submit("#p-go-claude-read-before-edit", ".flash[role=status]"))
	if f := text(t, ctx, ".flash[role=status]"); !strings.Contains(f, "Opened proposal #2") {
		t.Fatalf("after the promotion: %q", f)
	}
	var v gateway.ProposalView
	e.api(t, "GET", "/api/v1/projects/alpha/proposals/2", nil, &v)
	if p := v.Recorded.Promote; p == nil || p.Severity != schema.Enforcement || strings.Join(p.AppliesTo, ",") != "claude,codex" {
		t.Errorf("the promotion recorded: %+v", v.Recorded)
	}
}
