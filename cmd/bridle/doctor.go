package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/install"
	"github.com/bridle-dev/bridle/internal/identity"
	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/vault"
)

// finding is one thing bridle doctor checked: what it found and, unless it
// is fine, the command that fixes it.
type finding struct {
	Check   string `json:"check"`
	Status  string `json:"status"` // ok, warn or fail
	Summary string `json:"summary"`
	Fix     string `json:"fix,omitempty"`
	Note    string `json:"note,omitempty"` // what no file says (a harness's trust step)
}

const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "fail"
)

type doctorOptions struct {
	rules, project, server, gatewayProject, adminFile string
	json                                              bool
}

// doctor is one run's state: what the checks found so far, and what later
// checks need from earlier ones.
type doctor struct {
	io       *streams
	o        doctorOptions
	found    []finding
	rulesAbs string
	ref      string
	id       string // the rules' project.id
	doc      *schema.Document
	commit   string // what the sidecar serves
}

// add records a finding. What it says holds values read from files (URLs,
// paths, a workflow's settings): they are made printable here, once for
// every check and both outputs.
func (d *doctor) add(check, status, summary, fix string) *finding {
	d.found = append(d.found, finding{Check: printable(check), Status: status, Summary: printable(summary), Fix: printable(fix)})
	return &d.found[len(d.found)-1]
}

