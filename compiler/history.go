package compiler

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/schema"
)

// PRLookup answers who merged a pull request and when, from the forge
// (Gitea); ok is false when it does not know.
type PRLookup func(number int) (mergedBy string, mergedAt time.Time, ok bool)

// maxHistory bounds how many first-parent commits History walks.
const maxHistory = 2000

var prNumber = regexp.MustCompile(`#(\d+)`)

// History resolves provenance from the rules repository: for every merge on
// the first-parent line of from, the guardrails and patterns it added or
// changed get the proposal's origin (the merged commit's Bridle trailers, or
// its author) and the approval (who merged, when, which pull request). The
// newest merge of an item wins. Items never merged keep what the YAML says.
// Keys are "guardrail:<id>" and "pattern:<name>".
func History(repo *git.Repository, from plumbing.Hash, file string, lookup PRLookup) (map[string]schema.Provenance, error) {
	out := map[string]schema.Provenance{}
	c, err := repo.CommitObject(from)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	docs := map[plumbing.Hash]*schema.Document{} // by blob
	docAt := func(c *object.Commit) *schema.Document {
		f, err := c.File(file)
		if err != nil {
			return nil
		}
		if d, ok := docs[f.Hash]; ok {
			return d
		}
		var d *schema.Document
		if r, err := f.Reader(); err == nil {
			data, _ := io.ReadAll(io.LimitReader(r, schema.MaxSize))
			r.Close()
			var doc schema.Document
			if yaml.Unmarshal(data, &doc) == nil {
				d = &doc
			}
		}
		docs[f.Hash] = d
		return d
	}
	for i := 0; i < maxHistory && c != nil; i++ {
		if len(c.ParentHashes) >= 2 {
			first, err1 := repo.CommitObject(c.ParentHashes[0])
			proposal, err2 := repo.CommitObject(c.ParentHashes[1])
			if err1 == nil && err2 == nil {
				record(out, docAt(first), docAt(c), c, proposal, lookup)
			}
		}
		if len(c.ParentHashes) == 0 {
			break
		}
		next, err := repo.CommitObject(c.ParentHashes[0])
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			break // a shallow clone ends here
		}
		if err != nil {
			return out, fmt.Errorf("history: %w", err)
		}
		c = next
	}
	return out, nil
}

// record notes the items that merge changed relative to before.
func record(out map[string]schema.Provenance, before, after *schema.Document, merge, proposal *object.Commit, lookup PRLookup) {
	if after == nil {
		return
	}
	prov := mergeProvenance(merge, proposal, lookup)
	old := map[string]string{}
	if before != nil {
		for _, g := range before.Guardrails {
			old["guardrail:"+g.ID] = canonical(g)
		}
		for _, p := range before.Patterns.Custom {
			old["pattern:"+p.Name] = canonical(p)
		}
	}
	note := func(key, now string) {
		if _, seen := out[key]; seen {
			return // a newer merge already claimed it
		}
		if prev, ok := old[key]; !ok || prev != now {
			out[key] = prov
		}
	}
	for _, g := range after.Guardrails {
		note("guardrail:"+g.ID, canonical(g))
	}
	for _, p := range after.Patterns.Custom {
		note("pattern:"+p.Name, canonical(p))
	}
}

