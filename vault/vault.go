package vault

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/renameio/v2"

	"github.com/bridle-dev/bridle/redact"
)

// Source says where a secret lives.
type Source string

// Sources, in lookup order.
const (
	SourceSOPS   Source = "sops"
	SourceDocker Source = "docker"
	SourceEnv    Source = "env"
)

// DefaultDockerDir is where Docker and Compose mount secrets.
const DefaultDockerDir = "/run/secrets"

// Options configure a Scope.
type Options struct {
	// Scope names the vault in Info and Change: a project id, or "server".
	Scope string
	// Dir holds FileName and ConfigName (a rules repository); "" for no
	// SOPS file.
	Dir string
	// Codec opens the SOPS file; it is asked for only when the file exists
	// or is written. nil: NewCodec is called then.
	Codec    Codec
	NewCodec func() (Codec, error)
	// DockerDir is the Docker secrets directory: DefaultDockerDir when
	// empty, none when "-".
	DockerDir string
	// Getenv reads NAME_FILE and NAME; nil: the environment is not a source.
	Getenv func(string) string
	// Key is the fingerprints' HMAC key (LoadKey); nil: a random one for
	// this process.
	Key []byte
	// Redactor gets every value read (required).
	Redactor *redact.Redactor
	// Warn is told, once per name, that a secret came from the environment.
	Warn func(msg string)
	// Commit records a written file (paths relative to Dir) with message;
	// nil: the file is written only.
	Commit func(ctx context.Context, files map[string][]byte, message string) (commit string, err error)
	// OnChange is told of every change after it is made (the audit log).
	// ctx is the one the change was made with (who made it, in the
	// gateway).
	OnChange func(ctx context.Context, c Change)
	// Parent is looked in after this vault's own sources (server-wide).
	Parent *Scope
	Now    func() time.Time
}