func newDoctorCmd(io *streams) *cobra.Command {
	var o doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the set-up: identity, rules, sidecar, gateway, vault, agents",
		Long: `Doctor checks what a new set-up gets wrong, and says for each problem the
command that fixes it: git's identity (who approvals are attributed to),
the rules repository and the commit the sidecar serves, the gateway's view
of the same rules (with --server, or BRIDLE_SERVER), the SOPS helper and the
age identity of the rules' vault, and each agent's MCP configuration in
the project: present, pointing at these rules or reaching the gateway, with
the token variable it names set and accepted. A token is presented only to
the gateway --server or BRIDLE_SERVER names (over https, or to this
machine): a URL a project file names is reported, never contacted. Each
harness's trust step is noted: no file says whether it was taken.

Exit status 1 when a check fails; warnings alone exit 0.`,
		Example: `  bridle doctor
  bridle doctor --rules rules --project . --server http://127.0.0.1:7777 --json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runDoctor(io, o) },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.rules, "rules", "", "the rules repository `path` (default rules, when there, else the current directory)")
	fl.StringVar(&o.project, "project", ".", "the project `dir` whose agent configurations are checked")
	fl.StringVar(&o.server, "server", "", "the gateway's `url` (default $BRIDLE_SERVER): its view of the rules is checked")
	fl.StringVar(&o.gatewayProject, "gateway-project", "", "the project's `id` on the gateway (default the rules' project.id)")
	fl.StringVar(&o.adminFile, "admin-token-file", "", "the admin credential's `file` (default $BRIDLE_ADMIN_TOKEN_FILE), to read the gateway's view")
	fl.BoolVar(&o.json, "json", false, "print the findings as a JSON array on stdout")
	return cmd
}

func runDoctor(io *streams, o doctorOptions) error {
	if o.rules == "" {
		o.rules = "."
		if _, err := os.Stat(filepath.Join("rules", compiler.FileName)); err == nil {
			o.rules = "rules"
		}
	}
	if o.server == "" {
		o.server = io.f.ServerURL()
	}
	// The rules' branch as every reader finds it (recorded by init, else
	// main, origin's default or HEAD's).
	d := &doctor{io: io, o: o, ref: compiler.Branch(o.rules)}
	// Each check adds its findings; a later one may use what an earlier
	// one learnt (the project id, the served commit).
	for _, check := range []func(){d.identity, d.rulesRepo, d.sidecar, d.gatewayView, d.vault, d.agentConfigs, d.ciWorkflow} {
		check()
	}
	if o.json {
		if err := writeJSON(io, d.found); err != nil {
			return err
		}
	} else {
		for _, f := range d.found {
			mark := map[string]string{statusOK: "ok  ", statusWarn: "warn", statusFail: "FAIL"}[f.Status]
			fmt.Fprintf(io.out, "%s  %-14s %s\n", mark, f.Check, f.Summary)
			if f.Fix != "" {
				fmt.Fprintf(io.out, "      %-14s fix: %s\n", "", f.Fix)
			}
			if f.Note != "" {
				fmt.Fprintf(io.out, "      %-14s note: %s\n", "", f.Note)
			}
		}
	}
	if slices.ContainsFunc(d.found, func(f finding) bool { return f.Status == statusFail }) {
		return &exitError{exitFailure, errReported}
	}
	return nil
}

// identity: the person proposals and approvals are attributed to.
func (d *doctor) identity() {
	p, err := identity.At(identity.Committer, d.o.rules)
	if err != nil {
		d.add("git identity", statusFail, "git does not know who you are: approvals and proposals need a name", `git config --global user.name "Your Name" && git config --global user.email you@example.com`)
		return
	}
	who := p.Name
	if p.Email != "" {
		who += " <" + p.Email + ">"
	}
	d.add("git identity", statusOK, who, "")
}

// rulesRepo: a committed bridle.yaml on the branch the sidecar serves.
func (d *doctor) rulesRepo() {
	abs, err := filepath.Abs(rulesDir(d.o.rules))
	if err != nil {
		abs = d.o.rules
	}
	d.rulesAbs = abs
	if _, err := os.Stat(filepath.Join(abs, compiler.FileName)); err != nil {
		d.add("rules", statusFail, "no "+compiler.FileName+" in "+abs, "bridle init rules (in the project), or --rules DIR")
		return
	}
	commit, err := compiler.Head(compiler.Options{Rules: d.o.rules, Ref: d.ref})
	if err != nil {
		fix := fmt.Sprintf("git -C %s add %s && git -C %s commit -m \"the rules\"", shellWord(abs), compiler.FileName, shellWord(abs))
		if out, herr := exec.Command("git", "-C", abs, "symbolic-ref", "--short", "HEAD").Output(); herr == nil && strings.TrimSpace(string(out)) != d.ref {
			// The work tree is on another branch than the rules' one:
			// commit there, or record the branch the rules are on.
			fix = fmt.Sprintf("git -C %s switch %s (the rules' branch), or record the branch the rules are on: git -C %s config bridle.branch %s",
				shellWord(abs), shellWord(d.ref), shellWord(abs), shellWord(strings.TrimSpace(string(out))))
		}
		d.add("rules", statusFail, fmt.Sprintf("%s has no commit on %s, the rules' branch, that the sidecar can serve: %v", abs, d.ref, err), fix)
		return
	}
	d.add("rules", statusOK, fmt.Sprintf("%s, %s at %s", abs, d.ref, shortCommit(commit)), "")
	in, diags, err := compiler.Read(compiler.Options{Rules: d.o.rules, Ref: d.ref, NoHistory: true})
	if err == nil && !diags.HasErrors() {
		d.id = schema.ProjectID(in.Data)
	}
}

// sidecar: what bridle mcp on these rules serves, and whether all of it is
// approved.
func (d *doctor) sidecar() {
	if d.rulesAbs == "" {
		return
	}
	snap, st, err := mcp.Load(mcp.Options{Rules: d.o.rules, Ref: d.ref, CacheDir: "-", Version: version()})
	switch {
	case err != nil || snap == nil:
		d.add("sidecar", statusFail, fmt.Sprintf("bridle mcp could not serve the rules on %s: %v", d.ref, err), "bridle validate --rules "+shellWord(d.o.rules)+" --ref "+d.ref)
		return
	case snap.Approval != nil && len(snap.Approval.Unapproved) > 0:
		d.add("sidecar", statusWarn, fmt.Sprintf("serves %s with %d change(s) no approved merge produced (marked NOT APPROVED, granting nothing)", shortCommit(st.Commit), len(snap.Approval.Unapproved)),
			"bridle audit --rules "+shellWord(d.o.rules)+" --kind unreviewed (then propose the change, or git revert it)")
	default:
		d.add("sidecar", statusOK, fmt.Sprintf("serves %s (content %s), approved", shortCommit(st.Commit), shortCommit(strings.TrimPrefix(st.ContentHash, "sha256:"))), "")
	}
	d.commit, d.doc = st.Commit, &snap.Document
}

// gatewayView: the gateway answers, and serves the commit the sidecar does.
func (d *doctor) gatewayView() {
	if d.o.server == "" {
		return
	}
	if err := healthy(d.o.server); err != nil {
		d.add("gateway", statusFail, fmt.Sprintf("%s does not answer: %v", d.o.server, err), "bridle serve --rules "+shellWord(d.o.rules)+" (or fix --server / BRIDLE_SERVER)")
		return
	}
	a := adminFlags{server: d.o.server, tokenFile: d.o.adminFile}
	if a.tokenFile == "" && d.io.f.AdminTokenFile() == "" && !signedIn(d.io, d.o.server) {
		d.add("gateway", statusOK, d.o.server+" answers (bridle login --server "+d.o.server+", or BRIDLE_ADMIN_TOKEN_FILE, to compare its rules with the sidecar's)", "")
		return
	}
	cl, err := a.client(d.io)
	if err != nil {
		d.add("gateway", statusFail, fmt.Sprintf("%s answers, but its admin API cannot be used: %v", d.o.server, err), "export BRIDLE_ADMIN_TOKEN_FILE=STATE/gateway/admin-token (bridle serve logs the path)")
		return
	}
	id := d.o.gatewayProject
	if id == "" {
		id = d.id
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ps, err := cl.Project(ctx, id)
	switch {
	case err != nil:
		d.add("gateway", statusFail, fmt.Sprintf("%s has no project %q: %v", d.o.server, id, err), "bridle doctor --gateway-project ID (the id bridle serve logs), or serve these rules: bridle serve --rules "+shellWord(d.o.rules))
	case !ps.Loaded:
		d.add("gateway", statusFail, fmt.Sprintf("project %s is not loaded: %s", id, ps.Error), "bridle validate --rules "+shellWord(d.o.rules))
	case d.commit != "" && ps.Commit != d.commit:
		d.add("gateway", statusWarn, fmt.Sprintf("project %s serves %s, the sidecar %s: they see different rules (another repository, or a mirror behind)", id, shortCommit(ps.Commit), shortCommit(d.commit)),
			"serve the same repository: bridle serve --rules "+shellWord(d.rulesAbs))
	default:
		d.add("gateway", statusOK, fmt.Sprintf("project %s serves %s, as the sidecar does", id, shortCommit(ps.Commit)), "")
	}
}

// ciWorkflow: the CI workflow bridle init writes can install Bridle — from
// the gateway it names (which must serve its binary), a URL or a module;
// repository variables, which would also do, are Gitea's and not seen here.
func (d *doctor) ciWorkflow() {
	if d.rulesAbs == "" {
		return
	}
	out, err := exec.Command("git", "-C", d.rulesAbs, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return // rulesRepo said what is wrong
	}
	root := strings.TrimSpace(string(out))
	wf := filepath.Join(root, filepath.FromSlash(scaffold.WorkflowPath))
	b, err := os.ReadFile(wf)
	if err != nil {
		d.add("ci", statusWarn, "no "+scaffold.WorkflowPath+" in "+root+": no CI checks that the agents' files are current",
			"run in CI: bridle render --rules "+shellWord(d.o.rules)+" --all --out . --check (bridle init writes a Gitea workflow that does)")
		return
	}
	var doc struct {
		Env map[string]string `yaml:"env"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		d.add("ci", statusFail, fmt.Sprintf("%s is not YAML: %v", wf, err), "fix the file, or restore it: git -C "+shellWord(root)+" checkout -- "+scaffold.WorkflowPath)
		return
	}
	// env: BRIDLE_SERVER: ${{ vars.BRIDLE_SERVER || 'DEFAULT' }}
	written := func(name string) string {
		_, def, ok := strings.Cut(doc.Env[name], "|| '")
		if !ok {
			return strings.TrimSpace(doc.Env[name])
		}
		def, _, _ = strings.Cut(def, "'")
		return def
	}
	server, binURL, module := written("BRIDLE_SERVER"), written("BRIDLE_URL"), written("BRIDLE_MODULE")
	switch {
	case server != "" && !d.isServer(server):
		// The URL is the repository's to choose: doctor asks only the
		// gateway the user named.
		d.add("ci", statusOK, "the CI workflow installs bridle from the gateway "+server+" (not checked: the URL comes from the workflow, not --server/BRIDLE_SERVER; bridle doctor --server URL checks it serves its binary)", "")
	case server != "":
		sum := strings.TrimRight(server, "/") + "/download/bridle-linux-amd64.sha256"
		c := &http.Client{Timeout: 5 * time.Second}
		resp, err := c.Get(sum)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("answered %s", resp.Status)
			}
		}
		if err != nil {
			d.add("ci", statusFail, fmt.Sprintf("the CI workflow installs bridle from %s, whose %s cannot be read: %v", server, sum, err),
				"serve the gateway there on linux/amd64 (bridle serve serves its own binary), or set BRIDLE_URL in "+scaffold.WorkflowPath)
			return
		}
		d.add("ci", statusOK, "the CI workflow installs bridle from the gateway "+server+" (checksummed)", "")
	case binURL != "" || module != "":
		d.add("ci", statusOK, "the CI workflow installs bridle from "+cmp.Or(binURL, module), "")
	default:
		d.add("ci", statusWarn, "the CI workflow installs bridle only if the repository variable BRIDLE_SERVER, BRIDLE_URL or BRIDLE_MODULE is set in Gitea (doctor cannot see those)",
			"set the repository variable BRIDLE_SERVER to your gateway's URL (Gitea: the repository's Settings → Actions → Variables), or write it as the default of env.BRIDLE_SERVER in "+scaffold.WorkflowPath)
	}
}

