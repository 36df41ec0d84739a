package adopt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bridle-dev/bridle/internal/jsonc"
	"github.com/bridle-dev/bridle/schema"
)

// verdict is what a native rule does, in the schema's enforce terms.
type verdict int

const (
	forbid  verdict = iota // enforce.commands.forbid
	ask                    // enforce.commands.ask
	noRead                 // enforce.paths.no_read
	noWrite                // enforce.paths.no_write
)

// nativeRule is one entry of a harness's own enforcement, translated.
type nativeRule struct {
	verdict verdict
	value   string // a command prefix or a glob, valid for the schema
	at      Pos
}

func (r nativeRule) words() string {
	if r.verdict == noRead || r.verdict == noWrite {
		return r.value
	}
	return strings.Join(schema.CommandWords(r.value), " ")
}

// lineOf is the line of the first occurrence of the JSON string s in data
// (1 when it is not found as written).
func lineOf(data []byte, s string) int {
	q, _ := json.Marshal(s)
	if i := bytes.Index(data, q); i >= 0 {
		return bytes.Count(data[:i], []byte("\n")) + 1
	}
	return 1
}

// claudeSettings reads Claude Code's permissions.deny and permissions.ask:
// Bash(p:*) and Bash(p) are the command prefix p, Read(./g) the no_read
// glob g, Edit(./g) and Write(./g) the no_write glob g — the forms
// renderers write (enforce.Rules.Claude), inverted. Anything else (allow,
// other tools, MCP tools, hooks, wildcards inside a prefix) is lost.
func claudeSettings(f File, r *Result) []nativeRule {
	d, err := jsonc.Parse(f.Path, f.Data)
	if err != nil {
		r.lose(Pos{f.Path, 1}, "unreadable", "the file is not JSON: "+err.Error(), "")
		return nil
	}
	var out []nativeRule
	for _, list := range []struct {
		key string
		v   verdict
	}{{"deny", forbid}, {"ask", ask}} {
		raw, ok := d.Get("permissions", list.key)
		if !ok {
			continue
		}
		var entries []string
		if json.Unmarshal(raw, &entries) != nil {
			r.lose(Pos{f.Path, lineOf(f.Data, list.key)}, "native rule", "permissions."+list.key+" is not a list of strings", string(raw))
			continue
		}
		for _, e := range entries {
			at := Pos{f.Path, lineOf(f.Data, e)}
			nr, ok := claudeRule(e, list.v)
			if !ok {
				r.lose(at, "native rule", "a Claude Code permission rule Bridle's enforce block cannot express (it enforces shell command prefixes and file globs)", e)
				continue
			}
			nr.at = at
			out = append(out, nr)
		}
	}
	for _, key := range []string{"allow", "additionalDirectories", "defaultMode"} {
		if raw, ok := d.Get("permissions", key); ok {
			r.lose(Pos{f.Path, lineOf(f.Data, key)}, "native setting", "permissions."+key+" grants rather than restricts; Bridle leaves it in .claude/settings.json, untouched", string(raw))
		}
	}
	if raw, ok := d.Get("hooks"); ok {
		r.lose(Pos{f.Path, lineOf(f.Data, "hooks")}, "hook", "hooks run programs; Bridle cannot translate them into rules and leaves them in .claude/settings.json (its own hook is merged beside them)", string(raw))
	}
	return out
}

func claudeRule(e string, v verdict) (nativeRule, bool) {
	tool, arg, ok := strings.Cut(e, "(")
	if !ok || !strings.HasSuffix(arg, ")") {
		return nativeRule{}, false
	}
	arg = strings.TrimSuffix(arg, ")")
	switch tool {
	case "Bash":
		p := strings.TrimSuffix(strings.TrimSuffix(arg, ":*"), " *")
		if problem, _ := schema.CommandPrefixProblem(p); problem != "" {
			return nativeRule{}, false
		}
		return nativeRule{verdict: v, value: strings.Join(schema.CommandWords(p), " ")}, true
	case "Read", "Edit", "Write":
		if v != forbid {
			return nativeRule{}, false // asking before a read has no enforce form
		}
		g := strings.TrimPrefix(arg, "./")
		if problem, _ := schema.PathGlobProblem(g); problem != "" {
			return nativeRule{}, false
		}
		nv := noWrite
		if tool == "Read" {
			nv = noRead
		}
		return nativeRule{verdict: nv, value: schema.CleanGlob(g)}, true
	}
	return nativeRule{}, false
}

