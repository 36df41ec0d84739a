package enforce

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Bounds on the work one check does.
const (
	// MaxDepth is how many shells deep (bash -c '…' inside sh -c '…')
	// CheckCommand looks; a deeper command is asked about.
	MaxDepth = 4
	// MaxCommandLen is the longest command checked; a longer one is asked about.
	MaxCommandLen = 256 << 10
	maxLayers     = 8 // wrappers looked through in one simple command
)

// word is one shell word as far as it can be known before the command runs.
type word struct {
	lit     string // the value, quoting removed
	glob    bool   // holds unquoted *, ? or [: the shell may expand it
	dynamic string // why the value cannot be known, e.g. "$REMOTE"; empty when known
	split   bool   // dynamic and unquoted: it may expand to any number of words
}

// check is the state of one CheckCommand call.
type check struct {
	r     *Rules
	best  Decision
	score int // strength of best: see consider
}

// Scores of candidate decisions: a definite forbid beats a possible one,
// which beats a definite ask.
const (
	scoreMaybeAsk = 1 + iota
	scoreAsk
	scoreMaybeForbid
	scoreForbid
)

func (c *check) consider(score int, d Decision) {
	if score > c.score {
		c.score, c.best = score, d
	}
}

// CheckCommand decides whether the agent may run the shell command cmd: forbid
// when a simple command in it starts with a forbidden prefix, ask when one
// starts with an ask prefix (or might: see the package doc), allow
// otherwise. Forbid beats ask; among equals the first simple command in
// the text decides, then the first entry.
func (r *Rules) CheckCommand(cmd string) Decision {
	if len(r.commands) == 0 && len(r.paths) == 0 {
		return Decision{Verdict: Allow}
	}
	c := &check{r: r}
	if len(cmd) > MaxCommandLen {
		c.consider(scoreMaybeForbid, Decision{Verdict: Ask,
			Reason: fmt.Sprintf("the command is %d bytes, longer than the %d Bridle checks", len(cmd), MaxCommandLen)})
		return c.best
	}
	c.script(cmd, 0)
	if c.score == 0 {
		return Decision{Verdict: Allow}
	}
	return c.best
}

// parsers are reused: a Parser is not safe for concurrent use, and making
// one per check was most of a check's cost.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// script parses src as a shell script and checks every simple command in it.
func (c *check) script(src string, depth int) {
	if depth > MaxDepth {
		c.consider(scoreMaybeForbid, Decision{Verdict: Ask,
			Reason: fmt.Sprintf("the command nests shells more than %d deep, which Bridle does not look into", MaxDepth)})
		return
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	if err != nil {
		c.consider(scoreMaybeForbid, Decision{Verdict: Ask,
			Reason: "Bridle cannot parse the command as a shell command (" + bound(err.Error(), 200) + "), so it cannot tell what runs"})
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		c.redirects(st.Redirs)
		if call, ok := st.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			args := make([]word, len(call.Args))
			for i, a := range call.Args {
				args[i] = literal(a)
			}
			c.layer(args, st.Redirs, depth, 0)
		}
		return true
	})
}

// layer checks one simple command's words, then the command it runs, when
// it is a wrapper, a shell or git.
func (c *check) layer(args []word, redirs []*syntax.Redirect, depth, layers int) {
	if len(args) == 0 {
		return
	}
	c.match(args)
	if layers == 0 {
		c.pathArgs(args[1:])
	}
	if layers >= maxLayers {
		c.consider(scoreMaybeForbid, Decision{Verdict: Ask, Command: joinWords(args),
			Reason: fmt.Sprintf("the command wraps more than %d commands, which Bridle does not look into", maxLayers)})
		return
	}
	if args[0].dynamic != "" {
		if len(c.r.commands) > 0 {
			c.consider(scoreMaybeAsk, Decision{Verdict: Ask, Command: joinWords(args),
				Reason: "the program to run is " + args[0].dynamic + ", which Bridle cannot know before the command runs"})
		}
		return
	}
	name := path.Base(args[0].lit)
	switch {
	case name == "git":
		if inner := gitSubcommand(args); len(inner) != len(args) {
			c.match(inner)
		}
	case name == "eval":
		c.stringArg(args[1:], depth, "eval")
	case shells[name]:
		c.shell(args, redirs, depth)
	default:
		spec, ok := wrappers[name]
		if !ok {
			return
		}
		inner, script, dyn := spec.unwrap(args[1:])
		switch {
		case dyn != "":
			c.consider(scoreMaybeAsk, Decision{Verdict: Ask, Command: joinWords(args),
				Reason: name + " is given " + dyn + ", so Bridle cannot tell which command it runs"})
		case script != nil:
			c.stringArg([]word{*script}, depth, name+" -S")
		default:
			c.layer(inner, redirs, depth, layers+1)
		}
	}
}

