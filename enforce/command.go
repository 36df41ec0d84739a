package enforce

import (
	"cmp"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
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
	// param is set when the value is unknown because of a parameter
	// expansion ($f, "${f}x"); name is the variable when the word is that
	// one expansion and nothing else.
	param bool
	name  string
	// braces are the words a brace expansion gives, at most maxBraces;
	// many is set when there are more.
	braces []word
	many   bool
}

// maxBraces bounds the words one brace expansion is expanded to.
const maxBraces = 64

// check is the state of one CheckCommand call.
type check struct {
	r     *Rules
	best  Decision
	score int // strength of best: see consider
	// strict is set when the document has rules of its own (not only
	// Bridle's self-protection): then what cannot be known is asked about.
	strict bool
	// aliases are the shell aliases the command defines: the words of a
	// simple alias, or nil for one Bridle cannot expand.
	aliases map[string][]word
	// vars are the variables the command sets to a literal value, for
	// checking $f against the path rules.
	vars map[string]string
	// resolve, when set, resolves the symbolic links in a project path;
	// links holds what it answered.
	resolve func(string) (string, bool)
	links   map[string]link
	// argMode: the check of a string a program Bridle does not know was
	// given (see passedOn), which looks for command rules only.
	argMode bool
	// runCount counts the runs of words matched (see matchRun); capped is
	// set once there were too many.
	runCount, runWords int
	capped             bool
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
	if c.argMode && d.Guardrail == "" {
		return
	}
	if score > c.score {
		c.score, c.best = score, d
	}
}

// unknown asks about what Bridle cannot see into, when the document has
// rules of its own.
func (c *check) unknown(score int, command, reason string) {
	if c.strict {
		c.consider(score, Decision{Verdict: Ask, Command: command, Reason: reason})
	}
}

// gitRule reports whether a command rule starts with git.
func (c *check) gitRule() bool {
	for _, e := range c.r.commands {
		if e.words[0] == "git" {
			return true
		}
	}
	return false
}

// CheckCommand decides whether the agent may run the shell command cmd: forbid
// when a simple command in it matches a forbidden rule, ask when one
// matches an ask rule (or might: see the package doc), allow otherwise.
// Forbid beats ask; among equals the first simple command in the text
// decides, then the first entry. It is CheckCommandWith without options.
func (r *Rules) CheckCommand(cmd string) Decision {
	return r.CheckCommandWith(cmd, CheckOptions{})
}

// CheckOptions add to what CheckCommandWith checks.
type CheckOptions struct {
	// Resolve, when set, returns what the project-relative path rel names
	// once its symbolic links are resolved, relative to the project root;
	// ok is false when that is not known or not in the project. The files
	// a command names are then checked in both forms (cat link-to-env is
	// cat .env). LinkResolver returns one that reads the file system.
	Resolve func(rel string) (resolved string, ok bool)
}

// CheckCommandWith decides as CheckCommand does, with the options o. It
// touches the file system only through o.Resolve.
func (r *Rules) CheckCommandWith(cmd string, o CheckOptions) Decision {
	c := &check{r: r, strict: len(r.commands) > 0 || len(r.paths) > 0, resolve: o.Resolve}
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

// script parses src as a shell script and checks every simple command in
// it. It reports whether it could.
func (c *check) script(src string, depth int) bool {
	if depth > MaxDepth {
		c.unknown(scoreMaybeForbid, "", fmt.Sprintf("the command nests shells more than %d deep, which Bridle does not look into", MaxDepth))
		return false
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	if err != nil {
		c.unknown(scoreMaybeForbid, "", "Bridle cannot parse the command as a shell command ("+bound(err.Error(), 200)+"), so it cannot tell what runs")
		return false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			c.redirects(n.Redirs)
			call, ok := n.Cmd.(*syntax.CallExpr)
			if !ok {
				return true
			}
			for _, as := range call.Assigns {
				c.assign(as, len(call.Args) == 0, depth)
			}
			if len(call.Args) > 0 {
				args := make([]word, len(call.Args))
				for i, a := range call.Args {
					args[i] = literal(a)
				}
				c.layer(args, n.Redirs, depth, 0, false)
			}
		case *syntax.DeclClause:
			c.decl(n, depth)
		case *syntax.WordIter:
			delete(c.vars, n.Name.Value) // for f in …: not one literal
		case *syntax.CallExpr:
			if len(n.Args) > 0 && (n.Args[0].Lit() == "read" || n.Args[0].Lit() == "getopts" || n.Args[0].Lit() == "printf") {
				for _, a := range n.Args[1:] {
					delete(c.vars, a.Lit())
				}
			}
		case *syntax.ParamExp:
			c.paramExp(n)
		case *syntax.ArithmExp:
			c.arith(n.X, "an arithmetic expansion")
		case *syntax.ArithmCmd:
			c.arith(n.X, "an arithmetic command (( ))")
		case *syntax.LetClause:
			for _, x := range n.Exprs {
				c.arith(x, "let")
			}
		case *syntax.CStyleLoop:
			for _, x := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
				c.arith(x, "a for (( )) loop")
			}
		case *syntax.BinaryTest:
			if n.Op >= syntax.TsEql && n.Op <= syntax.TsGtr {
				for _, x := range []syntax.TestExpr{n.X, n.Y} {
					if w, ok := x.(*syntax.Word); ok && !isNumber(w) {
						c.unknown(scoreMaybeForbid, "", "[[ "+n.Op.String()+" ]] evaluates its operands as arithmetic, and arithmetic on a variable can run commands (a[$(…)]) Bridle cannot see")
					}
				}
			}
		}
		return true
	})
	return true
}

