// Package gittree writes git trees without a work tree: a base tree with
// some files put into it, as go-git objects in a repository's storer.
//
// It never touches the work tree or the index; callers that want those
// updated do it themselves. Paths are slash-separated and relative to the
// tree's root; a path that is not clean and local (empty, absolute, with
// "." or ".." elements, or a .git element in any case) is refused with ErrBadPath.
package gittree

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// ErrBadPath is returned for a path that does not name a file inside the tree.
var ErrBadPath = errors.New("not a clean relative path")

// Put returns the hash of a tree like base (the zero hash for an empty tree)
// with every file in files (by slash path) written into it as a regular
// file, creating directories as needed. Files are written in path order, so
// the same input always gives the same tree.
func Put(s storer.EncodedObjectStorer, base plumbing.Hash, files map[string][]byte) (plumbing.Hash, error) {
	tree := &object.Tree{}
	if !base.IsZero() {
		t, err := object.GetTree(s, base)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		tree = t
	}
	h := base
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if name == "" || path.Clean(name) != name || path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") ||
			slices.ContainsFunc(strings.Split(name, "/"), func(p string) bool { return strings.EqualFold(p, ".git") }) {
			return plumbing.ZeroHash, fmt.Errorf("put %q: %w", name, ErrBadPath)
		}
		blob, err := writeBlob(s, files[name])
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h, err = put(s, tree, strings.Split(name, "/"), blob); err != nil {
			return plumbing.ZeroHash, err
		}
		if tree, err = object.GetTree(s, h); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	if h.IsZero() { // no files and no base: the empty tree
		return writeTree(s, &object.Tree{})
	}
	return h, nil
}

func writeBlob(s storer.EncodedObjectStorer, data []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

func writeTree(s storer.EncodedObjectStorer, t *object.Tree) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// put returns a tree like t with the file at parts set to blob.
func put(s storer.EncodedObjectStorer, t *object.Tree, parts []string, blob plumbing.Hash) (plumbing.Hash, error) {
	entries := append([]object.TreeEntry(nil), t.Entries...)
	name := parts[0]
	idx := -1
	for i, e := range entries {
		if e.Name == name {
			idx = i
		}
	}
	var entry object.TreeEntry
	if len(parts) == 1 {
		entry = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: blob}
	} else {
		sub := &object.Tree{}
		if idx >= 0 && entries[idx].Mode == filemode.Dir {
			st, err := object.GetTree(s, entries[idx].Hash)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			sub = st
		}
		h, err := put(s, sub, parts[1:], blob)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entry = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
	}
	if idx >= 0 {
		entries[idx] = entry
	} else {
		entries = append(entries, entry)
	}
	// git's tree order: a directory sorts as if its name ended in "/".
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	return writeTree(s, &object.Tree{Entries: entries})
}
