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
	Path      string // the rules file inside the Gitea repository
	Version   string
}

// ConfigFromEnv fills unset Gitea fields from GITEA_URL, BRIDLE_GITEA_REPO,
// GITEA_TOKEN and GITEA_TOKEN_FILE.
func ConfigFromEnv(c Config) (Config, error) {
	if c.GiteaURL == "" {
		c.GiteaURL = os.Getenv("GITEA_URL")
	}
	if c.GiteaRepo == "" {
		c.GiteaRepo = os.Getenv("BRIDLE_GITEA_REPO")
	}
	if c.Token == "" {
		c.Token = os.Getenv("GITEA_TOKEN")
	}
	if c.Token == "" {
		if f := os.Getenv("GITEA_TOKEN_FILE"); f != "" {
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
	return NewGitea(GiteaOptions{URL: c.GiteaURL, Token: c.Token, Owner: owner, Repo: name, Path: c.Path})
}