// Change is one change to the vault, for the audit log: never a value.
type Change struct {
	Scope       string `json:"scope"`
	Op          string `json:"op"` // set, rotate, revoke, rekey
	Name        string `json:"name,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Commit      string `json:"commit,omitempty"`
}

// Info is a secret as List shows it: never its value.
type Info struct {
	Name        string    `json:"name"`
	Scope       string    `json:"scope"`
	Source      Source    `json:"source"`
	Location    string    `json:"location"`
	Fingerprint string    `json:"fingerprint,omitempty"`
	Created     time.Time `json:"created,omitzero"`
	Rotated     time.Time `json:"rotated,omitzero"`
	Revoked     time.Time `json:"revoked,omitzero"`
	UsedBy      []string  `json:"used_by"`
	Error       string    `json:"error,omitempty"`
}

// Scope is one scope's secrets (a project's, or the server's). It is safe for
// concurrent use.
type Scope struct {
	o Options

	wmu sync.Mutex // one write at a time

	mu       sync.RWMutex
	file     File  // the SOPS file, decrypted
	exists   bool  // the SOPS file exists
	loadErr  error // why it could not be opened
	usedBy   map[string]map[string]bool
	watchers map[string]map[int]func()
	nextW    int
	seen     map[string]string // last value of each external secret, registered
	warned   map[string]bool
	stamp    string // the SOPS file's size and modification time when read
}

// Open opens the vault: the SOPS file is decrypted now. A file that cannot
// be opened does not fail Open (Docker and the environment still answer);
// its error is Err, and every name it might hold fails with it.
func Open(ctx context.Context, o Options) *Scope {
	if o.Redactor == nil {
		o.Redactor = redact.New()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Key == nil {
		o.Key = make([]byte, 32)
		_, _ = rand.Read(o.Key)
	}
	if o.Scope == "" {
		o.Scope = "server"
	}
	v := &Scope{o: o, usedBy: map[string]map[string]bool{}, watchers: map[string]map[int]func(){},
		seen: map[string]string{}, warned: map[string]bool{}}
	v.file = File{}.clone()
	v.loadErr = v.load(ctx)
	return v
}

// Err is why the SOPS file could not be opened, or nil.
func (v *Scope) Err() error {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.loadErr
}

// Name is the scope's name: a project id, or "server".
func (v *Scope) Name() string { return v.o.Scope }

// Path is the SOPS file's path ("" for none).
func (v *Scope) Path() string {
	if v.o.Dir == "" {
		return ""
	}
	return filepath.Join(v.o.Dir, FileName)
}

func (v *Scope) codec() (Codec, error) {
	if v.o.Codec != nil {
		return v.o.Codec, nil
	}
	if v.o.NewCodec == nil {
		return nil, ErrNoCodec
	}
	c, err := v.o.NewCodec()
	if err == nil {
		v.o.Codec = c
	}
	return c, err
}

// load reads the SOPS file into v.
func (v *Scope) load(ctx context.Context) error {
	p := v.Path()
	if p == "" {
		return nil
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		v.stamp = ""
		return nil
	}
	v.exists = true
	v.stamp = stampOf(p)
	if err != nil {
		return fmt.Errorf("the SOPS file %s %w: %w", p, ErrSource, err)
	}
	c, err := v.codec()
	if err != nil {
		return err
	}
	f, err := c.Decrypt(ctx, b)
	if err != nil {
		return fmt.Errorf("the SOPS file %s: %w%s", p, err, hint(err))
	}
	f = f.clone()
	for name, val := range f.Secrets {
		if ValidName(name) != nil {
			delete(f.Secrets, name)
			continue
		}
		v.o.Redactor.Add(val)
	}
	v.file = f
	return nil
}

func hint(err error) string {
	switch {
	case errors.Is(err, ErrKey):
		return " (point SOPS_AGE_KEY_FILE at an age identity the file is encrypted to, or have someone who can decrypt it add yours with bridle secrets rekey)"
	case errors.Is(err, ErrIntegrity):
		return " (restore it from git: git checkout -- " + FileName + ", or git log -p " + FileName + ")"
	}
	return ""
}

// stampOf is p's size and modification time ("" when it does not exist).
func stampOf(p string) string {
	st, err := os.Stat(p)
	if err != nil {
		return ""
	}
	return fmt.Sprint(st.Size(), st.ModTime().UnixNano())
}

// Stale reports whether the SOPS file changed on disk since the vault read
// or wrote it (a git pull, sops edit): Reload then.
func (v *Scope) Stale() bool {
	p := v.Path()
	if p == "" {
		return false
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	return stampOf(p) != v.stamp
}

// Reload reads the SOPS file again (after a pull) and tells the watchers
// of every name whose value changed.
func (v *Scope) Reload(ctx context.Context) error {
	v.wmu.Lock()
	defer v.wmu.Unlock()
	nv := &Scope{o: v.o, file: File{}.clone()}
	err := nv.load(ctx)
	v.mu.Lock()
	old := v.file
	if err == nil {
		v.file, v.exists = nv.file, nv.exists
	}
	v.loadErr, v.stamp = err, nv.stamp
	v.mu.Unlock()
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(union(old.Secrets, nv.file.Secrets))) {
		if old.Secrets[name] != nv.file.Secrets[name] || old.Meta[name].Revoked != nv.file.Meta[name].Revoked {
			v.notify(name)
		}
	}
	return nil
}

func union(a, b map[string]string) map[string]string {
	u := maps.Clone(a)
	if u == nil {
		u = map[string]string{}
	}
	maps.Copy(u, b)
	return u
}

// Get is the secret's value. The error says which source failed and what
// to do; it wraps ErrNotFound, ErrRevoked, ErrSource, ErrKey, ErrIntegrity
// or ErrBadName.
func (v *Scope) Get(name string) (string, error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	v.mu.RLock()
	val, inFile := v.file.Secrets[name]
	revoked := !v.file.Meta[name].Revoked.IsZero()
	loadErr := v.loadErr
	v.mu.RUnlock()
	if revoked {
		return "", revokedErr(name)
	}
	if inFile {
		return val, nil
	}
	// The server-wide SOPS file comes before Docker secrets and the
	// environment, as for the server itself: a server-wide rotation or
	// revocation is never shadowed in a project by an old variable.
	if p := v.o.Parent; p != nil {
		p.mu.RLock()
		pval, pin := p.file.Secrets[name]
		prevoked := !p.file.Meta[name].Revoked.IsZero()
		p.mu.RUnlock()
		if prevoked {
			return "", revokedErr(name)
		}
		if pin {
			return pval, nil
		}
	}
	val, _, _, err := v.external(name)
	if err != nil || val != "" {
		return val, err
	}
	if loadErr != nil {
		return "", fmt.Errorf("secret %s: %w", name, loadErr)
	}
	where := v.o.Scope
	if v.o.Parent != nil {
		val, err := v.o.Parent.Get(name)
		if !errors.Is(err, ErrNotFound) {
			return val, err
		}
		where += " nor " + v.o.Parent.o.Scope
	}
	return "", fmt.Errorf("secret %s %w (%s): add it with bridle secrets set %s, or mount it as a Docker secret", name, ErrNotFound, where, name)
}

func revokedErr(name string) error {
	return fmt.Errorf("secret %s %w: set a new value with bridle secrets set %s", name, ErrRevoked, name)
}

// external reads name from Docker secrets and the environment: the value
// ("" when no source has it), its source and location.
func (v *Scope) external(name string) (string, Source, string, error) {
	if dir := v.dockerDir(); dir != "" {
		p := filepath.Join(dir, name)
		val, found, err := readSecretFile(name, p)
		if err != nil || found {
			return v.register(name, val), SourceDocker, p, err
		}
	}
	if v.o.Getenv == nil {
		return "", "", "", nil
	}
	env := EnvName(name)
	if p := strings.TrimSpace(v.o.Getenv(env + "_FILE")); p != "" {
		val, found, err := readSecretFile(name, p)
		if err == nil && !found {
			err = fmt.Errorf("secret %s %w: %s_FILE names %s, which does not exist", name, ErrSource, env, p)
		}
		return v.register(name, val), SourceDocker, "$" + env + "_FILE", err
	}
	if val := v.o.Getenv(env); val != "" {
		v.warn(name, env)
		return v.register(name, val), SourceEnv, "$" + env, nil
	}
	return "", "", "", nil
}

func (v *Scope) dockerDir() string {
	switch v.o.DockerDir {
	case "-":
		return ""
	case "":
		return DefaultDockerDir
	}
	return v.o.DockerDir
}

// register adds a newly seen value to the redactor (once per value).
func (v *Scope) register(name, val string) string {
	if val == "" {
		return ""
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.seen[name] != val {
		v.o.Redactor.Add(val)
		v.seen[name] = val
	}
	return val
}

func (v *Scope) warn(name, env string) {
	v.mu.Lock()
	first := !v.warned[name]
	v.warned[name] = true
	v.mu.Unlock()
	if first && v.o.Warn != nil {
		v.o.Warn(fmt.Sprintf("secret %s comes from the environment variable %s: fine for development; use the SOPS file (bridle secrets set) or a Docker secret in production", name, env))
	}
}

// maxSecret is the largest secret file read.
const maxSecret = 64 << 10

// readSecretFile reads a Docker secret: found is false when p does not
// exist. A directory, an unreadable, empty or oversized file is ErrSource.
func readSecretFile(name, p string) (val string, found bool, err error) {
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	case err != nil:
		return "", true, fmt.Errorf("secret %s %w: %s: %v (give bridle's user read access)", name, ErrSource, p, errors.Unwrap(err))
	case st.IsDir():
		return "", true, fmt.Errorf("secret %s %w: %s is a directory; mount the secret as a file", name, ErrSource, p)
	case !st.Mode().IsRegular():
		// A FIFO or a device would block or never end: only files.
		return "", true, fmt.Errorf("secret %s %w: %s is not a regular file (%s); mount the secret as a file", name, ErrSource, p, st.Mode().Type())
	case st.Size() > maxSecret:
		return "", true, fmt.Errorf("secret %s %w: %s is larger than %d bytes", name, ErrSource, p, maxSecret)
	}
	f, err := os.Open(p)
	if err != nil {
		return "", true, fmt.Errorf("secret %s %w: %s: %v (give bridle's user read access)", name, ErrSource, p, errors.Unwrap(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecret))
	if err != nil {
		return "", true, fmt.Errorf("secret %s %w: %s: %v", name, ErrSource, p, errors.Unwrap(err))
	}
	val = strings.TrimSpace(string(b))
	if val == "" {
		return "", true, fmt.Errorf("secret %s %w: %s is empty; write the value into it, or remove it", name, ErrSource, p)
	}
	return val, true, nil
}

// Use records that consumer (e.g. "project p: gitea") uses name, for List.
// A name the vault's own file does not hold is recorded in the parent too.
func (v *Scope) Use(name, consumer string) {
	v.mu.Lock()
	if v.usedBy[name] == nil {
		v.usedBy[name] = map[string]bool{}
	}
	v.usedBy[name][consumer] = true
	_, own := v.file.Secrets[name]
	v.mu.Unlock()
	if p := v.o.Parent; p != nil && !own {
		p.Use(name, v.o.Scope+": "+consumer)
	}
}

// Watch calls f after name is set, rotated or revoked (before the call
// that changed it returns), until stop is called. f must not call back
// into a write of the vault.
func (v *Scope) Watch(name string, f func()) (stop func()) {
	v.mu.Lock()
	id := v.nextW
	v.nextW++
	if v.watchers[name] == nil {
		v.watchers[name] = map[int]func(){}
	}
	v.watchers[name][id] = f
	v.mu.Unlock()
	var stopParent func()
	if v.o.Parent != nil {
		stopParent = v.o.Parent.Watch(name, f)
	}
	return func() {
		v.mu.Lock()
		delete(v.watchers[name], id)
		v.mu.Unlock()
		if stopParent != nil {
			stopParent()
		}
	}
}

func (v *Scope) notify(name string) {
	v.mu.RLock()
	fs := slices.Collect(maps.Values(v.watchers[name]))
	v.mu.RUnlock()
	for _, f := range fs {
		f()
	}
}

// Fingerprint is value's keyed fingerprint under the vault key.
func (v *Scope) Fingerprint(value string) string {
	m := hmac.New(sha256.New, v.o.Key)
	m.Write([]byte(value))
	return hex.EncodeToString(m.Sum(nil))[:12]
}

// List is every secret the vault knows of: the SOPS file's (revoked ones
// too), the Docker secrets directory's, and any other name a consumer
// uses, sorted by name. The parent's are not included.
func (v *Scope) List() []Info {
	v.mu.RLock()
	f, loadErr := v.file, v.loadErr
	names := map[string]bool{}
	for n := range f.Secrets {
		names[n] = true
	}
	for n, m := range f.Meta {
		if !m.Revoked.IsZero() {
			names[n] = true
		}
	}
	for n := range v.usedBy {
		names[n] = true
	}
	used := map[string][]string{}
	for n, c := range v.usedBy {
		used[n] = slices.Sorted(maps.Keys(c))
	}
	v.mu.RUnlock()
	if dir := v.dockerDir(); dir != "" {
		if ents, err := os.ReadDir(dir); err == nil {
			for _, e := range ents {
				if ValidName(e.Name()) == nil {
					names[e.Name()] = true
				}
			}
		}
	}
	var out []Info
	for _, n := range slices.Sorted(maps.Keys(names)) {
		in := Info{Name: n, Scope: v.o.Scope, UsedBy: used[n]}
		if in.UsedBy == nil {
			in.UsedBy = []string{}
		}
		m := f.Meta[n]
		in.Created, in.Rotated, in.Revoked = m.Created, m.Rotated, m.Revoked
		if val, ok := f.Secrets[n]; ok || !m.Revoked.IsZero() {
			in.Source, in.Location = SourceSOPS, FileName
			if ok {
				in.Fingerprint = v.Fingerprint(val)
			}
			out = append(out, in)
			continue
		}
		val, src, loc, err := v.external(n)
		in.Source, in.Location = src, loc
		switch {
		case err != nil:
			in.Error = err.Error()
		case val != "":
			in.Fingerprint = v.Fingerprint(val)
		case loadErr != nil:
			in.Source, in.Location, in.Error = SourceSOPS, FileName, loadErr.Error()
		default:
			in.Error = fmt.Sprintf("secret %s %v", n, ErrNotFound)
			if v.o.Parent != nil {
				if _, err := v.o.Parent.Get(n); err == nil {
					in.Error, in.Source, in.Location = "", "", "the server-wide vault"
				}
			}
		}
		out = append(out, in)
	}
	return out
}

// LoadKey reads the vault key (the fingerprints' HMAC key) at path,
// creating 32 random bytes, readable by the owner only, when there is none.
func LoadKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil && len(b) >= 32 {
		return b, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("vault key: %w", err)
	}
	b = make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("vault key: %w", err)
	}
	if err := renameio.WriteFile(path, b, 0o600); err != nil {
		return nil, fmt.Errorf("vault key: %w", err)
	}
	return b, nil
}
