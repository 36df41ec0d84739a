package proposals

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/bridle-dev/bridle/schema"
)

// Report is what a pull request to the rules repository changes, as the
// rules repository's CI sees it: whether Bridle made it, and which
// security-relevant parts it touches.
type Report struct {
	Base string `json:"base"` // the merge base
	Head string `json:"head"`
	// ByBridle is set when the change is exactly one proposal commit that
	// Bridle made on the base, its recorded change reproducing its content.
	ByBridle bool   `json:"by_bridle"`
	Subject  string `json:"subject,omitempty"` // what the Bridle proposal changes
	// Sensitive lists the parts a change touches that decide what agents
	// may do or who approved what: permissions, client mappings and
	// provenance. A hand-made change to any of them needs a careful review.
	Sensitive []string `json:"sensitive,omitempty"`
	Why       string   `json:"why,omitempty"` // why the change is not Bridle's, when it is not
}

// Flagged reports whether the change needs a careful human review.
func (r Report) Flagged() bool { return !r.ByBridle && len(r.Sensitive) > 0 }

// Inspect compares head with its merge base with base in the repository
// holding rulesPath, the way the rules repository's CI checks a pull
// request.
func Inspect(rulesPath, base, head string) (Report, error) {
	dir, file := rulesPath, "bridle.yaml"
	if st, err := os.Stat(rulesPath); err == nil && !st.IsDir() {
		dir, file = filepath.Dir(rulesPath), filepath.Base(rulesPath)
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return Report{}, fmt.Errorf("inspect %s: %w", dir, err)
	}
	resolve := func(ref string) (*object.Commit, error) {
		h, err := repo.ResolveRevision(plumbing.Revision(ref))
		if err != nil {
			return nil, fmt.Errorf("inspect: unknown ref %q: %w", ref, err)
		}
		return repo.CommitObject(*h)
	}
	bc, err := resolve(base)
	if err != nil {
		return Report{}, err
	}
	hc, err := resolve(head)
	if err != nil {
		return Report{}, err
	}
	mb, err := bc.MergeBase(hc)
	if err != nil || len(mb) == 0 {
		return Report{}, fmt.Errorf("inspect: %s and %s share no history", base, head)
	}
	wt, _ := repo.Worktree()
	rel := file
	if wt != nil {
		if abs, err := filepath.Abs(filepath.Join(dir, file)); err == nil {
			if r, err := filepath.Rel(wt.Filesystem.Root(), abs); err == nil {
				rel = filepath.ToSlash(r)
			}
		}
	}
	read := func(c *object.Commit) []byte {
		f, err := c.File(rel)
		if err != nil {
			return nil
		}
		r, err := f.Reader()
		if err != nil {
			return nil
		}
		defer r.Close()
		b, _ := io.ReadAll(io.LimitReader(r, schema.MaxSize))
		return b
	}
	r := Report{Base: mb[0].Hash.String(), Head: hc.Hash.String()}
	before, after := read(mb[0]), read(hc)
	switch {
	case len(hc.ParentHashes) != 1 || hc.ParentHashes[0] != mb[0].Hash:
		r.Why = "the change is not a single commit on the base"
	default:
		if d, err := recorded(hc.Message, before, after); err == nil {
			r.ByBridle, r.Subject = true, d.Change.Subject()
		} else if errors.Is(err, ErrTampered) {
			r.Why = err.Error()
		}
	}
	r.Sensitive = sensitive(before, after)
	return r, nil
}

// sensitive lists the permission, client-mapping and provenance changes
// between two rules documents.
func sensitive(before, after []byte) []string {
	doc := func(b []byte) *schema.Document {
		if b == nil {
			return &schema.Document{}
		}
		f, _ := schema.Parse("bridle.yaml", b)
		if f == nil {
			return &schema.Document{}
		}
		return &f.Doc
	}
	a, b := doc(before), doc(after)
	var out []string
	js := func(v any) string { j, _ := json.Marshal(v); return string(j) }
	agents := map[string]bool{}
	for k := range a.Permissions {
		agents[k] = true
	}
	for k := range b.Permissions {
		agents[k] = true
	}
	for k := range agents {
		if js(a.Permissions[k]) != js(b.Permissions[k]) {
			out = append(out, "permissions."+k)
		}
	}
	profiles := map[string]bool{}
	for k := range a.AgentProfiles {
		profiles[k] = true
	}
	for k := range b.AgentProfiles {
		profiles[k] = true
	}
	for k := range profiles {
		if !slices.Equal(a.AgentProfiles[k].MCPClients, b.AgentProfiles[k].MCPClients) {
			out = append(out, "agent_profiles."+k+".mcp_clients")
		}
	}
	prov := func(d *schema.Document) map[string]string {
		m := map[string]string{}
		for _, g := range d.Guardrails {
			m["guardrails."+g.ID+".provenance"] = js(g.Provenance)
		}
		for _, p := range d.Patterns.Custom {
			m["patterns.custom."+p.Name+".provenance"] = js(p.Provenance)
		}
		return m
	}
	pa, pb := prov(a), prov(b)
	for k, v := range pb {
		old, had := pa[k]
		if (had && old != v) || (!had && claimsApproval(v)) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// claimsApproval reports whether a provenance (as JSON) claims an approval:
// a new item may say who proposed it, never who approved it.
func claimsApproval(provJSON string) bool {
	var p schema.Provenance
	json.Unmarshal([]byte(provJSON), &p)
	return p.ApprovedBy != "" || p.ApprovedAt != "" || p.PullRequest != ""
}
