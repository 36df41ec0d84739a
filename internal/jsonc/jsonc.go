// Package jsonc edits JSON configuration files that people and other
// programs also write: JSON with comments and trailing commas (JSONC, which
// VS Code, Gemini CLI, Qwen Code, OpenCode and Cursor read), or plain JSON.
//
// Promises:
//   - Everything outside the values Set and Delete change is kept byte for
//     byte: comments, key order, layout, unknown keys, trailing commas.
//   - A new value is laid out in the file's own indentation (two spaces,
//     four, or a tab, read from the file).
//   - Parse refuses what is not an object with an error naming the file,
//     line and column; Set refuses to go through a value that is not an
//     object (ErrNotObject) rather than replace it.
//   - Nothing here panics on any input (fuzzed).
package jsonc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// ErrNotObject is returned when a value on a path is not a JSON object.
var ErrNotObject = errors.New("not a JSON object")

// MaxSize bounds the files Parse takes.
const MaxSize = 16 << 20

// Doc is one parsed file.
type Doc struct {
	name   string
	v      hujson.Value
	indent string
}

// Parse parses data, the content of the file name (used in errors). Empty
// data (or only whitespace and comments) is an empty object.
func Parse(name string, data []byte) (*Doc, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%s: larger than %d MiB; not touching it", name, MaxSize>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	v, err := hujson.Parse(data)
	if err != nil {
		var line, col int
		msg := err.Error()
		if _, serr := fmt.Sscanf(msg, "hujson: line %d, column %d:", &line, &col); serr == nil {
			if i := strings.Index(msg, ": "); i >= 0 {
				if j := strings.Index(msg[i+2:], ": "); j >= 0 {
					msg = msg[i+2+j+2:]
				}
			}
			return nil, fmt.Errorf("%s:%d:%d: %s (fix the file, or move it away, and run again)", name, line, col, msg)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("%s: the file holds a JSON %s, not an object: %w", name, kindName(v.Value), ErrNotObject)
	}
	return &Doc{name: name, v: v, indent: detectIndent(data)}, nil
}

// Bytes returns the file's content.
func (d *Doc) Bytes() []byte {
	b := d.v.Pack()
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return b
}

// Get returns the value at path as standard JSON (comments and trailing
// commas removed), and whether it is there.
func (d *Doc) Get(path ...string) (json.RawMessage, bool) {
	v := d.find(path)
	if v == nil {
		return nil, false
	}
	c := v.Clone()
	c.BeforeExtra, c.AfterExtra = nil, nil
	c.Standardize()
	return json.RawMessage(c.Pack()), true
}

// Keys returns the names of the members of the object at path, in file
// order; nil when it is not there or not an object.
func (d *Doc) Keys(path ...string) []string {
	v := d.find(path)
	if v == nil {
		return nil
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(obj.Members))
	for _, m := range obj.Members {
		out = append(out, memberName(m))
	}
	return out
}

// Set sets the value at path to value (marshalled with encoding/json),
// creating the objects on the way. An existing member keeps its place and
// the comments around it.
func (d *Doc) Set(value any, path ...string) error {
	if len(path) == 0 {
		return fmt.Errorf("%s: set: an empty path", d.name)
	}
	obj := d.v.Value.(*hujson.Object)
	for depth, key := range path {
		i := index(obj, key)
		if depth == len(path)-1 {
			nv, err := d.layout(value, depth+1)
			if err != nil {
				return fmt.Errorf("%s: set %s: %w", d.name, strings.Join(path, "."), err)
			}
			if i >= 0 {
				obj.Members[i].Value.Value = nv.Value
				return nil
			}
			d.appendMember(obj, key, nv, depth)
			return nil
		}
		if i < 0 {
			nv, _ := d.layout(map[string]any{}, depth+1)
			d.appendMember(obj, key, nv, depth)
			i = len(obj.Members) - 1
		}
		next, ok := obj.Members[i].Value.Value.(*hujson.Object)
		if !ok {
			return fmt.Errorf("%s: %s is a JSON %s: %w (fix it by hand, then run again)", d.name,
				strings.Join(path[:depth+1], "."), kindName(obj.Members[i].Value.Value), ErrNotObject)
		}
		obj = next
	}
	return nil
}

// Delete removes the member at path; a path that is not there is no
// change. It reports whether something was removed.
func (d *Doc) Delete(path ...string) bool {
	if len(path) == 0 {
		return false
	}
	parent := d.find(path[:len(path)-1])
	if parent == nil {
		return false
	}
	obj, ok := parent.Value.(*hujson.Object)
	if !ok {
		return false
	}
	i := index(obj, path[len(path)-1])
	if i < 0 {
		return false
	}
	trailing := obj.Members[len(obj.Members)-1].Value.AfterExtra != nil
	// A comment on the line of the member before (after its comma) is
	// that member's: it stays.
	if keep := obj.Members[i].Name.BeforeExtra; i > 0 {
		if nl := bytes.IndexByte(keep, '\n'); nl > 0 {
			head := bytes.Clone(keep[:nl])
			if i+1 < len(obj.Members) {
				obj.Members[i+1].Name.BeforeExtra = append(head, obj.Members[i+1].Name.BeforeExtra...)
			} else {
				obj.AfterExtra = append(head, obj.AfterExtra...)
			}
		}
	}
	obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
	if n := len(obj.Members); n > 0 && trailing && obj.Members[n-1].Value.AfterExtra == nil {
		obj.Members[n-1].Value.AfterExtra = []byte{}
	}
	if len(obj.Members) == 0 && !bytes.Contains(obj.AfterExtra, []byte("//")) && !bytes.Contains(obj.AfterExtra, []byte("/*")) {
		obj.AfterExtra = nil
	}
	return true
}

func (d *Doc) find(path []string) *hujson.Value {
	v := &d.v
	for _, key := range path {
		obj, ok := v.Value.(*hujson.Object)
		if !ok {
			return nil
		}
		i := index(obj, key)
		if i < 0 {
			return nil
		}
		v = &obj.Members[i].Value
	}
	return v
}

// appendMember adds key: v as obj's last member (obj at depth), laid out
// like the members before it: on a line of its own in a multi-line object,
// after the comments that followed the last member.
func (d *Doc) appendMember(obj *hujson.Object, key string, v hujson.Value, depth int) {
	name, _ := json.Marshal(key)
	multi := len(obj.Members) == 0 || bytes.Contains(obj.Members[0].Name.BeforeExtra, []byte("\n")) || bytes.Contains(obj.AfterExtra, []byte("\n"))
	var before []byte
	closing := obj.AfterExtra
	if multi {
		// What follows the last member up to the closing line (a comment
		// after its comma) stays with it; the closing line's indentation
		// stays before the brace.
		if i := bytes.LastIndexByte(obj.AfterExtra, '\n'); i >= 0 {
			before, closing = bytes.Clone(obj.AfterExtra[:i]), bytes.Clone(obj.AfterExtra[i:])
		} else {
			before, closing = bytes.Clone(obj.AfterExtra), []byte("\n"+strings.Repeat(d.indent, depth))
		}
		before = append(before, "\n"+strings.Repeat(d.indent, depth+1)...)
	} else {
		before = []byte(" ")
	}
	v.BeforeExtra = []byte(" ")
	v.AfterExtra = nil
	if n := len(obj.Members); n > 0 && obj.Members[n-1].Value.AfterExtra != nil {
		v.AfterExtra = []byte{} // keep the file's trailing comma
	}
	obj.Members = append(obj.Members, hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: before, Value: hujson.Literal(name)},
		Value: v,
	})
	obj.AfterExtra = closing
}