// codeVars are the shell variables whose value bash runs or expands as
// code: prompts (PS4 with set -x), PROMPT_COMMAND, and the files
// non-interactive shells source.
var codeVars = map[string]string{"PS0": "expand", "PS1": "expand", "PS2": "expand", "PS3": "expand", "PS4": "expand",
	"PROMPT_COMMAND": "run", "BASH_ENV": "source", "ENV": "source"}

// assign checks one NAME=value: a value bash will run as code is checked
// as code; git configuration from the environment is asked about;
// alone (no command after it) says the variable holds a literal.
func (c *check) assign(as *syntax.Assign, alone bool, depth int) {
	if as.Name == nil {
		return
	}
	if as.Index != nil {
		c.arith(as.Index, "an array subscript")
	}
	v := word{}
	if as.Value != nil {
		v = literal(as.Value)
	}
	if as.Array != nil {
		v = word{dynamic: "an array"}
	}
	c.assignWord(as.Name.Value, v, depth)
	if !alone {
		c.valueString(as.Name.Value, v, depth)
		c.assignFile(v)
	}
	if alone {
		if c.vars == nil {
			c.vars = map[string]string{}
		}
		if v.dynamic == "" && !v.glob && !as.Append {
			c.vars[as.Name.Value] = v.lit
		} else {
			delete(c.vars, as.Name.Value)
		}
	}
}

// assignWord checks NAME=value for the variables bash treats as code or
// configuration.
func (c *check) assignWord(name string, v word, depth int) {
	switch {
	case codeVars[name] != "":
		what := name + "=" + bound(v.lit, 100)
		if v.dynamic != "" {
			c.unknown(scoreMaybeForbid, what, name+" is set to "+v.dynamic+", and bash expands or runs its value as code")
			return
		}
		switch codeVars[name] {
		case "run":
			c.script(v.lit, depth+1)
		case "source":
			c.unknown(scoreMaybeForbid, what, name+" names a file bash sources when it starts, which Bridle does not look into")
			fallthrough
		default:
			c.expansions(v.lit, depth, name)
		}
	case strings.HasPrefix(name, "GIT_CONFIG") && c.gitRule():
		c.unknown(scoreMaybeForbid, name, name+" configures git from the environment (an alias can make git p run git push --force), so Bridle cannot tell what git runs")
	}
}

// expansions checks the command substitutions in s, a value bash expands
// as it does a here-document's body (prompts, BASH_ENV).
func (c *check) expansions(s string, depth int, what string) {
	const delim = "BRIDLE_END_OF_VALUE"
	if strings.Contains(s, delim) {
		c.unknown(scoreMaybeForbid, what, what+"'s value holds "+delim+", which Bridle cannot check")
		return
	}
	if !strings.ContainsAny(s, "$`") {
		return
	}
	c.script(": <<"+delim+"\n"+s+"\n"+delim+"\n", depth+1)
}

