package gateway

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/redact"
)

// Issue 23, item 6: a Kanboard user's Basic credential (user:token in
// base64) is masked in every alphabet and padding, for a short token too,
// as a Kanboard or proxy error echoes it.
func TestKanboardBasicCredentialIsMasked(t *testing.T) {
	const tok = "Zq?>~x1" // 7 bytes: masked only whole; its base64 has + and /
	red := redact.New()
	_, _, err := Kanboard(KanboardConfig{URL: "http://127.0.0.1:1", User: "jsonrpc", TokenFile: secretFile(t, tok), Projects: []int{1}},
		Credentials{Redactor: red})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		echo := "401: Authorization: Basic " + e.EncodeToString([]byte("jsonrpc:"+tok))
		if got := red.Redact(echo); !strings.HasSuffix(got, redact.Mask) {
			t.Errorf("%q is not masked: %q", echo, got)
		}
	}
}
