package renderers

import (
	"errors"
	"strings"
	"testing"
)

// TestDroidHookFile: Droid's hook is merged into .factory/settings.json
// beside the person's own hook and keys, and a project whose hooks live in
// .factory/hooks.json (which Droid then reads instead) is refused with
// ErrHooksShadowed rather than given a hook that would never run.
func TestDroidHookFile(t *testing.T) {
	doc := harnessDoc("droid", true)
	files := map[string]string{".factory/settings.json": `{
  // the person's
  "model": "x",
  "hooks": {"PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command", "command": "./guard.py"}]}]}
}`}
	read := func(p string) ([]byte, error) {
		if c, ok := files[p]; ok {
			return []byte(c), nil
		}
		return nil, nil
	}
	n, err := RenderNativeFrom(read, doc, NativeOptions{RulesPath: "rules"})
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Files) != 1 || n.Files[0].Path != ".factory/settings.json" {
		t.Fatalf("files %+v, want .factory/settings.json", n.Files)
	}
	got := n.Files[0].Content
	for _, want := range []string{"// the person's", `"model": "x"`, "./guard.py", `bridle hook droid --rules \"$FACTORY_PROJECT_DIR\"/rules`} {
		if !strings.Contains(got, want) {
			t.Errorf("settings lost %q:\n%s", want, got)
		}
	}
	files[".factory/hooks.json"] = `{"PreToolUse": []}`
	if _, err := RenderNativeFrom(read, doc, NativeOptions{RulesPath: "rules"}); !errors.Is(err, ErrHooksShadowed) {
		t.Errorf("with .factory/hooks.json: %v, want ErrHooksShadowed", err)
	}
}