// decl checks declare, typeset, local, export and readonly: their
// assignments, and the options that make later assignments code.
func (c *check) decl(d *syntax.DeclClause, depth int) {
	for _, as := range d.Args {
		if as.Name != nil {
			c.assign(as, true, depth)
			if d.Variant.Value == "export" && as.Value != nil && as.Array == nil {
				c.valueString(as.Name.Value, literal(as.Value), depth)
				c.assignFile(literal(as.Value))
			}
			continue
		}
		if as.Value == nil {
			continue
		}
		w := literal(as.Value)
		switch {
		case w.dynamic != "":
			c.unknown(scoreMaybeForbid, d.Variant.Value, d.Variant.Value+" is given "+w.dynamic+", which may assign a variable bash runs as code")
		case strings.HasPrefix(w.lit, "-") && strings.ContainsAny(w.lit, "in"):
			c.unknown(scoreMaybeForbid, d.Variant.Value+" "+w.lit, d.Variant.Value+" "+w.lit+" makes later assignments arithmetic or references, which can run commands Bridle cannot see")
		}
	}
}

// paramExp asks about ${x@P}, which expands x's value as a prompt (running
// its command substitutions), and checks subscripts and slices, which are
// arithmetic.
func (c *check) paramExp(p *syntax.ParamExp) {
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil {
		if op := literal(p.Exp.Word); op.dynamic != "" || strings.Contains(op.lit, "P") {
			c.unknown(scoreMaybeForbid, "", "${…@P} expands a variable's value as a prompt, running the commands in it, which Bridle cannot see")
		}
	}
	if p.Index != nil {
		if w, ok := p.Index.(*syntax.Word); !ok || w.Lit() != "@" && w.Lit() != "*" {
			c.arith(p.Index, "an array subscript")
		}
	}
	if p.Slice != nil {
		c.arith(p.Slice.Offset, "a ${x:offset} slice")
		c.arith(p.Slice.Length, "a ${x:offset:length} slice")
	}
}

// arith asks about an arithmetic expression that mentions a variable:
// bash evaluates a variable's value as arithmetic too, and a value such as
// a[$(git push --force)] runs the command.
func (c *check) arith(x syntax.ArithmExpr, what string) {
	if x == nil || !c.strict {
		return
	}
	variable := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok && !isNumber(w) {
			variable = true
		}
		return !variable
	})
	if variable {
		c.unknown(scoreMaybeForbid, "", what+" uses a variable, and arithmetic on a variable's value can run commands (a[$(…)]) Bridle cannot see")
	}
}

// isNumber reports whether w is a literal number (42, 0x1f, 2#101).
func isNumber(w *syntax.Word) bool {
	v := w.Lit()
	if v == "" || v[0] < '0' || v[0] > '9' {
		return false
	}
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if !(ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '#' || ch == '_' || ch == '@') {
			return false
		}
	}
	return true
}

