package gateway

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/renameio/v2"

	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/redact"
)

// TokenPrefix starts every token Bridle mints, so that a leaked one is
// recognisable (secret scanners, the redactor: tokenShape).
const TokenPrefix = "bridle_"

// tokenShape is what every minted token looks like: the prefix and 43
// base64url characters (256 bits).
var tokenShape = lazyregexp.New(`bridle_[A-Za-z0-9_-]{43}`)

// Errors of the token store, for errors.Is.
var (
	ErrExists     = errors.New("already exists")
	ErrNoSuchItem = errors.New("not found")
	ErrInput      = errors.New("bad input")
)

// AgentToken is what the store keeps of an agent's token: never the token.
type AgentToken struct {
	Project string    `json:"project"`
	Agent   string    `json:"agent"`
	Hash    string    `json:"hash"` // SHA-256 of the token, hex; never shown
	Created time.Time `json:"created"`
	Rotated time.Time `json:"rotated,omitzero"`
}

// TokenInfo is what an admin sees of a token.
type TokenInfo struct {
	Project string    `json:"project"`
	Agent   string    `json:"agent"`
	Created time.Time `json:"created"`
	Rotated time.Time `json:"rotated,omitzero"`
}

// Tokens is the agents' token store: a 0600 JSON file in the state
// directory, rewritten atomically on every change. Tokens are 256 random
// bits, so one unsalted SHA-256 identifies them without making them
// guessable.
type Tokens struct {
	path string
	now  func() time.Time

	mu     sync.RWMutex
	byHash map[string]AgentToken
}

