package proposals

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"

	"code.gitea.io/sdk/gitea"
)

// BootstrapOptions configure a new rules repository on Gitea.
type BootstrapOptions struct {
	Files       map[string][]byte // the scaffold, by slash path
	Private     bool
	Description string
	// Writers get write access: they may push proposal branches and open
	// pull requests (the agents' bot account, people who propose).
	Writers []string
	// Approvers, when set, are the only users allowed to merge into main;
	// they get write access too.
	Approvers []string
}

// Bootstrap creates the rules repository, pushes the scaffold as its first
// commit on main, and protects main so that the only way in is a merged pull
// request: direct pushes are refused, for everyone.
func (g *Gitea) Bootstrap(ctx context.Context, o BootstrapOptions) (*gitea.Repository, error) {
	c := g.Client(ctx)
	if _, resp, err := c.GetRepo(g.o.Owner, g.o.Repo); err == nil {
		return nil, fmt.Errorf("gitea create repository %s/%s: %w: it already exists; choose another name", g.o.Owner, g.o.Repo, ErrConflict)
	} else if resp == nil || resp.StatusCode != 404 {
		return nil, g.fail("check repository", resp, err)
	}
	me, resp, err := c.GetMyUserInfo()
	if err != nil {
		return nil, g.fail("read the token's user", resp, err)
	}
	opt := gitea.CreateRepoOption{Name: g.o.Repo, Description: o.Description, Private: o.Private, DefaultBranch: g.o.Main}
	var repo *gitea.Repository
	if me.UserName == g.o.Owner {
		repo, resp, err = c.CreateRepo(opt)
	} else {
		repo, resp, err = c.CreateOrgRepo(g.o.Owner, opt)
	}
	if err != nil {
		return nil, g.fail("create repository "+g.o.Owner+"/"+g.o.Repo, resp, err)
	}
	var ops []*gitea.ChangeFileOperation
	for _, p := range slices.Sorted(maps.Keys(o.Files)) {
		ops = append(ops, &gitea.ChangeFileOperation{Operation: "create", Path: p, Content: base64.StdEncoding.EncodeToString(o.Files[p])})
	}
	who := gitea.Identity{Name: "bridle", Email: "bridle@localhost"}
	if _, resp, err := c.ChangeFiles(g.o.Owner, g.o.Repo, gitea.ChangeFilesOptions{
		Message: "Initialise Bridle rules\n\nBridle-Source: user\nBridle-Kind: init\n", Branch: g.o.Main, Author: who, Committer: who, Files: ops,
	}); err != nil {
		return repo, g.fail("push the scaffold", resp, err)
	}
	// Gitea keeps only whitelisted users who can write, so access comes first.
	for _, u := range slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(o.Writers), o.Approvers...)))) {
		if u == me.UserName {
			continue
		}
		if err := g.AddWriter(ctx, u); err != nil {
			return repo, err
		}
	}
	prot := gitea.CreateBranchProtectionOption{
		RuleName: g.o.Main, BranchName: g.o.Main,
		EnablePush:           false, // no direct pushes: pull requests only
		EnableMergeWhitelist: len(o.Approvers) > 0, MergeWhitelistUsernames: o.Approvers,
		BlockOnOutdatedBranch:   false,
		BlockAdminMergeOverride: true,
	}
	if _, resp, err := c.CreateBranchProtection(g.o.Owner, g.o.Repo, prot); err != nil {
		return repo, g.fail("protect "+g.o.Main, resp, err)
	}
	return repo, nil
}

// AddWriter gives user write access to the repository (to open proposals).
func (g *Gitea) AddWriter(ctx context.Context, user string) error {
	mode := gitea.AccessModeWrite
	resp, err := g.Client(ctx).AddCollaborator(g.o.Owner, g.o.Repo, user, gitea.AddCollaboratorOption{Permission: &mode})
	if err != nil {
		return g.fail("add "+user+" as a writer", resp, err)
	}
	return nil
}
