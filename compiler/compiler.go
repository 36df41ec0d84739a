// Package compiler turns a rules source (a file, a directory holding
// bridle.yaml, or a git repository at a ref) into a Snapshot: the validated,
// normalised document, every agent's rendered files, a content hash and
// where it all came from.
//
// Promises:
//   - Compile is deterministic: the same input gives a byte-identical
//     snapshot (no timestamps, sorted renders, canonical JSON).
//   - Invalid rules never produce a snapshot: the diagnostics are returned
//     instead, all of them, sorted by position.
//   - With a ref, the rules are read from git objects (go-git), never from
//     the work tree.
//   - With the history, a part of the document is approved only when the
//     owner's baseline or an approved merge produced it, and a merge approves
//     only when a person made it: never an agent, and on a forge never the
//     bot whose token Bridle uses, whoever opened the pull request or the
//     proposal's recorded proposer (PRLookup says exactly).
//
// Every entry point — `bridle compile`, `bridle render`, CI and `bridle mcp` —
// calls Compile, so all of them see the same rules.
package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

// Options says what to compile.
type Options struct {
	// Rules is a bridle.yaml file, a directory holding one, or (with Ref) any
	// path inside a git repository.
	Rules string
	// Ref, when set, reads the rules from this git ref (branch, tag, commit)
	// instead of the work tree.
	Ref string
	// File, with Ref, is the rules file's slash path inside the repository,
	// for Rules naming a repository that has no work tree (a bare mirror of
	// a Gitea repository whose rules are not at its root); by default it is
	// derived from Rules.
	File string
	// BridleVersion is recorded in the snapshot and the rendered headers.
	BridleVersion string
	// NoHistory skips reviewing the repository's history: provenance is then
	// as written (and shown unverified), nothing is checked for approval.
	NoHistory bool
	// Strict, with the history reviewed, treats rules that are in no git
	// repository as wholly unapproved: they grant no permission at all.
	// The sidecar's authoring mode (--worktree) sets it.
	Strict bool
	// PRLookup, when set, makes the forge (Gitea) the judge of which
	// commits on main are approved merges.
	PRLookup PRLookup
	// Bot, with PRLookup, is the forge user through whose token agents'
	// changes reach the forge (the proposals bot): its merges approve
	// nothing. It is part of the compile cache's key.
	Bot string
}

// Source says where the rules were read from.
type Source struct {
	Kind   string `json:"kind"`             // "file" or "git"
	Path   string `json:"path"`             // the rules file as given (file) or within the repository (git)
	Repo   string `json:"repo,omitempty"`   // repository root, when the rules are in git
	Ref    string `json:"ref,omitempty"`    // the ref read, for kind git
	Commit string `json:"commit,omitempty"` // the commit read (git), or HEAD of the enclosing repository (file)
	Dirty  bool   `json:"dirty,omitempty"`  // file: the work tree's bridle.yaml differs from Commit
}

// Snapshot is a compiled rules document: what every consumer serves.
type Snapshot struct {
	BridleVersion string             `json:"bridle_version"`
	SchemaVersion int                `json:"schema_version"`
	ContentHash   string             `json:"content_hash"` // sha256 of the normalised document's canonical JSON
	Source        Source             `json:"source"`
	Document      schema.Document    `json:"document"` // normalised
	Renders       []renderers.File   `json:"renders"`  // one per agent, sorted by agent
	Warnings      schema.Diagnostics `json:"warnings,omitempty"`
	// Approval is what the history says about approval; nil when the
	// history was not reviewed (no repository, or NoHistory).
	Approval *Approval `json:"approval,omitempty"`
}

// Render returns the render for agent, if there is one.
func (s *Snapshot) Render(agent string) (renderers.File, bool) {
	for _, r := range s.Renders {
		if r.Agent == agent {
			return r, true
		}
	}
	return renderers.File{}, false
}

// JSON encodes the snapshot canonically (indented, sorted map keys, trailing newline).
func (s *Snapshot) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode snapshot: %w", err)
	}
	return append(b, '\n'), nil
}

// Compile reads the rules named by opts and compiles them. It returns an
// error when the source cannot be read (a missing path, a bad ref), and
// diagnostics when the rules are invalid; the snapshot is nil in both cases.
// Warnings alone do not stop compilation; they are kept in the snapshot.
func Compile(opts Options) (*Snapshot, schema.Diagnostics, error) {
	in, diags, err := Read(opts)
	if err != nil || diags.HasErrors() {
		return nil, diags, err
	}
	in.resolveHistory(opts)
	snap, diags := CompileBytes(in, opts.BridleVersion)
	return snap, diags, nil
}

// Input is a rules document read from a source.
type Input struct {
	Name    string // file name for diagnostics
	Data    []byte
	Source  Source
	review  *review // the history's verdict on approval (see resolveHistory)
	history bool    // the review is still to be made
}

// CompileBytes validates and compiles one document.
func CompileBytes(in Input, bridleVersion string) (*Snapshot, schema.Diagnostics) {
	f, diags := schema.Load(in.Name, in.Data)
	if f == nil || diags.HasErrors() {
		return nil, diags
	}
	doc := f.Doc
	var approval *Approval
	if in.review != nil {
		approval = in.review.apply(&doc)
	}
	doc.Normalize()
	hash, err := ContentHash(&doc)
	if err != nil {
		return nil, schema.Diagnostics{{File: in.Name, Line: 1, Col: 1, Level: schema.Error, Message: err.Error()}}
	}
	meta := renderers.Meta{
		BridleVersion: bridleVersion,
		ContentHash:   hash,
		Commit:        in.Source.Commit,
		Ref:           in.Source.Ref,
		Dirty:         in.Source.Dirty,
	}
	if approval != nil {
		meta.Unapproved = approval.Unapproved
	}
	snap := &Snapshot{
		BridleVersion: bridleVersion,
		SchemaVersion: doc.SchemaVersion,
		ContentHash:   hash,
		Source:        in.Source,
		Document:      doc,
		Warnings:      diags,
		Approval:      approval,
	}
	// Renders are independent: make them side by side, keep agent order.
	agents := doc.Agents()
	snap.Renders = make([]renderers.File, len(agents))
	errs := make([]error, len(agents))
	var wg sync.WaitGroup
	for i, a := range agents {
		wg.Go(func() { snap.Renders[i], errs[i] = renderers.Render(&doc, a, meta) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil { // unreachable: agents come from doc's own profiles
		return nil, schema.Diagnostics{{File: in.Name, Line: 1, Col: 1, Level: schema.Error, Message: err.Error()}}
	}
	return snap, diags
}

// ContentHash is "sha256:" and the hex sha256 of doc's canonical JSON.
func ContentHash(doc *schema.Document) (string, error) {
	h := sha256.New()
	if err := json.NewEncoder(h).Encode(doc); err != nil {
		return "", fmt.Errorf("hash document: %w", err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
