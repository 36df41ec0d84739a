package memory

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ProjectDir is the directory of project's embedded store under dataDir:
// dataDir/projects/ID, ID the project's id made safe as one path element
// (an id that had to change gets a short hash of the original, so two ids
// never share a directory).
func ProjectDir(dataDir, project string) string {
	return filepath.Join(dataDir, "projects", safeID(project))
}

func safeID(id string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_', r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := b.String()
	if s == id && s != "" && len(s) <= 63 {
		return s
	}
	sum := sha256.Sum256([]byte(id))
	return fmt.Sprintf("%.40s-%s", s, hex.EncodeToString(sum[:4]))
}

// OpenProject opens project's store: the one the sidecar (bridle mcp), the
// CLI (bridle memory, bridle patterns) and the gateway (bridle serve) all
// use for that project, so moving from one to another keeps its memory and
// its indexed pattern examples. On SQLite it is the file
// ProjectDir(c.DataDir)/memory.db; on Qdrant, the collections prefixed
// p_ID_.
//
// The first time a project's file is opened it is seeded from the first of
// legacy (older layouts' files) that exists, then from the store every
// project of a sidecar shared before (c.DataDir/memory.db, of which only
// project's memories are kept, and the pattern examples the user indexed):
// a consistent copy (SQLite's VACUUM INTO), the old file left as it was.
func OpenProject(c Config, project string, legacy ...string) (Store, Embedder, error) {
	if c.QdrantURL != "" {
		st, emb, err := Open(c)
		if err != nil {
			return nil, nil, err
		}
		ns := Namespaced(st, "p_"+safeID(project)+"_")
		if err := seedNamespace(context.Background(), st, ns, emb, project); err != nil {
			st.Close()
			return nil, nil, fmt.Errorf("open memory store for %s: carry its memories over from the shared collection: %w", project, err)
		}
		return ns, emb, nil
	}
	if c.DataDir == "" {
		c.DataDir = DataDirFrom(os.Getenv) // a library caller that set none
	}
	dir := ProjectDir(c.DataDir, project)
	path := filepath.Join(dir, "memory.db")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		shared := filepath.Join(c.DataDir, "memory.db")
		for _, old := range append(legacy, shared) {
			if _, err := os.Stat(old); err != nil {
				continue
			}
			only := ""
			if old == shared {
				only = project // the shared file holds every project's memories
			}
			if err := copySQLite(old, path, only); err != nil {
				return nil, nil, fmt.Errorf("open memory store %s: seed from %s: %w", path, old, err)
			}
			break
		}
	}
	c.DataDir = dir
	return Open(c)
}

// copySQLite writes a consistent copy of the database at from (other
// processes may be writing it) to the new file to; with only set, without
// the memories of other projects.
func copySQLite(from, to, only string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+from+"?mode=ro&_pragma=busy_timeout(15000)")
	if err != nil {
		return err
	}
	defer db.Close()
	tmp := to + ".seed"
	os.Remove(tmp)
	if _, err := db.Exec(`VACUUM INTO ?`, tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	if only != "" {
		if err := keepOnly(tmp, only); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	return os.Rename(tmp, to)
}

// keepOnly deletes the memories of every project but project from the
// database at path (their keyword index entries first), and leaves no byte
// of them in the file: the keyword index's segments are merged (FTS5 keeps
// a deleted row's words until then) and the file rebuilt (VACUUM: freed
// pages still hold what was deleted).
func keepOnly(path, project string) error {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the pragma holds for this one connection
	other := `SELECT rid FROM records WHERE coll = ? AND coalesce(json_extract(payload, '$.project'), '') != ?`
	for _, stmt := range []struct {
		q    string
		args []any
	}{
		{`PRAGMA secure_delete = ON`, nil},
		{`DELETE FROM records_fts WHERE rowid IN (` + other + `)`, []any{MemoryCollection, project}},
		{`DELETE FROM records WHERE rid IN (` + other + `)`, []any{MemoryCollection, project}},
		{`INSERT INTO records_fts(records_fts) VALUES('optimize')`, nil},
		{`VACUUM`, nil},
	} {
		if _, err := db.Exec(stmt.q, stmt.args...); err != nil {
			return err
		}
	}
	return nil
}

// seedNamespace carries project's memories from the collection every
// project's sidecar shared before (un-prefixed, on the same Qdrant) into
// its own namespace, the first time the namespace holds none: re-embedded
// with emb (List returns no vectors), the old points left as they were.
// Pattern examples are not carried: bridle patterns index makes them again.
func seedNamespace(ctx context.Context, shared, ns Store, emb Embedder, project string) error {
	if n, err := ns.Count(ctx, MemoryCollection, Filter{}); err == nil && n > 0 {
		return nil
	}
	old, err := shared.List(ctx, MemoryCollection, Filter{Fields: map[string]string{"project": project}}, maxSeed)
	if err != nil || len(old) == 0 {
		return nil // no shared collection, or nothing of this project's in it
	}
	texts := make([]string, len(old))
	for i, r := range old {
		texts[i] = r.Text
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return err
	}
	for i := range old {
		old[i].Vector = vecs[i]
	}
	if err := ns.Ensure(ctx, MemoryCollection, emb.Model(), emb.Dim()); err != nil {
		return err
	}
	return ns.Upsert(ctx, MemoryCollection, old)
}

// maxSeed bounds the memories carried over at once (a project keeps far
// fewer; memory's own limits apply when they are written).
const maxSeed = 100_000
