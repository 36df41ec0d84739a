package renderers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/enforce"
)

// AiderConf is Aider's native rendering: its render listed under read: in
// the project's .aider.conf.yml, so that every session starts with it as a
// read-only file (Aider reads no instruction file unasked).
const AiderConf NativeKind = "aider-conf"

// AiderConfPath is the configuration file Aider reads from the directory
// it starts in, the git root and the home.
const AiderConfPath = ".aider.conf.yml"

// aiderMarker is the comment on Bridle's read: entry, by which a later
// render finds it (to change or remove it) among the person's own.
const aiderMarker = "bridle: the project's rules, kept here by bridle render --all"

// aiderNative merges Bridle's read: entry into .aider.conf.yml. The
// person's keys, comments and other read: files stay (the layout becomes
// YAML's, indented by two); a file of more than one document, or whose
// read: is neither a file nor a list of files, is refused. With no agent
// running Aider any more, Bridle's entry leaves.
type aiderNative struct{}

func (aiderNative) render(n *Native, read func(string) ([]byte, error), agent string, _ *enforce.Rules, o NativeOptions) error {
	before, err := read(AiderConfPath)
	if err != nil {
		return err
	}
	want := ""
	if agent != "" {
		want = o.instructions
	}
	if before == nil && want == "" {
		return nil
	}
	after, err := mergeAiderRead(before, want)
	if err != nil {
		return fmt.Errorf("render %s: %s: %w", AiderConf, AiderConfPath, err)
	}
	switch {
	case after == nil:
		// Nothing but Bridle's entry was there: the file is Bridle's.
		n.Orphans = append(n.Orphans, Orphan{Path: AiderConfPath, Intact: true})
		return nil
	case agent == "" && bytes.Equal(after, before):
		return nil
	}
	n.Files = append(n.Files, File{Agent: agent, Renderer: string(AiderConf), Path: AiderConfPath, Content: string(after), kind: kindSettings})
	return nil
}

// mergeAiderRead makes Bridle's entry in conf's read: list want ("" for
// none). It returns conf itself when that changes nothing, and empty when
// nothing but Bridle's entry was there.
func mergeAiderRead(conf []byte, want string) ([]byte, error) {
	var doc, next yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(conf))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document, or text after the first: fix it by hand")
	}
	var check any
	if err := doc.Decode(&check); err != nil && doc.Kind != 0 {
		return nil, err // duplicate keys and the like, which Aider refuses too
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, HeadComment: doc.HeadComment, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("not a YAML mapping: fix it by hand")
	}
	keyAt := -1
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "read" {
			keyAt = i
		}
	}
	changed := false
	var list *yaml.Node
	if keyAt >= 0 {
		list = root.Content[keyAt+1]
		switch {
		case list.Kind == yaml.SequenceNode:
		case list.Kind == yaml.ScalarNode && list.Tag == "!!null":
			if want == "" {
				return conf, nil
			}
			*list, changed = yaml.Node{Kind: yaml.SequenceNode, LineComment: list.LineComment}, true
		case list.Kind == yaml.ScalarNode:
			// read: FILE, one file of the person's; Bridle's goes beside it.
			if want == "" {
				return conf, nil
			}
			item := *list
			*list, changed = yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{&item}}, true
		default:
			return nil, errors.New("read: is neither a file nor a list of files: fix it by hand")
		}
	}
	found := false
	if list != nil {
		var kept []*yaml.Node
		for _, item := range list.Content {
			ours := item.Kind == yaml.ScalarNode && strings.Contains(item.LineComment, aiderMarker)
			if ours && (want == "" || item.Value != want || found) {
				changed = true
				continue
			}
			found = found || ours
			kept = append(kept, item)
		}
		list.Content = kept
	}
	if want != "" && !found {
		if list == nil {
			var k yaml.Node
			k.SetString("read")
			list = &yaml.Node{Kind: yaml.SequenceNode}
			root.Content = append(root.Content, &k, list)
			keyAt = len(root.Content) - 2
		}
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: want, LineComment: "# " + aiderMarker})
		list.Style &^= yaml.FlowStyle // a block list, where the entry's comment has a line of its own
		changed = true
	}
	if !changed {
		return conf, nil
	}
	if list != nil && len(list.Content) == 0 {
		// Only Bridle's entry was there: the key leaves with it.
		root.Content = append(root.Content[:keyAt], root.Content[keyAt+2:]...)
		if len(root.Content) == 0 && strings.TrimSpace(doc.HeadComment+root.HeadComment+root.FootComment+doc.FootComment) == "" {
			return nil, nil
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
