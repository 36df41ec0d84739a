// Package identity decides who a person is when Bridle records one: the
// human who proposes a change, approves it (the merge) or rejects it. It is
// the one rule every verb of the CLI and the local proposals backend uses,
// and it is git's own, so that Bridle and `git commit` name the same person:
//
//  1. The environment: GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL for the author
//     of a change (bridle propose), GIT_COMMITTER_NAME and
//     GIT_COMMITTER_EMAIL for whoever commits to main or closes a proposal
//     (bridle approve, bridle reject), as git uses them for a commit's
//     author and committer.
//  2. The configuration of the rules repository, then the global and the
//     system configuration (as go-git reads them): author.name or
//     committer.name first, then user.name; likewise for the e-mail, which
//     falls back to $EMAIL as in git.
//  3. Nothing else. Without a name, Of fails with ErrUnknown and a message
//     that says how to set one. There is no made-up name (no "bridle", no
//     operating-system user): a record of who approved what must name a
//     person the user chose to be.
//
// An empty variable counts as unset. A missing e-mail is not an error: the
// name is what Bridle records as proposer or approver.
package identity

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
)

// Role is the part a person plays in what Bridle records, as in git.
type Role int

const (
	// Author proposes a change (git's author).
	Author Role = iota
	// Committer approves a proposal by merging it, or rejects it (git's
	// committer).
	Committer
)

func (r Role) env() (name, email string) {
	if r == Committer {
		return "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"
	}
	return "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"
}

// Person is who a Role resolves to.
type Person struct {
	Name  string
	Email string // "" when neither the environment nor the config has one
}

// ErrUnknown is returned when no name is set.
var ErrUnknown = errors.New("who you are is unknown")

// Of resolves role in repo (which may be nil outside a repository: then
// only the environment and the global and system configuration count).
func Of(role Role, repo *git.Repository) (Person, error) {
	nameVar, emailVar := role.env()
	p := Person{Name: env(nameVar), Email: env(emailVar)}
	if p.Name != "" && p.Email != "" {
		return p, nil
	}
	cfgs, err := configs(repo)
	if err != nil {
		return Person{}, fmt.Errorf("read git config: %w", err)
	}
	if p.Name == "" {
		p.Name = first(cfgs, func(c *config.Config) string { return role.section(c).Name }, func(c *config.Config) string { return c.User.Name })
	}
	if p.Email == "" {
		p.Email = first(cfgs, func(c *config.Config) string { return role.section(c).Email }, func(c *config.Config) string { return c.User.Email })
	}
	if p.Email == "" {
		p.Email = env("EMAIL")
	}
	if p.Name == "" {
		return Person{}, fmt.Errorf(`%w: tell git your name with git config --global user.name "Your Name" (or set %s for one command)`, ErrUnknown, nameVar)
	}
	return p, nil
}

// At resolves role in the repository holding path (a directory or a file in
// one, or a path still to be made in one: its nearest existing parent
// counts), or outside any repository when there is none.
func At(role Role, path string) (Person, error) {
	repo, err := git.PlainOpenWithOptions(dirOf(path), &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		repo = nil
	}
	return Of(role, repo)
}

func dirOf(path string) string {
	for {
		st, err := os.Stat(path)
		switch {
		case err == nil && !st.IsDir():
			return filepath.Dir(path)
		case err == nil, filepath.Dir(path) == path:
			return path
		}
		path = filepath.Dir(path)
	}
}

func env(v string) string { return strings.TrimSpace(os.Getenv(v)) }

// section is the role's own config section: [author] or [committer].
func (r Role) section(c *config.Config) Person {
	if r == Committer {
		return Person{c.Committer.Name, c.Committer.Email}
	}
	return Person{c.Author.Name, c.Author.Email}
}

// first returns the first non-empty value: the role's key in every scope
// (local, global, system), then user's, as git does.
func first(cfgs []*config.Config, keys ...func(*config.Config) string) string {
	for _, key := range keys {
		for _, c := range cfgs {
			if v := strings.TrimSpace(key(c)); v != "" {
				return v
			}
		}
	}
	return ""
}

// configs are the local (when repo is set), global and system
// configuration, most specific first.
func configs(repo *git.Repository) ([]*config.Config, error) {
	var out []*config.Config
	if repo != nil {
		c, err := repo.Config()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	for _, s := range []config.Scope{config.GlobalScope, config.SystemScope} {
		c, err := config.LoadConfig(s)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
