package renderers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ClaudeSettingsPath and ClaudeManifestPath are where the Claude Code
// native rendering goes, relative to the project root.
const (
	ClaudeSettingsPath = ".claude/settings.json"
	ClaudeManifestPath = ".claude/bridle.json"
)

// HookMatcher is the PreToolUse matcher of Bridle's hook: every tool whose
// call a command or path entry can restrict.
const HookMatcher = "Bash|Read|Edit|Write|MultiEdit|NotebookEdit|Grep|Glob"

// HookTimeout is the hook's timeout in seconds.
const HookTimeout = 10

// ClaudeWant is what Bridle wants in .claude/settings.json.
type ClaudeWant struct {
	Deny, Ask []string // permissions.deny and permissions.ask entries
	Hook      string   // the PreToolUse hook command; "" for none
}

func (w ClaudeWant) empty() bool { return len(w.Deny) == 0 && len(w.Ask) == 0 && w.Hook == "" }

// Errors of the settings merge, for errors.Is.
var (
	// ErrManifestEdited: .claude/bridle.json is not as Bridle wrote it.
	ErrManifestEdited = errors.New("the manifest of Bridle's entries was edited by hand")
	// ErrSettingsVoid: the settings hold something that makes Claude Code
	// ignore the whole file (Bridle's rules and hook included).
	ErrSettingsVoid = errors.New("settings that Claude Code would ignore as a whole")
)

// hookTypes are the hook types Claude Code 2.1.328 accepts; any other
// voids the whole settings file.
var hookTypes = []string{"command", "prompt", "agent", "http", "mcp_tool"}

