package enforce

import (
	"cmp"
	"fmt"
	"path"
	"strings"
)

// pattern is a command rule read for matching by meaning: its program,
// the subcommand words that follow it, the options it requires and the
// operands it names after them.
type pattern struct {
	prog string
	path bool     // prog holds a /: compared as a cleaned path
	sub  []string // the operands before the rule's first option, in order
	opts []opt    // the options it requires, by meaning
	// spell are, per opts entry, the words a glob would have to expand
	// to to give that option.
	spell [][]string
	args  []string // the operands after its first option or --
	spec  *optSpec
	min   int // the fewest words a command holding it can have
}

// pattern is the entry's words read for matching (New reads them once).
func (e Entry) pattern() *pattern {
	if e.pat != nil {
		return e.pat
	}
	return compilePattern(e.words)
}

// compilePattern reads a rule's words with its program's option table.
func compilePattern(words []string) *pattern {
	p := &pattern{prog: words[0]}
	if strings.Contains(p.prog, "/") {
		p.prog, p.path = path.Clean(p.prog), true
	}
	ws := make([]word, len(words)-1)
	for i, w := range words[1:] {
		ws[i] = word{lit: w}
	}
	sub := ""
	for _, o := range parseArgs(nil, ws).operands {
		sub = o.w.lit // the first operand: git's subcommand
		break
	}
	p.spec = specFor(path.Base(p.prog), sub)
	pa := parseArgs(p.spec, ws)
	first := len(words)
	for _, o := range pa.opts {
		first = min(first, o.pos)
	}
	if pa.endPos > 0 {
		first = min(first, pa.endPos)
	}
	for _, o := range pa.operands {
		if o.pos < first {
			p.sub = append(p.sub, o.w.lit)
		} else {
			p.args = append(p.args, o.w.lit)
		}
	}
	for _, o := range pa.opts {
		if contains(p.optNames(), o.name+"="+o.value) {
			continue
		}
		p.opts = append(p.opts, o)
		p.spell = append(p.spell, p.spellings(o, words[o.pos]))
	}
	p.min = 1 + len(p.sub) + len(p.args)
	if len(p.opts) > 0 {
		p.min++
	}
	return p
}

func (p *pattern) optNames() []string {
	out := make([]string, len(p.opts))
	for i, o := range p.opts {
		out[i] = o.name + "=" + o.value
	}
	return out
}

// spellings are the words that give the option o: the rule's own word,
// and every spelling the program's table gives that meaning.
func (p *pattern) spellings(o opt, ruleWord string) []string {
	out := []string{ruleWord}
	if p.spec == nil {
		return append(out, o.name)
	}
	for ch, d := range p.spec.short {
		if contains(d.names, o.name) {
			out = append(out, "-"+string(ch))
		}
	}
	for name, d := range p.spec.long {
		if contains(d.names, o.name) {
			out = append(out, "--"+name)
		}
	}
	return out
}

// parseCache reads one command's words once per option table.
type parseCache struct {
	args   []word // after the program
	specs  []*optSpec
	parsed []*parsedArgs
}

func (pc *parseCache) get(s *optSpec) *parsedArgs {
	for i, have := range pc.specs {
		if have == s {
			return pc.parsed[i]
		}
	}
	p := parseArgs(s, pc.args)
	pc.specs = append(pc.specs, s)
	pc.parsed = append(pc.parsed, &p)
	return &p
}

