package adopt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/bridle-dev/bridle/internal/mdsafe"
	"github.com/bridle-dev/bridle/schema"
)

// stop words carry no rule; mood words and negations are read apart.
func stopWord(w string) bool {
	switch w {
	case "a", "an", "the", "to", "of", "in", "on", "at", "for", "and", "or", "your", "you", "please", "it", "its",
		"that", "this", "is", "are", "be", "with", "by", "as", "from", "we", "our", "when", "if", "any", "all":
		return true
	}
	return false
}

func moodWord(w string) bool {
	switch w {
	case "must", "should", "always", "do", "does", "prefer", "ideally", "make", "sure", "ensure", "only":
		return true
	}
	return false
}

func negation(w string) bool {
	switch w {
	case "not", "never", "no", "avoid", "cannot", "without", "nor", "dont":
		return true
	}
	return false
}

// contractions are expanded before words are compared; built on first use.
var contractions = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer("can't", "can not", "won't", "will not", "n't", " not", "’", "'")
})

// words are s's words, normalised: NFKC, lower case, contractions
// expanded, letters and digits only, stop words dropped.
func words(s string) []string {
	if !ascii(s) {
		s = norm.NFKC.String(s)
	}
	s = strings.ToLower(s)
	if strings.ContainsAny(s, "'’") {
		s = contractions().Replace(s)
	}
	f := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := f[:0]
	for _, w := range f {
		if !stopWord(w) {
			out = append(out, w)
		}
	}
	return out
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// contentWords are the words a statement is about: words without mood
// words and negations.
func contentWords(s string) []string {
	var out []string
	for _, w := range words(s) {
		if !moodWord(w) && !negation(w) {
			out = append(out, w)
		}
	}
	return out
}

// normalise is a statement's key (its words and its polarity: duplicates
// share it), its subject (the content words, in order: a statement and
// its opposite share it) and whether it is negative.
func normalise(s string) (key, subject string, negative bool) {
	ws := words(s)
	var content []string
	for _, w := range ws {
		if negation(w) {
			negative = !negative
		} else if !moodWord(w) {
			content = append(content, w)
		}
	}
	subject = strings.Join(content, " ")
	key = "+" + subject
	if negative {
		key = "-" + subject
	}
	return key, subject, negative
}

// slug makes an id from text: its content words, lower case, joined by
// dashes, cut at a dash to at most max bytes.
func slug(s string, max int) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(norm.NFKD.String(s)), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if b.Len() > 0 {
			if b.Len()+1+len(w) > max {
				break
			}
			b.WriteByte('-')
		} else if len(w) > max {
			w = w[:max]
		}
		b.WriteString(w)
	}
	return b.String()
}

// ruleID is a rule's id from its words: "no-" for a negative rule, then
// its first content words.
func ruleID(r *rule) string {
	id := slug(r.subject, maxID-3)
	if id == "" {
		id = "rule"
	}
	if r.negative {
		id = "no-" + id
	}
	return id
}

// unique returns id, or id-2, id-3, … the first not taken, and takes it.
func unique(id string, taken map[string]bool) string {
	out := id
	for n := 2; taken[out]; n++ {
		suffix := "-" + strconv.Itoa(n)
		base := id
		if len(base)+len(suffix) > maxID {
			base = strings.TrimRight(base[:maxID-len(suffix)], "-")
		}
		out = base + suffix
	}
	taken[out] = true
	return out
}

// attach gives each native rule to the first hard rule whose statement
// names it (its command words, or its glob), and makes a rule of its own
// for the rest, one per entry, merged across harnesses.
func (r *Result) attach(natives []nativeRule) {
	byValue := map[string]*rule{}
	for _, n := range natives {
		if r.secret != nil && r.secret(n.value) {
			r.lose(n.at, "native rule", "it holds a credential, which is never copied into the rules", "")
			continue
		}
		key := fmt.Sprint(n.verdict, "\x00", n.words())
		if g, ok := byValue[key]; ok {
			g.at = append(g.at, n.at)
			continue
		}
		var target *rule
		for _, g := range r.rules {
			if g.severity == schema.HardInstruction && names(g.text, n) {
				target = g
				break
			}
		}
		if target == nil {
			text := nativeStatement(n)
			k, subject, neg := normalise(text)
			target = &rule{item: item{text: text}, severity: schema.HardInstruction, key: k, subject: subject, negative: neg}
			r.rules = append(r.rules, target)
		}
		if !add(&target.enforce, n) {
			r.lose(n.at, "native rule", fmt.Sprintf("a guardrail's enforce list holds at most %d entries", maxEnforce), n.value)
			continue
		}
		target.at = append(target.at, n.at)
		byValue[key] = target
	}
}