// checkHooks reports a hooks entry Claude Code would refuse, which makes
// it ignore the whole file: every event a list of {matcher?, hooks: [{type,
// …}]}, each type known, a command hook with a command.
func checkHooks(settings []byte) error {
	var doc struct {
		Hooks json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(settings, &doc) != nil || len(doc.Hooks) == 0 || string(doc.Hooks) == "null" {
		return nil
	}
	var events map[string][]json.RawMessage
	if err := json.Unmarshal(doc.Hooks, &events); err != nil {
		return fmt.Errorf("%s: %w: hooks is not an object of lists (%v)", ClaudeSettingsPath, ErrSettingsVoid, err)
	}
	for _, ev := range slices.Sorted(maps.Keys(events)) {
		for i, raw := range events[ev] {
			var g struct {
				Matcher *json.RawMessage  `json:"matcher"`
				Hooks   []json.RawMessage `json:"hooks"`
			}
			if err := json.Unmarshal(raw, &g); err != nil || g.Hooks == nil {
				return fmt.Errorf("%s: %w: hooks.%s[%d] is not {matcher, hooks: [...]}", ClaudeSettingsPath, ErrSettingsVoid, ev, i)
			}
			if g.Matcher != nil {
				var m string
				if json.Unmarshal(*g.Matcher, &m) != nil {
					return fmt.Errorf("%s: %w: hooks.%s[%d].matcher is not a string", ClaudeSettingsPath, ErrSettingsVoid, ev, i)
				}
			}
			for j, hr := range g.Hooks {
				var h struct {
					Type    string  `json:"type"`
					Command *string `json:"command"`
				}
				if err := json.Unmarshal(hr, &h); err != nil || !slices.Contains(hookTypes, h.Type) || (h.Type == "command" && h.Command == nil) {
					return fmt.Errorf("%s: %w: hooks.%s[%d].hooks[%d] has type %q (Claude Code takes %s; a command hook needs a command); fix or remove it",
						ClaudeSettingsPath, ErrSettingsVoid, ev, i, j, h.Type, strings.Join(hookTypes, ", "))
				}
			}
		}
	}
	return nil
}

// manifestMarker starts every manifest's generated_by field.
const manifestMarker = "Bridle"

// Manifest records what Bridle wrote into .claude/settings.json, so that a
// later render can remove exactly those entries and nothing of the user's.
type Manifest struct {
	GeneratedBy string   `json:"generated_by"`
	Settings    string   `json:"settings"`
	Deny        []string `json:"deny"`
	Ask         []string `json:"ask"`
	Hook        string   `json:"hook,omitempty"`
	// Content is the sha256 of the manifest with Content empty: a manifest
	// whose hash does not match was edited by hand.
	Content string `json:"content"`
}

const manifestNote = "Bridle. Do not edit: it lists the entries Bridle owns in settings.json, which the next render updates or removes."

func (m Manifest) encode() []byte {
	m.GeneratedBy, m.Settings, m.Content = manifestNote, "settings.json", ""
	m.Deny, m.Ask = nonNil(m.Deny), nonNil(m.Ask)
	b, _ := json.MarshalIndent(m, "", "  ")
	m.Content = hashOf(b)
	b, _ = json.MarshalIndent(m, "", "  ")
	return append(b, '\n')
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// parseManifest reads a manifest; intact says its content hash matches.
func parseManifest(b []byte) (m Manifest, intact bool, err error) {
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, false, fmt.Errorf("not a Bridle manifest: %w", err)
	}
	if !strings.HasPrefix(m.GeneratedBy, manifestMarker) {
		return Manifest{}, false, errors.New("not a Bridle manifest: no generated_by")
	}
	return m, bytes.Equal(m.encode(), b), nil
}

// MergeClaudeSettings merges Bridle's wanted entries into a Claude Code
// settings file, given the manifest of what Bridle wrote last time (nil for
// none). It removes the entries the old manifest owns that are no longer
// wanted, adds the wanted ones that are missing, and keeps everything else
// — the user's own rules and hooks, other keys, key order and values. An
// entry the user had before Bridle wanted it is not claimed, so removing
// Bridle's rule later leaves it. When nothing changes the settings come
// back byte for byte; otherwise they are re-indented with two spaces.
// The returned manifest is nil when Bridle owns nothing any more.
func MergeClaudeSettings(settings, manifest []byte, want ClaudeWant) (newSettings, newManifest []byte, err error) {
	if len(bytes.TrimSpace(settings)) == 0 && len(manifest) == 0 && want.empty() {
		return nil, nil, nil // nothing there, nothing to add
	}
	var old Manifest
	if len(manifest) > 0 {
		var intact bool
		if old, intact, err = parseManifest(manifest); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", ClaudeManifestPath, err)
		}
		if !intact {
			// It says which entries are Bridle's to remove: trusting an
			// edited one would let whoever edited it delete the user's own
			// rules and hooks on the next render.
			return nil, nil, fmt.Errorf("%s: %w; restore it (git checkout %s) or, to make Bridle own only the entries it would write, delete it",
				ClaudeManifestPath, ErrManifestEdited, ClaudeManifestPath)
		}
	}
	var doc object
	if len(bytes.TrimSpace(settings)) > 0 {
		if err := json.Unmarshal(settings, &doc); err != nil {
			return nil, nil, fmt.Errorf("%s is not a JSON object (%w); fix or move it, then render again", ClaudeSettingsPath, err)
		}
	}
	perms, err := doc.object("permissions")
	if err != nil {
		return nil, nil, err
	}
	var owned Manifest
	for _, list := range []struct {
		key      string
		old, new []string
		owned    *[]string
	}{{"deny", old.Deny, want.Deny, &owned.Deny}, {"ask", old.Ask, want.Ask, &owned.Ask}} {
		have, err := perms.strings(list.key)
		if err != nil {
			return nil, nil, err
		}
		var keep []json.RawMessage
		present := map[string]bool{}
		for _, raw := range have {
			var s string
			isString := json.Unmarshal(raw, &s) == nil
			if isString && slices.Contains(list.old, s) && !slices.Contains(list.new, s) {
				continue // Bridle's, no longer wanted
			}
			if isString {
				present[s] = true
			}
			keep = append(keep, raw)
		}
		for _, s := range list.new {
			switch {
			case slices.Contains(list.old, s):
				*list.owned = append(*list.owned, s)
			case present[s]:
				continue // the user's own: not claimed
			default:
				*list.owned = append(*list.owned, s)
			}
			if !present[s] {
				raw, _ := json.Marshal(s)
				keep = append(keep, raw)
				present[s] = true
			}
		}
		if len(keep) == 0 && !perms.has(list.key) {
			continue
		}
		raw, _ := json.Marshal(nonNilRaw(keep))
		perms.set(list.key, raw)
	}
	if len(perms) > 0 || doc.has("permissions") {
		raw, _ := json.Marshal(perms)
		doc.set("permissions", raw)
	}

	if want.Hook != "" || old.Hook != "" {
		if err := mergeHook(&doc, old.Hook, want.Hook); err != nil {
			return nil, nil, err
		}
		owned.Hook = want.Hook
	}

	out, _ := json.Marshal(doc)
	var b bytes.Buffer
	if err := json.Indent(&b, out, "", "  "); err != nil {
		return nil, nil, err
	}
	b.WriteByte('\n')
	newSettings = b.Bytes()
	if len(settings) > 0 && jsonSame(settings, newSettings) {
		newSettings = settings
	}
	if !owned.empty() {
		newManifest = owned.encode()
	}
	if err := checkHooks(newSettings); err != nil {
		return nil, nil, err
	}
	return newSettings, newManifest, nil
}

