package proposals

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"code.gitea.io/sdk/gitea"

	"github.com/bridle-dev/bridle/compiler"
	bgitea "github.com/bridle-dev/bridle/gitea"
	"github.com/bridle-dev/bridle/schema"
)

// Errors from the Gitea backend, for errors.Is, besides ErrNotFound and
// ErrConflict.
// They are the gitea package's: the one classifier of Gitea's answers.
var (
	ErrUnauthorized = bgitea.ErrUnauthorized
	ErrForbidden    = bgitea.ErrForbidden
	ErrUnavailable  = bgitea.ErrUnavailable
	// ErrProtected: main's protection asks for more before a merge
	// (approvals, status checks).
	ErrProtected = bgitea.ErrProtected
)

// GiteaOptions locate the rules repository on a Gitea server.
type GiteaOptions struct {
	URL   string // e.g. https://gitea.example.com
	Token string // never printed: errors are scrubbed of it
	// TokenSource, when set, is read for the token at every request
	// (gitea.Options.TokenSource): a rotated secret needs no new backend.
	TokenSource func() string
	Owner       string
	Repo        string
	Path        string        // the rules file in the repository; default bridle.yaml
	Main        string        // the rules' branch; default main
	HTTP        *http.Client  // default: 20 s timeout
	Retry       time.Duration // base back-off for safe retries; default 200 ms
}

// Gitea keeps proposals as pull requests in a Gitea repository.
type Gitea struct {
	o GiteaOptions
	c *bgitea.Client
}

// NewGitea returns a Gitea backend. It does not contact the server.
func NewGitea(o GiteaOptions) (*Gitea, error) {
	if o.URL == "" || o.Owner == "" || o.Repo == "" {
		return nil, fmt.Errorf("%w: gitea needs a URL and an OWNER/NAME repository", ErrBadInput)
	}
	if o.Path == "" {
		o.Path = "bridle.yaml"
	}
	if o.Main == "" {
		o.Main = "main"
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 20 * time.Second}
	}
	if o.Retry == 0 {
		o.Retry = 200 * time.Millisecond
	}
	c, err := bgitea.New(bgitea.Options{URL: o.URL, Token: o.Token, TokenSource: o.TokenSource, HTTP: o.HTTP, Retry: o.Retry})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return &Gitea{o: o, c: c}, nil
}

// API is the Gitea client the backend uses.
func (g *Gitea) API() *bgitea.Client { return g.c }

// Name implements Backend.
func (g *Gitea) Name() string { return "gitea" }

// Client returns an SDK client bound to ctx.
func (g *Gitea) Client(ctx context.Context) *gitea.Client { return g.c.SDK(ctx) }

// fail names the step and classifies the failure (the gitea package's
// classifier); the token never appears.
func (g *Gitea) fail(step string, resp *gitea.Response, err error) error {
	return known(g.c.Classify(step, resp, err))
}

// known adds this package's sentinel to a classified Gitea error where one
// means the same: a 404 is ErrNotFound, a conflict ErrConflict, a pull
// request that is merged or a draft ErrState. Both stay matchable.
func known(err error) error {
	var kind error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bgitea.ErrNotFound):
		kind = ErrNotFound
	case errors.Is(err, bgitea.ErrConflict):
		kind = ErrConflict
	case errors.Is(err, bgitea.ErrNotOpen):
		kind = ErrState
	default:
		return err
	}
	return &both{kind: kind, err: err}
}

// both is a Gitea error that also means one of this package's sentinels.
type both struct{ kind, err error }

func (b *both) Error() string   { return b.err.Error() }
func (b *both) Unwrap() []error { return []error{b.kind, b.err} }

// retry runs a safe (read-only or idempotent) call up to 3 times while
// Gitea is unavailable.
func retry[T any](ctx context.Context, g *Gitea, step string, f func() (T, *gitea.Response, error)) (T, error) {
	v, err := bgitea.Retry(ctx, g.c, step, f)
	return v, known(err)
}

// Main implements Backend: main's commit, then the rules at that commit.
func (g *Gitea) Main(ctx context.Context) ([]byte, string, error) {
	c := g.Client(ctx)
	br, err := retry(ctx, g, "read branch "+g.o.Main, func() (*gitea.Branch, *gitea.Response, error) {
		return c.GetRepoBranch(g.o.Owner, g.o.Repo, g.o.Main)
	})
	if err != nil {
		return nil, "", err
	}
	data, err := retry(ctx, g, "read "+g.o.Path, func() ([]byte, *gitea.Response, error) {
		return c.GetFile(g.o.Owner, g.o.Repo, br.Commit.ID, g.o.Path)
	})
	if err != nil {
		return nil, "", err
	}
	return data, br.Commit.ID, nil
}