func canonical(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func mergeProvenance(merge, proposal *object.Commit, lookup PRLookup) schema.Provenance {
	t := trailers(proposal.Message)
	p := schema.Provenance{Source: schema.Source(t["Bridle-Source"]), Verified: true, MergeCommit: merge.Hash.String()}
	switch p.Source {
	case schema.SourceAgent:
		p.Agent, p.AgentSession = t["Bridle-Agent"], t["Bridle-Session"]
	case schema.SourceVendor:
		p.Agent = t["Bridle-Agent"]
	default:
		p.Source = schema.SourceUser
		p.ProposedBy = proposal.Author.Name
	}
	p.ApprovedBy = merge.Author.Name
	p.ApprovedAt = merge.Author.When.UTC().Format(time.RFC3339)
	if v := trailers(merge.Message)["Bridle-Proposal"]; v != "" {
		p.PullRequest = v
	} else if m := prNumber.FindStringSubmatch(firstLine(merge.Message)); m != nil {
		p.PullRequest = m[1]
	}
	if n, err := strconv.Atoi(p.PullRequest); err == nil && lookup != nil {
		if by, at, ok := lookup(n); ok {
			p.ApprovedBy = by
			p.ApprovedAt = at.UTC().Format(time.RFC3339)
		}
	}
	return p
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// trailers parses "Key: value" lines of a commit message's last paragraph.
func trailers(msg string) map[string]string {
	out := map[string]string{}
	paras := strings.Split(strings.TrimSpace(msg), "\n\n")
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && strings.HasPrefix(k, "Bridle-") {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// applyHistory overwrites the provenance of items resolved from history.
func applyHistory(doc *schema.Document, h map[string]schema.Provenance) {
	if len(h) == 0 {
		return
	}
	for i := range doc.Guardrails {
		if p, ok := h["guardrail:"+doc.Guardrails[i].ID]; ok {
			doc.Guardrails[i].Provenance = merged(doc.Guardrails[i].Provenance, p)
		}
	}
	for i := range doc.Patterns.Custom {
		if p, ok := h["pattern:"+doc.Patterns.Custom[i].Name]; ok {
			doc.Patterns.Custom[i].Provenance = merged(doc.Patterns.Custom[i].Provenance, p)
		}
	}
}

// merged keeps the vendor name from the YAML (history knows the profile,
// not the vendor's display name) and takes everything else from history.
func merged(yamlSide, hist schema.Provenance) schema.Provenance {
	if hist.Source == schema.SourceVendor && hist.Vendor == "" {
		hist.Vendor = yamlSide.Vendor
	}
	return hist
}

// Merge is one approved proposal in the rules repository's history.
type Merge struct {
	Time        time.Time `json:"time"`
	Commit      string    `json:"commit"`
	PullRequest string    `json:"pull_request,omitempty"`
	Title       string    `json:"title"`
	ApprovedBy  string    `json:"approved_by"`
	Source      string    `json:"source"`
	Agent       string    `json:"agent,omitempty"`
	Session     string    `json:"session,omitempty"`
	ProposedBy  string    `json:"proposed_by,omitempty"`
	Subjects    []string  `json:"subjects,omitempty"` // e.g. guardrail:no-pii-in-logs
}

// Timeline lists the merges on the first-parent line of the rules at opts
// (opts.Ref, or HEAD), newest first: who proposed what, who approved it.
func Timeline(opts Options) ([]Merge, error) {
	in, diags, err := Read(Options{Rules: opts.Rules, Ref: opts.Ref, NoHistory: true})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() || in.Source.Commit == "" {
		return nil, nil
	}
	repo, _, err := openRepo(filepath.Dir(absPath(in.pathOnDisk(opts.Rules))))
	if err != nil {
		return nil, err
	}
	c, err := repo.CommitObject(plumbing.NewHash(in.Source.Commit))
	var out []Merge
	for i := 0; err == nil && i < maxHistory && c != nil; i++ {
		if len(c.ParentHashes) >= 2 {
			if proposal, perr := repo.CommitObject(c.ParentHashes[1]); perr == nil {
				p := mergeProvenance(c, proposal, opts.PRLookup)
				m := Merge{Time: c.Author.When.UTC(), Commit: c.Hash.String(), PullRequest: p.PullRequest,
					Title: strings.TrimSpace(firstLine(proposal.Message)), ApprovedBy: p.ApprovedBy,
					Source: string(p.Source), Agent: p.Agent, Session: p.AgentSession, ProposedBy: p.ProposedBy}
				if at, terr := time.Parse(time.RFC3339, p.ApprovedAt); terr == nil {
					m.Time = at
				}
				if s := trailers(proposal.Message)["Bridle-Subject"]; s != "" {
					m.Subjects = []string{s}
				}
				out = append(out, m)
			}
		}
		if len(c.ParentHashes) == 0 {
			break
		}
		c, err = repo.CommitObject(c.ParentHashes[0])
	}
	if err != nil && !errors.Is(err, plumbing.ErrObjectNotFound) {
		return out, fmt.Errorf("timeline: %w", err)
	}
	return out, nil
}