// vault: the SOPS helper and the age identity the rules' vault needs.
func (d *doctor) vault() {
	if d.rulesAbs == "" {
		return
	}
	_, hasFile := statOK(filepath.Join(d.rulesAbs, vault.FileName))
	_, hasConfig := statOK(filepath.Join(d.rulesAbs, vault.ConfigName))
	if _, err := vault.FindHelper(d.io.f.getenv); err != nil {
		status := statusWarn
		if hasFile {
			status = statusFail // secrets are kept there and cannot be read
		}
		d.add("sops helper", status, "bridle-sops is not installed: secrets cannot be read or written", strings.TrimPrefix(vault.InstallHelper(), "install it with: "))
	} else {
		d.add("sops helper", statusOK, "bridle-sops found", "")
	}
	if !hasFile && !hasConfig {
		return
	}
	key := d.io.f.ageKeyFile()
	if key == "" {
		d.add("age identity", statusFail, "the rules have a vault but no age identity decrypts it here (SOPS_AGE_KEY_FILE is unset, and bridle secrets init made none for you)",
			"bridle secrets init --rules "+shellWord(d.o.rules)+" (a new identity: then bridle secrets rekey to add it), or export SOPS_AGE_KEY_FILE=FILE")
		return
	}
	if _, err := os.Stat(key); err != nil {
		d.add("age identity", statusFail, fmt.Sprintf("the age identity %s cannot be read: %v", key, err), "export SOPS_AGE_KEY_FILE=FILE (the identity the vault is encrypted to)")
		return
	}
	d.add("age identity", statusOK, key, "")
}

