package panel

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// guardrailFields are the fields of a guardrail the Rules page edits.
type guardrailFields struct {
	Statement string
	Severity  string
	AppliesTo []string
}

// same reports whether f and g say the same (statements compared as the
// compiler reads them, without surrounding space).
func (f guardrailFields) same(g guardrailFields) bool {
	return strings.TrimSpace(f.Statement) == strings.TrimSpace(g.Statement) && f.Severity == g.Severity && slices.Equal(f.AppliesTo, g.AppliesTo)
}

// Why an edit of main's bridle.yaml could not be made.
var (
	errNoGuardrail = errors.New("no such guardrail on main")
	errStale       = errors.New("changed on main since the page was drawn")
)

// editGuardrail is src with guardrail id's statement, severity and
// applies_to set to to, provided main still says was (else errStale: the
// admin would overwrite what they never saw).
//
// It edits the YAML node tree, so comments and key order survive, and then
// splices only that guardrail's lines back into src: the rest of the file
// stays byte for byte as written (blank lines too, which a whole re-encode
// would drop). When the splice cannot be shown to mean exactly what the
// edited tree means, the whole tree is encoded instead.
func editGuardrail(src []byte, id string, was, to guardrailFields) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, fmt.Errorf("main's bridle.yaml does not parse: %w", err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("main's bridle.yaml is not a mapping")
	}
	doc := root.Content[0]
	seq, next := valueOf(doc, "guardrails")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("guardrail %s: %w", id, errNoGuardrail)
	}
	i := slices.IndexFunc(seq.Content, func(n *yaml.Node) bool {
		v, _ := valueOf(n, "id")
		return n.Kind == yaml.MappingNode && v != nil && v.Value == id
	})
	if i < 0 {
		return nil, fmt.Errorf("guardrail %s: %w", id, errNoGuardrail)
	}
	item := seq.Content[i]
	if cur := fieldsOf(item); !cur.same(was) {
		return nil, fmt.Errorf("guardrail %s: %w: reload the Rules page and edit what it shows now", id, errStale)
	}
	setScalar(item, "statement", to.Statement)
	setScalar(item, "severity", to.Severity)
	setList(item, "applies_to", to.AppliesTo)

	whole, err := encodeNode(&root)
	if err != nil {
		return nil, err
	}
	end := 0 // the last line of the item: before the next item, or the next key
	switch {
	case i+1 < len(seq.Content):
		end = seq.Content[i+1].Line - 1
	case next != nil:
		end = next.Line - 1
	default:
		end = bytes.Count(src, []byte("\n")) + 1
	}
	if spliced, ok := splice(src, item, end); ok && sameYAML(spliced, whole) {
		return spliced, nil
	}
	return whole, nil
}

// guardrailsOf is each guardrail of the document src as written, by id
// (nil when src does not parse).
func guardrailsOf(src []byte) map[string]*guardrailFields {
	var root yaml.Node
	if yaml.Unmarshal(src, &root) != nil || len(root.Content) == 0 {
		return nil
	}
	seq, _ := valueOf(root.Content[0], "guardrails")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	out := map[string]*guardrailFields{}
	for _, item := range seq.Content {
		if id, _ := valueOf(item, "id"); id != nil {
			f := fieldsOf(item)
			out[id.Value] = &f
		}
	}
	return out
}

// valueOf is m[key] and the key after it (nil when last).
func valueOf(m *yaml.Node, key string) (value, nextKey *yaml.Node) {
	if m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if i+2 < len(m.Content) {
				nextKey = m.Content[i+2]
			}
			return m.Content[i+1], nextKey
		}
	}
	return nil, nil
}

func fieldsOf(item *yaml.Node) guardrailFields {
	var f guardrailFields
	if v, _ := valueOf(item, "statement"); v != nil {
		f.Statement = v.Value
	}
	if v, _ := valueOf(item, "severity"); v != nil {
		f.Severity = v.Value
	}
	if v, _ := valueOf(item, "applies_to"); v != nil {
		for _, a := range v.Content {
			f.AppliesTo = append(f.AppliesTo, a.Value)
		}
	}
	return f
}

// setScalar sets m[key] to the string v, keeping the node (its comments,
// its quoting) when there is one; a multi-line value is a literal block.
func setScalar(m *yaml.Node, key, v string) {
	n, _ := valueOf(m, key)
	if n == nil || n.Kind != yaml.ScalarNode {
		n = &yaml.Node{Kind: yaml.ScalarNode}
		setValue(m, key, n)
	}
	if n.Value == v {
		return
	}
	n.Value, n.Tag = v, "!!str"
	if strings.Contains(v, "\n") {
		n.Style = yaml.LiteralStyle
	} else if n.Style == yaml.LiteralStyle || n.Style == yaml.FoldedStyle {
		n.Style = 0
	}
}

// setList sets m[key] to the list vs (its style kept), or removes the key
// when vs is empty.
func setList(m *yaml.Node, key string, vs []string) {
	n, _ := valueOf(m, key)
	if len(vs) == 0 {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				m.Content = slices.Delete(m.Content, i, i+2)
				return
			}
		}
		return
	}
	if n == nil || n.Kind != yaml.SequenceNode {
		n = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		setValue(m, key, n)
	}
	old := fieldsOf(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "applies_to"}, n}}).AppliesTo
	if slices.Equal(old, vs) {
		return
	}
	n.Content = nil
	for _, v := range vs {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
	}
}

func setValue(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

func encodeNode(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("encode bridle.yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode bridle.yaml: %w", err)
	}
	return b.Bytes(), nil
}

// splice replaces the lines of the block-sequence item (from its line to
// end, less the blank and comment lines that end the range: they belong to
// what follows) with the item encoded alone at its indentation.
func splice(src []byte, item *yaml.Node, end int) ([]byte, bool) {
	lines := strings.SplitAfter(string(src), "\n")
	start := item.Line
	dash := item.Column - 3 // the "- " of the item, 0-based
	if start < 1 || end > len(lines) || dash < 0 || !strings.HasPrefix(lines[start-1][min(dash, len(lines[start-1])):], "- ") {
		return nil, false
	}
	for end > start && (strings.TrimSpace(lines[end-1]) == "" || strings.HasPrefix(strings.TrimSpace(lines[end-1]), "#")) {
		end--
	}
	// The comments above the item and after it stay where they are in src.
	one := *item
	one.HeadComment, one.FootComment = "", ""
	if len(one.Content) > 0 {
		first := *one.Content[0]
		first.HeadComment = ""
		one.Content = append([]*yaml.Node{&first}, one.Content[1:]...)
	}
	enc, err := encodeNode(&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{&one}})
	if err != nil {
		return nil, false
	}
	out := strings.SplitAfter(strings.TrimRight(string(enc), "\n")+"\n", "\n")
	out = out[:len(out)-1] // after the last newline
	for len(out) > 1 && strings.HasPrefix(strings.TrimSpace(out[len(out)-1]), "#") {
		out = out[:len(out)-1]
	}
	var b strings.Builder
	b.WriteString(strings.Join(lines[:start-1], ""))
	pad := strings.Repeat(" ", dash)
	for _, l := range out {
		b.WriteString(pad + l)
	}
	b.WriteString(strings.Join(lines[end:], ""))
	return []byte(b.String()), true
}

// sameYAML reports whether a and b decode to the same value.
func sameYAML(a, b []byte) bool {
	var va, vb any
	if yaml.Unmarshal(a, &va) != nil || yaml.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
