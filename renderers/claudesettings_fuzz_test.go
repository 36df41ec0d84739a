package renderers

import (
	"encoding/json"
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