// tokenVar finds the token variables an entry names (BRIDLE_TOKEN_CLAUDE,
// BRIDLE_TOKEN_FILE_KIMI, …).
var tokenVar = lazyregexp.New(`BRIDLE_TOKEN(_FILE)?_[A-Z0-9_]+`)

// agentConfigs: each agent of the rules that a harness runs has Bridle in
// its project configuration, pointing at these rules or reaching the
// gateway with a token it accepts.
func (d *doctor) agentConfigs() {
	var names []string
	if d.doc != nil {
		names = d.doc.Agents()
	}
	for _, name := range names {
		h := d.doc.Resolved(name).Harness
		a, ok := agents.Lookup(h)
		if !ok || a.Harness == nil || a.Harness.Config == nil || a.Harness.Config.Project == "" {
			continue // a model, or a harness with no project file
		}
		check := "agent " + name
		e, err := install.Inspect(install.Options{Client: h, ProjectDir: d.o.project})
		install := fmt.Sprintf("bridle install %s --project %s --rules %s", h, shellWord(d.o.project), shellWord(d.o.rules))
		switch {
		case err != nil:
			d.add(check, statusFail, err.Error(), install)
			continue
		case !e.Present:
			d.add(check, statusWarn, fmt.Sprintf("%s has no bridle entry: %s does not reach the rules", e.Path, a.DisplayName), install)
			continue
		}
		var f *finding
		if e.Gateway {
			f = d.agentGateway(check, h, e)
		} else {
			f = d.agentLocal(check, e, install)
		}
		if f.Status == statusOK {
			f.Note = printable(a.Harness.Trust)
		}
	}
}