// labels returns the ids of names, creating missing labels.
func (g *Gitea) labels(ctx context.Context, c *gitea.Client, names []string) ([]int64, error) {
	existing, err := retry(ctx, g, "list labels", func() ([]*gitea.Label, *gitea.Response, error) {
		return c.ListRepoLabels(g.o.Owner, g.o.Repo, gitea.ListLabelsOptions{ListOptions: gitea.ListOptions{PageSize: 50}})
	})
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, n := range names {
		found := false
		for _, l := range existing {
			if l.Name == n {
				ids, found = append(ids, l.ID), true
			}
		}
		if found {
			continue
		}
		l, resp, err := c.CreateLabel(g.o.Owner, g.o.Repo, gitea.CreateLabelOption{Name: n, Color: "#6f42c1", Description: "Bridle proposal"})
		if err != nil {
			return nil, g.fail("create label "+n, resp, err)
		}
		ids = append(ids, l.ID)
	}
	return ids, nil
}

// Create implements Backend: one API call makes the branch and its commit
// (so there is never a branch without the change), then the pull request;
// if the pull request cannot be made, the branch is deleted again.
func (g *Gitea) Create(ctx context.Context, p Prepared) (Proposal, error) {
	c := g.Client(ctx)
	labels, err := g.labels(ctx, c, p.Labels)
	if err != nil {
		return Proposal{}, err
	}
	file, err := retry(ctx, g, "read "+g.o.Path, func() (*gitea.ContentsResponse, *gitea.Response, error) {
		return c.GetContents(g.o.Owner, g.o.Repo, p.Base, g.o.Path)
	})
	if err != nil {
		return Proposal{}, err
	}
	branch := p.Branch
	for i := 2; i < 100; i++ {
		_, resp, err := c.GetRepoBranch(g.o.Owner, g.o.Repo, branch)
		if err != nil && resp != nil && resp.StatusCode == 404 {
			break
		}
		if err != nil {
			return Proposal{}, g.fail("check branch "+branch, resp, err)
		}
		branch = fmt.Sprintf("%s-%d", p.Branch, i)
	}
	who := gitea.Identity{Name: "bridle", Email: "bridle@localhost"}
	if s := p.Draft.Origin.Source; s == schema.SourceAgent || s == schema.SourceVendor {
		who.Name = "bridle (" + string(s) + " " + Slug(p.Draft.Origin.Agent, 40) + ")"
	} else if p.Draft.Origin.Author != "" {
		who.Name = OneLine(p.Draft.Origin.Author, 80)
	}
	_, resp, err := c.ChangeFiles(g.o.Owner, g.o.Repo, gitea.ChangeFilesOptions{
		Message: p.Message, Branch: g.o.Main, NewBranch: branch, Author: who, Committer: who,
		Files: g.operations(p, file.SHA),
	})
	if err != nil {
		err = g.fail("create branch "+branch+" with the change", resp, err)
		if errors.Is(err, ErrConflict) {
			err = fmt.Errorf("%w (main moved while proposing; propose again)", err)
		}
		return Proposal{}, err
	}
	pr, resp, err := c.CreatePullRequest(g.o.Owner, g.o.Repo, gitea.CreatePullRequestOption{
		Head: branch, Base: g.o.Main, Title: p.Title, Body: p.Body, Labels: labels,
	})
	if err != nil {
		cerr := g.fail("open pull request", resp, err)
		if _, dresp, derr := c.DeleteRepoBranch(g.o.Owner, g.o.Repo, branch); derr != nil {
			return Proposal{}, fmt.Errorf("%w; and the branch %s could not be removed: %v", cerr, branch, g.fail("delete branch", dresp, derr))
		}
		return Proposal{}, cerr
	}
	return g.proposal(pr), nil
}

// Layout is how the repository lays out a proposal made on base
// (folderLayout), reading the base commit's files from Gitea.
func (g *Gitea) Layout(ctx context.Context, base string) Layout {
	return folderLayout(path.Dir(g.o.Path), func(p string) ([]byte, error) {
		b, resp, err := g.Client(ctx).GetFile(g.o.Owner, g.o.Repo, base, p)
		if err != nil && resp != nil && resp.StatusCode == http.StatusNotFound {
			return nil, nil
		}
		if err != nil {
			return nil, g.fail("read "+p, resp, err)
		}
		return b, nil
	})
}

