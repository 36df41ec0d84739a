package vault

import (
	"os/exec"
	"strings"
	"testing"
)

func TestPublished(t *testing.T) {
	for v, want := range map[string]bool{
		"v1.4.0": true, "v0.3.1-rc.1": true,
		"": false, "(devel)": false, "v1.4.1-0.20261201010203-abcdefabcdef": false,
		"v0.0.0-20261201010203-abcdefabcdef": false, "v1.4.0-pre.0.20261201010203-abcdefabcdef": false,
		"v1.4.0+dirty": false, "v0.0.0-20261201010203-abcdefabcdef+dirty": false,
	} {
		if got := published(v); got != want {
			t.Errorf("published(%q) = %v, want %v", v, got, want)
		}
	}
}

// A path in the hint survives the shell as one word, whatever it holds.
func TestShellQuote(t *testing.T) {
	for _, s := range []string{"/home/mira/go/bin", "/tmp/a b", "/tmp/it's", "/tmp/$HOME;rm", ""} {
		out, err := exec.Command("bash", "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("shellQuote(%q) = %s: the shell reads %q (%v)", s, shellQuote(s), out, err)
		}
	}
	if h := InstallHelper(); !strings.Contains(h, "go install ./cmd/"+HelperName) {
		t.Errorf("built from this checkout, the hint does not install from it: %s", h)
	}
}