// codexRules reads Codex execpolicy prefix_rule calls: pattern (a list of
// literal words) with decision forbidden or prompt is a command prefix
// forbidden or asked about. Alternatives inside a pattern, allow rules and
// anything not a prefix_rule are lost.
func codexRules(f File, r *Result) []nativeRule {
	var out []nativeRule
	s := string(f.Data)
	for off := 0; ; {
		i := strings.Index(s[off:], "prefix_rule(")
		if i < 0 {
			break
		}
		start := off + i
		if start > 0 && isIdent(s[start-1]) {
			off = start + len("prefix_rule(")
			continue
		}
		at := Pos{f.Path, strings.Count(s[:start], "\n") + 1}
		call, end, err := starlarkCall(s, start+len("prefix_rule("))
		off = end
		if err != nil {
			r.lose(at, "native rule", "a prefix_rule Bridle cannot read: "+err.Error(), excerptAt(s, start, end))
			continue
		}
		words, okw := call["pattern"].([]string)
		decision, _ := call["decision"].(string)
		v := forbid
		switch decision {
		case "forbidden":
		case "prompt":
			v = ask
		default:
			r.lose(at, "native rule", "a prefix_rule with decision "+quoteOr(decision, "allow")+" grants rather than restricts", excerptAt(s, start, end))
			continue
		}
		p := strings.Join(words, " ")
		if problem, _ := schema.CommandPrefixProblem(p); !okw || problem != "" {
			r.lose(at, "native rule", "a prefix_rule whose pattern is not literal words (alternatives or quoting) has no enforce form", excerptAt(s, start, end))
			continue
		}
		out = append(out, nativeRule{verdict: v, value: p, at: at})
	}
	return out
}

func quoteOr(s, def string) string {
	if s == "" {
		s = def
	}
	return fmt.Sprintf("%q", s)
}