// operations writes the proposal's files: the rules file as an update
// guarded by its blob sha (so a concurrent change to main is a conflict, not
// a lost update), the renders as uploads (created or replaced).
func (g *Gitea) operations(p Prepared, rulesSHA string) []*gitea.ChangeFileOperation {
	dir := path.Dir(g.o.Path)
	var ops []*gitea.ChangeFileOperation
	for _, rel := range slices.Sorted(maps.Keys(p.Files)) {
		op := &gitea.ChangeFileOperation{Operation: "upload", Path: path.Join(dir, rel), Content: base64.StdEncoding.EncodeToString(p.Files[rel])}
		if rel == "bridle.yaml" {
			op.Operation, op.Path, op.SHA = "update", g.o.Path, rulesSHA
		}
		ops = append(ops, op)
	}
	return ops
}

func (g *Gitea) proposal(pr *gitea.PullRequest) Proposal {
	p := Proposal{Number: int(pr.Index), Title: pr.Title, URL: pr.HTMLURL, Mergeable: pr.Mergeable, Body: pr.Body}
	switch {
	case pr.HasMerged:
		p.State = Merged
	case pr.State == gitea.StateClosed:
		p.State = Closed
	default:
		p.State = Open
	}
	if pr.Head != nil {
		p.Branch, p.Head = pr.Head.Ref, pr.Head.Sha
	}
	p.Base = pr.MergeBase
	if pr.Poster != nil {
		p.Author = pr.Poster.UserName
	}
	if pr.Created != nil {
		p.CreatedAt = pr.Created.UTC()
	}
	if pr.HasMerged {
		if pr.MergedBy != nil {
			p.MergedBy = pr.MergedBy.UserName
		}
		if pr.Merged != nil {
			t := pr.Merged.UTC()
			p.MergedAt = &t
		}
		if pr.MergedCommitID != nil {
			p.MergeCommit = *pr.MergedCommitID
		}
		p.Mergeable = false
	}
	if p.State == Open && !pr.Mergeable {
		p.Conflict = "gitea reports a conflict with main; run bridle proposals rebase " + fmt.Sprint(p.Number)
	}
	for _, l := range pr.Labels {
		p.Labels = append(p.Labels, l.Name)
	}
	if d, ok := DraftFromBody(pr.Body); ok {
		p.Draft = &d
	}
	return p
}

// List implements Backend.
func (g *Gitea) List(ctx context.Context, state State) ([]Proposal, error) {
	c := g.Client(ctx)
	st := gitea.StateAll
	if state == Open {
		st = gitea.StateOpen
	}
	var out []Proposal
	for page := 1; page < 100; page++ {
		prs, err := retry(ctx, g, "list pull requests", func() ([]*gitea.PullRequest, *gitea.Response, error) {
			return c.ListRepoPullRequests(g.o.Owner, g.o.Repo, gitea.ListPullRequestsOptions{
				ListOptions: gitea.ListOptions{Page: page, PageSize: 50}, State: st,
			})
		})
		if err != nil {
			return nil, err
		}
		for _, pr := range prs {
			p := g.proposal(pr)
			if state != All && p.State != state {
				continue
			}
			p.Body = ""
			out = append(out, p)
		}
		if len(prs) < 50 {
			break
		}
	}
	return out, nil
}

// Get implements Backend.
func (g *Gitea) Get(ctx context.Context, n int) (Proposal, error) {
	c := g.Client(ctx)
	pr, err := retry(ctx, g, fmt.Sprintf("read pull request #%d", n), func() (*gitea.PullRequest, *gitea.Response, error) {
		return c.GetPullRequest(g.o.Owner, g.o.Repo, int64(n))
	})
	if err != nil {
		return Proposal{}, err
	}
	return g.proposal(pr), nil
}