func (d *doctor) agentLocal(check string, e install.Entry, fix string) *finding {
	rules := e.Arg("--rules")
	if rules == "" {
		return d.add(check, statusFail, e.Path+"'s bridle entry names no --rules", fix)
	}
	if !filepath.IsAbs(rules) {
		rules = filepath.Join(d.o.project, rules)
	}
	got, _ := filepath.Abs(rulesDir(rules))
	if got != d.rulesAbs {
		return d.add(check, statusFail, fmt.Sprintf("%s serves the rules in %s, not %s", e.Path, got, d.rulesAbs), fix)
	}
	return d.add(check, statusOK, e.Path+" serves these rules (bridle mcp)", "")
}

func (d *doctor) agentGateway(check, harness string, e install.Entry) *finding {
	endpoint, server := e.URL, e.Arg("--server")
	if endpoint == "" && server != "" {
		endpoint = strings.TrimRight(server, "/") + "/p/" + url.PathEscape(e.Arg("--project")) + "/mcp"
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return d.add(check, statusFail, fmt.Sprintf("%s's bridle entry names no gateway URL", e.Path), "bridle install "+harness+" --server URL --project P")
	}
	// The URL is the project's (a cloned repository's) to choose: a token
	// goes only to the gateway the user named, and nothing is asked of
	// another.
	gw, ok := d.namedGateway(u)
	if !ok {
		return d.add(check, statusWarn, fmt.Sprintf("%s reaches %s: token not checked: the URL comes from the project file, not --server/BRIDLE_SERVER", e.Path, endpoint),
			"bridle doctor --server URL, naming that gateway if you trust it")
	}
	if u.Scheme != "https" && !loopback(u.Hostname()) {
		return d.add(check, statusWarn, fmt.Sprintf("%s reaches %s: token not checked: it would cross the network in clear (http to a host that is not this machine)", e.Path, endpoint),
			"serve the gateway over https (behind a TLS proxy), then bridle install "+harness+" --server https://… --project P")
	}
	if err := healthy(gw); err != nil {
		return d.add(check, statusFail, fmt.Sprintf("%s reaches %s, which does not answer: %v", e.Path, gw, err), "start the gateway (bridle serve), or bridle install "+harness+" --server URL --project P")
	}
	vars := tokenVar.FindAllString(e.Raw, -1)
	if len(vars) == 0 {
		return d.add(check, statusWarn, fmt.Sprintf("%s reaches %s but names no token variable", e.Path, endpoint), "bridle install "+harness+" --server "+shellWord(gw)+" --project P")
	}
	v := vars[0]
	tok := strings.TrimSpace(d.io.f.getenv(v))
	if strings.Contains(v, "_FILE_") && tok != "" {
		b, err := os.ReadFile(tok)
		if err != nil {
			return d.add(check, statusFail, fmt.Sprintf("%s names the token file %s, which cannot be read: %v", v, tok, err), "bridle agents add --server "+shellWord(gw)+" --project P --agent AGENT --out "+shellWord(tok))
		}
		tok = strings.TrimSpace(string(b))
	}
	if tok == "" {
		out := "~/.config/bridle/" + strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(v, "BRIDLE_TOKEN_FILE_"), "BRIDLE_TOKEN_")) + ".token"
		fix := fmt.Sprintf("bridle agents add --server %s --project P --agent AGENT --out %s, then export %s=%s", shellWord(gw), out, v, out)
		if !strings.Contains(v, "_FILE_") {
			fix = fmt.Sprintf("bridle agents add --server %s --project P --agent AGENT --out %s, then export %s=\"$(cat %s)\"", shellWord(gw), out, v, out)
		}
		return d.add(check, statusFail, fmt.Sprintf("%s reaches %s with the token in %s, which is not set here", e.Path, endpoint, v), fix)
	}
	d.io.f.Redactor().Add(tok)
	if code := tryToken(u.String(), tok); code == http.StatusUnauthorized {
		return d.add(check, statusFail, fmt.Sprintf("%s refuses the token in %s (revoked, rotated, or another project's)", endpoint, v), "bridle agents rotate --server "+shellWord(gw)+" --project P --agent AGENT --out FILE")
	}
	return d.add(check, statusOK, fmt.Sprintf("%s reaches %s with %s", e.Path, endpoint, v), "")
}

