package proposals

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Config chooses and configures a backend: Gitea when GiteaURL is set,
// otherwise the local repository holding Rules.
type Config struct {
	Rules     string // local: the rules path
	GiteaURL  string // GITEA_URL
	GiteaRepo string // OWNER/NAME (BRIDLE_GITEA_REPO)
	Token     string // GITEA_TOKEN, or the contents of GITEA_TOKEN_FILE
	// TokenSource, when set, is read for the token at every request (the
	// gateway's vault); Token is then its value at start.
	TokenSource func() string
	Path        string // the rules file inside the Gitea repository
	// Branch is the rules' branch on Gitea (BRIDLE_GITEA_BRANCH): the one
	// served, protected and merged into; main when empty.
	Branch  string
	Version string
}

// ConfigFrom fills unset Gitea fields from the environment getenv reads:
// GITEA_URL, BRIDLE_GITEA_REPO, BRIDLE_GITEA_BRANCH, GITEA_TOKEN and
// GITEA_TOKEN_FILE. (The CLI's
// seam is the only caller that passes the process environment.)
func ConfigFrom(getenv func(string) string, c Config) (Config, error) {
	if c.GiteaURL == "" {
		c.GiteaURL = getenv("GITEA_URL")
	}
	if c.GiteaRepo == "" {
		c.GiteaRepo = getenv("BRIDLE_GITEA_REPO")
	}
	if c.Branch == "" {
		c.Branch = getenv("BRIDLE_GITEA_BRANCH")
	}
	if c.Token == "" {
		c.Token = getenv("GITEA_TOKEN")
	}
	if c.Token == "" {
		if f := getenv("GITEA_TOKEN_FILE"); f != "" {
			b, err := os.ReadFile(f)
			if err != nil {
				return c, fmt.Errorf("read GITEA_TOKEN_FILE: %w", err)
			}
			c.Token = strings.TrimSpace(string(b))
		}
	}
	return c, nil
}

// Split parses OWNER/NAME.
func Split(repo string) (owner, name string, err error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("%w: repository %q is not OWNER/NAME", ErrBadInput, repo)
	}
	return owner, name, nil
}

// OpenBackend returns the backend c describes.
func OpenBackend(c Config) (Backend, error) {
	if c.GiteaURL == "" {
		return OpenLocal(c.Rules, c.Version)
	}
	if c.GiteaRepo == "" {
		return nil, errors.New("gitea: set --repo OWNER/NAME (or BRIDLE_GITEA_REPO) with GITEA_URL")
	}
	if c.Token == "" {
		return nil, errors.New("gitea: set GITEA_TOKEN (or GITEA_TOKEN_FILE) to a token that can push branches and open pull requests")
	}
	owner, name, err := Split(c.GiteaRepo)
	if err != nil {
		return nil, err
	}
	return NewGitea(GiteaOptions{URL: c.GiteaURL, Token: c.Token, TokenSource: c.TokenSource, Owner: owner, Repo: name, Path: c.Path, Main: c.Branch})
}
