package panel_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
)

// The stores' sizes the pages are measured at (the issue's).
const (
	benchProposals = 1000
	benchMemories  = 10000
	benchEvents    = 100000
)

// benchState fills a state directory for project: memories through
// memory.Memory (the tools' own path) and audit events in the log's format.
func benchState(b *testing.B, project string) string {
	b.Helper()
	state := b.TempDir()
	st, emb, err := memory.OpenProject(memory.Config{DataDir: filepath.Join(state, "memory")}, project)
	if err != nil {
		b.Fatal(err)
	}
	m := &memory.Memory{Store: st, Embedder: emb, Project: project}
	kinds := memory.Kinds
	for i := range benchMemories {
		if _, err := m.Remember(context.Background(), memory.Entry{Text: fmt.Sprintf("Memory %d: the ledger service retries payouts with backoff, note %d about queue %d.", i, i%97, i%13),
			Kind: kinds[i%len(kinds)], Agent: []string{"claude", "codex"}[i%2], Tags: []string{fmt.Sprintf("t%d", i%20)}}); err != nil {
			b.Fatal(err)
		}
	}
	st.Close()
	path := audit.Open(state, project, nil).Path()
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	t0 := time.Now().Add(-benchEvents * time.Second)
	enc := json.NewEncoder(w)
	for i := range benchEvents {
		e := audit.Event{Time: t0.Add(time.Duration(i) * time.Second), Project: project, Kind: audit.KindWrite, Source: "agent",
			Agent: []string{"claude", "codex", "kimi"}[i%3], Client: "claude-code", Session: fmt.Sprintf("S%06d", i/50), Tool: "remember",
			ID: fmt.Sprint(i), Summary: "remembered a note"}
		if i%10 == 0 {
			e.Kind, e.Source, e.Agent, e.Tool, e.Summary = audit.KindAdmin, "user", "", "", "rotated the token of agent codex"
		}
		enc.Encode(e)
	}
	w.Flush()
	f.Close()
	return state
}

// BenchmarkPages measures every page's server time (one request over
// loopback, the page drawn whole) with 1,000 proposals, 10,000 memories and
// 100,000 audit events in the stores. It reports the p95 as ms/p95 (with
// 20 requests, the slowest) and the first request as ms/first.
func BenchmarkPages(b *testing.B) {
	const project = "alpha"
	state := benchState(b, project)
	k := newVaultKit(b)
	k.init(b, k.server)
	e := start(b, []string{project}, k.option(), func(c *gateway.Config, _ *gateway.Options) { c.StateDir = state })
	// One real proposal, then 999 copies of its record: the local backend
	// lists them as it lists any (one record file each).
	var pr proposals.Proposal
	if code := e.api(b, "POST", "/api/v1/projects/"+project+"/proposals", gateway.ProposeRequest{Change: proposals.Change{Kind: proposals.KindGuardrail,
		Guardrail: &schema.Guardrail{ID: "bench-rule", Statement: "Keep benchmarks honest.", Severity: schema.Guidance}, Rationale: "Measure."}}, &pr); code != 201 {
		b.Fatalf("propose: %d", code)
	}
	var ps gateway.ProjectStatus
	e.api(b, "GET", "/api/v1/projects/"+project, nil, &ps)
	dir := filepath.Join(ps.Source, ".git", "bridle", "proposals")
	rec, err := os.ReadFile(filepath.Join(dir, "1.json"))
	if err != nil {
		b.Fatalf("the local proposal record: %v", err)
	}
	for n := 2; n <= benchProposals; n++ {
		var m map[string]any
		json.Unmarshal(rec, &m)
		m["number"] = n
		out, _ := json.Marshal(m)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", n)), out, 0o644)
	}
	e.mint(b, project, "claude")
	// 20 secrets in the project's SOPS file, through the helper.
	k.init(b, ps.Source)
	for i := range 20 {
		if code := e.api(b, "POST", fmt.Sprintf("/api/v1/projects/%s/secrets/bench-%02d", project, i), gateway.SecretValue{Value: fmt.Sprintf("bench-value-%02d", i)}, nil); code != 201 {
			b.Fatalf("set a secret: %d", code)
		}
	}
	// The first listing reads every record (the local backend keeps them
	// after): what the first visit after a start costs. Signing in draws the
	// Overview, which lists, so no page below meets it.
	t0 := time.Now()
	if code := e.api(b, "GET", "/api/v1/projects/"+project+"/proposals?order=newest&limit=25", nil, nil); code != 200 {
		b.Fatalf("the first listing: %d", code)
	}
	b.Logf("the first proposal listing after the start (every record read): %v", time.Since(t0).Round(100*time.Microsecond))
	br := e.browser(b)
	br.login()
	pages := []struct{ name, path string }{
		{"overview", "/"},
		{"queue", "/ui/queue"},
		{"queue-page-20", "/ui/queue?page=20"},
		{"proposal", "/ui/projects/alpha/proposals/1"},
		{"rules", "/ui/projects/alpha/rules"},
		{"render", "/ui/projects/alpha/rules/claude"},
		{"patterns", "/ui/projects/alpha/patterns"},
		{"memory", "/ui/projects/alpha/memory"},
		{"memory-filtered", "/ui/projects/alpha/memory?kind=decision&agent=codex&tag=t4"},
		{"memory-search", "/ui/projects/alpha/memory?q=payout+backoff+queue"},
		{"agents", "/ui/projects/alpha/agents"},
		{"secrets", "/ui/projects/alpha/secrets"},
		{"secrets-server", "/ui/secrets"},
		{"audit", "/ui/audit"},
		{"audit-filtered", "/ui/audit?project=alpha&source=user&kind=admin"},
	}
	// The admin API calls the heaviest pages make, alone: what the backend
	// costs before the panel draws anything.
	pages = append(pages, []struct{ name, path string }{
		{"api-proposals", "/api/v1/projects/alpha/proposals"},
		{"api-proposals-page", "/api/v1/projects/alpha/proposals?order=newest&limit=25"},
		{"api-proposal", "/api/v1/projects/alpha/proposals/1"},
		{"api-memory", "/api/v1/projects/alpha/memory?limit=50"},
		{"api-memory-search", "/api/v1/projects/alpha/memory?q=payout+backoff+queue&limit=50"},
		{"api-audit", "/api/v1/audit?limit=50"},
	}...)
	for _, pg := range pages {
		b.Run(pg.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				var p page
				if strings.HasPrefix(pg.path, "/api/") {
					p.code = e.api(b, "GET", pg.path, nil, nil)
				} else {
					p = br.get(pg.path)
				}
				if p.code != 200 {
					b.Fatalf("GET %s: %d %s", pg.path, p.code, p.body)
				}
				took = append(took, time.Since(t0))
			}
			// The first request is reported on its own too: it fills the
			// caches (the proposal listing's records, the compile cache)
			// that the others reuse, as a freshly started gateway does.
			b.ReportMetric(float64(took[0].Microseconds())/1000, "ms/first")
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "ms/p95")
		})
	}
}