var agentName = lazyregexp.New(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// OpenTokens loads the store at path (empty when the file does not exist).
func OpenTokens(path string, now func() time.Time) (*Tokens, error) {
	if now == nil {
		now = time.Now
	}
	t := &Tokens{path: path, now: now, byHash: map[string]AgentToken{}}
	list, err := loadList[AgentToken](path, "tokens")
	if err != nil {
		return nil, err
	}
	for _, a := range list {
		t.byHash[a.Hash] = a
	}
	return t, nil
}

func hashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// NewToken returns a fresh random token.
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// Verify returns the token's (project, agent), or false. The lookup is by
// hash, so its timing says nothing about the token.
func (t *Tokens) Verify(token string) (AgentToken, bool) {
	if !strings.HasPrefix(token, TokenPrefix) || len(token) > 200 {
		return AgentToken{}, false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	a, ok := t.byHash[hashToken(token)]
	return a, ok
}

func (t *Tokens) find(project, agent string) (AgentToken, bool) {
	for _, a := range t.byHash {
		if a.Project == project && a.Agent == agent {
			return a, true
		}
	}
	return AgentToken{}, false
}

// Add mints the token of a new (project, agent) and returns it: the only
// time it is seen. An agent that has one is ErrExists (rotate it).
func (t *Tokens) Add(project, agent string) (string, TokenInfo, error) {
	if !agentName.MatchString(agent) {
		return "", TokenInfo{}, fmt.Errorf("%w: agent %q: lower-case letters, digits, '.', '_' and '-'", ErrInput, agent)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.find(project, agent); ok {
		return "", TokenInfo{}, fmt.Errorf("agent %s of project %s %w: rotate its token instead", agent, project, ErrExists)
	}
	tok := NewToken()
	a := AgentToken{Project: project, Agent: agent, Hash: hashToken(tok), Created: t.now().UTC()}
	t.byHash[a.Hash] = a
	if err := t.save(); err != nil {
		delete(t.byHash, a.Hash)
		return "", TokenInfo{}, err
	}
	return tok, info(a), nil
}

// Rotate replaces an agent's token; the old one fails from the next request.
func (t *Tokens) Rotate(project, agent string) (string, TokenInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	old, ok := t.find(project, agent)
	if !ok {
		return "", TokenInfo{}, fmt.Errorf("agent %s of project %s: %w", agent, project, ErrNoSuchItem)
	}
	tok := NewToken()
	a := old
	a.Hash, a.Rotated = hashToken(tok), t.now().UTC()
	delete(t.byHash, old.Hash)
	t.byHash[a.Hash] = a
	if err := t.save(); err != nil {
		delete(t.byHash, a.Hash)
		t.byHash[old.Hash] = old
		return "", TokenInfo{}, err
	}
	return tok, info(a), nil
}

// Revoke removes an agent's token; it fails from the next request.
func (t *Tokens) Revoke(project, agent string) (TokenInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.find(project, agent)
	if !ok {
		return TokenInfo{}, fmt.Errorf("agent %s of project %s: %w", agent, project, ErrNoSuchItem)
	}
	delete(t.byHash, a.Hash)
	if err := t.save(); err != nil {
		t.byHash[a.Hash] = a
		return TokenInfo{}, err
	}
	return info(a), nil
}

// List is every token of project ("" for all), by project then agent.
func (t *Tokens) List(project string) []TokenInfo {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var out []TokenInfo
	for _, a := range t.byHash {
		if project == "" || a.Project == project {
			out = append(out, info(a))
		}
	}
	slices.SortFunc(out, func(a, b TokenInfo) int {
		return strings.Compare(a.Project+"\x00"+a.Agent, b.Project+"\x00"+b.Agent)
	})
	return out
}

func info(a AgentToken) TokenInfo {
	return TokenInfo{Project: a.Project, Agent: a.Agent, Created: a.Created, Rotated: a.Rotated}
}

func (t *Tokens) save() error {
	list := make([]AgentToken, 0, len(t.byHash))
	for _, a := range t.byHash {
		list = append(list, a)
	}
	slices.SortFunc(list, func(a, b AgentToken) int {
		return strings.Compare(a.Project+"\x00"+a.Agent, b.Project+"\x00"+b.Agent)
	})
	return saveList(t.path, "tokens", list)
}

// loadList reads the JSON list a store keeps at path (what names the store
// in errors); a missing file is an empty list.
func loadList[T any](path, what string) ([]T, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var list []T
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", what, path, err)
	}
	return list, nil
}

// saveList writes a store's list to path as indented JSON, atomically,
// 0600 in a 0700 directory: the stores hold credentials' hashes.
func saveList[T any](path, what string, list []T) error {
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := renameio.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Admin is the admin credential, held as a hash.
type Admin struct {
	hash [32]byte
	Path string // the file it came from, or was generated into
	// Generated is true when the server made it on this start (no file was
	// configured and none was in the state directory).
	Generated bool
}

// MinAdminToken is the shortest admin credential accepted from a file.
const MinAdminToken = 24

// LoadAdmin reads the admin credential from file. With file empty the
// state directory holds it: on a first start a credential is generated
// into dir/admin-token (0600, for the human to take) and only its hash is
// kept, in dir/admin-token.sha256, which later starts read, so the
// credential's file may be moved away. The credential is added to red.
func LoadAdmin(file, dir string, red *redact.Redactor) (*Admin, error) {
	if file == "" {
		hashFile := filepath.Join(dir, "admin-token.sha256")
		b, err := os.ReadFile(hashFile)
		switch {
		case err == nil:
			h, err := hex.DecodeString(strings.TrimSpace(string(b)))
			if err != nil || len(h) != sha256.Size {
				return nil, fmt.Errorf("%w: %s is not a SHA-256 hash: delete it and its admin-token to have a new credential made", ErrConfig, hashFile)
			}
			a := &Admin{Path: filepath.Join(dir, "admin-token")}
			copy(a.hash[:], h)
			if b, err := os.ReadFile(a.Path); err == nil {
				red.Add(strings.TrimSpace(string(b)))
			}
			return a, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("admin credential: %w", err)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("admin credential: %w", err)
		}
		tok := NewToken()
		red.Add(tok)
		h := sha256.Sum256([]byte(tok))
		path := filepath.Join(dir, "admin-token")
		if err := renameio.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("admin credential: %w", err)
		}
		if err := renameio.WriteFile(hashFile, []byte(hex.EncodeToString(h[:])+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("admin credential: %w", err)
		}
		return &Admin{hash: h, Path: path, Generated: true}, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("admin credential: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < MinAdminToken {
		return nil, fmt.Errorf("%w: the admin credential in %s is shorter than %d characters (make one with: openssl rand -hex 32)", ErrConfig, file, MinAdminToken)
	}
	red.Add(tok)
	return &Admin{hash: sha256.Sum256([]byte(tok)), Path: file}, nil
}

// Check reports whether token is the admin credential, in constant time.
func (a *Admin) Check(token string) bool {
	h := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(h[:], a.hash[:]) == 1
}