// Commit implements Backend.
func (g *Gitea) Commit(ctx context.Context, sha string) (Commit, error) {
	c := g.Client(ctx)
	step := "read commit " + shortSHA(sha)
	cm, err := retry(ctx, g, step, func() (*gitea.Commit, *gitea.Response, error) {
		return c.GetSingleCommit(g.o.Owner, g.o.Repo, sha)
	})
	if err != nil {
		return Commit{}, err
	}
	out := Commit{SHA: sha}
	if cm.RepoCommit != nil {
		out.Message = cm.RepoCommit.Message
	}
	for _, p := range cm.Parents {
		if p != nil {
			out.Parents = append(out.Parents, p.SHA)
		}
	}
	data, resp, err := c.GetFile(g.o.Owner, g.o.Repo, sha, g.o.Path)
	switch {
	case err == nil:
		out.Rules = data
	case resp != nil && resp.StatusCode == http.StatusNotFound:
	default:
		return Commit{}, g.fail(step+": "+g.o.Path, resp, err)
	}
	return out, nil
}

// OnMain implements Backend: commit is among the newest 1,000 commits of
// main (a proposal made on an older main is rebased first).
func (g *Gitea) OnMain(ctx context.Context, commit string) (bool, error) {
	c := g.Client(ctx)
	for page := 1; page <= 20; page++ {
		cs, err := retry(ctx, g, "list commits of "+g.o.Main, func() ([]*gitea.Commit, *gitea.Response, error) {
			return c.ListRepoCommits(g.o.Owner, g.o.Repo, gitea.ListCommitOptions{SHA: g.o.Main, ListOptions: gitea.ListOptions{Page: page, PageSize: 50}})
		})
		if err != nil {
			return false, err
		}
		for _, x := range cs {
			if x.CommitMeta != nil && x.SHA == commit {
				return true, nil
			}
		}
		if len(cs) < 50 {
			break
		}
	}
	return false, nil
}

