package schema

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/internal/mdsafe"
)

// Limits that keep Load bounded on hostile input.
const (
	// MaxSize is the largest rules document accepted, in bytes. A document
	// with 1,000 guardrails is about 300 KB.
	MaxSize = 2 << 20
	// MaxDepth is the deepest nesting of mappings and sequences accepted.
	MaxDepth = 64
	// MaxNodes bounds the number of values in a document, aliases expanded.
	MaxNodes = 200_000
	// MaxAliased bounds the values reached through aliases, which defuses
	// "billion laughs" documents; sharing a list or a mapping is far below it.
	MaxAliased = 10_000
	// MaxKeys bounds the keys of one mapping; the largest a rules document
	// needs (agent_profiles, permissions) hold one per agent.
	MaxKeys = 1000
)

// Pos is a 1-based line and column in a source file.
type Pos struct {
	Line int
	Col  int
}

// File is a decoded rules document with the source position of every value.
type File struct {
	Name string   // file name used in diagnostics, e.g. bridle.yaml
	Doc  Document // the typed document; zero when decoding failed

	value any        // generic JSON-like value, for JSON Schema validation
	root  *yaml.Node // the document's top mapping; positions are looked up in it on demand
	src   []byte     // the document's text, for positions inside values

	mu   sync.Mutex                    // guards keys
	keys map[*yaml.Node]map[string]int // large mappings' keys, indexed for lookups

	decodeErr Diagnostic // a typed-decoding failure, if any (Message is empty when none)
	partial   bool       // decodeErr was a type mismatch; Doc holds everything else
}

// Pos returns the position of the value at path (e.g. "guardrails[2].severity"),
// falling back to its nearest known ancestor, then to 1:1.
func (f *File) Pos(path string) Pos {
	_, v := f.lookup(path)
	if v == nil {
		return Pos{1, 1}
	}
	return Pos{v.Line, v.Column}
}

// KeyPos returns the position of the mapping key for path, or of the value
// when there is no key (sequence items, the root).
func (f *File) KeyPos(path string) Pos {
	k, v := f.lookup(path)
	switch {
	case k != nil:
		return Pos{k.Line, k.Column}
	case v != nil:
		return Pos{v.Line, v.Column}
	}
	return Pos{1, 1}
}

// textPos is the position in the file of a line and column inside the text
// of the value at path: exact for a literal block scalar (|), whose lines
// stand as written, and the value's own position otherwise.
func (f *File) textPos(path, text string, line, col int) Pos {
	_, v := f.lookup(path)
	v = deref(v)
	if v == nil {
		return Pos{1, 1}
	}
	at := Pos{v.Line, v.Column}
	if v.Style&yaml.LiteralStyle == 0 || f.src == nil {
		return at
	}
	lines := strings.Split(text, "\n")
	start, ok := offsetOf(f.src, Pos{v.Line + line, 1})
	if !ok || line < 1 || line > len(lines) {
		return at
	}
	end := bytes.IndexByte(f.src[start:], '\n')
	if end < 0 {
		end = len(f.src) - start
	}
	src := string(f.src[start : start+end])
	if !strings.HasSuffix(src, lines[line-1]) {
		return at
	}
	return Pos{v.Line + line, utf8.RuneCountInString(src) - utf8.RuneCountInString(lines[line-1]) + col}
}

// lookup walks the node tree along path and returns the key and value nodes
// of the deepest element it reaches. Positions are looked up only when a
// diagnostic needs one, so valid documents pay nothing for them.
func (f *File) lookup(path string) (key, val *yaml.Node) {
	val = f.root
	for _, tok := range splitPath(path) {
		val = deref(val)
		if val == nil {
			return key, nil
		}
		var k, v *yaml.Node
		switch {
		case tok.key != "" || !tok.index:
			k, v = f.findKey(val, tok.key)
		case val.Kind == yaml.SequenceNode && tok.i < len(val.Content):
			v = val.Content[tok.i]
		}
		if v == nil {
			return key, val
		}
		key, val = k, v
	}
	return key, val
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// indexFrom is the size from which a mapping's keys are indexed for
// lookups: a document with thousands of unknown keys or agents asks for the
// position of each, and scanning the mapping every time is quadratic.
const indexFrom = 32

// findKey is findKey with an index of large mappings' own keys, built on
// the first lookup and shared by the goroutines of Validate.
func (f *File) findKey(m *yaml.Node, key string) (k, v *yaml.Node) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode || len(m.Content) < 2*indexFrom {
		return findKey(m, key, 0)
	}
	f.mu.Lock()
	idx, ok := f.keys[m]
	if !ok {
		idx = map[string]int{}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if kn := m.Content[i]; kn.Kind == yaml.ScalarNode && kn.ShortTag() != "!!merge" {
				idx[kn.Value] = i // the last occurrence, as findKey returns
			}
		}
		if f.keys == nil {
			f.keys = map[*yaml.Node]map[string]int{}
		}
		f.keys[m] = idx
	}
	f.mu.Unlock()
	if i, ok := idx[key]; ok {
		return m.Content[i], m.Content[i+1]
	}
	return findKey(m, key, 0) // through the merges
}

