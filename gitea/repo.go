package gitea

import (
	"context"
	"fmt"
	"time"

	sdk "code.gitea.io/sdk/gitea"
)

// Repo is one repository on the server.
type Repo struct {
	c     *Client
	Owner string
	Name  string
}

// Repo names a repository; it does not contact the server.
func (c *Client) Repo(owner, name string) Repo { return Repo{c: c, Owner: owner, Name: name} }

// Client is the client the repository is reached with.
func (r Repo) Client() *Client { return r.c }

// Branch returns a branch's head commit.
func (r Repo) Branch(ctx context.Context, branch string) (string, error) {
	s := r.c.SDK(ctx)
	br, err := Retry(ctx, r.c, "read branch "+branch, func() (*sdk.Branch, *sdk.Response, error) {
		return s.GetRepoBranch(r.Owner, r.Name, branch)
	})
	if err != nil {
		return "", err
	}
	return br.Commit.ID, nil
}

// Merged is a merged pull request as Gitea records it: its own merge
// commit, who merged it and when, and who opened it.
type Merged struct {
	Number      int
	MergeCommit string
	MergedBy    string
	MergedAt    time.Time
	Poster      string
}

// MergedPullRequests lists the repository's merged pull requests (at most
// 5,000, newest first as Gitea orders them), each with who merged it.
// Gitea's list does not say who merged (merged_by is null there, as of
// 1.26), so each merged pull request is read once more on its own, unless
// known (by merge commit, from an earlier call) already says.
func (r Repo) MergedPullRequests(ctx context.Context, known map[string]Merged) ([]Merged, error) {
	s := r.c.SDK(ctx)
	var out []Merged
	for page := 1; page <= 100; page++ {
		prs, err := Retry(ctx, r.c, "list pull requests", func() ([]*sdk.PullRequest, *sdk.Response, error) {
			return s.ListRepoPullRequests(r.Owner, r.Name, sdk.ListPullRequestsOptions{
				ListOptions: sdk.ListOptions{Page: page, PageSize: 50}, State: sdk.StateClosed,
			})
		})
		if err != nil {
			return nil, err
		}
		for _, pr := range prs {
			if !pr.HasMerged || pr.MergedCommitID == nil || *pr.MergedCommitID == "" {
				continue
			}
			m := Merged{Number: int(pr.Index), MergeCommit: *pr.MergedCommitID}
			if pr.MergedBy != nil {
				m.MergedBy = pr.MergedBy.UserName
			}
			if pr.Merged != nil {
				m.MergedAt = pr.Merged.UTC()
			}
			if pr.Poster != nil {
				m.Poster = pr.Poster.UserName
			}
			if k, ok := known[m.MergeCommit]; ok && k.Number == m.Number && k.MergedBy != "" {
				m.MergedBy = k.MergedBy
			}
			if m.MergedBy == "" {
				one, err := Retry(ctx, r.c, fmt.Sprintf("read pull request #%d", pr.Index), func() (*sdk.PullRequest, *sdk.Response, error) {
					return s.GetPullRequest(r.Owner, r.Name, pr.Index)
				})
				if err != nil {
					return nil, err
				}
				if one.MergedBy != nil {
					m.MergedBy = one.MergedBy.UserName
				}
			}
			out = append(out, m)
		}
		if len(prs) < 50 {
			break
		}
	}
	return out, nil
}

// Rights is what the client's user may do to a branch of the repository,
// as Gitea itself answers for that user (the branch's user_can_push and
// user_can_merge, which apply its protection rule and allow-lists, and the
// repository's admin permission, which can change them).
type Rights struct {
	Protected bool // a protection rule covers the branch
	Push      bool // may push to it directly
	Merge     bool // may merge pull requests into it
	Admin     bool // administers the repository (may change its protection)
}

// Rights reads what the client's user may do to branch.
func (r Repo) Rights(ctx context.Context, branch string) (Rights, error) {
	s := r.c.SDK(ctx)
	br, err := Retry(ctx, r.c, "read branch "+branch, func() (*sdk.Branch, *sdk.Response, error) {
		return s.GetRepoBranch(r.Owner, r.Name, branch)
	})
	if err != nil {
		return Rights{}, err
	}
	repo, err := Retry(ctx, r.c, "read repository "+r.Owner+"/"+r.Name, func() (*sdk.Repository, *sdk.Response, error) {
		return s.GetRepo(r.Owner, r.Name)
	})
	if err != nil {
		return Rights{}, err
	}
	out := Rights{Protected: br.Protected, Push: br.UserCanPush, Merge: br.UserCanMerge}
	if repo.Permissions != nil {
		out.Admin = repo.Permissions.Admin
	}
	return out, nil
}
