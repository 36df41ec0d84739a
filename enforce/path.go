package enforce

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"mvdan.cc/sh/v3/syntax"
)

// CheckPath decides whether the agent may do op to the file p, a path
// relative to the project root ("./" and "a/../b" are cleaned). A glob
// matches the cleaned path as a whole: "secrets/**" covers everything below
// secrets, "secrets" only that name. An absolute path, or one that leaves
// the project, is asked about: the globs cannot say what it is (callers
// holding an absolute path make it relative to the project root first).
//
// Besides the document's entries, writing Bridle's own files
// (SelfProtected) is always forbidden.
func (r *Rules) CheckPath(p string, op Op) Decision {
	rel, why := projectPath(p)
	if why != "" {
		return Decision{Verdict: Ask, Command: p, Reason: why}
	}
	for _, e := range r.pathRules() {
		if e.Op == op && globMatch(e.Pattern, rel) {
			return Decision{Verdict: Forbid, Guardrail: e.Guardrail, Statement: e.Statement, Matched: e.Pattern, Command: rel,
				Reason: fmt.Sprintf("%s of %s matches %q", op, rel, e.Pattern)}
		}
	}
	return Decision{Verdict: Allow}
}

// projectPath cleans a project-relative path, or says why it is not one.
func projectPath(p string) (rel, why string) {
	switch {
	case p == "":
		return "", "the path is empty"
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.Contains(p, "\\") || len(p) > 1 && p[1] == ':':
		return "", fmt.Sprintf("%q is not relative to the project root, so Bridle's globs cannot say whether it is protected", bound(p, 200))
	}
	rel = path.Clean(p)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Sprintf("%q leaves the project root, so Bridle's globs cannot say whether it is protected", bound(p, 200))
	}
	return rel, ""
}

func globMatch(glob, rel string) bool {
	ok, err := doublestar.Match(glob, rel)
	return err == nil && ok
}

// redirects checks the files a statement's redirections read and write.
func (c *check) redirects(rs []*syntax.Redirect) {
	if c.argMode {
		return
	}
	for _, rd := range rs {
		if rd.Word == nil {
			continue
		}
		w := literal(rd.Word)
		var ops []Op
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll,
			syntax.RdrAllClob, syntax.AppAllClob:
			ops = []Op{Write}
		case syntax.DplOut: // >&word: a file, unless word is a descriptor or -
			if w.dynamic == "" && (w.lit == "-" || isDigits(w.lit)) {
				continue
			}
			ops = []Op{Write}
		case syntax.RdrIn:
			ops = []Op{Read}
		case syntax.RdrInOut:
			ops = []Op{Read, Write}
		default:
			continue
		}
		for _, op := range ops {
			for _, w := range c.known(w) {
				c.fileWord(w, op, scoreForbid, "redirects")
			}
			if w.param && op == Read && c.hasRead() && !c.tracked(w) {
				c.consider(scoreMaybeAsk, Decision{Verdict: Ask, Command: w.dynamic,
					Reason: "the command reads from " + w.dynamic + ", which Bridle cannot know before the command runs, and a path rule protects files from reading"})
			}
		}
	}
}

// hasRead reports whether the document has no_read entries.
func (r *Rules) hasRead() bool {
	for _, e := range r.paths {
		if e.Op == Read {
			return true
		}
	}
	return false
}

func (c *check) hasRead() bool { return c.r.hasRead() }

// known are the values a word is known to take: itself, the words of a
// brace expansion, or the literal value of a variable the command set.
func (c *check) known(w word) []word {
	switch {
	case w.dynamic == "":
		return []word{w}
	case w.braces != nil:
		var out []word
		for _, b := range w.braces {
			if b.dynamic == "" {
				out = append(out, b)
			} else if b.name != "" {
				if v, ok := c.vars[b.name]; ok {
					out = append(out, word{lit: v})
				}
			}
		}
		return out
	case w.name != "":
		if v, ok := c.vars[w.name]; ok {
			return []word{{lit: v}}
		}
	}
	return nil
}

// tracked reports whether w is $name for a variable the command set to a
// literal.
func (c *check) tracked(w word) bool {
	_, ok := c.vars[w.name]
	return w.name != "" && ok
}

// noFileArgs are commands whose arguments are not file names.
var noFileArgs = map[string]bool{"echo": true, "printf": true, "test": true, "[": true, ":": true, "true": true,
	"false": true, "exit": true, "return": true, "shift": true, "cd": true, "pushd": true, "export": true, "unset": true}