// findKey finds key in a mapping, looking into "<<" merges too; for a
// duplicated key it returns the second occurrence.
func findKey(m *yaml.Node, key string, depth int) (k, v *yaml.Node) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode || depth > 10 {
		return nil, nil
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn := m.Content[i]
		if kn.Kind == yaml.ScalarNode && kn.ShortTag() == "!!merge" {
			merges = append(merges, m.Content[i+1])
			continue
		}
		if kn.Kind == yaml.ScalarNode && kn.Value == key {
			k, v = kn, m.Content[i+1]
		}
	}
	if k != nil {
		return k, v
	}
	for _, mg := range merges {
		mg = deref(mg)
		if mg != nil && mg.Kind == yaml.SequenceNode {
			for _, c := range mg.Content {
				if k, v := findKey(c, key, depth+1); k != nil {
					return k, v
				}
			}
		} else if k, v := findKey(mg, key, depth+1); k != nil {
			return k, v
		}
	}
	return nil, nil
}

type pathTok struct {
	key   string
	index bool
	i     int
}

// splitPath is the inverse of JoinKey and JoinIndex.
func splitPath(p string) []pathTok {
	var toks []pathTok
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if len(p) > 1 && p[1] == '"' {
				// a quoted key: find the closing quote, honouring escapes
				for j := 2; j < len(p); j++ {
					if p[j] == '\\' {
						j++
						continue
					}
					if p[j] == '"' {
						if k, err := strconv.Unquote(p[1 : j+1]); err == nil {
							toks = append(toks, pathTok{key: k})
						}
						end = j + 1
						break
					}
				}
			} else if i, err := strconv.Atoi(p[1:max(end, 1)]); err == nil {
				toks = append(toks, pathTok{index: true, i: i})
			}
			if end < 0 {
				return toks
			}
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			toks = append(toks, pathTok{key: p[:end]})
			p = p[end:]
		}
	}
	return toks
}

// isIdent reports whether key can be written bare in a path (a.b), rather
// than quoted (a["b c"]).
func isIdent(key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return true
}

