package main

import (
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
)

// TestUsageErrorsPointAtTheCommandsHelp: a usage error names the help of
// the command that refused, not only the root's.
func TestUsageErrorsPointAtTheCommandsHelp(t *testing.T) {
	tests := []struct {
		args []string
		help string
	}{
		{[]string{"frobnicate"}, "Run 'bridle --help' for usage."},
		{[]string{"render", "--bogus"}, "Run 'bridle render --help' for usage."},
		{[]string{"proposals", "show", "x"}, "Run 'bridle proposals show --help' for usage."},
		{[]string{"memory", "purge"}, "Run 'bridle memory purge --help' for usage."},
		{[]string{"approve"}, "Run 'bridle approve --help' for usage."},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := bridle(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.help) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitUsage, tt.help)
			}
		})
	}
}

func TestVersionFlag(t *testing.T) {
	_, want, _ := bridle(t, "version")
	code, out, stderr := bridle(t, "--version")
	if code != 0 || out != want || !strings.HasPrefix(out, "bridle ") {
		t.Errorf("--version: exit %d, %q (stderr %q); want %q, as bridle version prints", code, out, stderr, want)
	}
}

// TestProposeKinds: each kind of proposal is its own command with only its
// own flags; the invocation `bridle propose guardrail --id …` is unchanged.
func TestProposeKinds(t *testing.T) {
	own := map[string][]string{
		"guardrail": {"--id", "--statement", "--severity", "--rationale", "--applies-to", "--enforced-by", "--scope-approval"},
		"pattern":   {"--file"},
		"rules":     {"--section", "--value", "--value-file"},
		"promote":   {"--agent", "--suggestion", "--applies-to"},
		"edit":      {"--from"},
	}
	_, parent, _ := bridle(t, "propose", "--help")
	for kind, flags := range own {
		if !strings.Contains(parent, "  "+kind+" ") {
			t.Errorf("propose --help does not list %s:\n%s", kind, parent)
		}
		code, help, _ := bridle(t, "propose", kind, "--help")
		if code != 0 || !strings.Contains(help, "bridle propose "+kind) || !strings.Contains(help, "--why") || !strings.Contains(help, "--as") {
			t.Errorf("propose %s --help: exit %d\n%s", kind, code, help)
		}
		for other, otherFlags := range own {
			for _, f := range otherFlags {
				mine := false
				for _, g := range flags {
					mine = mine || g == f
				}
				switch {
				case mine && !strings.Contains(help, f+" "):
					t.Errorf("propose %s --help lacks its flag %s", kind, f)
				case !mine && strings.Contains(help, f+" "):
					t.Errorf("propose %s --help offers %s, a flag of propose %s", kind, f, other)
				}
			}
		}
	}
	propose, _, _ := newRoot(&streams{}).Find([]string{"propose"})
	for _, f := range []string{"statement", "section", "suggestion", "file", "why"} {
		if propose.Flags().Lookup(f) != nil {
			t.Errorf("propose still has --%s: the kinds' flags are in one flat list", f)
		}
	}
	if code, _, stderr := bridle(t, "propose", "pattern", "--statement", "x"); code != exitUsage || !strings.Contains(stderr, "unknown flag: --statement") {
		t.Errorf("propose pattern --statement: exit %d, %s", code, stderr)
	}
	for _, args := range [][]string{{"propose"}, {"propose", "policy"}} {
		if code, _, stderr := bridle(t, args...); code != exitUsage || !strings.Contains(stderr, "guardrail, pattern, rules, promote or edit") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
	if code, _, stderr := bridle(t, "propose", "guardrail", "--rules", t.TempDir(), "--id", "x"); code != exitUsage || !strings.Contains(stderr, "needs --id and --statement") {
		t.Errorf("propose guardrail without --statement: exit %d, %s", code, stderr)
	}
}

// TestNoHistoryOnlyWhereItCounts: --no-history is offered only by commands
// whose output depends on the rules' history.
func TestNoHistoryOnlyWhereItCounts(t *testing.T) {
	root := newRoot(&streams{})
	for _, path := range []string{"explain", "render", "compile"} {
		c, _, _ := root.Find([]string{path})
		if c.Flags().Lookup("no-history") == nil {
			t.Errorf("%s lost --no-history", path)
		}
	}
	for _, path := range [][]string{{"validate"}, {"audit"}, {"memory", "search"}, {"memory", "list"}, {"memory", "forget"}, {"memory", "purge"}, {"patterns", "index"}, {"patterns", "list"}} {
		c, _, _ := root.Find(path)
		if c.Flags().Lookup("no-history") != nil {
			t.Errorf("%s offers --no-history, which it ignores", c.CommandPath())
		}
	}
}

// TestBadRefIsAFailure: a ref git cannot resolve is a failed operation
// (exit 1), not invalid rules (exit 3); missing rules stay invalid.
func TestBadRefIsAFailure(t *testing.T) {
	dir := rulesInit(t)
	for _, args := range [][]string{
		{"explain", "--rules", dir, "--ref", "no-such-branch", "--agent", "claude"},
		{"patterns", "list", "--rules", dir, "--ref", "no-such-branch"},
		{"explain", "--rules", t.TempDir(), "--ref", "main", "--agent", "claude"}, // not a repository
	} {
		code, _, stderr := bridle(t, args...)
		if code != exitFailure {
			t.Errorf("%v: exit %d, want %d; %s", args, code, exitFailure, stderr)
		}
	}
	if code, _, _ := bridle(t, "explain", "--rules", "/no/such/path", "--agent", "claude"); code != exitInvalid {
		t.Errorf("missing rules: exit %d, want %d", code, exitInvalid)
	}
}

// allCommands is every command under root, root included, except cobra's
// own help and completion commands.
func allCommands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		out = append(out, allCommands(c)...)
	}
	return out
}

