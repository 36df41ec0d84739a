package redact

import (
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	const gh = "ghp_" + "Zx81Qw7Lm2Np4Rt6Vy9Bc3Df5Gh0Jk1Lm2Np4"
	tests := []struct {
		in   string
		want []string // what each token found is
	}{
		{"token " + gh + " here", []string{"a GitHub token"}},
		{"key: sk-ant-" + "api03-a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6", []string{"an Anthropic key"}},
		{"AKIA" + "IOSFODNN7EXAMPLE12", []string{"an AWS access key"}},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----", []string{"a private key"}},
		{"pip install sk-learn-documentation-pages-and-more-words", nil}, // a word, not a token
		{"ghp_short1", nil},
		{"", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, tok := range Tokens(tt.in) {
			got = append(got, tok.What)
			if !strings.Contains(tt.in, tok.Value) {
				t.Errorf("Tokens(%q): value %q is not in the text", tt.in, tok.Value)
			}
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("Tokens(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	// A token is a credential wherever it stands: masked and refused.
	masked, found := MaskCredentials("export GH=" + gh)
	if !found || strings.Contains(masked, gh) {
		t.Errorf("MaskCredentials: %q, %v", masked, found)
	}
	if err := New().Check("note", "use "+gh); err == nil {
		t.Error("Check accepted a GitHub token")
	}
}