// namedGateway is the gateway the user named (--server, BRIDLE_SERVER), as
// they wrote it, when endpoint is one of its projects' MCP endpoints: the
// same scheme, host and port, under its /p/.
func (d *doctor) namedGateway(endpoint *url.URL) (string, bool) {
	s, err := url.Parse(d.o.server)
	if d.o.server == "" || err != nil || !sameOrigin(s, endpoint) {
		return "", false
	}
	prefix := strings.TrimRight(s.Path, "/") + "/p/"
	if p := endpoint.Path; p != path.Clean(p) || !strings.HasPrefix(p, prefix) {
		return "", false
	}
	return strings.TrimRight(d.o.server, "/"), true
}

// isServer reports s is the gateway the user named (--server,
// BRIDLE_SERVER): the same origin and path.
func (d *doctor) isServer(s string) bool {
	a, err := url.Parse(s)
	b, err2 := url.Parse(d.o.server)
	return d.o.server != "" && err == nil && err2 == nil && sameOrigin(a, b) && strings.TrimRight(a.Path, "/") == strings.TrimRight(b.Path, "/") && a.RawQuery == "" && a.User == nil
}

// sameOrigin reports a and b name the same scheme, host and port (the
// scheme's when none is written).
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		return map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return a.Host != "" && strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// loopback reports a host name that is this machine.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// healthy asks base/healthz.
func healthy(base string) error {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(strings.TrimRight(base, "/") + "/healthz")
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/healthz answered %s", resp.Status)
	}
	return nil
}

// tryToken opens an MCP session at endpoint with the bearer token and
// returns the HTTP status (0 when it cannot be asked).
func tryToken(endpoint, tok string) int {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bridle-doctor","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader([]byte(body)))
	if err != nil {
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	// Not redirected: the token goes to endpoint only.
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func statOK(p string) (os.FileInfo, bool) {
	st, err := os.Stat(p)
	return st, err == nil
}

func shortCommit(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// signedIn reports whether bridle login keeps a token for server.
func signedIn(io *streams, server string) bool {
	dir, err := io.f.ConfigDir()
	if err != nil {
		return false
	}
	_, err = gateway.LoadCredential(dir, server)
	return err == nil
}