// TestShortLines: every command's one-line summary reads the same way: a
// capitalised phrase, no final period, short enough that the command list
// ("  name        Short") fits 80 columns.
func TestShortLines(t *testing.T) {
	for _, c := range allCommands(newRoot(&streams{})) {
		s := c.Short
		switch {
		case s == "":
			t.Errorf("%s has no Short", c.CommandPath())
		case !unicode.IsUpper([]rune(s)[0]) || strings.HasSuffix(s, "."):
			t.Errorf("%s: Short %q: start with a capital, end without a period", c.CommandPath(), s)
		case len(s) > 66:
			t.Errorf("%s: Short %q is %d characters; keep it to 66 (say more in Long)", c.CommandPath(), s, len(s))
		}
	}
}

// TestExamplesParse: every example in every --help names a real command
// with flags it has and the arguments it takes.
func TestExamplesParse(t *testing.T) {
	for _, c := range allCommands(newRoot(&streams{})) {
		for _, line := range strings.Split(strings.ReplaceAll(c.Example, "\\\n", " "), "\n") {
			for _, part := range strings.Split(line, "|") {
				words := shellWords(part)
				for len(words) > 0 && strings.Contains(words[0], "=") { // VAR=value bridle …
					words = words[1:]
				}
				if len(words) == 0 || words[0] != "bridle" {
					continue
				}
				root := newRoot(&streams{})
				cmd, args, err := root.Find(words[1:])
				if err == nil {
					err = cmd.ParseFlags(args)
				}
				if err == nil {
					err = cmd.ValidateArgs(cmd.Flags().Args())
				}
				if err != nil {
					t.Errorf("%s: example %q: %v", c.CommandPath(), strings.TrimSpace(part), err)
				}
			}
		}
	}
}

// shellWords splits s as a shell would for the examples: words, with single
// and double quotes grouping; a redirection ends the command.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '>' || r == '<' || r == '#':
			if in {
				words = append(words, w.String())
			}
			return words
		case unicode.IsSpace(r):
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// TestUnknownSubcommandsAreRefused: a mistyped subcommand of a command that
// only groups others exits 2 with a suggestion, never help and exit 0.
func TestUnknownSubcommandsAreRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"hook", "claud"}, `did you mean "claude"`},
		{[]string{"proposals", "shw", "1"}, `did you mean "show"`},
		{[]string{"memory"}, "needs a command"},
		{[]string{"patterns", "indx"}, `did you mean "index"`},
	} {
		code, out, stderr := bridle(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, out, stderr)
		}
	}
}
