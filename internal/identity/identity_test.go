package identity

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
)

// isolate gives the test an empty home (no global git config) and clears
// every variable the rule reads.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"} {
		t.Setenv(v, "")
	}
	return home
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOf(t *testing.T) {
	tests := []struct {
		name           string
		env            map[string]string
		global, local  string
		role           Role
		want           Person
		wantErrMention string
	}{
		{name: "nothing set", role: Author, wantErrMention: "GIT_AUTHOR_NAME"},
		{name: "nothing set, committer", role: Committer, wantErrMention: "GIT_COMMITTER_NAME"},
		{name: "global user", global: "[user]\n\tname = Mira Okafor\n\temail = mira@example.com\n", role: Committer,
			want: Person{"Mira Okafor", "mira@example.com"}},
		{name: "local beats global", global: "[user]\n\tname = Mira\n", local: "[user]\n\tname = Mira (work)\n\temail = m@work\n", role: Author,
			want: Person{"Mira (work)", "m@work"}},
		{name: "author section beats user", global: "[user]\n\tname = Mira\n[author]\n\tname = M. Okafor\n", role: Author,
			want: Person{"M. Okafor", ""}},
		{name: "author section is not the committer's", global: "[user]\n\tname = Mira\n[author]\n\tname = M. Okafor\n", role: Committer,
			want: Person{"Mira", ""}},
		{name: "environment first", env: map[string]string{"GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@x"}, global: "[user]\n\tname = Mira\n", role: Author,
			want: Person{"Ann", "ann@x"}},
		{name: "author variables do not make a committer", env: map[string]string{"GIT_AUTHOR_NAME": "Ann"}, role: Committer, wantErrMention: "GIT_COMMITTER_NAME"},
		{name: "committer variables", env: map[string]string{"GIT_COMMITTER_NAME": "Bob"}, global: "[user]\n\temail = b@x\n", role: Committer,
			want: Person{"Bob", "b@x"}},
		{name: "EMAIL is the last resort", env: map[string]string{"GIT_AUTHOR_NAME": "Ann", "EMAIL": "ann@home"}, role: Author,
			want: Person{"Ann", "ann@home"}},
		{name: "blank is unset", env: map[string]string{"GIT_AUTHOR_NAME": "  "}, global: "[user]\n\tname = \n", role: Author, wantErrMention: "user.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := isolate(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			if tt.global != "" {
				write(t, filepath.Join(home, ".gitconfig"), tt.global)
			}
			dir := t.TempDir()
			repo, err := git.PlainInit(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			if tt.local != "" {
				write(t, filepath.Join(dir, ".git", "config"), tt.local)
			}
			got, err := Of(tt.role, repo)
			if tt.wantErrMention != "" {
				if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), tt.wantErrMention) || !strings.Contains(err.Error(), `git config --global user.name "Your Name"`) {
					t.Fatalf("Of = %+v, %v; want ErrUnknown saying how to set a name (%s)", got, err, tt.wantErrMention)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Of = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestAt(t *testing.T) {
	home := isolate(t)
	write(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Global\n")
	outside := t.TempDir()
	if got, err := At(Author, filepath.Join(outside, "no-such")); err != nil || got.Name != "Global" {
		t.Errorf("outside a repository: %+v, %v", got, err)
	}
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".git", "config"), "[user]\n\tname = Local\n")
	write(t, filepath.Join(dir, "sub", "bridle.yaml"), "x")
	if got, err := At(Committer, filepath.Join(dir, "sub", "bridle.yaml")); err != nil || got.Name != "Local" {
		t.Errorf("a file in a repository: %+v, %v", got, err)
	}
}