// layout is value as a hujson value indented for depth.
func (d *Doc) layout(value any, depth int) (hujson.Value, error) {
	b, err := json.MarshalIndent(value, strings.Repeat(d.indent, depth), d.indent)
	if err != nil {
		return hujson.Value{}, err
	}
	v, err := hujson.Parse(b)
	if err != nil {
		return hujson.Value{}, err
	}
	v.BeforeExtra, v.AfterExtra = []byte(" "), nil
	return v, nil
}

func index(obj *hujson.Object, key string) int {
	for i, m := range obj.Members {
		if memberName(m) == key {
			return i
		}
	}
	return -1
}

func memberName(m hujson.ObjectMember) string {
	lit, ok := m.Name.Value.(hujson.Literal)
	if !ok {
		return ""
	}
	return lit.String()
}

func kindName(v hujson.ValueTrimmed) string {
	switch v.Kind() {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	default:
		return "null"
	}
}

// detectIndent is the indentation of the file's first indented line: a
// tab, or that many spaces; two spaces when none is indented.
func detectIndent(data []byte) string {
	for line := range bytes.Lines(data) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == len(line) || len(bytes.TrimSpace(trimmed)) == 0 {
			continue
		}
		ws := line[:len(line)-len(trimmed)]
		if ws[0] == '\t' {
			return "\t"
		}
		if n := len(ws) - len(bytes.TrimLeft(ws, " ")); n > 0 && n <= 8 {
			return strings.Repeat(" ", n)
		}
	}
	return "  "
}
