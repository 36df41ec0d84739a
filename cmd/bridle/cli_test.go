package main

import (
	"strings"
	"testing"
)

// TestUsageErrorsPointAtTheCommandsHelp: a usage error names the help of
// the command that refused, not only the root's.
func TestUsageErrorsPointAtTheCommandsHelp(t *testing.T) {
	tests := []struct {
		args []string
		help string
	}{
		{[]string{"frobnicate"}, "Run 'bridle --help' for usage."},
		{[]string{"render", "--bogus"}, "Run 'bridle render --help' for usage."},
		{[]string{"proposals", "show", "x"}, "Run 'bridle proposals show --help' for usage."},
		{[]string{"memory", "purge"}, "Run 'bridle memory purge --help' for usage."},
		{[]string{"approve"}, "Run 'bridle approve --help' for usage."},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := bridle(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.help) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitUsage, tt.help)
			}
		})
	}
}

func TestVersionFlag(t *testing.T) {
	_, want, _ := bridle(t, "version")
	code, out, stderr := bridle(t, "--version")
	if code != 0 || out != want || !strings.HasPrefix(out, "bridle ") {
		t.Errorf("--version: exit %d, %q (stderr %q); want %q, as bridle version prints", code, out, stderr, want)
	}
}
