package feed

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/bridle-dev/bridle/internal/mdsafe"
)

// Kind is what a block is.
type Kind string

// The kinds of block.
const (
	Heading   Kind = "heading"
	Paragraph Kind = "paragraph"
	Item      Kind = "item" // a list item
)

// Block is one unit of a normalised document.
type Block struct {
	Kind Kind
	// Level is a heading's level (1–6) or an item's list depth (1 for a
	// top-level item); 0 for a paragraph.
	Level int
	// Text is the block's text on one line: whitespace folded, NFC, no
	// control or invisible characters. Inline code keeps its backticks.
	Text string
	// HeadingPath is the text of the headings the block is under, outermost
	// first; a heading's path ends with its own text.
	HeadingPath []string
}

// Format is a document's source format.
type Format string

// The source formats. An empty Format in a Source means: from the
// Content-Type.
const (
	Markdown Format = "markdown"
	HTML     Format = "html"
)

// maxDepth bounds the nesting Normalise follows: content nested deeper than
// this many elements (or markdown containers) is dropped, so a hostile
// document cannot make the walk recurse without bound.
const maxDepth = 256

// Normalise reduces src, in the given format, to blocks. Invalid UTF-8 is
// replaced with U+FFFD, never refused; text that is not markup becomes
// paragraphs. It fails only for an unknown format (ErrFormat) and for HTML
// nested deeper than the parser accepts, 512 elements (ErrTooDeep). In
// markdown, a line's leading container markers (quotes, list markers and
// indentation) are cut to maxPrefix bytes first, which bounds the parser's
// work on a hostile line and changes no real document.
func Normalise(src []byte, f Format) ([]Block, error) {
	s := strings.ToValidUTF8(string(src), "\uFFFD")
	s = strings.TrimPrefix(s, "\uFEFF")
	var raw []Block
	var err error
	switch f {
	case HTML:
		raw, err = normaliseHTML(s)
	case Markdown:
		raw = normaliseMarkdown(s)
	default:
		err = fmt.Errorf("%w %q (want markdown or html)", ErrFormat, f)
	}
	if err != nil {
		return nil, fmt.Errorf("normalise: %w", err)
	}
	return withPaths(raw), nil
}

// Errors of Normalise.
var (
	ErrFormat  = errors.New("unknown format")
	ErrTooDeep = errors.New("document nested too deep")
)

// builder collects blocks while a parser walks its tree. Text arrives in
// pieces (inline nodes); flush ends the current block.
type builder struct {
	blocks []Block
	text   strings.Builder
	links  int // bytes of text inside links in the current block
	kind   Kind
	level  int
}

func (b *builder) write(s string) { b.text.WriteString(s) }

func (b *builder) writeLink(s string) {
	b.links += len(s)
	b.text.WriteString(s)
}

// flush ends the block being collected as kind at level. A block that is
// mostly link text is navigation, not prose, and is dropped.
func (b *builder) flush() {
	raw, links := b.text.String(), b.links
	b.text.Reset()
	b.links = 0
	t := clean(raw)
	if t == "" {
		return
	}
	if b.kind != Heading && links*2 > len(strings.TrimSpace(raw)) {
		return
	}
	b.blocks = append(b.blocks, Block{Kind: b.kind, Level: b.level, Text: t})
}

// start begins a block of the given kind, ending any open one.
func (b *builder) start(k Kind, level int) {
	b.flush()
	b.kind, b.level = k, level
}

// clean makes text one line: NFC, refused characters dropped (controls,
// bidi, zero-width: see mdsafe.BadChar), line breaks and runs of
// whitespace folded to one space.
func clean(s string) string {
	s = norm.NFC.String(s)
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == '\u2028' || r == '\u2029' || r == '\u0085':
			return ' '
		case mdsafe.BadChar(r, false):
			return -1
		case unicode.IsSpace(r):
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// withPaths fills in each block's heading path.
func withPaths(blocks []Block) []Block {
	type head struct {
		level int
		text  string
	}
	var stack []head
	path := func() []string {
		p := make([]string, len(stack))
		for i, h := range stack {
			p[i] = h.text
		}
		return p
	}
	for i := range blocks {
		b := &blocks[i]
		if b.Kind == Heading {
			for len(stack) > 0 && stack[len(stack)-1].level >= b.Level {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, head{b.Level, b.Text})
		}
		b.HeadingPath = path()
	}
	return blocks
}

// Text is the normalised text of blocks, one block a line: a heading as
// "## text", an item as "- text" indented two spaces per level below the
// first, a paragraph as its text (a backslash first if it would read as a
// heading, an item or an escaped paragraph). ParseText reads it back.
func Text(blocks []Block) string {
	var b strings.Builder
	for _, bl := range blocks {
		switch bl.Kind {
		case Heading:
			b.WriteString(strings.Repeat("#", bl.Level) + " ")
		case Item:
			b.WriteString(strings.Repeat("  ", max(bl.Level-1, 0)) + "- ")
		default:
			if t := bl.Text; strings.HasPrefix(t, "#") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "\\") || t == "-" {
				b.WriteByte('\\')
			}
		}
		b.WriteString(bl.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// ParseText reads text that Text wrote back into blocks.
func ParseText(text string) []Block {
	var blocks []Block
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			continue
		}
		var bl Block
		trimmed := strings.TrimLeft(line, " ")
		hashes := len(line) - len(strings.TrimLeft(line, "#"))
		switch {
		case hashes > 0 && strings.HasPrefix(line[hashes:], " "):
			bl = Block{Kind: Heading, Level: hashes, Text: line[hashes+1:]}
		case strings.HasPrefix(trimmed, "- "):
			bl = Block{Kind: Item, Level: (len(line)-len(trimmed))/2 + 1, Text: trimmed[2:]}
		default:
			bl = Block{Kind: Paragraph, Text: strings.TrimPrefix(line, "\\")}
		}
		blocks = append(blocks, bl)
	}
	return withPaths(blocks)
}

// ErrNoSection is returned when a selector names no heading of the
// document.
var ErrNoSection = errors.New("no such section")

// Select returns the section a selector names: the first heading whose text
// equals the selector (case-insensitive, whitespace folded) and every block
// after it up to the next heading of the same or a higher level. A selector
// "A > B" is a heading path: B under A, where A may be any ancestor
// heading. An empty selector selects everything.
func Select(blocks []Block, selector string) ([]Block, error) {
	if strings.TrimSpace(selector) == "" {
		return blocks, nil
	}
	var want []string
	for _, p := range strings.Split(selector, ">") {
		want = append(want, fold(p))
	}
	for i, b := range blocks {
		if b.Kind != Heading || !pathMatches(b.HeadingPath, want) {
			continue
		}
		end := len(blocks)
		for j := i + 1; j < len(blocks); j++ {
			if blocks[j].Kind == Heading && blocks[j].Level <= b.Level {
				end = j
				break
			}
		}
		return slices.Clone(blocks[i:end]), nil
	}
	return nil, fmt.Errorf("select %q: %w", selector, ErrNoSection)
}

// pathMatches reports whether the last element of path is want's last and
// want's others appear, in order, among path's ancestors.
func pathMatches(path, want []string) bool {
	if len(path) == 0 || fold(path[len(path)-1]) != want[len(want)-1] {
		return false
	}
	j := 0
	for _, p := range path[:len(path)-1] {
		if j < len(want)-1 && fold(p) == want[j] {
			j++
		}
	}
	return j == len(want)-1
}

func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