// layer checks one simple command's words, then the command it runs, when
// it is a wrapper, a shell or git. more is set under xargs, which adds
// words it reads from its input to the command.
func (c *check) layer(args []word, redirs []*syntax.Redirect, depth, layers int, more bool) {
	if len(args) == 0 {
		return
	}
	if a, ok := c.aliases[args[0].lit]; ok && args[0].dynamic == "" && layers < maxLayers {
		if a == nil {
			c.unknown(scoreMaybeForbid, joinWords(args), "the command runs the alias "+args[0].lit+", which Bridle cannot expand")
			return
		}
		name := args[0].lit
		delete(c.aliases, name) // bash does not expand an alias inside itself
		c.layer(append(slices.Clip(a), args[1:]...), redirs, depth, layers+1, more)
		c.aliases[name] = a
		return
	}
	name := ""
	if args[0].dynamic == "" {
		name = path.Base(args[0].lit)
	}
	var inner []word // git's words without its global options
	if name == "git" && !args[0].glob {
		var why string
		inner, why = gitSubcommand(args)
		if why != "" && c.gitRule() {
			c.unknown(scoreMaybeForbid, joinWords(args), why+", so Bridle cannot tell what git runs")
		}
		c.match(inner, more)
	} else {
		c.match(args, more)
	}
	if layers == 0 {
		c.pathArgs(args)
	}
	if layers >= maxLayers {
		c.unknown(scoreMaybeForbid, joinWords(args), fmt.Sprintf("the command wraps more than %d commands, which Bridle does not look into", maxLayers))
		return
	}
	if args[0].dynamic != "" {
		if len(c.r.commands) > 0 {
			c.consider(scoreMaybeAsk, Decision{Verdict: Ask, Command: joinWords(args),
				Reason: "the program to run is " + args[0].dynamic + ", which Bridle cannot know before the command runs"})
		}
		return
	}
	switch {
	case inner != nil:
		c.runs("git", inner, 2) // after the subcommand: git bisect run rm -rf x
		c.argStrings("git", args, depth)
		if len(inner) > 2 && inner[1].lit == "config" && c.gitRule() {
			for _, a := range inner[2:] {
				if why := gitConfigWhy(a); why != "" && a.dynamic == "" {
					c.unknown(scoreMaybeForbid, joinWords(args), "git config "+bound(a.lit, 100)+" defines an alias or includes configuration, which can make a later git command run a forbidden one")
					break
				}
			}
		}
	case name == "eval":
		c.stringArg(args[1:], depth, "eval")
	case name == "alias":
		c.alias(args[1:], depth)
	case name == "trap":
		c.trap(args[1:], depth)
	case name == "mapfile" || name == "readarray":
		c.mapfile(args[1:], depth, name)
	case name == "source" || name == ".":
		if len(args) > 1 {
			if a := args[1]; a.dynamic != "" || fromStdin(a.lit) {
				c.unknown(scoreMaybeForbid, joinWords(args), name+" runs "+describeWord(a)+", whose commands Bridle cannot see")
			}
		}
	case shells[name]:
		c.shell(args, redirs, depth, more)
		c.runs(name, args, 1) // the arguments of a script: bash x.sh rm -rf y
	default:
		spec, ok := wrappers[name]
		if !ok {
			c.passedOn(name, args, redirs, 1, depth)
			return
		}
		if name == "env" {
			for _, a := range args[1:] {
				if a.dynamic == "" && isAssign(a.lit) {
					n, v, _ := strings.Cut(a.lit, "=")
					c.assignWord(n, word{lit: v}, depth)
					c.valueString(n, word{lit: v}, depth)
				}
			}
		}
		inner, script, dyn := spec.unwrap(args[1:])
		switch {
		case dyn != "":
			c.consider(scoreMaybeAsk, Decision{Verdict: Ask, Command: joinWords(args),
				Reason: name + " is given " + dyn + ", so Bridle cannot tell which command it runs"})
		case script != nil:
			c.stringArg([]word{*script}, depth, name+" -S")
		case name == "xargs":
			c.layer(inner, redirs, depth, layers+1, true)
		case more && len(inner) == 0 && len(c.r.commands) > 0:
			c.unknown(scoreMaybeForbid, joinWords(args), "xargs makes "+name+" run a command read from xargs's input, which Bridle cannot see")
		default:
			c.layer(inner, redirs, depth, layers+1, more)
		}
	}
}

// describeWord names a word for a reason: its value, or why it is unknown.
func describeWord(w word) string {
	if w.dynamic != "" {
		return w.dynamic
	}
	return bound(w.lit, 100)
}

// fromStdin reports whether a file name is standard input or another open
// file (/dev/stdin, /dev/fd/3, /proc/self/fd/0), whose content Bridle
// cannot see.
func fromStdin(name string) bool {
	return name == "-" || strings.HasPrefix(name, "/dev/") || strings.HasPrefix(name, "/proc/")
}

// alias checks the aliases a command defines: each value as a script, and
// remembers them, so that a later use is checked with the alias expanded.
func (c *check) alias(args []word, depth int) {
	for _, a := range args {
		if a.dynamic != "" {
			c.unknown(scoreMaybeForbid, "alias", "alias is given "+a.dynamic+", which may define an alias Bridle cannot see")
			continue
		}
		name, value, ok := strings.Cut(a.lit, "=")
		if !ok || strings.HasPrefix(a.lit, "-") {
			continue
		}
		c.script(value, depth+1)
		if c.aliases == nil {
			c.aliases = map[string][]word{}
		}
		c.aliases[name] = aliasWords(value)
	}
}

// aliasWords are the words of an alias whose value is one simple command of
// literal words, or nil.
func aliasWords(value string) []word {
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(value), "")
	parsers.Put(p)
	if err != nil || len(f.Stmts) != 1 || len(f.Stmts[0].Redirs) > 0 {
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 || strings.HasSuffix(value, " ") {
		return nil
	}
	ws := make([]word, len(call.Args))
	for i, a := range call.Args {
		if ws[i] = literal(a); ws[i].dynamic != "" {
			return nil
		}
	}
	return ws
}

// trap checks the command a trap runs (trap 'cmd' EXIT), like eval's.
func (c *check) trap(args []word, depth int) {
	for i, a := range args {
		if a.dynamic == "" && (a.lit == "--" || a.lit == "-") {
			if a.lit == "-" {
				return // trap - SIG resets
			}
			continue
		}
		if a.dynamic == "" && strings.HasPrefix(a.lit, "-") && i == 0 {
			if strings.ContainsAny(a.lit, "lpP") {
				return // prints
			}
			continue
		}
		c.stringArg(args[i:i+1], depth, "trap")
		return
	}
}

