package memory

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/redact"
)

// TestRememberMasksSecretsAtWriteTime: what an agent stores is masked before
// it reaches the store, so a reader that does not know the secret (another
// sidecar, the CLI without the variable) never sees it.
func TestRememberMasksSecretsAtWriteTime(t *testing.T) {
	ctx := context.Background()
	store, err := OpenSQLite(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	const token = "ghp_Zk3&<tok>\"en\\9f"
	writer := &Memory{Store: store, Embedder: Hashing{}, Project: "p", Redactor: redact.New(token, "pin7")}
	reader := &Memory{Store: store, Embedder: Hashing{}, Project: "p"} // knows no secret
	for _, tt := range []struct{ text, leak string }{
		{"the CI token is " + token + " for now", token},
		{"deploy pin is pin7", "pin7"},
		{"clone https://bot:s3cr3t-pw@git.example.com/x.git", "s3cr3t-pw"},
		{"db is postgres://app:pg%40pw@db/app", "pg%40pw"},
		{"mysql dsn root:my-pw-1@tcp(db:3306)/x", "my-pw-1"},
		{"set password=hunter22 in the config", "hunter22"},
	} {
		r, err := writer.Remember(ctx, Entry{Text: tt.text, Kind: "note"})
		if err != nil {
			t.Fatalf("remember %q: %v", tt.text, err)
		}
		got, err := store.Get(ctx, MemoryCollection, r.ID)
		if err != nil || strings.Contains(got.Text, tt.leak) || !strings.Contains(got.Text, redact.Mask) {
			t.Errorf("stored %q (err %v)", got.Text, err)
		}
	}
	recs, _ := reader.List(ctx, "", nil, "", 100)
	for _, r := range recs {
		if strings.Contains(r.Text, "s3cr3t") || strings.Contains(r.Text, "ghp_") {
			t.Errorf("a reader without the secret sees it: %q", r.Text)
		}
	}
	_, err = writer.Remember(ctx, Entry{Text: "tagged", Kind: "note", Tags: []string{"ok", "pin7"}})
	if !errors.Is(err, ErrInput) || !errors.Is(err, redact.ErrSecret) || strings.Contains(err.Error(), "pin7") {
		t.Errorf("a secret tag: %v", err)
	}
}