func excerptAt(s string, a, b int) string {
	if b > len(s) {
		b = len(s)
	}
	if b-a > 2000 {
		b = a + 2000
	}
	return s[a:b]
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// starlarkCall reads the keyword arguments of a call from s[i:] up to its
// closing parenthesis: strings and lists of strings; other values are
// skipped. It returns the offset after the call.
func starlarkCall(s string, i int) (map[string]any, int, error) {
	args := map[string]any{}
	p := &scanner{s: s, i: i}
	for {
		p.space()
		if p.eof() {
			return nil, p.i, fmt.Errorf("unclosed call")
		}
		if p.peek() == ')' {
			p.i++
			return args, p.i, nil
		}
		name := p.ident()
		p.space()
		if name == "" || p.eof() || p.peek() != '=' {
			return nil, p.skip(), fmt.Errorf("expected a keyword argument")
		}
		p.i++
		v, err := p.value(0)
		if err != nil {
			return nil, p.skip(), err
		}
		args[name] = v
		p.space()
		if !p.eof() && p.peek() == ',' {
			p.i++
		}
	}
}

type scanner struct {
	s string
	i int
}

func (p *scanner) eof() bool  { return p.i >= len(p.s) }
func (p *scanner) peek() byte { return p.s[p.i] }

// skip moves past the call's closing parenthesis (or to the end).
func (p *scanner) skip() int {
	if j := strings.IndexByte(p.s[p.i:], ')'); j >= 0 {
		return p.i + j + 1
	}
	return len(p.s)
}

func (p *scanner) space() {
	for !p.eof() {
		switch c := p.peek(); {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '#':
			for !p.eof() && p.peek() != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

func (p *scanner) ident() string {
	j := p.i
	for j < len(p.s) && isIdent(p.s[j]) {
		j++
	}
	id := p.s[p.i:j]
	p.i = j
	return id
}

// value reads a string, a list of strings, or skips another value (a
// list of lists yields no []string).
func (p *scanner) value(depth int) (any, error) {
	p.space()
	if p.eof() {
		return nil, fmt.Errorf("missing value")
	}
	if depth > 8 {
		return nil, fmt.Errorf("nested too deep")
	}
	switch c := p.peek(); c {
	case '"', '\'':
		return p.str()
	case '[':
		p.i++
		var words []string
		literal := true
		for {
			p.space()
			if p.eof() {
				return nil, fmt.Errorf("unclosed list")
			}
			if p.peek() == ']' {
				p.i++
				if !literal {
					return nil, nil
				}
				return words, nil
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if w, ok := v.(string); ok {
				words = append(words, w)
			} else {
				literal = false
			}
			p.space()
			if !p.eof() && p.peek() == ',' {
				p.i++
			}
		}
	default:
		j := p.i
		for j < len(p.s) && (isIdent(p.s[j]) || p.s[j] == '.') {
			j++
		}
		if j == p.i {
			return nil, fmt.Errorf("unexpected %q", c)
		}
		p.i = j
		return nil, nil
	}
}

// str reads a quoted string with backslash escapes of the quote, the
// backslash and n and t.
func (p *scanner) str() (string, error) {
	q := p.peek()
	p.i++
	var b strings.Builder
	for !p.eof() {
		c := p.peek()
		p.i++
		switch {
		case c == q:
			return b.String(), nil
		case c == '\n':
			return "", fmt.Errorf("line break in a string")
		case c == '\\' && !p.eof():
			e := p.peek()
			p.i++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("unclosed string")
}

// opencodePermission reads OpenCode's permission.bash: "p" and "p *" set
// to deny or ask are the command prefix p forbidden or asked about. A
// pattern with a wildcard elsewhere, allow, and the other permissions
// (edit, webfetch, a bash default) are lost.
func opencodePermission(f File, r *Result) []nativeRule {
	d, err := jsonc.Parse(f.Path, f.Data)
	if err != nil {
		r.lose(Pos{f.Path, 1}, "unreadable", "the file is not JSON: "+err.Error(), "")
		return nil
	}
	raw, ok := d.Get("permission")
	if !ok {
		return nil
	}
	var perm map[string]json.RawMessage
	if json.Unmarshal(raw, &perm) != nil {
		r.lose(Pos{f.Path, lineOf(f.Data, "permission")}, "native setting", "permission is not an object Bridle can read", string(raw))
		return nil
	}
	var out []nativeRule
	for _, k := range slices.Sorted(maps.Keys(perm)) {
		if k != "bash" {
			r.lose(Pos{f.Path, lineOf(f.Data, k)}, "native setting", "OpenCode's "+k+" permission has no enforce form in bridle.yaml; it stays in "+f.Path, string(perm[k]))
			continue
		}
		var bash map[string]string
		if json.Unmarshal(perm[k], &bash) != nil {
			r.lose(Pos{f.Path, lineOf(f.Data, k)}, "native setting", "permission.bash for every command has no enforce form (list commands)", string(perm[k]))
			continue
		}
		seen := map[string]bool{}
		for _, pat := range slices.Sorted(maps.Keys(bash)) {
			at := Pos{f.Path, lineOf(f.Data, pat)}
			v := forbid
			switch bash[pat] {
			case "deny":
			case "ask":
				v = ask
			default:
				r.lose(at, "native rule", "permission.bash "+fmt.Sprintf("%q: %q", pat, bash[pat])+" grants rather than restricts", pat)
				continue
			}
			p := strings.TrimSuffix(pat, " *")
			if problem, _ := schema.CommandPrefixProblem(p); problem != "" {
				r.lose(at, "native rule", "a bash permission with a wildcard inside the command has no enforce form", pat)
				continue
			}
			p = strings.Join(schema.CommandWords(p), " ")
			if seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, nativeRule{verdict: v, value: p, at: at})
		}
	}
	return out
}