// JoinKey appends a mapping key to a path.
func JoinKey(path, key string) string {
	if !isIdent(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// JoinIndex appends a sequence index to a path.
func JoinIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// Parse decodes data as a rules document named name. It checks YAML syntax,
// encoding, size, nesting, duplicate keys and schema_version, and returns the
// file together with every problem found. The file is nil when nothing usable
// could be decoded. Parse does not run the schema or semantic checks: Load does.
func Parse(name string, data []byte) (*File, Diagnostics) {
	f := &File{Name: name}
	diag := func(p Pos, path, msg, fix string) Diagnostics {
		return Diagnostics{{File: name, Line: p.Line, Col: p.Col, Level: Error, Path: path, Message: msg, Fix: fix}}
	}
	if len(data) > MaxSize {
		return nil, diag(Pos{1, 1}, "", fmt.Sprintf("file is %d bytes, larger than the %d-byte limit", len(data), MaxSize),
			"split prose into shorter statements or move long text out of the rules document")
	}
	if p, r, ok := badBytes(data); !ok {
		if r == utf8.RuneError {
			return nil, diag(p, "", "file is not valid UTF-8", "save the file as UTF-8")
		}
		return nil, diag(p, "", "file holds "+mdsafe.CharName(r)+", which YAML does not allow in a file",
			"remove the character (your editor may not show it); to mean it inside a value, write it as an escape in a double-quoted string")
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil, diag(Pos{1, 1}, "", "file is empty", "start from `bridle init` or add at least schema_version: 1 and project.id")
	}

	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var root yaml.Node
	if err := dec.Decode(&root); errors.Is(err, io.EOF) {
		return nil, diag(Pos{1, 1}, "", "file is empty", "start from `bridle init` or add at least schema_version: 1 and project.id")
	} else if err != nil {
		return nil, Diagnostics{yamlError(name, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, diag(Pos{extra.Line, extra.Column}, "", "file holds more than one YAML document",
			"keep the whole rules document in one YAML document (remove the second ---)")
	} else if !errors.Is(err, io.EOF) {
		return nil, Diagnostics{yamlError(name, err)}
	}

	body := &root
	if body.Kind == yaml.DocumentNode {
		if len(body.Content) == 0 {
			return nil, diag(Pos{1, 1}, "", "file is empty", "add at least schema_version: 1 and project.id")
		}
		body = body.Content[0]
	}
	if body.Kind != yaml.MappingNode {
		return nil, diag(Pos{body.Line, body.Column}, "", "the document must be a mapping of keys such as schema_version and project",
			"start from `bridle init`")
	}

	if ds := checkGraph(name, body); ds != nil {
		return nil, ds
	}
	f.root, f.src = body, data
	// Typed decoding only reads the node tree, so it runs beside the walk.
	// go-yaml bounds alias expansion itself ("excessive aliasing"); the
	// walk's stricter limits decide whether the result is used.
	decoded := make(chan struct{})
	go func() { defer close(decoded); f.decode() }()
	w := walker{f: f, src: data, budget: MaxNodes, alias: MaxAliased}
	v := w.walk(body, nil, 0)
	<-decoded
	if w.stop {
		return nil, w.diags.Sort().Limit(MaxDiagnostics)
	}
	f.value = v

	if ds := checkVersion(f, v); ds != nil {
		return nil, ds
	}
	if len(w.diags) > 0 {
		f.decodeErr, f.partial = w.diags[0], false
	}
	return f, append(w.diags, w.text...).Sort().Limit(MaxDiagnostics)
}

// checkVersion refuses documents without a usable schema_version, or newer
// than this build, before anything else is checked: later rules may not apply.
func checkVersion(f *File, v any) Diagnostics {
	m, _ := v.(map[string]any)
	raw, ok := m["schema_version"]
	if !ok {
		return nil // the schema pass reports it as missing
	}
	n, ok := raw.(int64)
	if !ok {
		return nil // the schema pass reports the type
	}
	if n > CurrentVersion {
		p := f.Pos("schema_version")
		return Diagnostics{{File: f.Name, Line: p.Line, Col: p.Col, Level: Error, Path: "schema_version",
			Message: fmt.Sprintf("schema_version %d is newer than this bridle understands (%d)", n, CurrentVersion),
			Fix:     "upgrade bridle (from a newer checkout of Bridle: go install ./cmd/bridle)"}}
	}
	return nil
}

var lineRe = lazyregexp.New(`line (\d+)`)

// yamlError turns a go-yaml error into a positioned diagnostic.
func yamlError(name string, err error) Diagnostic {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := lineRe.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(strings.Replace(msg, m[0]+": ", "", 1), m[0])
	}
	msg = shortenQuoted(strings.TrimSpace(strings.ReplaceAll(msg, "\n", "; ")))
	return Diagnostic{File: name, Line: line, Col: 1, Level: Error, Message: "invalid YAML: " + msg,
		Fix: "fix the YAML syntax at this line (check indentation, colons and quotes)"}
}

// badBytes finds the first byte sequence that is not UTF-8, or the first
// character YAML refuses in a stream (controls other than tab, line feed and
// carriage return; U+FFFE, U+FFFF), and its position. go-yaml would refuse
// either without one.
func badBytes(data []byte) (Pos, rune, bool) {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return Pos{line, col}, utf8.RuneError, false
		}
		if !yamlPrintable(r) && !(i == 0 && r == '\ufeff') {
			return Pos{line, col}, r, false
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return Pos{}, 0, true
}

// yamlPrintable is YAML 1.2's c-printable, which go-yaml enforces.
func yamlPrintable(r rune) bool {
	return r == 0x09 || r == 0x0a || r == 0x0d || r >= 0x20 && r <= 0x7e || r == 0x85 ||
		r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd || r >= 0x10000 && r <= 0x10ffff
}

// walker converts a YAML node tree to plain values (map[string]any, []any,
// string, int64, float64, bool, nil), recording positions and bounding work.
type walker struct {
	f      *File
	src    []byte      // the document, for the exact position of a refused character
	text   Diagnostics // refused characters: reported, but the document is still checked
	diags  Diagnostics
	budget int
	alias  int  // values left to expand through aliases
	depthA int  // > 0 while walking under an alias
	stop   bool // a fatal limit was hit; nothing more is walked
}

func (w *walker) fatal(n *yaml.Node, msg, fix string) {
	if !w.stop {
		w.diags = append(w.diags, Diagnostic{File: w.f.Name, Line: n.Line, Col: n.Column, Level: Error, Message: msg, Fix: fix})
	}
	w.stop = true
}

// seg is one step of the path to the value being walked; the path string is
// built only when a diagnostic needs it.
type seg struct {
	parent *seg
	key    string
	index  int // -1 for a mapping key
}

func (s *seg) String() string {
	if s == nil {
		return ""
	}
	if s.index >= 0 {
		return JoinIndex(s.parent.String(), s.index)
	}
	return JoinKey(s.parent.String(), s.key)
}

func (w *walker) errorf(n *yaml.Node, path, fix, format string, args ...any) {
	w.diags = append(w.diags, Diagnostic{File: w.f.Name, Line: n.Line, Col: n.Column, Level: Error, Path: path,
		Message: fmt.Sprintf(format, args...), Fix: fix})
}

func (w *walker) walk(n *yaml.Node, path *seg, depth int) any {
	if w.stop {
		return nil
	}
	w.budget--
	if w.depthA > 0 {
		w.alias--
	}
	if w.budget < 0 || w.alias < 0 {
		w.fatal(n, fmt.Sprintf("document expands to too many values (more than %d, or %d through aliases)", MaxNodes, MaxAliased),
			"write the values out instead of nesting anchors and aliases")
		return nil
	}
	if depth > MaxDepth {
		w.fatal(n, fmt.Sprintf("document is nested deeper than %d levels", MaxDepth), "flatten the structure")
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil
		}
		w.depthA++
		defer func() { w.depthA-- }()
		return w.walk(n.Alias, path, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return w.walk(n.Content[0], path, depth)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			out = append(out, w.walk(c, &seg{path, "", i}, depth+1))
		}
		return out
	case yaml.MappingNode:
		return w.mapping(n, path, depth)
	default:
		w.checkText(n, path)
		return scalar(n)
	}
}

// checkText refuses control characters and characters that are invisible or
// reorder the text around them (bidi overrides and isolates, zero-width and
// other format characters) in every string: keys and values alike, so that
// no text field, rendered or not, can disguise what it says.
func (w *walker) checkText(n *yaml.Node, path fmt.Stringer) {
	r, off := mdsafe.FirstBadChar(n.Value, true)
	if off < 0 {
		return
	}
	p := w.rawPos(n, r)
	w.text = append(w.text, Diagnostic{File: w.f.Name, Line: p.Line, Col: p.Col, Level: Error, Path: path.String(),
		Message: fmt.Sprintf("contains %s at character %d; invisible and control characters can disguise what the text says",
			mdsafe.CharName(r), utf8.RuneCountInString(n.Value[:off])+1),
		Fix: "remove it (your editor may not show it); write plain text"})
}

// rawPos finds where r stands in the source, searching from n's start: the
// exact line and column when r is written as itself, n's position when a
// double-quoted escape wrote it.
func (w *walker) rawPos(n *yaml.Node, r rune) Pos {
	at := Pos{n.Line, n.Column}
	if n.Style&yaml.DoubleQuotedStyle != 0 && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		// An escape or the raw character: look within the quoted scalar only.
		if i, ok := offsetOf(w.src, at); ok {
			end := i + 1
			for end < len(w.src) && w.src[end] != '"' {
				if w.src[end] == '\\' {
					end++
				}
				end++
			}
			if j := strings.IndexRune(string(w.src[i:min(end, len(w.src))]), r); j >= 0 {
				return posAt(w.src, i+j)
			}
		}
		return at
	}
	if i, ok := offsetOf(w.src, at); ok {
		if j := strings.IndexRune(string(w.src[i:]), r); j >= 0 {
			return posAt(w.src, i+j)
		}
	}
	return at
}

// offsetOf returns the byte offset of a 1-based line and column (in characters).
func offsetOf(src []byte, p Pos) (int, bool) {
	line, i := 1, 0
	for line < p.Line {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return 0, false
		}
		i += j + 1
		line++
	}
	for col := 1; col < p.Col && i < len(src); col++ {
		if src[i] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(src[i:])
		i += size
	}
	return i, true
}