// stringArg parses words a shell would run as a script: eval's words, the
// string of sh -c, env -S.
func (c *check) stringArg(ws []word, depth int, what string) {
	var parts []string
	for _, w := range ws {
		if w.dynamic != "" {
			c.consider(scoreMaybeForbid, Decision{Verdict: Ask,
				Reason: what + " runs " + w.dynamic + ", which Bridle cannot know before the command runs"})
			return
		}
		parts = append(parts, w.lit)
	}
	if len(parts) > 0 {
		c.script(strings.Join(parts, " "), depth+1)
	}
}

// shells are the programs whose -c string is itself a script.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true}

// shell checks the script a shell is given: its -c string, or a
// here-string or here-document on its standard input. A shell given a
// script file is not looked into.
func (c *check) shell(args []word, redirs []*syntax.Redirect, depth int) {
	dashC := false
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if a.dynamic != "" {
			c.consider(scoreMaybeAsk, Decision{Verdict: Ask, Command: joinWords(args),
				Reason: "the shell is given " + a.dynamic + ", so Bridle cannot tell what it runs"})
			return
		}
		v := a.lit
		if v == "--" || v == "-" {
			i++
			break
		}
		if !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") || len(v) < 2 {
			break
		}
		if strings.HasPrefix(v, "--") {
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
			continue
		}
		if strings.ContainsRune(v[1:], 'c') {
			dashC = true
		}
		if strings.ContainsAny(v[1:], "oO") { // -o option, +O shopt
			i++
		}
	}
	switch {
	case dashC && i < len(args):
		c.stringArg(args[i:i+1], depth, path.Base(args[0].lit)+" -c")
	case dashC:
		// sh -c with no string runs nothing
	case i < len(args):
		// a script file: not looked into
	default:
		for _, rd := range redirs {
			var w *syntax.Word
			switch rd.Op {
			case syntax.WordHdoc:
				w = rd.Word
			case syntax.Hdoc, syntax.DashHdoc:
				w = rd.Hdoc
			}
			if w != nil {
				c.stringArg([]word{literal(w)}, depth, path.Base(args[0].lit)+" reading a here-document")
			}
		}
	}
}

// match checks one layer of words against every command entry.
func (c *check) match(args []word) {
	for _, e := range c.r.commands {
		ok, maybe := matchWords(e.words, args)
		if !ok {
			continue
		}
		d := Decision{Verdict: e.Verdict, Guardrail: e.Guardrail, Statement: e.Statement, Matched: e.Pattern, Command: joinWords(args)}
		score := scoreAsk
		if e.Verdict == Forbid {
			score = scoreForbid
		}
		if maybe != "" {
			d.Verdict = Ask
			score--
			what := "forbids"
			if e.Verdict == Ask {
				what = "asks about"
			}
			d.Reason = fmt.Sprintf("%s may run %q, which the guardrail %s: %s", d.Command, e.Pattern, what, maybe)
		} else {
			d.Reason = fmt.Sprintf("%s matches %q", d.Command, e.Pattern)
		}
		c.consider(score, d)
	}
}

// matchWords reports whether args start with prefix. maybe is non-empty,
// saying why, when they only might: a word is unknown or a glob that could
// expand to the prefix's word.
func matchWords(prefix []string, args []word) (ok bool, maybe string) {
	for i, want := range prefix {
		if i >= len(args) {
			return false, ""
		}
		a := args[i]
		if a.dynamic != "" {
			if !a.split && len(args) < len(prefix) {
				return false, ""
			}
			return true, fmt.Sprintf("word %d is %s", i+1, a.dynamic)
		}
		got := a.lit
		if i == 0 {
			if strings.Contains(want, "/") {
				got, want = path.Clean(got), path.Clean(want)
			} else {
				got = path.Base(got)
			}
		}
		if a.glob {
			if m, err := path.Match(got, want); err == nil && m {
				if maybe == "" && got != want {
					maybe = fmt.Sprintf("word %d, %q, is a glob that may expand to %q", i+1, got, want)
				}
				continue
			}
		}
		if got != want {
			return false, ""
		}
	}
	return true, maybe
}

func joinWords(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		if w.dynamic != "" {
			parts[i] = w.dynamic
		} else {
			parts[i] = w.lit
		}
	}
	return bound(strings.Join(parts, " "), 200)
}

func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

// literal is a word's value after quote removal, or why it cannot be known.
func literal(w *syntax.Word) word {
	// SplitBraces rewrites the word it is given; a copy keeps the tree
	// that Walk is visiting intact.
	if cp := (&syntax.Word{Parts: slices.Clone(w.Parts)}); syntax.SplitBraces(cp) {
		return word{dynamic: "a brace expansion"}
	}
	var b strings.Builder
	var out word
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				ch := v[i]
				switch {
				case ch == '\\' && i+1 < len(v):
					i++
					if v[i] != '\n' {
						b.WriteByte(v[i])
					}
					continue
				case ch == '*' || ch == '?' || ch == '[':
					out.glob = true
				case ch == '~' && i == 0 && b.Len() == 0:
					return word{dynamic: "a ~ path"}
				}
				b.WriteByte(ch)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return word{dynamic: "a $'…' string"}
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return word{dynamic: "a $\"…\" string"}
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return word{dynamic: describe(q)}
				}
				b.WriteString(unescapeDouble(l.Value))
			}
		default:
			return word{dynamic: describe(p), split: true}
		}
	}
	out.lit = b.String()
	return out
}

