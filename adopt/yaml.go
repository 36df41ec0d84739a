package adopt

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/schema"
)

// maxPlaces bounds the places one item's comment lists.
const maxPlaces = 12

// marshal writes doc as bridle.yaml with, above each imported item, the
// places it came from: the schema has no field for a file and line (a
// guardrail's provenance says source: user), so a comment carries them.
func marshal(doc schema.Document, overview overviewDoc, stack []item, cmds []*command, conventions, guardrails []*rule, files []string) ([]byte, error) {
	var root yaml.Node
	if err := root.Encode(doc); err != nil {
		return nil, fmt.Errorf("import: encode: %w", err)
	}
	root.HeadComment = "yaml-language-server: $schema=./bridle.schema.json\n\n" +
		"Imported by bridle import from the project's agent files:\n" + wrap(files) + "\n" +
		"This is the owner's baseline. The comment above each item says where it came\n" +
		"from; bridle import --dry-run lists what was not carried over, and why."
	project := value(&root, "project")
	if o := key(project, "overview"); o != nil {
		var at []Pos
		for _, it := range overview.items {
			at = append(at, it.at...)
		}
		o.HeadComment = "from " + places(at)
	}
	seq(value(project, "stack"), len(stack), func(i int) []Pos { return stack[i].at })
	seq(value(project, "commands"), len(cmds), func(i int) []Pos { return cmds[i].at })
	seq(value(project, "conventions"), len(conventions), func(i int) []Pos { return conventions[i].at })
	seq(value(&root, "guardrails"), len(guardrails), func(i int) []Pos { return guardrails[i].at })
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, fmt.Errorf("import: encode: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("import: encode: %w", err)
	}
	return b.Bytes(), nil
}

func seq(n *yaml.Node, count int, at func(int) []Pos) {
	if n == nil || n.Kind != yaml.SequenceNode {
		return
	}
	for i, c := range n.Content {
		if i < count {
			c.HeadComment = "from " + places(at(i))
		}
	}
}

// key is the key node of k in the mapping m (or the document holding it).
func key(m *yaml.Node, k string) *yaml.Node { return lookup(m, k, 0) }

// value is the value node of k in the mapping m (or the document holding it).
func value(m *yaml.Node, k string) *yaml.Node { return lookup(m, k, 1) }

// lookup is k's key node (side 0) or value node (side 1) in m, nil when
// m is no mapping or has no k.
func lookup(m *yaml.Node, k string, side int) *yaml.Node {
	if m == nil {
		return nil
	}
	if m.Kind == yaml.DocumentNode && len(m.Content) > 0 {
		m = m.Content[0]
	}
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i+side]
		}
	}
	return nil
}

// places lists positions, at most maxPlaces of them, each file:line with
// the file's name made safe for a comment.
func places(at []Pos) string {
	var ps []string
	for i, p := range at {
		if i == maxPlaces {
			ps = append(ps, fmt.Sprintf("and %d more", len(at)-maxPlaces))
			break
		}
		ps = append(ps, commentSafe(p.String()))
	}
	return strings.Join(ps, ", ")
}

func wrap(files []string) string {
	var b strings.Builder
	line := " "
	for i, f := range files {
		w := " " + commentSafe(f)
		if i < len(files)-1 {
			w += ","
		}
		if len(line)+len(w) > 76 && line != " " {
			b.WriteString(line + "\n")
			line = " "
		}
		line += w
	}
	b.WriteString(line)
	return b.String()
}

// commentSafe is s without line breaks or other control characters.
func commentSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return '?'
		}
		return r
	}, s)
}