// pathArgs checks the files a command's arguments name: naming a no_read
// file is forbidden, naming a no_write file is asked about. args[0] is the
// program.
func (c *check) pathArgs(args []word) {
	if c.argMode {
		return
	}
	prog := ""
	if args[0].dynamic == "" {
		prog = path.Base(args[0].lit)
	}
	read := c.hasRead()
	for _, a := range args[1:] {
		if a.dynamic != "" {
			switch {
			case a.braces != nil && a.many && read:
				c.consider(scoreMaybeAsk, Decision{Verdict: Ask, Command: joinWords(args),
					Reason: fmt.Sprintf("the command names a brace expansion of more than %d words, which Bridle does not check against the path rules", maxBraces)})
			case a.param && read && !noFileArgs[prog] && !c.tracked(a):
				c.consider(scoreMaybeAsk, Decision{Verdict: Ask, Command: joinWords(args),
					Reason: "the command names " + a.dynamic + ", which Bridle cannot know before the command runs, and a path rule protects files from reading"})
			}
		}
		for _, k := range c.known(a) {
			c.fileWord(k, Read, scoreForbid, "names")
			c.fileWord(k, Write, scoreAsk, "names")
			for _, w := range fileCandidates(k) {
				c.fileWord(w, Read, scoreForbid, "names")
				c.fileWord(w, Write, scoreAsk, "names")
			}
			if v, ok := strings.CutPrefix(k.lit, "of="); ok && prog == "dd" {
				c.fileWord(word{lit: v, glob: k.glob}, Write, scoreForbid, "writes")
			}
		}
	}
	if !read {
		return
	}
	if prog == "git" {
		inner, _ := gitSubcommand(args)
		c.gitPaths(inner)
	}
	if dirs := recursiveDirs(prog, args); dirs != nil {
		c.recursive(prog, dirs)
	}
}

// gitPaths checks the files git reads from its history: git show
// HEAD:.env, git cat-file -p :0:.env; and asks about git grep and git
// archive, which read every file.
func (c *check) gitPaths(inner []word) {
	if len(inner) < 2 {
		return
	}
	switch inner[1].lit {
	case "grep", "archive":
		c.recursive("git "+inner[1].lit, []word{{lit: "."}})
	}
	for _, a := range inner[2:] {
		if a.dynamic != "" || strings.HasPrefix(a.lit, "-") {
			continue
		}
		first := strings.IndexByte(a.lit, ':')
		if first < 0 {
			continue
		}
		for _, p := range []string{a.lit[first+1:], a.lit[strings.LastIndexByte(a.lit, ':')+1:]} {
			if p != "" {
				c.pathWord(word{lit: p, glob: a.glob}, Read, scoreForbid, "shows from git")
			}
		}
	}
}

// recursiveDirs are the directories a recursive reader (grep -r, rg, tar,
// zip -r, cp -r, rsync, scp -r, find -exec) reads everything below: its
// operands, or "." when it reads the working directory by default; nil
// for any other command.
func recursiveDirs(prog string, args []word) []word {
	var operands []word
	flags := ""
	long := map[string]bool{}
	for _, a := range args[1:] {
		switch {
		case a.dynamic != "":
		case strings.HasPrefix(a.lit, "--"):
			k, _, _ := strings.Cut(a.lit, "=")
			long[k] = true
			long[a.lit] = true
			continue
		case strings.HasPrefix(a.lit, "-") && len(a.lit) > 1:
			flags += a.lit[1:]
			long[a.lit] = true
			continue
		}
		operands = append(operands, a)
	}
	short := func(chars string) bool { return strings.ContainsAny(flags, chars) }
	dot := []word{{lit: "."}}
	switch prog {
	case "grep", "egrep", "fgrep":
		if !short("rR") && !long["--recursive"] && !long["--dereference-recursive"] && !long["--directories=recurse"] {
			return nil
		}
		if len(operands) < 2 {
			return append(operands, dot...)
		}
	case "rg", "ag", "ack", "ack-grep":
		if len(operands) < 2 {
			return append(operands, dot...)
		}
	case "tar", "rsync":
	case "zip":
		if !short("rR") && !long["--recurse-paths"] {
			return nil
		}
	case "cp":
		if !short("rRa") && !long["--recursive"] && !long["--archive"] {
			return nil
		}
	case "scp":
		if !short("r") {
			return nil
		}
	case "find":
		if !long["-exec"] && !long["-execdir"] && !long["-ok"] && !long["-okdir"] {
			return nil
		}
		if len(operands) == 0 || strings.HasPrefix(args[1].lit, "-") {
			return append(operands, dot...)
		}
	default:
		return nil
	}
	return operands
}

