package proposals

import (
	"bytes"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// splice writes the change from old (src as parsed) to edited (the same
// document after a change's node-level edit) into src as text: only the
// entries the change touches are rewritten, everything else — blank lines,
// comments and their alignment, quoting, key order — stays byte for byte.
// A replaced entry is re-encoded whole ("key: value" or "- item"), an added
// one is inserted after its last sibling at its siblings' indentation. It
// reports false when the document's shape is one it does not splice into
// (flow collections it would have to change inside, an item not on its
// dash's line, several documents); Apply then re-encodes the document.
func splice(src []byte, old, edited *yaml.Node) ([]byte, bool) {
	if old.Kind != yaml.DocumentNode || edited.Kind != yaml.DocumentNode || len(old.Content) != 1 || len(edited.Content) != 1 {
		return nil, false
	}
	s := &splicer{src: src}
	s.lines = lineStarts(src)
	end := s.trimBack(len(s.lines), 0)
	if !s.diff(old.Content[0], edited.Content[0], entry{}, end) || s.failed {
		return nil, false
	}
	if len(s.edits) == 0 {
		return src, true
	}
	slices.SortStableFunc(s.edits, func(a, b edit) int { return a.start - b.start })
	var out bytes.Buffer
	at := 0
	for _, e := range s.edits {
		if e.start < at || e.end < e.start || e.end > len(src) {
			return nil, false
		}
		out.Write(src[at:e.start])
		out.WriteString(e.text)
		at = e.end
	}
	out.Write(src[at:])
	return out.Bytes(), true
}

type splicer struct {
	src    []byte
	lines  []int // byte offset of each line's start
	edits  []edit
	failed bool
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// entry is where a node sits in its parent: as a mapping value (key set)
// or as a sequence item (dash set: the dash's line and column, 1-based);
// neither for the document's root.
type entry struct {
	key       *yaml.Node
	dash      bool
	line, col int // the key's or the dash's position
}

func lineStarts(b []byte) []int {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' && i+1 < len(b) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// line is line i (0-based) without its newline.
func (s *splicer) line(i int) string {
	end := len(s.src)
	if i+1 < len(s.lines) {
		end = s.lines[i+1]
	}
	return strings.TrimRight(string(s.src[s.lines[i]:end]), "\r\n")
}

// lineEnd is the byte offset just past line i's newline (exclusive end of
// lines [.., i]); len(src) past the last line.
func (s *splicer) lineEnd(i int) int {
	if i+1 < len(s.lines) {
		return s.lines[i+1]
	}
	return len(s.src)
}

// offset is the byte offset of 1-based line and (character) column.
func (s *splicer) offset(line, col int) (int, bool) {
	if line < 1 || line > len(s.lines) || col < 1 {
		return 0, false
	}
	l := []rune(s.line(line - 1))
	if col-1 > len(l) {
		return 0, false
	}
	return s.lines[line-1] + len(string(l[:col-1])), true
}

// trimBack is the exclusive end line of an extent that runs up to line
// next (0-based, exclusive), without the blank and comment lines before
// next (they belong to what follows), and never above floor.
func (s *splicer) trimBack(next, floor int) int {
	for next-1 > floor {
		t := strings.TrimSpace(s.line(next - 1))
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		next--
	}
	return next
}

func block(n *yaml.Node) bool { return n.Style&yaml.FlowStyle == 0 }

// diff records the edits that turn o into n; o's extent ends before line
// end (0-based, exclusive).
func (s *splicer) diff(o, n *yaml.Node, at entry, end int) bool {
	if canonical(o) == canonical(n) {
		return true
	}
	switch {
	case o.Kind == yaml.MappingNode && n.Kind == yaml.MappingNode && block(o) && len(o.Content) > 0 && len(n.Content) >= len(o.Content):
		return s.diffMapping(o, n, at, end)
	case o.Kind == yaml.SequenceNode && n.Kind == yaml.SequenceNode && block(o) && len(o.Content) > 0 && len(n.Content) >= len(o.Content):
		return s.diffSequence(o, n, at, end)
	}
	if (o.Kind == yaml.MappingNode || o.Kind == yaml.SequenceNode) && len(o.Content) == 0 && n.Kind == o.Kind && len(n.Content) > 0 {
		b := *n // {} or [] that gets content is written as a block
		b.Style &^= yaml.FlowStyle
		n = &b
	}
	return s.replace(n, at, end)
}

func (s *splicer) diffMapping(o, n *yaml.Node, at entry, end int) bool {
	for i := 0; i < len(o.Content); i += 2 {
		if o.Content[i].Value != n.Content[i].Value {
			return s.replace(n, at, end)
		}
	}
	for i := 0; i < len(o.Content); i += 2 {
		k := o.Content[i]
		next := end
		if i+2 < len(o.Content) {
			next = s.trimBack(o.Content[i+2].Line-1, k.Line-1)
		}
		if !s.diff(o.Content[i+1], n.Content[i+1], entry{key: k, line: k.Line, col: k.Column}, next) {
			return false
		}
	}
	if len(n.Content) == len(o.Content) {
		return true
	}
	add := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: n.Content[len(o.Content):]}
	col := o.Content[0].Column
	return s.insert(end, add, col-1, false)
}

func (s *splicer) diffSequence(o, n *yaml.Node, at entry, end int) bool {
	dashes := make([]entry, len(o.Content))
	for i, item := range o.Content {
		d, ok := s.dash(item)
		if !ok {
			return s.replace(n, at, end)
		}
		dashes[i] = d
	}
	for i, item := range o.Content {
		next := end
		if i+1 < len(o.Content) {
			next = s.trimBack(dashes[i+1].line-1, dashes[i].line-1)
		}
		if !s.diff(item, n.Content[i], dashes[i], next) {
			return false
		}
	}
	if len(n.Content) == len(o.Content) {
		return true
	}
	// Items apart by blank lines get the new ones apart the same way.
	spaced := false
	if k := len(dashes); k >= 2 {
		prevEnd := s.trimBack(dashes[k-1].line-1, dashes[k-2].line-1)
		spaced = prevEnd < dashes[k-1].line-1 && strings.TrimSpace(s.line(prevEnd)) == ""
	}
	add := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: n.Content[len(o.Content):]}
	return s.insert(end, add, dashes[0].col-1, spaced)
}

// dash finds the dash of a block sequence item, on the item's first line.
func (s *splicer) dash(item *yaml.Node) (entry, bool) {
	if item.Line < 1 || item.Line > len(s.lines) {
		return entry{}, false
	}
	l := []rune(s.line(item.Line - 1))
	i := item.Column - 2
	for i >= 0 && i < len(l) && l[i] == ' ' {
		i--
	}
	if i < 0 || i >= len(l) || l[i] != '-' {
		return entry{}, false
	}
	return entry{dash: true, line: item.Line, col: i + 1}, true
}

// replace rewrites the entry at (its key or dash, up to line end) with n.
func (s *splicer) replace(n *yaml.Node, at entry, end int) bool {
	if at.key == nil && !at.dash {
		return false // the root: nothing to splice into
	}
	start, ok := s.offset(at.line, at.col)
	if !ok || end < at.line {
		return false
	}
	var wrap *yaml.Node
	if at.dash {
		wrap = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{n}}
	} else {
		key := *at.key
		key.HeadComment, key.LineComment, key.FootComment = "", "", ""
		wrap = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{&key, n}}
	}
	text, ok := encodeAt(wrap, at.col-1)
	if !ok {
		return false
	}
	s.edits = append(s.edits, edit{start: start, end: s.lineEnd(end - 1), text: strings.TrimPrefix(text, strings.Repeat(" ", at.col-1))})
	return true
}

// insert adds n's entries (a mapping's keys or a sequence's items) after
// line end (exclusive), indented by indent spaces.
func (s *splicer) insert(end int, n *yaml.Node, indent int, spaced bool) bool {
	text, ok := encodeAt(n, indent)
	if !ok {
		return false
	}
	at := s.lineEnd(end - 1)
	if at > 0 && s.src[at-1] != '\n' {
		text = "\n" + text // the document's last line has no newline
	}
	if spaced {
		text = "\n" + text
	}
	s.edits = append(s.edits, edit{start: at, end: at, text: text})
	return true
}

// encodeAt encodes n as block YAML, every line indented by indent spaces.
func encodeAt(n *yaml.Node, indent int) (string, bool) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return "", false
	}
	if enc.Close() != nil {
		return "", false
	}
	pad := strings.Repeat(" ", indent)
	var out strings.Builder
	for l := range strings.Lines(b.String()) {
		if strings.TrimSpace(l) != "" {
			out.WriteString(pad)
		}
		out.WriteString(l)
	}
	return out.String(), true
}
