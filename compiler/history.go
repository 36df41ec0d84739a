package compiler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/bridle-dev/bridle/schema"
)

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Trailers parses "Key: value" lines of a commit message's last paragraph.
func Trailers(msg string) map[string]string {
	out := map[string]string{}
	paras := strings.Split(strings.TrimSpace(msg), "\n\n")
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && strings.HasPrefix(k, "Bridle-") {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
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
// A merge that approves nothing (see PRLookup) is not listed: what it
// brought in is unapproved in the snapshot's review.
func Timeline(opts Options) ([]Merge, error) {
	in, diags, err := Read(Options{Rules: opts.Rules, Ref: opts.Ref, File: opts.File, NoHistory: true})
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
	head, err := repo.CommitObject(plumbing.NewHash(in.Source.Commit))
	chain := map[plumbing.Hash]bool{}
	for c, i := head, 0; err == nil && c != nil && i < maxHistory; i++ {
		chain[c.Hash] = true
		if len(c.ParentHashes) == 0 {
			break
		}
		c, err = repo.CommitObject(c.ParentHashes[0])
	}
	if err != nil && !errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	err = nil
	onChain := func(h plumbing.Hash) bool { return chain[h] }
	var doc map[string]string
	if f, _ := schema.Parse(in.Name, in.Data); f != nil {
		doc = subjects(&f.Doc)
	}
	isAgent := agentNames(doc)
	c := head
	var out []Merge
	for i := 0; err == nil && i < maxHistory && c != nil; i++ {
		if prov, proposal, _, aerr := approval(repo, c, opts.PRLookup, opts.Bot, onChain, isAgent); aerr == nil && prov != nil {
			from := proposal
			if from == nil {
				from = c
			}
			m := Merge{Time: c.Author.When.UTC(), Commit: c.Hash.String(), PullRequest: prov.PullRequest,
				Title: strings.TrimSpace(firstLine(from.Message)), ApprovedBy: prov.ApprovedBy,
				Source: string(prov.Source), Agent: prov.Agent, Session: prov.AgentSession, ProposedBy: prov.ProposedBy}
			if at, terr := time.Parse(time.RFC3339, prov.ApprovedAt); terr == nil {
				m.Time = at
			}
			if s := Trailers(from.Message)["Bridle-Subject"]; s != "" {
				m.Subjects = []string{s}
			}
			out = append(out, m)
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

// Descends reports whether commit descends from ancestor along its
// first-parent line (main moves forward by merges and commits on top), in
// the repository holding rules.
func Descends(rules, ancestor, commit string) (bool, error) {
	dir := rules
	if st, err := os.Stat(rules); err == nil && !st.IsDir() {
		dir = filepath.Dir(rules)
	}
	repo, _, err := openRepo(dir)
	if err != nil {
		return false, err
	}
	want := plumbing.NewHash(ancestor)
	c, err := repo.CommitObject(plumbing.NewHash(commit))
	for i := 0; err == nil && i < maxHistory; i++ {
		if c.Hash == want {
			return true, nil
		}
		if len(c.ParentHashes) == 0 {
			return false, nil
		}
		c, err = repo.CommitObject(c.ParentHashes[0])
	}
	if err != nil {
		return false, fmt.Errorf("descends: %w", err)
	}
	return false, nil
}
