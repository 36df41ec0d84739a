package gitea

import (
	"context"
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
// commit, who merged it and when.
type Merged struct {
	Number      int
	MergeCommit string
	MergedBy    string
	MergedAt    time.Time
}

// MergedPullRequests lists the repository's merged pull requests (at most
// 5,000, newest first as Gitea orders them).
func (r Repo) MergedPullRequests(ctx context.Context) ([]Merged, error) {
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
			out = append(out, m)
		}
		if len(prs) < 50 {
			break
		}
	}
	return out, nil
}
