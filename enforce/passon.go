package enforce

import (
	"fmt"
	"path"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// dataArgs reports whether a program takes its arguments as data it
// prints, searches for or looks up, never as a command it runs.
func dataArgs(name string) bool {
	switch name {
	case "echo", "printf", "true", "false", ":", "test", "[", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ack-grep",
		"which", "type", "whereis", "whatis", "man", "info", "help", "apropos", "hash", "cd", "pushd", "popd", "unset",
		"exit", "return", "shift", "wait", "jobs", "read":
		return true
	}
	return false
}

// subcommands reports whether a program's first operand is its own
// subcommand (docker rm, npm rm), not a command it runs.
func subcommands(name string) bool {
	switch name {
	case "docker", "podman", "npm", "pnpm", "yarn", "cargo", "go", "kubectl", "helm", "gh", "pip", "pip3", "brew",
		"apt", "apt-get", "dnf", "yum", "systemctl", "make", "just":
		return true
	}
	return false
}

// messageOption reports whether the option v takes a message (git commit
// -m, gh --body), whose text is prose, not a command; next is set when the
// message is the next word.
func messageOption(v string) (ok, next bool) {
	name, _, eq := strings.Cut(v, "=")
	switch name {
	case "--message", "--body", "--title", "--description", "--notes", "--subject":
		return true, !eq
	}
	if len(v) >= 2 && v[0] == '-' && v[1] != '-' && isCluster(v[1:]) && v[len(v)-1] == 'm' {
		return true, true // -m, -am
	}
	return strings.HasPrefix(v, "-m"), false // -mtext
}

// programWord reports whether w may name a program a rule names, as the
// first word of a command another program runs: its name (rm), or a path
// to it from the root or the working directory (/bin/rm, ./rm); s/git in
// a sed script is not git.
func (r *Rules) programWord(w string) bool {
	if strings.Contains(w, "/") && !strings.HasPrefix(w, "/") && !strings.HasPrefix(w, "./") && !strings.HasPrefix(w, "../") {
		return false
	}
	base := path.Base(w)
	for _, e := range r.commands {
		if p := e.pattern(); p.path && path.Clean(w) == p.prog || !p.path && base == p.prog {
			return true
		}
	}
	return false
}

// passedOn asks when a program Bridle does not know is given what a rule
// names: words that match a rule from some word on (ssh host rm -rf x,
// flock f rm -rf x, find -exec rm -rf), looked for from args[from], or a
// string that, parsed as a shell command, holds a command matching one
// (ssh host 'rm -rf x', su -c '…', python -c "os.system('…')"). Programs
// whose arguments are data (echo, grep) and message options (-m, --body)
// are not looked into.
func (c *check) passedOn(name string, args []word, redirs []*syntax.Redirect, from, depth int) {
	if dataArgs(name) {
		return
	}
	c.runs(name, args, from)
	c.argStrings(name, args, depth)
	if name == "cat" || name == "tee" || name == "gh" {
		return // a here-document they are fed is a file's content or a message
	}
	c.stdinStrings(name, args, redirs, depth)
}

// stdinStrings checks the here-documents and here-strings a program
// reads on its standard input (ssh host <<EOF, python3 <<EOF) as strings it
// may run.
func (c *check) stdinStrings(name string, args []word, redirs []*syntax.Redirect, depth int) {
	for _, rd := range redirs {
		if rd.N != nil && rd.N.Value != "0" {
			continue
		}
		var w *syntax.Word
		switch rd.Op {
		case syntax.WordHdoc:
			w = rd.Word
		case syntax.Hdoc, syntax.DashHdoc:
			w = rd.Hdoc
		}
		if w == nil {
			continue
		}
		if body := literal(w); body.dynamic == "" && looksLikeCode(body.lit) {
			c.argScript(name+" reads", body.lit, args, depth)
			c.stringFiles(body.lit)
		}
	}
}

// valueString checks the value of NAME=value given to a command (as an
// assignment before it, to env or by export): programs run some variables'
// values (GIT_SSH_COMMAND, EDITOR, PAGER).
func (c *check) valueString(name string, v word, depth int) {
	if v.dynamic != "" || codeVars[name] != "" || !looksLikeCode(v.lit) {
		return
	}
	c.argScript("the variable "+name+" is set to", v.lit, []word{{lit: name + "=" + v.lit}}, depth)
	c.stringFiles(v.lit)
}

// runs checks every run of args, from args[from] on, that starts with a
// rule's program. A program with subcommands is not said to run its first
// operand.
func (c *check) runs(name string, args []word, from int) {
	if len(c.r.commands) == 0 {
		return
	}
	sub := subcommands(name)
	for i := from; i < len(args); i++ {
		a := args[i]
		if a.dynamic != "" || a.glob {
			continue
		}
		if sub && !strings.HasPrefix(a.lit, "-") {
			sub = false
			continue
		}
		if c.capped {
			return
		}
		if c.r.programWord(a.lit) {
			c.matchRun(name+" is given the words", args, args[i:])
		}
	}
}

// maxRuns and maxRunWords bound the runs of words, and the words in them,
// one check (and each string it looks into) matches against the rules.
const (
	maxRuns     = 32
	maxRunWords = 4096
)

// matchRun asks when run matches a rule for sure (a possible match, with
// an unknown word, is not enough: the program may not run it at all).
func (c *check) matchRun(intro string, args, run []word) {
	c.runCount++
	c.runWords += len(run)
	if c.runCount > maxRuns || c.runWords > maxRunWords {
		if !c.capped {
			c.capped = true
			c.consider(scoreMaybeAsk, Decision{Verdict: Ask, Command: joinWords(args),
				Reason: fmt.Sprintf("the command passes words naming a rule's program to other programs more than %d times or in more than %d words, more than Bridle checks", maxRuns, maxRunWords)})
		}
		return
	}
	pc := parseCache{args: run[1:]}
	for _, e := range c.r.commands {
		ok, maybe := e.pattern().match(run, &pc, false)
		if !ok || maybe != "" {
			continue
		}
		score, what := scoreMaybeAsk, "asks about"
		if e.Verdict == Forbid {
			score, what = scoreMaybeForbid, "forbids"
		}
		c.consider(score, Decision{Verdict: Ask, Guardrail: e.Guardrail, Statement: e.Statement, Matched: e.Pattern,
			Command: joinWords(args),
			Reason: fmt.Sprintf("%s %q, which match %q (the guardrail %s it), and Bridle does not know whether they run",
				intro, joinWords(run), e.Pattern, what)})
	}
}

// argStrings checks the arguments (and the values of key=value arguments)
// that look like shell code: each is parsed as a command, and one that
// cannot be parsed (another language's code) is read as words.
func (c *check) argStrings(name string, args []word, depth int) {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a.dynamic != "" {
			continue
		}
		if ok, next := messageOption(a.lit); ok {
			if next {
				i++
			}
			continue
		}
		s := a.lit
		if k, v, ok := strings.Cut(s, "="); ok && !looksLikeCode(k) {
			s = v
		}
		if looksLikeCode(s) {
			c.argScript(name+" is given", s, args, depth)
			c.stringFiles(s)
		}
	}
}