// mapfile checks mapfile's (readarray's) -C callback, which it runs as code.
func (c *check) mapfile(args []word, depth int, name string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dynamic != "" {
			c.unknown(scoreMaybeForbid, name, name+" is given "+a.dynamic+", which may be a -C callback Bridle cannot see")
			return
		}
		v := a.lit
		if v == "--" || len(v) < 2 || v[0] != '-' {
			return
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte("dnOsucC", v[j]) < 0 {
				continue
			}
			var arg []word
			if j+1 < len(v) {
				arg = []word{{lit: v[j+1:]}}
			} else if i+1 < len(args) {
				i++
				arg = args[i : i+1]
			}
			if v[j] == 'C' && arg != nil {
				c.stringArg(arg, depth, name+" -C")
			}
			break
		}
	}
}

// stringArg parses words a shell would run as a script: eval's words, the
// string of sh -c, env -S.
func (c *check) stringArg(ws []word, depth int, what string) {
	var parts []string
	for _, w := range ws {
		if w.dynamic != "" {
			c.unknown(scoreMaybeForbid, "", what+" runs "+w.dynamic+", which Bridle cannot know before the command runs")
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
// script file is not looked into; one reading its program from a pipe, a
// process substitution or /dev/stdin is asked about.
func (c *check) shell(args []word, redirs []*syntax.Redirect, depth int, more bool) {
	sh := path.Base(args[0].lit)
	dashC, stdin := false, false
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
			stdin = stdin || v == "-"
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
		if v[0] == '-' && strings.ContainsRune(v[1:], 's') {
			stdin = true
		}
		if strings.ContainsAny(v[1:], "oO") { // -o option, +O shopt
			i++
		}
	}
	switch {
	case dashC && i < len(args):
		c.stringArg(args[i:i+1], depth, sh+" -c")
	case dashC && more:
		c.unknown(scoreMaybeForbid, joinWords(args), "xargs gives "+sh+" -c its script from xargs's input, which Bridle cannot see")
	case dashC:
		// sh -c with no string runs nothing
	case !stdin && i < len(args) && !fromStdin(args[i].lit):
		// a script file: not looked into
	default:
		c.stdinScript(sh, redirs, depth)
	}
}

// stdinScript checks the program a shell reads from its standard input: a
// here-string or here-document is parsed; a pipe, a process substitution
// or a file Bridle cannot read is asked about.
func (c *check) stdinScript(sh string, redirs []*syntax.Redirect, depth int) {
	seen := false
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
		case syntax.RdrIn:
			seen = true
			if lw := literal(rd.Word); lw.dynamic != "" || fromStdin(lw.lit) {
				seen = false // a process substitution or another open file: unknown
			}
			continue
		default:
			continue
		}
		seen = true
		if w != nil {
			c.stringArg([]word{literal(w)}, depth, sh+" reading a here-document")
		}
	}
	if !seen {
		c.unknown(scoreMaybeForbid, sh, sh+" reads its program from standard input (a pipe, a process substitution or /dev/stdin), which Bridle cannot see")
	}
}

// match checks one layer of words against every command entry.
func (c *check) match(args []word, more bool) {
	if c.argMode && args[0].dynamic == "" && !c.r.programWord(args[0].lit) {
		return
	}
	pc := parseCache{args: args[1:]}
	for _, e := range c.r.commands {
		ok, maybe := e.pattern().match(args, &pc, more)
		if !ok || c.argMode && maybe != "" { // in a string passed on, only a sure match counts
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
		out := word{dynamic: "a brace expansion"}
		for bw, err := range expand.BracesSeq(nil, cp) {
			if err != nil || len(out.braces) == maxBraces {
				out.many = true
				break
			}
			out.braces = append(out.braces, literalParts(bw.Parts))
		}
		return out
	}
	return literalParts(w.Parts)
}

func literalParts(parts []syntax.WordPart) word {
	var b strings.Builder
	var out word
	for _, p := range parts {
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
			v := p.Value
			if p.Dollar {
				// Format decodes escapes as bash does in $'…', but it
				// also reads % as a printf directive, which bash does not.
				var err error
				if strings.Contains(v, "%") {
					err = errPercent
				} else {
					v, _, err = expand.Format(nil, v, nil)
					v, _, _ = strings.Cut(v, "\x00") // bash ends the string at a NUL
				}
				if err != nil {
					return word{dynamic: "a $'…' string"}
				}
			}
			b.WriteString(v)
		case *syntax.DblQuoted:
			if p.Dollar {
				return word{dynamic: "a $\"…\" string"}
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return dynamicWord(q, parts, false)
				}
				b.WriteString(unescapeDouble(l.Value))
			}
		default:
			return dynamicWord(p, parts, true)
		}
	}
	out.lit = b.String()
	return out
}

