package gittree

import (
	"errors"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

func TestPut(t *testing.T) {
	s := memory.NewStorage()
	base, err := Put(s, plumbing.ZeroHash, map[string][]byte{"a/b.txt": []byte("b"), "README": []byte("r")})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Put(s, plumbing.ZeroHash, map[string][]byte{"README": []byte("r"), "a/b.txt": []byte("b")})
	if base != again {
		t.Error("the same files give two trees")
	}
	next, err := Put(s, base, map[string][]byte{"a/c.txt": []byte("c")})
	if err != nil {
		t.Fatal(err)
	}
	tree, _ := object.GetTree(s, next)
	var names []string
	tree.Files().ForEach(func(f *object.File) error { names = append(names, f.Name); return nil })
	if len(names) != 3 || names[0] != "README" || names[1] != "a/b.txt" || names[2] != "a/c.txt" {
		t.Errorf("files = %v", names)
	}
	for _, bad := range []string{"", "/abs", "../up", "a/../b", "./a", ".git/config", "x/.GIT/hooks/pre-commit", "a//b"} {
		if _, err := Put(s, base, map[string][]byte{bad: nil}); !errors.Is(err, ErrBadPath) {
			t.Errorf("Put(%q) = %v, want ErrBadPath", bad, err)
		}
	}
}
