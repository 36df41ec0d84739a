package adopt

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bridle-dev/bridle/internal/mdsafe"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

// Limits on what Import reads.
const (
	MaxFileSize  = 2 << 20 // bytes of one file
	MaxTotalSize = 8 << 20 // bytes of all files
	MaxFiles     = 256
	maxStatement = 1000 // runes: the schema's bound on a statement
	maxOverview  = 20000
	maxID        = 60
)

// Errors of Import, matched with errors.Is.
var (
	// ErrTooLarge: a file, or all of them, beyond the limits above.
	ErrTooLarge = errors.New("too large")
	// ErrBinary: a file that is not text (it holds NUL bytes).
	ErrBinary = errors.New("not text")
	// ErrSecret wraps redact.ErrSecret: a file holds a credential, which
	// is never copied into the rules; the error names its file:line only.
	ErrSecret = redact.ErrSecret
)

// File is one file of the project, by slash path from the project root.
type File struct {
	Path string
	Data []byte
}

// Pos is where something came from: a file and a 1-based line.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (p Pos) String() string { return p.File + ":" + strconv.Itoa(p.Line) }

// Loss is something a file held that bridle.yaml does not carry, with its
// original text (none for what could hold a secret, such as an MCP
// server's entry).
type Loss struct {
	At   Pos    `json:"at"`
	What string `json:"what"`
	Why  string `json:"why"`
	Text string `json:"text,omitempty"`
}

// Conflict is two statements the files disagree on: both are kept, for a
// person to settle with a proposal.
type Conflict struct {
	Subject string `json:"subject"` // the guardrail or command id
	Kind    string `json:"kind"`    // guardrail or command
	First   Pos    `json:"first"`
	A       string `json:"a"`
	Second  Pos    `json:"second"`
	B       string `json:"b"`
}

// Options are Import's settings.
type Options struct {
	// Base is the document the import fills: its project id and name,
	// agent profiles and permissions are kept (bridle init's for
	// AgentsFor's agents); its project overview, stack, commands,
	// conventions and guardrails are replaced.
	Base schema.Document
	// Secret refuses text holding a credential (redact.Redactor.Check); nil
	// checks passwords only (redact.MaskCredentials). Well-known token
	// shapes are refused either way.
	Secret func(field, text string) error
	// Links are agent files that are links out of the project (Find's
	// second result): not read, each reported as a loss.
	Links []string
}

// Result is an import: the document, its YAML and what was not carried.
type Result struct {
	Document schema.Document `json:"-"`
	// YAML is bridle.yaml: the document with, above each item, the
	// file:line it came from.
	YAML      []byte     `json:"-"`
	Files     []string   `json:"files"`
	Lost      []Loss     `json:"lost"`
	Conflicts []Conflict `json:"conflicts"`
	// Merged counts statements found again in another place (the same
	// normalised words): each is one item, with every place listed.
	Merged int `json:"merged"`
	// Skipped are files that are already Bridle's renders.
	Skipped []string `json:"skipped,omitempty"`
	// Instructions are the instruction files whose text was carried over
	// (Files less the settings, native rules and files not carried).
	Instructions []string `json:"instructions"`

	secret   func(string) bool // text holding a credential, never copied into the report
	rules    []*rule
	commands []*command
	stack    []item
	overview []item
}

// item is a piece of text and where it came from.
type item struct {
	text string
	at   []Pos
}

// rule is a guardrail (severity set) or a convention (severity "").
type rule struct {
	item
	severity schema.Severity
	key      string // normalised words, polarity included: duplicates share it
	subject  string // key without the mood and negation: conflicts share it
	negative bool
	enforce  schema.Enforce
	id       string
}

type command struct {
	name, run string
	at        []Pos
}

func (r *Result) lose(at Pos, what, why, text string) {
	if r.secret != nil && r.secret(text) {
		text = "(withheld: it holds a credential)"
	}
	r.Lost = append(r.Lost, Loss{At: at, What: what, Why: why, Text: text})
}

