package proposals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"time"

	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/scaffold"
)

// State is a proposal's state.
type State string

// Proposal states.
const (
	Open   State = "open"
	Merged State = "merged"
	Closed State = "closed"
	All    State = "all" // for List only
)

// Proposal is a proposed change: a branch and a pull request.
type Proposal struct {
	Number      int        `json:"number"`
	Title       string     `json:"title"`
	State       State      `json:"state"`
	Branch      string     `json:"branch"`
	Head        string     `json:"head,omitempty"` // the branch's commit
	Base        string     `json:"base,omitempty"` // main's commit the change was made on
	Mergeable   bool       `json:"mergeable"`
	Conflict    string     `json:"conflict,omitempty"` // why it cannot be merged as is
	Author      string     `json:"author,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	MergedBy    string     `json:"merged_by,omitempty"`
	MergedAt    *time.Time `json:"merged_at,omitempty"`
	MergeCommit string     `json:"merge_commit,omitempty"`
	ClosedBy    string     `json:"closed_by,omitempty"`
	URL         string     `json:"url,omitempty"`
	Labels      []string   `json:"labels,omitempty"`
	Body        string     `json:"body,omitempty"`
	Draft       *Draft     `json:"draft,omitempty"`
}

// Backend stores proposals: the Gitea API, or a local git repository.
type Backend interface {
	// Name is "gitea" or "local".
	Name() string
	// Main returns main's rules document and commit.
	Main(ctx context.Context) (rules []byte, commit string, err error)
	// Create makes the branch, the commit and the pull request, all or nothing.
	Create(ctx context.Context, p Prepared) (Proposal, error)
	List(ctx context.Context, state State) ([]Proposal, error)
	Get(ctx context.Context, number int) (Proposal, error)
	// Update replaces the rules on an open proposal's branch (rebase).
	Update(ctx context.Context, number int, p Prepared) (Proposal, error)
	// Merge merges an open proposal as approver. With head set, it merges
	// only if the proposal's branch is still at that commit (the one the
	// caller checked). It checks nothing about who approves: callers
	// approve through Service.Approve.
	Merge(ctx context.Context, number int, approver, head string) (Proposal, error)
	// Commit reads one commit and the rules file at it.
	Commit(ctx context.Context, sha string) (Commit, error)
	// OnMain reports whether commit is in main's history (locally: on its
	// first-parent line; on Gitea, whose main only moves by merges: among
	// its recent commits).
	OnMain(ctx context.Context, commit string) (bool, error)
	// Close rejects an open proposal.
	Close(ctx context.Context, number int, by, reason string) (Proposal, error)
}

// layout is how b's repository lays out what a proposal made on commit base
// commits: a backend that knows its layout says so.
func layout(ctx context.Context, b Backend, base string) Layout {
	if l, ok := b.(interface {
		Layout(ctx context.Context, base string) Layout
	}); ok {
		return l.Layout(ctx, base)
	}
	return Layout{RenderDir: scaffold.RenderDir}
}

// folderLayout is the layout of rules in dir (slash, relative to the
// repository root): renders where scaffold.RenderDirFor puts them, and for a
// rules folder in a project also the native files, read from the base
// commit with read (by path from the repository root).
func folderLayout(dir string, read func(path string) ([]byte, error)) Layout {
	l := Layout{RenderDir: scaffold.RenderDirFor(dir)}
	if l.RenderDir != scaffold.RenderDir {
		root := path.Join(dir, l.RenderDir)
		l.Native, l.RulesPath = true, dir
		l.Read = func(p string) ([]byte, error) { return read(path.Join(root, p)) }
	}
	return l
}

// Service is the proposal workflow over a backend.
type Service struct {
	Backend Backend
	Version string // bridle version, for the renders a proposal commits
	// Redactor, when set, makes Propose refuse a change that holds a known
	// secret or a password: a proposal is committed, rendered and copied
	// into the pull request, where nothing can mask it afterwards.
	Redactor *redact.Redactor
}

// Propose validates d against main and creates the proposal. An invalid
// proposal fails with an *InvalidError and creates nothing.
func (s Service) Propose(ctx context.Context, d Draft) (Proposal, error) {
	if s.Redactor != nil {
		if err := secretFree(s.Redactor, d.Change); err != nil {
			return Proposal{}, err
		}
	}
	rules, commit, err := s.Backend.Main(ctx)
	if err != nil {
		return Proposal{}, err
	}
	p, err := PrepareIn(rules, commit, d, s.Version, layout(ctx, s.Backend, commit))
	if err != nil {
		return Proposal{}, err
	}
	return s.Backend.Create(ctx, p)
}

// Rebase re-applies an open proposal's change to the current main. A change
// that no longer applies fails with ErrConflict saying what conflicts.
func (s Service) Rebase(ctx context.Context, number int) (Proposal, error) {
	pr, err := s.Backend.Get(ctx, number)
	if err != nil {
		return Proposal{}, err
	}
	if pr.State != Open {
		return Proposal{}, fmt.Errorf("rebase #%d: %w (it is %s)", number, ErrState, pr.State)
	}
	// The change and its origin come from the proposal's own commit,
	// checked against the branch, never from the editable body.
	rec, err := s.Record(ctx, pr)
	if err != nil {
		return Proposal{}, fmt.Errorf("rebase: %w", err)
	}
	rules, commit, err := s.Backend.Main(ctx)
	if err != nil {
		return Proposal{}, err
	}
	if commit == rec.Base {
		return pr, nil
	}
	p, err := PrepareIn(rules, commit, rec.Draft, s.Version, layout(ctx, s.Backend, commit))
	if errors.Is(err, ErrNoChange) {
		return Proposal{}, fmt.Errorf("rebase #%d: %w: main already has this change", number, ErrConflict)
	}
	if err != nil {
		return Proposal{}, fmt.Errorf("rebase #%d: %w", number, err)
	}
	return s.Backend.Update(ctx, number, p)
}

// Check reports whether an open proposal still applies to main, for
// backends without their own mergeability check.
func Check(main []byte, pr *Proposal) {
	if pr.State != Open || pr.Draft == nil {
		return
	}
	if _, err := Apply(main, pr.Draft.Change, pr.Draft.Origin); err != nil {
		pr.Mergeable, pr.Conflict = false, err.Error()
	}
}

// secretFree checks every string of a change (keys too) and names each
// field that holds a secret, never the value.
func secretFree(r *redact.Redactor, c Change) error {
	raw, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	var v any
	json.Unmarshal(raw, &v)
	var errs []error
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case string:
			if err := r.Check(path, x); err != nil {
				errs = append(errs, err)
			}
		case []any:
			for i, e := range x {
				walk(e, path+"["+strconv.Itoa(i)+"]")
			}
		case map[string]any:
			// Keys are named by position: a key may be the secret itself.
			for i, k := range slices.Sorted(maps.Keys(x)) {
				p := fmt.Sprintf("%s{key %d}", path, i+1)
				walk(k, p)
				walk(x[k], p)
			}
		}
	}
	walk(v, "change")
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("proposal refused, nothing was created: %w; %w — remove it (refer to the secret by its variable name instead)",
		ErrBadInput, errors.Join(errs...))
}