// Whoami is the token's user: the approver of a merge made through it.
func (g *Gitea) Whoami(ctx context.Context) (string, error) {
	u, err := g.c.User(ctx)
	return u, known(err)
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// Update implements Backend: the branch is replaced by one commit on the
// current main (a force push through the API), so the pull request merges
// cleanly; the body is refreshed.
func (g *Gitea) Update(ctx context.Context, n int, p Prepared) (Proposal, error) {
	cur, err := g.Get(ctx, n)
	if err != nil {
		return Proposal{}, err
	}
	if cur.State != Open {
		return Proposal{}, fmt.Errorf("update #%d: %w", n, ErrState)
	}
	c := g.Client(ctx)
	file, err := retry(ctx, g, "read "+g.o.Path, func() (*gitea.ContentsResponse, *gitea.Response, error) {
		return c.GetContents(g.o.Owner, g.o.Repo, p.Base, g.o.Path)
	})
	if err != nil {
		return Proposal{}, err
	}
	who := gitea.Identity{Name: "bridle", Email: "bridle@localhost"}
	if _, resp, err := c.ChangeFiles(g.o.Owner, g.o.Repo, gitea.ChangeFilesOptions{
		Message: p.Message, Branch: g.o.Main, NewBranch: cur.Branch, ForcePush: true, Author: who, Committer: who,
		Files: g.operations(p, file.SHA),
	}); err != nil {
		return Proposal{}, g.fail(fmt.Sprintf("re-apply #%d on %s", n, g.o.Main), resp, err)
	}
	body := p.Body
	pr, resp, err := c.EditPullRequest(g.o.Owner, g.o.Repo, int64(n), gitea.EditPullRequestOption{Body: &body})
	if err != nil {
		return Proposal{}, g.fail(fmt.Sprintf("update body of #%d", n), resp, err)
	}
	return g.proposal(pr), nil
}

// Merge implements Backend. Gitea records the token's user as the merger;
// approver is not used. Gitea deletes the merged branch, as Local does; it
// keeps the pull request's head, which is all Bridle reads afterwards. Gitea answers 405 both while it is still checking
// mergeability ("Please try again later", retried for a while) and when the
// account may not merge ("User not allowed to merge PR"); the call is made
// directly so that the two can be told apart.
func (g *Gitea) Merge(ctx context.Context, n int, _, head string) (Proposal, error) {
	return g.merge(ctx, n, head, "")
}

// MergeOwn is Merge of a person's own proposal, by their choice (a sole
// maintainer's --self): the merge commit records it
// (compiler.SelfApprovedTrailer, with the token's user), without which the
// history review does not count a merge by the proposal's author.
func (g *Gitea) MergeOwn(ctx context.Context, n int, _, head string) (Proposal, error) {
	me, err := g.Whoami(ctx)
	if err != nil {
		return Proposal{}, err
	}
	return g.merge(ctx, n, head, me)
}

func (g *Gitea) merge(ctx context.Context, n int, head, self string) (Proposal, error) {
	cur, err := g.Get(ctx, n)
	if err != nil {
		return Proposal{}, err
	}
	if cur.State != Open {
		return Proposal{}, fmt.Errorf("approve #%d: %w (it is %s)", n, ErrState, cur.State)
	}
	msg := fmt.Sprintf("Bridle-Proposal: %d\n", n)
	if self != "" {
		msg += compiler.SelfApprovedTrailer + ": " + OneLine(self, 80) + "\n"
	}
	form := map[string]any{"Do": "merge", "MergeTitleField": fmt.Sprintf("Merge proposal #%d: %s", n, cur.Title),
		"MergeMessageField": msg, "delete_branch_after_merge": true}
	if head != "" {
		if cur.Head != head {
			return Proposal{}, fmt.Errorf("approve #%d: %w: the proposal changed after it was checked; check it again", n, ErrConflict)
		}
		form["head_commit_id"] = head // Gitea refuses the merge if the branch moved since
	}
	body, _ := json.Marshal(form)
	endpoint := fmt.Sprintf("%s/api/v1/repos/%s/%s/pulls/%d/merge", g.c.URL(), url.PathEscape(g.o.Owner), url.PathEscape(g.o.Repo), n)
	step := fmt.Sprintf("merge #%d", n)
	for i := 0; ; i++ {
		req, _ := http.NewRequestWithContext(ctx, "POST", endpoint, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := g.c.Do(req)
		if err != nil {
			return Proposal{}, g.fail(step, nil, err)
		}
		err = g.c.ClassifyResponse(step, resp)
		switch {
		case err == nil:
			p, err := g.Get(ctx, n)
			if err == nil && cur.Branch != "" {
				// Gitea does not say when it could not delete the branch.
				if _, bresp, berr := g.Client(ctx).GetRepoBranch(g.o.Owner, g.o.Repo, cur.Branch); berr == nil {
					p.Conflict = fmt.Sprintf("merged; Gitea kept the branch %s (delete it by hand)", cur.Branch)
				} else if bresp == nil || bresp.StatusCode != http.StatusNotFound {
					p.Conflict = fmt.Sprintf("merged; whether Gitea deleted the branch %s is unknown: %v", cur.Branch, g.fail("read branch", bresp, berr))
				}
			}
			return p, err
		case errors.Is(err, bgitea.ErrNotReady) && i < 60:
			// Gitea is still checking mergeability (or the branch
			// conflicts: it answers the same; after 15 s it is that).
			select {
			case <-ctx.Done():
				return Proposal{}, ctx.Err()
			case <-time.After(250 * time.Millisecond):
			}
			continue
		case errors.Is(err, bgitea.ErrForbidden):
			return Proposal{}, fmt.Errorf("%w (this account may not merge into %s: only the approvers may)", known(err), g.o.Main)
		case errors.Is(err, bgitea.ErrProtected):
			return Proposal{}, fmt.Errorf("%w (%s's protection asks for more first: approvals or status checks)", known(err), g.o.Main)
		case errors.Is(err, bgitea.ErrNotReady), errors.Is(err, bgitea.ErrConflict):
			return Proposal{}, fmt.Errorf("%w (run bridle proposals rebase %d)", &both{kind: ErrConflict, err: err}, n)
		}
		return Proposal{}, known(err)
	}
}

// Close implements Backend: a comment with the reason, then the pull
// request is closed.
func (g *Gitea) Close(ctx context.Context, n int, by, reason string) (Proposal, error) {
	c := g.Client(ctx)
	cur, err := g.Get(ctx, n)
	if err != nil {
		return Proposal{}, err
	}
	if cur.State != Open {
		return Proposal{}, fmt.Errorf("reject #%d: %w (it is %s)", n, ErrState, cur.State)
	}
	if reason = strings.TrimSpace(reason); reason != "" {
		if _, resp, err := c.CreateIssueComment(g.o.Owner, g.o.Repo, int64(n), gitea.CreateIssueCommentOption{Body: "Rejected: " + reason}); err != nil {
			return Proposal{}, g.fail(fmt.Sprintf("comment on #%d", n), resp, err)
		}
	}
	closed := gitea.StateClosed
	pr, resp, err := c.EditPullRequest(g.o.Owner, g.o.Repo, int64(n), gitea.EditPullRequestOption{State: &closed})
	if err != nil {
		return Proposal{}, g.fail(fmt.Sprintf("close #%d", n), resp, err)
	}
	p := g.proposal(pr)
	p.ClosedBy = by
	return p, nil
}
