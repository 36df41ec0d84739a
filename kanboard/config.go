package kanboard

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Config is the Kanboard configuration an environment gives.
type Config struct {
	URL   string // KANBOARD_URL; "" leaves Kanboard out
	User  string // KANBOARD_USER; default AppUser
	Token string // KANBOARD_TOKEN, else the contents of KANBOARD_TOKEN_FILE
	// TokenFromFile is set when Token was read from KANBOARD_TOKEN_FILE, so
	// that the caller registers it with its redactor (an environment
	// variable's value is registered by name).
	TokenFromFile bool
	// Projects are the Kanboard project ids the Bridle project may touch
	// (KANBOARD_PROJECTS, comma-separated); nil: all the identity can see.
	Projects []int
}

// ConfigFrom reads KANBOARD_URL, KANBOARD_USER, KANBOARD_TOKEN or
// KANBOARD_TOKEN_FILE (an empty file means no token) and KANBOARD_PROJECTS
// from getenv. Errors name the variable, never a token.
func ConfigFrom(getenv func(string) string) (Config, error) {
	c := Config{
		URL:   strings.TrimSpace(getenv("KANBOARD_URL")),
		User:  strings.TrimSpace(getenv("KANBOARD_USER")),
		Token: strings.TrimSpace(getenv("KANBOARD_TOKEN")),
	}
	if c.User == "" {
		c.User = AppUser
	}
	if file := strings.TrimSpace(getenv("KANBOARD_TOKEN_FILE")); c.Token == "" && file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return c, fmt.Errorf("KANBOARD_TOKEN_FILE: %w", err)
		}
		c.Token = strings.TrimSpace(string(b))
		c.TokenFromFile = c.Token != ""
	}
	if s := strings.TrimSpace(getenv("KANBOARD_PROJECTS")); s != "" {
		for _, f := range strings.Split(s, ",") {
			f = strings.TrimSpace(f)
			id, err := strconv.Atoi(f)
			if err != nil || id <= 0 {
				return c, fmt.Errorf("KANBOARD_PROJECTS: %q is not a Kanboard project id (a positive number)", clean(f, 40))
			}
			c.Projects = append(c.Projects, id)
		}
	}
	return c, nil
}

// Options are the client options c gives.
func (c Config) Options() Options { return Options{URL: c.URL, User: c.User, Token: c.Token} }