// recursive asks when a recursive reader reads a directory that holds a
// file a no_read glob protects.
func (c *check) recursive(prog string, dirs []word) {
	for _, d := range dirs {
		for _, w := range c.known(d) {
			rel, why := projectPath(w.lit)
			if why != "" {
				continue
			}
			c.recursiveDir(prog, rel, w.glob)
			if c.resolve != nil && !w.glob {
				if real, ok := c.resolved(rel); ok && real != rel {
					c.recursiveDir(prog, real, false)
				}
			}
		}
	}
}

func (c *check) recursiveDir(prog, rel string, glob bool) {
	for _, e := range c.r.paths {
		if e.Op != Read || !dirHolds(rel, glob, e.Pattern) {
			continue
		}
		c.consider(scoreMaybeForbid, Decision{Verdict: Ask, Guardrail: e.Guardrail, Statement: e.Statement, Matched: e.Pattern, Command: prog + " " + rel,
			Reason: fmt.Sprintf("%s reads everything below %s, which holds files that must not be read (%q)", prog, rel, e.Pattern)})
	}
}

// dirHolds reports whether the directory dir (a shell glob when glob is
// set) may hold a file the protected glob matches.
func dirHolds(dir string, glob bool, protected string) bool {
	if dir == "." || strings.HasPrefix(protected, "**") {
		return true
	}
	sample := sampleOf(protected)
	if !glob {
		return strings.HasPrefix(sample, dir+"/")
	}
	segs := strings.Split(sample, "/")
	for n := 1; n < len(segs); n++ {
		if ok, err := path.Match(dir, strings.Join(segs[:n], "/")); err == nil && ok {
			return true
		}
	}
	return false
}

// fileCandidates are the files a word may name besides itself: what
// follows its first @ (curl -d @f, gcc @f, httpie's k@f); what follows the
// first = (--opt=f, key=f, dd if=f, and curl -F k=@f, k=<f, k=@f;type=t);
// and what follows each letter of a short option cluster (-d@f, -of,
// -vof), which may be its attached value.
func fileCandidates(w word) []word {
	v := w.lit
	if v == "" || v[0] != '-' && !strings.ContainsAny(v, "=@") {
		return nil
	}
	var out []word
	add := func(s string) {
		for s != "" {
			out = append(out, word{lit: s, glob: w.glob})
			if s[0] == '@' || s[0] == '<' { // curl -F f=@file, f=<file
				if f, _, ok := strings.Cut(s[1:], ";"); ok { // ;type=…
					out = append(out, word{lit: f, glob: w.glob})
				}
				s = s[1:]
				continue
			}
			return
		}
	}
	if _, f, ok := strings.Cut(v, "@"); ok { // @file, and httpie's field@file
		add(f)
	}
	if _, val, ok := strings.Cut(v, "="); ok {
		add(val)
	}
	if len(v) > 2 && v[0] == '-' && v[1] != '-' {
		for j := 2; j < len(v) && j <= maxCluster; j++ {
			if ch := v[j-1]; !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
				break
			}
			add(v[j:])
		}
	}
	return out
}

// assignFile checks the value of NAME=value given to a command as a file
// it names: the program may read or write the file the variable names.
func (c *check) assignFile(v word) {
	if c.argMode || v.dynamic != "" || v.lit == "" {
		return
	}
	c.fileWord(v, Read, scoreForbid, "names")
	c.fileWord(v, Write, scoreAsk, "names")
	for _, w := range fileCandidates(v) {
		c.fileWord(w, Read, scoreForbid, "names")
		c.fileWord(w, Write, scoreAsk, "names")
	}
}

// stringFiles checks the words of a string a program Bridle does not know
// is given (python3 -c "open('.env')", ssh host 'cat .env') as files the
// program may read or write: asked about, since it may not.
func (c *check) stringFiles(s string) {
	for _, t := range stringWords(s) {
		w := word{lit: t}
		for _, k := range append([]word{w}, fileCandidates(w)...) {
			c.pathWord(k, Read, scoreMaybeForbid, "gives a program a string naming")
			c.pathWord(k, Write, scoreMaybeAsk, "gives a program a string naming")
		}
	}
}