func (m Manifest) empty() bool { return len(m.Deny) == 0 && len(m.Ask) == 0 && m.Hook == "" }

func nonNilRaw(s []json.RawMessage) []json.RawMessage {
	if s == nil {
		return []json.RawMessage{}
	}
	return s
}

// hookGroup is one PreToolUse entry.
type hookGroup struct {
	Matcher string        `json:"matcher"`
	Hooks   []hookCommand `json:"hooks"`
}

type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// mergeHook removes the command hook oldCmd from hooks.PreToolUse (and its
// group when it was the only hook there) and adds newCmd in Bridle's own
// group, leaving every other hook and group as it was. A group that is
// already exactly Bridle's stays where it is.
func mergeHook(doc *object, oldCmd, newCmd string) error {
	hooks, err := doc.object("hooks")
	if err != nil {
		return err
	}
	groups, err := hooks.strings("PreToolUse")
	if err != nil {
		return err
	}
	mine, _ := json.Marshal(hookGroup{Matcher: HookMatcher, Hooks: []hookCommand{{Type: "command", Command: newCmd, Timeout: HookTimeout}}})
	var keep []json.RawMessage
	found := false
	for _, raw := range groups {
		if newCmd != "" && !found && jsonSame(raw, mine) {
			found = true
			keep = append(keep, raw)
			continue
		}
		var g object
		if json.Unmarshal(raw, &g) != nil {
			keep = append(keep, raw)
			continue
		}
		list, err := g.strings("hooks")
		if err != nil {
			keep = append(keep, raw)
			continue
		}
		var rest []json.RawMessage
		for _, h := range list {
			var c struct{ Type, Command string }
			if json.Unmarshal(h, &c) == nil && c.Type == "command" && (c.Command == oldCmd || c.Command == newCmd) && c.Command != "" {
				continue // Bridle's own hook, in whatever group it sits
			}
			rest = append(rest, h)
		}
		switch {
		case len(rest) == len(list):
			keep = append(keep, raw)
		case len(rest) > 0:
			r, _ := json.Marshal(rest)
			g.set("hooks", r)
			b, _ := json.Marshal(g)
			keep = append(keep, b)
		}
	}
	if newCmd != "" && !found {
		keep = append(keep, mine)
	}
	if len(keep) == 0 {
		hooks.remove("PreToolUse")
	} else {
		raw, _ := json.Marshal(keep)
		hooks.set("PreToolUse", raw)
	}
	if len(hooks) == 0 && !doc.has("hooks") {
		return nil
	}
	if len(hooks) == 0 && newCmd == "" {
		// Only Bridle's hook was there: leave hooks as an empty object
		// rather than guessing whether the user wrote the key.
		raw, _ := json.Marshal(hooks)
		doc.set("hooks", raw)
		return nil
	}
	raw, _ := json.Marshal(hooks)
	doc.set("hooks", raw)
	return nil
}

// jsonSame reports whether a and b hold the same JSON value, key order
// included (objects are compared member by member as written).
func jsonSame(a, b []byte) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// object is a JSON object that keeps its members' order and raw values.
type object []member

type member struct {
	Key   string
	Value json.RawMessage
}

func (o *object) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("not a JSON object")
	}
	*o = (*o)[:0]
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*o = append(*o, member{k, v})
	}
	_, err = dec.Token()
	return err
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o object) index(k string) int {
	for i := len(o) - 1; i >= 0; i-- { // the last of duplicate keys wins, as in JSON.parse
		if o[i].Key == k {
			return i
		}
	}
	return -1
}

func (o object) has(k string) bool { return o.index(k) >= 0 }

func (o *object) set(k string, v json.RawMessage) {
	if i := o.index(k); i >= 0 {
		(*o)[i].Value = v
		return
	}
	*o = append(*o, member{k, v})
}

func (o *object) remove(k string) {
	*o = slices.DeleteFunc(*o, func(m member) bool { return m.Key == k })
}

// object returns the member k as an object (empty when absent or null).
func (o object) object(k string) (object, error) {
	i := o.index(k)
	if i < 0 || string(o[i].Value) == "null" {
		return object{}, nil
	}
	var sub object
	if err := json.Unmarshal(o[i].Value, &sub); err != nil {
		return nil, fmt.Errorf("%s: %s is not an object; fix it, then render again", ClaudeSettingsPath, k)
	}
	return sub, nil
}

// strings returns the member k as a list of raw values (nil when absent).
func (o object) strings(k string) ([]json.RawMessage, error) {
	i := o.index(k)
	if i < 0 || string(o[i].Value) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(o[i].Value, &list); err != nil {
		return nil, fmt.Errorf("%s: %s is not a list; fix it, then render again", ClaudeSettingsPath, k)
	}
	return list, nil
}