// match reports whether args (the program first) run the command p
// names: the same program, p's subcommand words first among its operands
// (words that may be an unknown option's value are skipped), every option
// p requires among its options, anywhere before --, and p's other
// operands among its operands. maybe is non-empty, saying why, when the
// command only might: a word is unknown, or a glob that could expand to
// what is missing, or xargs adds words (more).
func (p *pattern) match(args []word, pc *parseCache, more bool) (ok bool, maybe string) {
	a := args[0]
	if a.dynamic != "" {
		if !a.split && len(args) < p.min {
			return false, ""
		}
		return true, fmt.Sprintf("word 1 is %s", a.dynamic)
	}
	got := a.lit
	if p.path {
		got = path.Clean(got)
	} else {
		got = path.Base(got)
	}
	if a.glob {
		if m, err := path.Match(got, p.prog); err != nil || !m {
			return false, ""
		}
		if got != p.prog {
			maybe = fmt.Sprintf("word 1, %q, is a glob that may expand to %q", got, p.prog)
		}
	} else if got != p.prog {
		return false, ""
	}
	pa := pc.get(p.spec)
	k, skipped := 0, ""
	for _, want := range p.sub {
		for {
			if k >= len(pa.operands) {
				switch {
				case skipped != "":
					return true, skipped
				case more:
					return true, fmt.Sprintf("xargs adds words from its input after %q", joinWords(args))
				}
				return false, ""
			}
			o := pa.operands[k]
			k++
			w := o.w
			if w.dynamic != "" {
				if o.afterOpt && !w.split {
					skipped = cmp.Or(skipped, fmt.Sprintf("word %d is %s", o.pos+1, w.dynamic))
					continue
				}
				if !w.split && len(args) < p.min {
					return false, ""
				}
				return true, fmt.Sprintf("word %d is %s", o.pos+1, w.dynamic)
			}
			if w.lit == want {
				break
			}
			if m, err := path.Match(w.lit, want); w.glob && err == nil && m {
				maybe = cmp.Or(maybe, fmt.Sprintf("word %d, %q, is a glob that may expand to %q", o.pos+1, w.lit, want))
				break
			}
			if !o.afterOpt {
				return false, ""
			}
		}
	}
	for i, want := range p.opts {
		if pa.has(want) {
			continue
		}
		why := ""
		switch {
		case pa.dyn != "":
			why = fmt.Sprintf("word %d is %s", pa.dynPos+1, pa.dyn)
		case more:
			why = fmt.Sprintf("xargs adds words from its input after %q", joinWords(args))
		default:
			why = globTo(pa.globs, p.spell[i])
		}
		if why == "" {
			return false, ""
		}
		maybe = cmp.Or(maybe, why)
	}
	for _, want := range p.args {
		if operandIn(pa.operands[k:], want) {
			continue
		}
		why := ""
		for _, o := range pa.operands[k:] {
			if o.w.dynamic != "" {
				why = fmt.Sprintf("word %d is %s", o.pos+1, o.w.dynamic)
				break
			}
			if m, err := path.Match(o.w.lit, want); o.w.glob && err == nil && m {
				why = fmt.Sprintf("word %d, %q, is a glob that may expand to %q", o.pos+1, o.w.lit, want)
				break
			}
		}
		if why == "" && more {
			why = fmt.Sprintf("xargs adds words from its input after %q", joinWords(args))
		}
		if why == "" {
			return false, ""
		}
		maybe = cmp.Or(maybe, why)
	}
	return true, maybe
}

// operandIn reports whether want is one of the operands, as a known word;
// paths are compared cleaned (// and /. are /, build/ is build).
func operandIn(ops []operand, want string) bool {
	for _, o := range ops {
		if o.w.dynamic != "" || o.w.glob {
			continue
		}
		if o.w.lit == want || strings.ContainsAny(want, "/.") && path.Clean(o.w.lit) == path.Clean(want) ||
			strings.ContainsAny(o.w.lit, "/.") && path.Clean(o.w.lit) == want {
			return true
		}
	}
	return false
}

// globTo says which glob may expand to one of the spellings, or "".
func globTo(globs []word, spellings []string) string {
	for _, g := range globs {
		for _, s := range spellings {
			if m, err := path.Match(g.lit, s); err == nil && m {
				return fmt.Sprintf("%q is a glob that may expand to %q", g.lit, s)
			}
		}
	}
	return ""
}