// posAt returns the line and column of a byte offset.
func posAt(src []byte, off int) Pos {
	line := 1 + bytes.Count(src[:off], []byte{'\n'})
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return Pos{line, 1 + utf8.RuneCount(src[start:off])}
}

func (w *walker) mapping(n *yaml.Node, path *seg, depth int) map[string]any {
	// checkGraph has refused cycles and deep nesting already; merges recurse
	// here without passing through walk, so bound them here as well.
	if depth > MaxDepth {
		w.fatal(n, fmt.Sprintf("document is nested deeper than %d levels", MaxDepth), "flatten the structure")
		return nil
	}
	out := make(map[string]any, len(n.Content)/2)
	var firstLine map[string]int // for duplicate-key messages, made on demand
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			w.errorf(k, path.String(), "use a plain string as the key", "mapping key must be a plain string")
			continue
		}
		key := k.Value
		w.checkText(k, &seg{path, key, -1})
		if _, dup := out[key]; dup {
			if firstLine == nil {
				firstLine = map[string]int{}
				for j := 0; j+1 < len(n.Content); j += 2 {
					if _, ok := firstLine[n.Content[j].Value]; !ok {
						firstLine[n.Content[j].Value] = n.Content[j].Line
					}
				}
			}
			p := JoinKey(path.String(), key)
			w.errorf(k, p, "remove one of the two, or merge them", "duplicate key %s (first defined at line %d)", quote(key), firstLine[key])
			continue
		}
		out[key] = w.walk(v, &seg{path, key, -1}, depth+1)
	}
	// "<<: *anchor" merges keys that are not set explicitly; what it brings
	// in counts against the alias budget.
	if len(merges) > 0 {
		w.depthA++
		defer func() { w.depthA-- }()
	}
	for _, m := range merges {
		src := m
		for src.Kind == yaml.AliasNode && src.Alias != nil {
			src = src.Alias
		}
		var maps []*yaml.Node
		switch src.Kind {
		case yaml.MappingNode:
			maps = append(maps, src)
		case yaml.SequenceNode:
			maps = src.Content
		}
		for _, mm := range maps {
			for mm.Kind == yaml.AliasNode && mm.Alias != nil {
				mm = mm.Alias
			}
			if mm.Kind != yaml.MappingNode {
				w.errorf(m, path.String(), "merge only mappings with <<", "<< must refer to a mapping")
				continue
			}
			for k, v := range w.mapping(mm, path, depth+1) {
				if _, set := out[k]; !set {
					out[k] = v
				}
			}
		}
	}
	return out
}

func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var f float64
		if n.Decode(&f) == nil {
			return f
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
	return n.Value
}

// decode fills f.Doc from the node tree.
func (f *File) decode() {
	if err := f.root.Decode(&f.Doc); err != nil {
		// The schema pass reports type errors with better positions;
		// Validate falls back to this one only when it finds nothing.
		// After a *yaml.TypeError the rest of the document is still
		// decoded, so the semantic checks can run on it.
		f.decodeErr = yamlError(f.Name, err)
		var te *yaml.TypeError
		f.partial = errors.As(err, &te)
	}
}

// ProjectID reads project.id from a rules document without validating it,
// so that tools keyed by project (the audit log) work while the rules are
// broken. It returns "unknown" when there is none.
func ProjectID(data []byte) string {
	if len(data) > MaxSize {
		return "unknown"
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 || checkGraph("", root.Content[0]) != nil {
		return "unknown" // typed decoding is safe only on a graph checkGraph accepts
	}
	var doc struct {
		Project struct {
			ID string `yaml:"id"`
		} `yaml:"project"`
	}
	if err := root.Content[0].Decode(&doc); err != nil || doc.Project.ID == "" {
		return "unknown"
	}
	return doc.Project.ID
}