// add puts the native rule into e, unless its list is full.
func add(e *schema.Enforce, n nativeRule) bool {
	var list *[]string
	switch n.verdict {
	case forbid:
		list = &e.Commands.Forbid
	case ask:
		list = &e.Commands.Ask
	case noRead:
		list = &e.Paths.NoRead
	default:
		list = &e.Paths.NoWrite
	}
	if !slices.Contains(*list, n.value) {
		if len(*list) >= maxEnforce {
			return false
		}
		*list = append(*list, n.value)
	}
	return true
}

// names reports a statement that names the native rule's command (its
// words in order, as a code span or as text) or its glob.
func names(text string, n nativeRule) bool {
	t := " " + strings.Join(strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return unicode.IsSpace(r) || r == '`' || r == '"' || r == '\'' || r == ',' || r == '(' || r == ')'
	}), " ") + " "
	return strings.Contains(t, " "+strings.ToLower(n.words())+" ")
}

func nativeStatement(n nativeRule) string {
	v := "`" + strings.ReplaceAll(n.value, "`", "") + "`"
	switch n.verdict {
	case forbid:
		return "Do not run " + v + "."
	case ask:
		return "Ask the person before you run " + v + "."
	case noRead:
		return "Do not read " + v + "."
	}
	return "Do not edit " + v + "."
}

// build dedupes, names and validates what was read, and writes the YAML.
func (r *Result) build(base schema.Document) error {
	if base.SchemaVersion == 0 {
		base.SchemaVersion = schema.CurrentVersion
	}
	if base.Project.ID == "" {
		base.Project.ID = "project"
	}
	rules := r.dedupe()
	cmds := r.dedupeCommands()
	stack := r.dedupeItems(r.stack)
	overview := r.overviewText()
	// The schema's bounds on each list: what is beyond them is reported.
	stack = bound(r, stack, maxStack, "stack entries", func(s item) (string, Pos) { return s.text, s.at[0] })
	cmds = bound(r, cmds, maxCommands, "commands", func(c *command) (string, Pos) { return c.run, c.at[0] })
	n := 0
	rules = filter(rules, func(_ int, g *rule) bool {
		if g.severity != "" {
			return true
		}
		if n++; n <= maxConventions {
			return true
		}
		r.lose(g.at[0], "convention", fmt.Sprintf("bridle.yaml holds at most %d conventions", maxConventions), g.text)
		return false
	})
	for round := 0; ; round++ {
		doc := base
		doc.Project.Overview, doc.Project.Stack, doc.Project.Commands, doc.Project.Conventions = overview.text, nil, nil, nil
		doc.Guardrails = nil
		for _, s := range stack {
			doc.Project.Stack = append(doc.Project.Stack, oneLineSafe(s.text))
		}
		for _, c := range cmds {
			doc.Project.Commands = append(doc.Project.Commands, schema.Command{Name: c.name, Run: c.run})
		}
		var guardrails, conventions []*rule
		for _, g := range rules {
			if g.severity == "" {
				conventions = append(conventions, g)
				doc.Project.Conventions = append(doc.Project.Conventions, schema.Convention{ID: g.id, Statement: oneLineSafe(g.text)})
				continue
			}
			guardrails = append(guardrails, g)
			doc.Guardrails = append(doc.Guardrails, schema.Guardrail{ID: g.id, Statement: oneLineSafe(g.text), Severity: g.severity,
				Enforce: g.enforce, Provenance: schema.Provenance{Source: schema.SourceUser}})
		}
		y, err := marshal(doc, overview, stack, cmds, conventions, guardrails, r.Files)
		if err != nil {
			return err
		}
		if len(y) > schema.MaxSize {
			return fmt.Errorf("import: the rules would be %d bytes: %w (bridle.yaml holds at most %d MiB; import fewer files with --from)", len(y), ErrTooLarge, schema.MaxSize>>20)
		}
		_, diags := schema.Load("bridle.yaml", y)
		bad := map[string]string{}
		for _, d := range diags {
			if d.Level == schema.Error {
				if _, seen := bad[itemPath(d.Path)]; !seen {
					bad[itemPath(d.Path)] = d.Message
				}
			}
		}
		if len(bad) == 0 {
			r.Document, r.YAML = doc, y
			return nil
		}
		if round == 3 {
			return fmt.Errorf("import: the imported rules do not validate (a bug): %s", diags.Error())
		}
		// Drop what the validator refuses, into the loss report.
		keep := func(kind string, i int, text string, at []Pos) bool {
			msg, refused := bad[kind+"["+strconv.Itoa(i)+"]"]
			if refused {
				r.lose(at[0], "refused", "the schema refuses it: "+msg, text)
			}
			return !refused
		}
		stack = filter(stack, func(i int, s item) bool { return keep("project.stack", i, s.text, s.at) })
		cmds = filter(cmds, func(i int, c *command) bool {
			return keep("project.commands", i, c.run, c.at)
		})
		ci, gi := 0, 0
		rules = filter(rules, func(_ int, g *rule) bool {
			if g.severity == "" {
				ci++
				return keep("project.conventions", ci-1, g.text, g.at)
			}
			gi++
			return keep("guardrails", gi-1, g.text, g.at)
		})
		if msg, refused := bad["project.overview"]; refused {
			for _, it := range overview.items {
				r.lose(it.at[0], "refused", "the schema refuses the overview: "+msg, it.text)
			}
			overview = overviewDoc{}
		}
		if len(bad) > 0 && !anyItem(bad) {
			return fmt.Errorf("import: the imported rules do not validate (a bug): %s", diags.Error())
		}
	}
}