// maxCluster bounds the letters of a short option cluster looked after
// for an attached file name.
const maxCluster = 16

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// fileWord checks one word naming a file for op, as given and, when the
// check resolves links, as what it resolves to.
func (c *check) fileWord(w word, op Op, score int, how string) {
	c.pathWord(w, op, score, how)
	if c.resolve == nil || w.glob || w.dynamic != "" {
		return
	}
	rel, why := projectPath(w.lit)
	if why != "" {
		return
	}
	if real, ok := c.resolved(rel); ok && real != rel {
		c.pathWord(word{lit: real}, op, score, how+" "+bound(rel, 200)+", a link to")
	}
}

// maxResolve bounds the paths one check resolves links in.
const maxResolve = 256

// resolved is what rel resolves to, asking the check's resolver once per
// path; past maxResolve paths it asks about the command instead.
func (c *check) resolved(rel string) (string, bool) {
	if l, ok := c.links[rel]; ok {
		return l.path, l.ok
	}
	if len(c.links) >= maxResolve {
		c.consider(scoreMaybeAsk, Decision{Verdict: Ask, Command: rel,
			Reason: fmt.Sprintf("the command names more than %d files, and Bridle resolves the symbolic links of the first %d only", maxResolve, maxResolve)})
		return "", false
	}
	real, ok := c.resolve(rel)
	if ok {
		var why string
		real, why = projectPath(real)
		ok = why == ""
	}
	if c.links == nil {
		c.links = map[string]link{}
	}
	c.links[rel] = link{real, ok}
	return real, ok
}

// link is a path with its links resolved, when ok.
type link struct {
	path string
	ok   bool
}

// pathWord checks one word naming a file for op. A glob word is asked
// about when it could expand to a protected file.
func (c *check) pathWord(w word, op Op, score int, how string) {
	rel, why := projectPath(w.lit)
	if why != "" {
		return
	}
	for _, e := range c.r.pathRules() {
		if e.Op != op {
			continue
		}
		d := Decision{Verdict: Forbid, Guardrail: e.Guardrail, Statement: e.Statement, Matched: e.Pattern, Command: rel}
		verb := "must not be read"
		if op == Write {
			verb = "must not be written"
		}
		switch {
		case !w.glob && globMatch(e.Pattern, rel):
			d.Reason = fmt.Sprintf("the command %s %s, which %s (%q)", how, rel, verb, e.Pattern)
			if score != scoreForbid {
				d.Verdict = Ask
			}
			c.consider(score, d)
		case w.glob && globMayExpandTo(rel, e.Pattern):
			d.Verdict = Ask
			d.Reason = fmt.Sprintf("the command %s %s, a glob that may expand to a file that %s (%q)", how, rel, verb, e.Pattern)
			c.consider(score-1, d)
		}
	}
}

// globMayExpandTo is the heuristic for a shell glob (cat .en?): does it
// match a sample path of the protected glob?
func globMayExpandTo(shellGlob, protected string) bool {
	sample := sampleOf(protected)
	if ok, err := path.Match(shellGlob, sample); err == nil && ok {
		return true
	}
	if dir, ok := strings.CutSuffix(protected, "/**"); ok { // anything below a directory
		n := strings.Count(dir, "/") + 1
		if segs := strings.Split(shellGlob, "/"); len(segs) > n {
			if ok, err := path.Match(strings.Join(segs[:n], "/"), sampleOf(dir)); err == nil && ok {
				return true
			}
		}
	}
	if strings.HasPrefix(protected, "**/") {
		ok, err := path.Match(path.Base(shellGlob), path.Base(sample))
		return err == nil && ok
	}
	return false
}

// sampleOf is one path the glob matches: wildcards replaced by "x", a
// class by its first character.
func sampleOf(glob string) string {
	g := strings.ReplaceAll(glob, "**/", "")
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch ch := g[i]; ch {
		case '*':
			for i+1 < len(g) && g[i+1] == '*' {
				i++
			}
			b.WriteByte('x')
		case '?':
			b.WriteByte('x')
		case '[':
			j := strings.IndexByte(g[i:], ']')
			if j < 0 {
				b.WriteString(g[i:])
				return b.String()
			}
			class := strings.TrimLeft(g[i+1:i+j], "!^")
			if class == "" {
				b.WriteByte('x')
			} else {
				b.WriteByte(class[0])
			}
			i += j
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}