// unescapeDouble removes the backslashes that keep their meaning inside
// double quotes.
func unescapeDouble(v string) string {
	if !strings.Contains(v, "\\") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
			i++
			if v[i] != '\n' {
				b.WriteByte(v[i])
			}
			continue
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

func describe(p syntax.WordPart) string {
	switch p := p.(type) {
	case *syntax.ParamExp:
		if p.Param != nil {
			return "$" + p.Param.Value
		}
		return "a parameter expansion"
	case *syntax.CmdSubst:
		return "a command substitution"
	case *syntax.ArithmExp:
		return "an arithmetic expansion"
	case *syntax.ProcSubst:
		return "a process substitution"
	case *syntax.ExtGlob:
		return "an extended glob"
	}
	return "an expansion"
}

// gitSubcommand drops git's global options, which come before the
// subcommand: git -C dir -c k=v --no-pager push → git push.
func gitSubcommand(args []word) []word {
	i := 1
	for i < len(args) {
		a := args[i]
		if a.dynamic != "" {
			break
		}
		v := a.lit
		switch {
		case v == "--":
			i++
			return append([]word{args[0]}, args[i:]...)
		case v == "-C" || v == "-c" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" ||
			v == "--config-env" || v == "--super-prefix":
			i += 2
		case strings.HasPrefix(v, "-"):
			i++ // a flag, --opt=value, or -Cdir
		default:
			return append([]word{args[0]}, args[i:]...)
		}
	}
	return args[:1] // only options: git runs no subcommand
}

// wrapper describes a program that runs another: which options take an
// argument, how many operands come before the command.
type wrapper struct {
	short    string   // short options that take an argument
	long     []string // long options that take an argument (when not written --opt=value)
	operands int      // operands before the command (timeout's duration)
	assigns  bool     // NAME=value words come before the command (env)
	noExec   string   // short options with which no command runs (command -v)
	split    string   // short option whose argument is a script (env -S)
}

var wrappers = map[string]wrapper{
	"sudo":    {short: "ugCDhpRrTtU", long: []string{"--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--close-from", "--command-timeout"}, noExec: "lvVKk"},
	"doas":    {short: "uC"},
	"env":     {short: "uCS", long: []string{"--unset", "--chdir", "--split-string"}, assigns: true, split: "S"},
	"command": {noExec: "vV"},
	"builtin": {},
	"exec":    {short: "a"},
	"nohup":   {},
	"nice":    {short: "n", long: []string{"--adjustment"}},
	"time":    {short: "fo", long: []string{"--format", "--output"}},
	"timeout": {short: "sk", long: []string{"--signal", "--kill-after"}, operands: 1},
	"setsid":  {},
	"stdbuf":  {short: "ioe", long: []string{"--input", "--output", "--error"}},
	"ionice":  {short: "cnp", long: []string{"--class", "--classdata", "--pid"}},
	"xargs":   {short: "adEILnPs", long: []string{"--arg-file", "--delimiter", "--eof", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
	"busybox": {},
}

// unwrap returns the command a wrapper runs: the words after its options
// and operands. script is set when the command is a string to parse (env
// -S); dyn says why the command cannot be known.
func (w wrapper) unwrap(args []word) (inner []word, script *word, dyn string) {
	i := 0
	for i < len(args) {
		a := args[i]
		if a.dynamic != "" {
			return nil, nil, a.dynamic
		}
		v := a.lit
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		if strings.HasPrefix(v, "--") {
			i++
			if !strings.Contains(v, "=") && contains(w.long, v) {
				if v == "--split-string" && i < len(args) {
					return nil, &args[i], ""
				}
				i++
			}
			continue
		}
		i++
		for j := 1; j < len(v); j++ {
			ch := v[j]
			if strings.IndexByte(w.noExec, ch) >= 0 {
				return nil, nil, ""
			}
			if strings.IndexByte(w.short, ch) < 0 {
				continue // a flag, or -10 for nice
			}
			if j+1 < len(v) { // the argument is attached: -uroot
				if strings.IndexByte(w.split, ch) >= 0 {
					return nil, &word{lit: v[j+1:]}, ""
				}
			} else if i < len(args) {
				if strings.IndexByte(w.split, ch) >= 0 {
					return nil, &args[i], ""
				}
				i++
			}
			break
		}
	}
	if w.assigns {
		for i < len(args) && args[i].dynamic == "" && isAssign(args[i].lit) {
			i++
		}
	}
	i += w.operands
	if i >= len(args) {
		return nil, nil, ""
	}
	return args[i:], nil, ""
}

func isAssign(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