// The schema's bounds on the lists an import fills.
const (
	maxStack       = 200
	maxCommands    = 100
	maxConventions = 1000
	maxEnforce     = 50 // entries of one enforce list
)

// bound keeps the first max of xs and reports the rest.
func bound[T any](r *Result, xs []T, max int, what string, show func(T) (string, Pos)) []T {
	if len(xs) <= max {
		return xs
	}
	for _, x := range xs[max:] {
		text, at := show(x)
		r.lose(at, what, fmt.Sprintf("bridle.yaml holds at most %d %s", max, what), text)
	}
	return xs[:max]
}

func anyItem(bad map[string]string) bool {
	for k := range bad {
		if strings.HasPrefix(k, "project.stack[") || strings.HasPrefix(k, "project.commands[") ||
			strings.HasPrefix(k, "project.conventions[") || strings.HasPrefix(k, "guardrails[") || k == "project.overview" {
			return true
		}
	}
	return false
}

func filter[T any](xs []T, keep func(int, T) bool) []T {
	var out []T
	for i, x := range xs {
		if keep(i, x) {
			out = append(out, x)
		}
	}
	return out
}

// itemPath is the item a diagnostic's path is in: guardrails[3] for
// guardrails[3].enforce.commands.forbid[0].
func itemPath(p string) string {
	for _, prefix := range []string{"project.stack[", "project.commands[", "project.conventions[", "guardrails["} {
		if strings.HasPrefix(p, prefix) {
			if i := strings.IndexByte(p[len(prefix):], ']'); i >= 0 {
				return p[:len(prefix)+i+1]
			}
		}
	}
	if strings.HasPrefix(p, "project.overview") {
		return "project.overview"
	}
	return p
}

