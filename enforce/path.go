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
func (r *Rules) CheckPath(p string, op Op) Decision {
	if len(r.paths) == 0 {
		return Decision{Verdict: Allow}
	}
	rel, why := projectPath(p)
	if why != "" {
		return Decision{Verdict: Ask, Command: p, Reason: why}
	}
	for _, e := range r.paths {
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
	if len(c.r.paths) == 0 {
		return
	}
	for _, rd := range rs {
		var ops []Op
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll,
			syntax.RdrAllClob, syntax.AppAllClob:
			ops = []Op{Write}
		case syntax.RdrIn:
			ops = []Op{Read}
		case syntax.RdrInOut:
			ops = []Op{Read, Write}
		default:
			continue
		}
		if rd.Word == nil {
			continue
		}
		w := literal(rd.Word)
		if w.dynamic != "" {
			continue // see the package doc: not checked
		}
		for _, op := range ops {
			c.pathWord(w, op, scoreForbid, "redirects")
		}
	}
}

// pathArgs checks the files a command's arguments name: naming a no_read
// file is forbidden, naming a no_write file is asked about.
func (c *check) pathArgs(args []word) {
	if len(c.r.paths) == 0 {
		return
	}
	for _, a := range args {
		if a.dynamic != "" {
			continue
		}
		for _, w := range []word{a, optionValue(a)} {
			if w.lit == "" {
				continue
			}
			c.pathWord(w, Read, scoreForbid, "names")
			c.pathWord(w, Write, scoreAsk, "names")
		}
	}
}

// optionValue is the value of --opt=value, or the zero word.
func optionValue(a word) word {
	if !strings.HasPrefix(a.lit, "-") {
		return word{}
	}
	if _, v, ok := strings.Cut(a.lit, "="); ok {
		return word{lit: v, glob: a.glob}
	}
	return word{}
}

// pathWord checks one word naming a file for op. A glob word is asked
// about when it could expand to a protected file.
func (c *check) pathWord(w word, op Op, score int, how string) {
	rel, why := projectPath(w.lit)
	if why != "" {
		return
	}
	for _, e := range c.r.paths {
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
