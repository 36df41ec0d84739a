package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// writeGenerated fills dir with about mb MiB of Go files of 50 KiB each.
func writeGenerated(tb testing.TB, dir string, mb int) {
	tb.Helper()
	var file strings.Builder
	for n := 0; file.Len() < 50<<10; n++ {
		fmt.Fprintf(&file, "// Handle%d validates the request and stores a payout number %d.\nfunc Handle%d(x int) int {\n\treturn x + %d\n}\n\n", n, n, n, n)
	}
	body := "package gen\n\n" + file.String()
	for i := 0; i < mb*20; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", i/100))
		os.MkdirAll(sub, 0o755)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d.go", i)), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