// dedupe merges rules with the same key (the stronger severity wins, the
// places add up), reports rules with the same subject and opposite
// polarity as conflicts (both kept), and gives ids.
func (r *Result) dedupe() []*rule {
	var out []*rule
	byKey := map[string]*rule{}
	bySubject := map[string]*rule{}
	for _, g := range r.rules {
		if first, ok := byKey[g.key]; ok && g.subject != "" {
			r.Merged++
			first.at = append(first.at, g.at...)
			if g.severity != "" && (first.severity == "" || g.severity.Rank() < first.severity.Rank()) {
				first.severity = g.severity
			}
			first.enforce = mergeEnforce(first.enforce, g.enforce)
			continue
		}
		head := subjectHead(g.subject)
		if other, ok := bySubject[head]; ok && head != "" && other.negative != g.negative {
			r.Conflicts = append(r.Conflicts, Conflict{Kind: "guardrail", First: other.at[0], A: other.text, Second: g.at[0], B: g.text})
		} else if !ok {
			bySubject[head] = g
		}
		byKey[g.key] = g
		out = append(out, g)
	}
	taken := map[string]bool{}
	for _, g := range out {
		g.id = unique(ruleID(g), taken)
	}
	for i := range r.Conflicts {
		for _, g := range out {
			if g.at[0] == r.Conflicts[i].First {
				r.Conflicts[i].Subject = g.id
			}
		}
	}
	return out
}

// subjectHead is what a statement and its opposite share: the first
// conflictWords content words ("Always use remote modules pinned to a
// version" and "Never use remote modules pinned to a version; vendor
// them"), or all of them when there are fewer, but at least two.
func subjectHead(subject string) string {
	f := strings.Fields(subject)
	if len(f) < 2 {
		return ""
	}
	return strings.Join(f[:min(len(f), conflictWords)], " ")
}

const conflictWords = 4

func mergeEnforce(a, b schema.Enforce) schema.Enforce {
	for _, l := range []struct{ dst, src *[]string }{
		{&a.Commands.Forbid, &b.Commands.Forbid}, {&a.Commands.Ask, &b.Commands.Ask},
		{&a.Paths.NoRead, &b.Paths.NoRead}, {&a.Paths.NoWrite, &b.Paths.NoWrite},
	} {
		for _, v := range *l.src {
			if !slices.Contains(*l.dst, v) {
				*l.dst = append(*l.dst, v)
			}
		}
	}
	return a
}

// dedupeCommands keeps each command line once; two lines with the same
// name from different files are a conflict (both kept, the second named
// name-2).
func (r *Result) dedupeCommands() []*command {
	var out []*command
	byRun := map[string]*command{}
	byName := map[string]*command{}
	taken := map[string]bool{}
	for _, c := range r.commands {
		run := strings.Join(strings.Fields(c.run), " ")
		if first, ok := byRun[run]; ok {
			first.at = append(first.at, c.at...)
			r.Merged++
			continue
		}
		if first, ok := byName[c.name]; ok && first.at[0].File != c.at[0].File {
			r.Conflicts = append(r.Conflicts, Conflict{Kind: "command", Subject: c.name, First: first.at[0], A: first.run, Second: c.at[0], B: c.run})
		} else if !ok {
			byName[c.name] = c
		}
		c.name = unique(c.name, taken)
		byRun[run] = c
		out = append(out, c)
	}
	return out
}

func (r *Result) dedupeItems(items []item) []item {
	var out []item
	seen := map[string]int{}
	for _, it := range items {
		k := strings.Join(words(it.text), " ")
		if i, ok := seen[k]; ok {
			out[i].at = append(out[i].at, it.at...)
			r.Merged++
			continue
		}
		seen[k] = len(out)
		out = append(out, it)
	}
	return out
}

// overviewDoc is the overview and the items it holds.
type overviewDoc struct {
	text  string
	items []item
}

// overviewText joins the prose (paragraphs without rules, tables, quotes,
// examples) in file order, each made safe as prose, once each, up to the
// schema's bound; what does not fit is reported.
func (r *Result) overviewText() overviewDoc {
	var o overviewDoc
	var parts []string
	n := 0
	for _, it := range r.dedupeItems(r.overview) {
		t := strings.TrimSpace(it.text)
		if t == "" {
			continue
		}
		t = mdsafe.Prose(t) // unchanged unless it holds what prose may not

		if n+len(t)+2 > maxOverview {
			r.lose(it.at[0], "overview", fmt.Sprintf("the overview holds at most %d characters; this prose did not fit", maxOverview), it.text)
			continue
		}
		n += len(t) + 2
		parts = append(parts, t)
		o.items = append(o.items, it)
	}
	o.text = strings.Join(parts, "\n\n")
	if o.text != "" {
		o.text += "\n"
	}
	return o
}