// Import turns the project's agent files into a document and a loss
// report. files are read in path order, whatever order they come in.
func Import(files []File, o Options) (*Result, error) {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	if len(files) > MaxFiles {
		return nil, fmt.Errorf("import: %d files: %w (at most %d)", len(files), ErrTooLarge, MaxFiles)
	}
	total := 0
	var errs []error
	for _, f := range files {
		total += len(f.Data)
		switch {
		case len(f.Data) > MaxFileSize:
			errs = append(errs, fmt.Errorf("import %s: %d bytes: %w (at most %d MiB a file; leave it out with --from)", f.Path, len(f.Data), ErrTooLarge, MaxFileSize>>20))
		case bytes.IndexByte(f.Data, 0) >= 0:
			errs = append(errs, fmt.Errorf("import %s: %w: it holds NUL bytes (leave it out with --from)", f.Path, ErrBinary))
		}
	}
	if total > MaxTotalSize {
		errs = append(errs, fmt.Errorf("import: %d bytes in all: %w (at most %d MiB)", total, ErrTooLarge, MaxTotalSize>>20))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, f := range files {
		if textual(f.Path) {
			errs = append(errs, secrets(f, o.Secret)...)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r := &Result{secret: func(s string) bool { return len(secrets(File{Data: []byte(s)}, o.Secret)) > 0 }}
	var natives []nativeRule
	for _, f := range files {
		r.Files = append(r.Files, f.Path)
		switch readerOf(f.Path) {
		case readClaude:
			natives = append(natives, claudeSettings(f, r)...)
		case readCodex:
			natives = append(natives, codexRules(f, r)...)
		case readOpenCode:
			natives = append(natives, opencodePermission(f, r)...)
			mcpServers(f, r)
		case readMCP:
			mcpServers(f, r)
		case readListing:
			r.lose(Pos{f.Path, 1}, "not carried", listingWhy(f.Path), string(f.Data))
		default:
			r.markdown(f)
		}
	}
	links := slices.Clone(o.Links)
	slices.Sort(links)
	for _, p := range slices.Compact(links) {
		r.lose(Pos{p, 1}, "link", "a link out of the project, not read: Bridle reads only the project's own files (copy what it says into the project to import it)", "")
	}
	r.attach(natives)
	if err := r.build(o.Base); err != nil {
		return nil, err
	}
	return r, nil
}

// markdown reads one instruction file.
func (r *Result) markdown(f File) {
	s := strings.ToValidUTF8(string(f.Data), "\uFFFD")
	s = strings.TrimPrefix(s, "\uFEFF")
	if strings.ContainsRune(s, '\r') { // CRLF (and CR) line endings: lines as markdown reads them
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	if strings.HasPrefix(s, renderers.HeaderStart) {
		r.Skipped = append(r.Skipped, f.Path)
		return
	}
	r.Instructions = append(r.Instructions, f.Path)
	if !utf8.Valid(f.Data) {
		r.lose(Pos{f.Path, 1}, "invalid UTF-8", "bytes that are not UTF-8 were read as U+FFFD", "")
	}
	offset := 0
	if body := renderers.StripFrontMatter(s); body != s && strings.HasPrefix(strings.TrimLeft(body, "\n"), renderers.HeaderStart) {
		r.Skipped = append(r.Skipped, f.Path) // a render with its harness's front matter (.cursor/rules/bridle.mdc)
		r.Instructions = r.Instructions[:len(r.Instructions)-1]
		return
	}
	if body := renderers.StripFrontMatter(s); body != s {
		fm := s[:len(s)-len(body)]
		offset = strings.Count(fm, "\n")
		if why := scoped(fm); why != "" {
			r.lose(Pos{f.Path, 1}, "scope", why+"; Bridle delivers the full document to every agent by design, so these rules now apply everywhere", strings.TrimSpace(fm))
		}
		s = body
	}
	if dir := nestedDir(f.Path); dir != "" {
		r.lose(Pos{f.Path, 1}, "scope", "a file in "+dir+"/ applies to that directory only; Bridle delivers the full document to every agent by design, so its rules now apply everywhere", "")
	}
	units := parse([]byte(s))
	var prev string // the text before a code block names its commands
	for _, u := range units {
		at := Pos{f.Path, u.line + offset}
		switch u.kind {
		case paragraph:
			r.imports(at, u.text)
			r.paragraph(at, u)
			prev = u.text
		case listItem:
			r.imports(at, u.text)
			r.item(at, u)
			prev = u.text
		case code:
			r.codeBlock(at, u, prev)
		case prose:
			r.overview = append(r.overview, item{text: u.text, at: []Pos{at}})
		case html:
			r.lose(at, "HTML", "rules text may not hold HTML (agents would read what a person reading the render does not see)", u.text)
		case deep:
			r.lose(at, "nesting", fmt.Sprintf("nested deeper than %d lists or quotes", maxDepth), u.text)
		}
	}
}

// scoped says how front matter limits where a rule applies, or "".
func scoped(fm string) string {
	for _, line := range strings.Split(fm, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch strings.TrimSpace(k) {
		case "globs", "paths":
			if v != "" {
				return "scoped by globs (" + v + ")"
			}
		case "applyTo":
			if v != "" && v != "**" && v != "**/*" {
				return "scoped by applyTo (" + v + ")"
			}
		case "alwaysApply":
			if v == "false" {
				return "applied only when the agent chooses it (alwaysApply: false)"
			}
		case "trigger":
			if v != "" && v != "always_on" {
				return "applied only on trigger " + v
			}
		}
	}
	return ""
}

// imports reports CLAUDE.md's @path imports, which Bridle does not follow.
//
// An import names a file: @README.md, @docs/setup.md, @~/.claude/x.md,
// @./notes. A scoped package (@types/node), a handle (@mira) and anything
// in a code span are not imports.
func (r *Result) imports(at Pos, text string) {
	if strings.IndexByte(text, '@') < 0 {
		return
	}
	for _, w := range strings.Fields(text) {
		if strings.Contains(w, "`") {
			continue
		}
		w = strings.TrimRight(strings.TrimLeft(w, "*_(\\"), "*_,;:.)!?")
		if len(w) < 2 || w[0] != '@' || strings.Contains(w[1:], "@") {
			continue
		}
		last := w[strings.LastIndexByte(w, '/')+1:]
		if strings.HasPrefix(w, "@~/") || strings.HasPrefix(w, "@./") || strings.HasPrefix(w, "@../") || strings.Contains(last, ".") {
			r.lose(at, "import", "an @ import: the harness reads the named file into this one; Bridle does not follow imports (import that file too, with --from)", w)
		}
	}
}

func (r *Result) paragraph(at Pos, u unit) {
	var rest []string
	for _, s := range sentences(u.text) {
		var spans []string
		for _, sp := range u.spans {
			if strings.Contains(s, sp) {
				spans = append(spans, sp)
			}
		}
		sev, ok := mood(s)
		r.spanCommands(at, unit{kind: paragraph, text: s, spans: spans, section: u.section}, ok)
		if ok && utf8.RuneCountInString(s) <= maxStatement {
			r.addRule(at, s, sev)
			continue
		}
		rest = append(rest, s) // prose, or a rule too long for a statement: kept in the overview
	}
	if len(rest) > 0 {
		r.overview = append(r.overview, item{text: strings.Join(rest, " "), at: []Pos{at}})
	}
}

func (r *Result) item(at Pos, u unit) {
	if u.text == "" {
		return
	}
	sev, isRule := mood(u.text)
	if r.spanCommands(at, u, isRule) {
		return // a command and its label
	}
	switch {
	case !isRule && stackSection(u.section) && len(strings.Fields(u.text)) <= 8:
		r.stack = append(r.stack, item{text: u.text, at: []Pos{at}})
	case utf8.RuneCountInString(u.text) > maxStatement:
		r.overview = append(r.overview, item{text: u.text, at: []Pos{at}})
	case isRule:
		r.addRule(at, u.text, sev)
	default:
		r.addRule(at, u.text, "")
	}
}

// mood is the severity the text's strongest instruction word gives, the
// words outside code spans read: must, must not, never, always and do not
// (don't) make a hard-instruction; should, prefer and avoid guidance. A
// question is no rule. The project's own file is taken at its word: "It
// must be fast" is a rule here, where feed, reading a vendor's prose,
// would call it description.
func mood(s string) (schema.Severity, bool) {
	t := strings.TrimSpace(s)
	if strings.HasSuffix(strings.TrimRight(t, `"')*_`), "?") {
		return "", false
	}
	// Clauses, code spans blanked: a keyword counts where an instruction
	// starts ("Never x", "If y, never x", "x; never y", "and always z"),
	// after you or a modal ("you must", "you should never"); must and
	// should count anywhere ("Handlers must validate"). "The main branch
	// is always deployable" and "a retry never sends twice" describe.
	var plain strings.Builder
	ticks := false
	for _, c := range t {
		switch {
		case c == '`':
			ticks = !ticks
		case ticks:
		case strings.ContainsRune(",;:()[]—–!.", c):
			plain.WriteString(" | ")
		default:
			plain.WriteRune(c)
		}
	}
	text := strings.ToLower(plain.String())
	if strings.ContainsAny(text, "'’") {
		text = contractions().Replace(text)
	}
	ws := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '|' })
	opens := func(i int) bool {
		if i == 0 {
			return true
		}
		switch ws[i-1] {
		case "|", "you", "and", "but", "or", "then", "so", "please", "also", "must", "should", "to", "will", "always", "never":
			return true
		}
		return false
	}
	sev, found := schema.Guidance, false
	for i, w := range ws {
		switch w {
		case "must":
			return schema.HardInstruction, true
		case "never", "always":
			if opens(i) {
				return schema.HardInstruction, true
			}
		case "do":
			if i+1 < len(ws) && ws[i+1] == "not" && opens(i) {
				return schema.HardInstruction, true
			}
		case "should":
			found = true
		case "prefer", "avoid":
			found = found || opens(i)
		}
	}
	return sev, found
}

func stackSection(section []string) bool {
	for _, h := range section {
		for _, w := range strings.Fields(strings.ToLower(h)) {
			switch strings.Trim(w, ":,.()&") {
			case "stack", "technologies", "technology", "tech", "languages", "frameworks", "dependencies", "tooling":
				return true
			}
		}
	}
	return false
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// sentences splits text after . ! or ? followed by a space and an upper
// case letter, a digit, a quote or a backtick; never inside a code span.
func sentences(text string) []string {
	var out []string
	start, ticks := 0, 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '`' {
			n := 1
			for i+n < len(text) && text[i+n] == '`' {
				n++
			}
			switch ticks {
			case 0:
				ticks = n
			case n:
				ticks = 0
			}
			i += n - 1
			continue
		}
		if ticks > 0 || c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(text) && strings.IndexByte(`"')]*_`, text[j]) >= 0 {
			j++
		}
		if j >= len(text) || text[j] != ' ' {
			continue
		}
		next, _ := utf8.DecodeRuneInString(text[j+1:])
		if !unicode.IsUpper(next) && !unicode.IsDigit(next) && !strings.ContainsRune("\"'`*_([", next) {
			continue
		}
		w := strings.ToLower(text[strings.LastIndexAny(text[:i], " (")+1 : i])
		if w == "e.g" || w == "i.e" || w == "vs" || w == "etc" || w == "cf" {
			continue
		}
		out = append(out, strings.TrimSpace(text[start:j]))
		start = j + 1
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func (r *Result) addRule(at Pos, text string, sev schema.Severity) {
	key, subject, neg := normalise(text)
	r.rules = append(r.rules, &rule{item: item{text: oneLine(text), at: []Pos{at}}, severity: sev, key: key, subject: subject, negative: neg})
}

// secrets refuses every line of f holding a credential, naming file:line.
func secrets(f File, check func(field, text string) error) []error {
	var errs []error
	s := strings.ToValidUTF8(string(f.Data), "\uFFFD")
	// One pass over the whole text first; lines are looked at only when
	// it holds something, to name the line.
	clean := len(redact.Tokens(s)) == 0
	if clean && check != nil {
		clean = check("", s) == nil
	} else if clean {
		_, found := redact.MaskCredentials(s)
		clean = !found
	}
	if clean {
		return nil
	}
	for i, line := range strings.Split(s, "\n") {
		at := Pos{f.Path, i + 1}
		if ts := redact.Tokens(line); len(ts) > 0 {
			errs = append(errs, fmt.Errorf("import %s: %w: %s; remove it from the file (and revoke it), then import again", at, ErrSecret, ts[0].What))
			continue
		}
		var err error
		if check != nil {
			err = check(at.String(), line)
		} else if _, found := redact.MaskCredentials(line); found {
			err = fmt.Errorf("%s %w: a password (in a URL's user:password@ or a connection string)", at, redact.ErrSecret)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("import: %w; remove it from the file, then import again", err))
		}
	}
	return errs
}

// oneLineSafe is text made a one-line field the schema accepts.
//
// The schema refuses a one-line field that starts with # (a YAML comment
// to the eye) even where markdown reads no heading ("#x"): it is escaped.
func oneLineSafe(s string) string {
	l := mdsafe.Line(oneLine(s))
	if strings.HasPrefix(l, "#") {
		l = `\` + l
	}
	return l
}
