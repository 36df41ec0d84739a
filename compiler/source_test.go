package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadNotRegular: a rules path that is a named pipe, a device, a
// directory or a socket is refused with a diagnostic, at once: opening a
// FIFO for reading would otherwise wait for a writer forever.
func TestReadNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifoDir := filepath.Join(dir, "fifo")
	os.Mkdir(fifoDir, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifoDir, FileName), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	dirDir := filepath.Join(dir, "dir")
	os.MkdirAll(filepath.Join(dirDir, FileName), 0o755)
	linkDir := filepath.Join(dir, "link")
	os.Mkdir(linkDir, 0o755)
	os.Symlink(filepath.Join(fifoDir, FileName), filepath.Join(linkDir, FileName))

	tests := []struct{ rules, want string }{
		{fifoDir, "is a named pipe (FIFO), not a regular file"},
		{filepath.Join(fifoDir, FileName), "is a named pipe (FIFO)"},
		{linkDir, "is a named pipe (FIFO)"}, // through a symbolic link
		{dirDir, "is a directory, not a regular file"},
		{"/dev/null", "is a device, not a regular file"},
	}
	for _, tt := range tests {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, diags, err := Read(Options{Rules: tt.rules})
			if err != nil {
				t.Errorf("%s: error %v, want a diagnostic", tt.rules, err)
				return
			}
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.want) {
				t.Errorf("%s: diagnostics %q, want one containing %q", tt.rules, diags.Error(), tt.want)
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Read hangs", tt.rules)
		}
	}
}

// TestReadLimitedFIFO: readLimited, which rulesPath's check precedes, does
// not block on a FIFO either (the path may change between the two).
func TestReadLimitedFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, diags, err := readLimited(p)
		if err != nil || !strings.Contains(diags.Error(), "named pipe") {
			t.Errorf("readLimited = %q, %v; want a named-pipe diagnostic", diags.Error(), err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("readLimited hangs on a FIFO")
	}
}
