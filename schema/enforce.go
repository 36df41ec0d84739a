package schema

import (
	"path"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
)

// CommandWords splits a command prefix into the words it is matched by.
// A prefix is literal words separated by blanks: no quoting, no escapes
// (CommandPrefixProblem refuses them), so splitting is exact.
func CommandWords(prefix string) []string { return strings.Fields(prefix) }

// CleanGlob is the form a path glob is matched and translated in: without
// a leading "./", with repeated and trailing slashes removed.
func CleanGlob(glob string) string {
	g := strings.TrimSpace(glob)
	for strings.HasPrefix(g, "./") {
		g = strings.TrimLeft(g[2:], "/")
	}
	if g == "" {
		return ""
	}
	return path.Clean(g)
}

// commandMeta are the characters a prefix of literal words cannot hold:
// shell operators (a prefix matches one simple command; Bridle splits
// compound commands itself), expansions, quoting and escapes (which would
// make the words differ between Bridle, Claude Code and Codex), and glob
// characters (a prefix is literal; Claude Code would read * as a wildcard).
const commandMeta = "|;&<>()`$\\'\"*?[]{}"

// CommandPrefixProblem says what is wrong with an enforce.commands entry,
// and how to fix it; it returns "" for a prefix Bridle can enforce. The
// enforce package applies the same check to documents that never passed
// validation.
func CommandPrefixProblem(prefix string) (problem, fix string) {
	words := CommandWords(prefix)
	if len(words) == 0 {
		return "is blank", "write the command's leading words, e.g. git push --force"
	}
	for _, r := range prefix {
		switch {
		case r == '\n' || r == '\r':
			return "must be one line", "write one command prefix per entry"
		case unicode.IsControl(r) && r != '\t':
			return "has a control character", "write the command's words as plain text"
		}
	}
	if i := strings.IndexAny(prefix, commandMeta); i >= 0 {
		c := prefix[i : i+1]
		switch {
		case strings.Contains("|;&<>()", c):
			return "has " + quote(c) + ", a shell operator a command prefix cannot express",
				"write the leading words of one simple command; Bridle checks each part of a compound command (a && b, a | b, a; b) on its own"
		case strings.Contains("`$", c):
			return "has " + quote(c) + ", a shell expansion a command prefix cannot express",
				"write literal words only; commands that use expansions are checked word by word"
		case strings.Contains("\\'\"", c):
			return "has " + quote(c) + ": quoting and escapes are not supported in a command prefix",
				"write the words without quotes; a prefix is matched word by word"
		default:
			return "has " + quote(c) + ": a command prefix is literal words, not a pattern",
				"write the fixed leading words; a command with that program, subcommand and options (in any order) is matched"
		}
	}
	if strings.HasPrefix(words[0], "#") {
		return "starts with #, a shell comment", "remove the #"
	}
	for _, w := range words {
		if strings.HasPrefix(w, "#") {
			return "has a word starting with #, which starts a shell comment", "remove the words from # on"
		}
	}
	if strings.Contains(words[0], "=") {
		return "starts with an environment assignment, which Bridle skips before matching",
			"drop " + quote(words[0]) + " and write the command itself"
	}
	return "", ""
}

// PathGlobProblem says what is wrong with an enforce.paths entry, and how
// to fix it; it returns "" for a glob Bridle can enforce.
func PathGlobProblem(glob string) (problem, fix string) {
	if strings.TrimSpace(glob) == "" {
		return "is blank", "write a glob relative to the project root, e.g. secrets/**"
	}
	for _, r := range glob {
		switch {
		case r == '\n' || r == '\r':
			return "must be one line", "write one glob per entry"
		case unicode.IsControl(r):
			return "has a control character", "write the glob as plain text"
		}
	}
	g := strings.TrimSpace(glob)
	const rel = "write it relative to the project root, e.g. secrets/** or config/*.pem"
	switch {
	case strings.HasPrefix(g, "/") || strings.HasPrefix(g, "~") || len(g) > 1 && g[1] == ':':
		return "is an absolute path; enforce globs are relative to the project", rel
	case strings.Contains(g, "\\"):
		return "has a backslash", "use / between directories; escapes are not supported"
	case strings.HasPrefix(g, "!"):
		return "starts with !: negated globs are not supported", "list only what is protected"
	case strings.ContainsAny(g, "{}"):
		return "has { }: brace alternatives are not supported", "write one glob per alternative"
	case strings.HasSuffix(g, ":*") || strings.HasSuffix(CleanGlob(g), ":*"): // secrets:*/ is cleaned to secrets:*
		return "ends in :*, which Claude Code reads as a command prefix", "end it in /** or *"
	}
	for _, seg := range strings.Split(g, "/") {
		if seg == ".." {
			return "has .., which leaves the project", rel
		}
	}
	c := CleanGlob(g)
	if c == "." || c == "" {
		return "names the project root itself", "name the files: ** for everything, or a directory with /**"
	}
	if !doublestar.ValidatePattern(c) {
		return "is not a valid glob", "check the [ ] classes; * matches within a directory, ** across directories"
	}
	return "", ""
}

// enforce checks a guardrail's enforce block: every entry enforceable, none
// repeated, and the block only on rules an agent must follow.
func (c *checker) enforce(p string, g Guardrail) {
	if g.Enforce.IsZero() {
		return
	}
	ep := JoinKey(p, "enforce")
	if g.Severity == Guidance {
		c.errorAt(c.f.KeyPos(ep), ep, "set severity: hard-instruction or enforcement, or remove enforce",
			"enforce on a guidance rule: a rule the agent may deviate from cannot be enforced")
	}
	cp := JoinKey(ep, "commands")
	seen := map[string]string{}
	for _, l := range []struct {
		key  string
		list []string
	}{{"forbid", g.Enforce.Commands.Forbid}, {"ask", g.Enforce.Commands.Ask}} {
		for i, s := range l.list {
			ip := JoinIndex(JoinKey(cp, l.key), i)
			if s == "" {
				continue // the JSON Schema reports it
			}
			if problem, fix := CommandPrefixProblem(s); problem != "" {
				c.errorAt(c.f.Pos(ip), ip, fix, "%s", problem)
				continue
			}
			c.duplicate(seen, strings.Join(CommandWords(s), " "), ip, "command prefix")
		}
	}
	pp := JoinKey(ep, "paths")
	for _, l := range []struct {
		key  string
		list []string
	}{{"no_read", g.Enforce.Paths.NoRead}, {"no_write", g.Enforce.Paths.NoWrite}} {
		seen := map[string]string{}
		for i, s := range l.list {
			ip := JoinIndex(JoinKey(pp, l.key), i)
			if s == "" {
				continue
			}
			if problem, fix := PathGlobProblem(s); problem != "" {
				c.errorAt(c.f.Pos(ip), ip, fix, "%s", problem)
				continue
			}
			c.duplicate(seen, CleanGlob(s), ip, "glob")
		}
	}
}

func (c *checker) duplicate(seen map[string]string, key, p, what string) {
	if first, dup := seen[key]; dup {
		c.errorAt(c.f.Pos(p), p, "list each "+what+" once per guardrail; forbid wins over ask",
			"%s %s repeats %s (line %d)", what, quote(key), first, c.f.Pos(first).Line)
		return
	}
	seen[key] = p
}
