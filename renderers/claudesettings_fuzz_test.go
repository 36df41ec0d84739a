package renderers

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzMergeClaudeSettings: whatever settings.json and manifest a user (or
// an agent) leaves, merging never panics, and what it writes is valid JSON
// that holds Bridle's entries and merges again to the same bytes.
func FuzzMergeClaudeSettings(f *testing.F) {
	f.Add([]byte(`{"permissions":{"deny":["Bash(rm -rf:*)"],"allow":["Bash(ls)"]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"mine"}]}]},"model":"x"}`), []byte(""))
	f.Add([]byte(`{}`), []byte(`{"generated_by":"Bridle","settings":".claude/settings.json","deny":["Bash(x)"],"ask":[],"content":"sha256:0"}`))
	f.Add([]byte(`{"permissions":null,"hooks":[]}`), []byte("{"))
	f.Add([]byte("[1,2]"), []byte("null"))
	f.Add([]byte(`{"permissions":{"deny":"Bash(x)"}}`), []byte(""))
	want := ClaudeWant{Deny: []string{"Bash(git push --force:*)", "Read(./.env)"}, Ask: []string{"Bash(git push:*)"}, Hook: `bridle hook claude --rules "$CLAUDE_PROJECT_DIR"/rules`}
	f.Fuzz(func(t *testing.T, settings, manifest []byte) {
		out, man, err := MergeClaudeSettings(settings, manifest, want)
		if err != nil {
			return // refused with an error: fine
		}
		if !json.Valid(out) || !json.Valid(man) {
			t.Fatalf("invalid JSON written:\n%s\n%s", out, man)
		}
		again, man2, err := MergeClaudeSettings(out, man, want)
		if err != nil || string(again) != string(out) || string(man2) != string(man) {
			t.Fatalf("a second merge changed the result (%v):\n%s\n---\n%s", err, out, again)
		}
	})
}

// TestMergeRefusesTamperedManifest: a manifest edited to claim the user's
// own entries would make the next render delete them; it is refused, and
// nothing is written.
func TestMergeRefusesTamperedManifest(t *testing.T) {
	want := ClaudeWant{Deny: []string{"Bash(git push --force:*)"}}
	user := []byte(`{"permissions":{"deny":["Read(./prod-credentials.json)"]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/usr/local/bin/audit"}]}]}}`)
	settings, manifest, err := MergeClaudeSettings(user, nil, want)
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	json.Unmarshal(manifest, &m)
	m.Deny = append(m.Deny, "Read(./prod-credentials.json)")
	m.Hook = "/usr/local/bin/audit"
	tampered, _ := json.Marshal(m)
	out, _, err := MergeClaudeSettings(settings, tampered, ClaudeWant{})
	if !errors.Is(err, ErrManifestEdited) || out != nil {
		t.Errorf("merge with a tampered manifest: %v, %s", err, out)
	}
}

// TestMergeRefusesSettingsClaudeWouldIgnore: one malformed hook makes
// Claude Code ignore the whole file, Bridle's rules included.
func TestMergeRefusesSettingsClaudeWouldIgnore(t *testing.T) {
	want := ClaudeWant{Deny: []string{"Bash(git push --force:*)"}}
	for _, bad := range []string{
		`{"hooks":{"PreToolUse":[{"matcher":"Nothing","hooks":[{"type":"comand","command":"true"}]}]}}`,
		`{"hooks":{"PreToolUse":[{"matcher":"Bash"}]}}`,
		`{"hooks":{"PreToolUse":[{"matcher":7,"hooks":[]}]}}`,
		`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command"}]}]}}`,
		`{"hooks":{"PreToolUse":{"matcher":"Bash"}}}`,
	} {
		if _, _, err := MergeClaudeSettings([]byte(bad), nil, want); !errors.Is(err, ErrSettingsVoid) {
			t.Errorf("%s: %v, want ErrSettingsVoid", bad, err)
		}
	}
	ok := `{"hooks":{"PostToolUse":[{"matcher":"Edit","hooks":[{"type":"command","command":"fmt","timeout":5}]}],"Stop":[{"hooks":[{"type":"prompt","prompt":"x"}]}]}}`
	if _, _, err := MergeClaudeSettings([]byte(ok), nil, want); err != nil {
		t.Errorf("valid hooks refused: %v", err)
	}
}