var errPercent = errors.New("a % in a $'…' string")

// dynamicWord is a word whose part p cannot be known before it runs.
func dynamicWord(p syntax.WordPart, parts []syntax.WordPart, split bool) word {
	out := word{dynamic: describe(p), split: split}
	if pe, ok := p.(*syntax.ParamExp); ok {
		out.param = true
		if len(parts) == 1 && pe.Param != nil && simpleParam(pe) {
			out.name = pe.Param.Value
		} else if dq, ok := parts[0].(*syntax.DblQuoted); ok && len(parts) == 1 && len(dq.Parts) == 1 && pe.Param != nil && simpleParam(pe) {
			out.name = pe.Param.Value
		}
	}
	return out
}

// simpleParam reports whether p is $name or ${name}, nothing more.
func simpleParam(p *syntax.ParamExp) bool {
	return !p.Excl && !p.Length && !p.Width && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp == nil && p.Names == 0
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

// gitValueOptions are git's global options that take their value as the
// next word.
var gitValueOptions = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--super-prefix": true, "--config-env": true, "--attr-source": true}

// gitFlags are git's global options without a value.
var gitFlags = map[string]bool{"--no-pager": true, "--paginate": true, "--bare": true, "--no-replace-objects": true,
	"--no-lazy-fetch": true, "--literal-pathspecs": true, "--glob-pathspecs": true, "--noglob-pathspecs": true,
	"--icase-pathspecs": true, "--no-optional-locks": true, "--no-advice": true}

// gitSubcommand drops git's global options, which come before the
// subcommand: git -C dir -c k=v --no-pager push → git push. why says what
// makes the subcommand unknowable: an alias defined on the command line
// (-c alias.p=push, --config-env, an included file) or an option Bridle
// does not know to take a value or not.
func gitSubcommand(args []word) (inner []word, why string) {
	i := 1
	for i < len(args) {
		a := args[i]
		if a.dynamic != "" {
			return append([]word{args[0]}, args[i:]...), why // it may be the subcommand
		}
		v := a.lit
		switch {
		case v == "--":
			i++
			return append([]word{args[0]}, args[i:]...), why
		case v == "--exec-path" || v == "--html-path" || v == "--man-path" || v == "--info-path" ||
			v == "--version" || v == "--help":
			return args[:1], why // prints, runs no subcommand
		case gitValueOptions[v]:
			if v == "--config-env" {
				why = "git --config-env sets configuration (an alias can make git p run git push --force)"
			}
			if v == "-c" && i+1 < len(args) {
				why = cmp.Or(why, gitConfigWhy(args[i+1]))
			}
			i += 2
		case strings.HasPrefix(v, "--config-env="):
			why = "git --config-env sets configuration (an alias can make git p run git push --force)"
			i++
		case strings.HasPrefix(v, "--") && !strings.Contains(v, "=") && !gitFlags[v]:
			why = cmp.Or(why, "git is given "+bound(v, 100)+", an option Bridle does not know (it may take the next word as its value)")
			i++
		case strings.HasPrefix(v, "-"):
			i++ // a flag, --opt=value, or -Cdir
		default:
			return append([]word{args[0]}, args[i:]...), why
		}
	}
	return args[:1], why // only options: git runs no subcommand
}

// gitConfigWhy says why a git -c setting makes the subcommand unknowable.
func gitConfigWhy(w word) string {
	if w.dynamic != "" {
		return "git -c is given " + w.dynamic
	}
	k := strings.ToLower(w.lit)
	if strings.HasPrefix(k, "alias.") || strings.HasPrefix(k, "include") {
		return "git -c " + bound(w.lit, 100) + " defines an alias or includes configuration"
	}
	return ""
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
			if opt, val, ok := strings.Cut(v, "="); ok && opt == "--split-string" && contains(w.long, opt) {
				return nil, &word{lit: val}, ""
			}
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