func looksLikeCode(s string) bool { return strings.ContainsAny(s, " \t\n;&|`$()<>") }

// argScript checks the string s a program was given for commands that
// match a rule, asking when one does; intro says how it was given.
func (c *check) argScript(intro, s string, args []word, depth int) {
	if len(c.r.commands) == 0 {
		return
	}
	child := &check{r: c.r, argMode: true}
	if !child.script(s, depth+1) {
		child.tokenRuns(s)
	}
	if child.capped {
		c.consider(scoreMaybeAsk, Decision{Verdict: Ask, Command: joinWords(args),
			Reason: fmt.Sprintf("%s %q, which names a rule's program more often than Bridle checks", intro, bound(s, 100))})
	}
	if child.score == 0 {
		return
	}
	score := scoreMaybeAsk
	if child.score >= scoreMaybeForbid {
		score = scoreMaybeForbid
	}
	d := child.best
	d.Verdict, d.Command = Ask, joinWords(args)
	d.Reason = fmt.Sprintf("%s %q, in which %s; Bridle does not know whether it is run", intro, bound(s, 100), d.Reason)
	c.consider(score, d)
}

// stringWords splits s, a string that may be another language's code, at
// anything but letters, digits and -_./+=:@~^.
func stringWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_./+=:@~^", r)
	})
}

// tokenRuns reads s, which is not shell, as words (os.system('rm -rf x')
// holds rm -rf x) and checks every run of them that starts with a rule's
// program.
func (c *check) tokenRuns(s string) {
	toks := stringWords(s)
	var ws []word
	for i, t := range toks {
		if c.capped {
			return
		}
		if !c.r.programWord(t) {
			continue
		}
		if ws == nil {
			ws = make([]word, len(toks))
			for j, t := range toks {
				ws[j] = word{lit: t}
			}
		}
		c.matchRun("the string holds the words", ws[i:], ws[i:])
	}
}
