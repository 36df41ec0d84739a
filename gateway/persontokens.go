package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bridle-dev/bridle/actor"
)

// Person tokens are a signed-in person's own API tokens: a person who
// signed in through the identity provider mints them (the panel's account
// page, bridle login) and each authenticates admin API requests as that
// person (actor.ViaAPIToken), with the role the configuration gives them
// at each request — a person taken off auth.roles loses the right at their
// next request, token or not.
//
// Promises:
//   - The store keeps a token's SHA-256 only, as the agents' store does
//     (Tokens); the token is answered once, when minted.
//   - A token names one person (their provider subject, as at sign-in),
//     expires (MaxPersonTokenDays at most), and is refused from the
//     request after its revocation or expiry.
//   - Only its owner lists and revokes a token; only a person signed in
//     through the provider mints one, for themselves (never the admin
//     credential's holder, never with another token).

// Bounds of person tokens.
const (
	// DefaultPersonTokenDays is how long a token lives when its request
	// does not say; MaxPersonTokenDays the longest it may.
	DefaultPersonTokenDays = 90
	MaxPersonTokenDays     = 366
	// MaxPersonTokens is how many live tokens one person may hold.
	MaxPersonTokens = 20
	// MaxTokenName is the longest name of a token, in bytes.
	MaxTokenName = 80
	// TokenGroupsFor is how long a token keeps the groups of the sign-in
	// that minted it (a panel session's longest life): taken out of a
	// team, a person keeps its role through a token no longer than that.
	TokenGroupsFor = 12 * time.Hour
	// lastUsedEvery is how stale the stored last use may get: a token
	// used all day rewrites the file once a minute, not at every request.
	lastUsedEvery = time.Minute
)

// ErrNotSignedIn is an action on person tokens by someone who is not a
// person signed in through the provider (the admin credential's holder,
// an agent, no one).
var ErrNotSignedIn = errors.New("not a person signed in through the identity provider")

// PersonToken is what the store keeps of a person's token: never the
// token.
type PersonToken struct {
	ID     string      `json:"id"`
	Hash   string      `json:"hash"` // SHA-256 of the token, hex; never shown
	Name   string      `json:"name"`
	Person actor.Actor `json:"person"` // as they signed in when they minted it
	// Groups are the provider's groups of that sign-in (roles given by
	// group read them), until GroupsUntil: the provider is not asked
	// again, so a token does not keep a team's role longer than a panel
	// session would (TokenGroupsFor).
	Groups      []string  `json:"groups,omitempty"`
	GroupsUntil time.Time `json:"groups_until,omitzero"`
	Created     time.Time `json:"created"`
	LastUsed    time.Time `json:"last_used,omitzero"`
	Expires     time.Time `json:"expires"`
}

// PersonTokenInfo is what a person sees of a token of theirs.
type PersonTokenInfo struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used,omitzero"`
	Expires  time.Time `json:"expires"`
}

// PersonTokenRequest asks for a new token of the signed-in person.
type PersonTokenRequest struct {
	// Name says where the token is used ("bridle login on build-07").
	Name string `json:"name"`
	// ExpiresInDays is its life: DefaultPersonTokenDays when 0, at most
	// MaxPersonTokenDays.
	ExpiresInDays int `json:"expires_in_days,omitempty"`
}

// MintedPersonToken is a person token shown once, when it is minted.
type MintedPersonToken struct {
	Token  string          `json:"token"`
	Info   PersonTokenInfo `json:"info"`
	Person actor.Actor     `json:"person"`
}

// PersonTokens is the people's token store: a 0600 JSON file in the state
// directory beside the agents' (people.json), rewritten atomically on
// every change.
type PersonTokens struct {
	path string
	now  func() time.Time

	mu     sync.Mutex
	byHash map[string]*PersonToken
	saved  map[string]time.Time // each token's last use as the file has it
}

// OpenPersonTokens loads the store at path (empty when the file does not
// exist).
func OpenPersonTokens(path string, now func() time.Time) (*PersonTokens, error) {
	if now == nil {
		now = time.Now
	}
	t := &PersonTokens{path: path, now: now, byHash: map[string]*PersonToken{}, saved: map[string]time.Time{}}
	list, err := loadList[PersonToken](path, "person tokens")
	if err != nil {
		return nil, err
	}
	for i := range list {
		pt := list[i]
		t.byHash[pt.Hash] = &pt
		t.saved[pt.Hash] = pt.LastUsed
	}
	return t, nil
}

// tokenName is name trimmed, or why it is no name.
func tokenName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", fmt.Errorf("%w: a token needs a name (where it is used, e.g. \"laptop\")", ErrInput)
	case len(name) > MaxTokenName:
		return "", fmt.Errorf("%w: a token's name is at most %d bytes", ErrInput, MaxTokenName)
	case strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 || !utf8.ValidString(name):
		return "", fmt.Errorf("%w: a token's name is printable text on one line", ErrInput)
	}
	return name, nil
}

// Mint makes a token for person (in groups, as their sign-in said),
// named name, living days (0: the default), and returns it: the only time
// it is seen. person must be a person whose sign-in names them
// (actor.SignedInSubject).
func (t *PersonTokens) Mint(person actor.Actor, groups []string, name string, days int) (string, PersonTokenInfo, error) {
	if !person.IsHuman() || !actor.SignedInSubject(person.Subject) || !person.Named() {
		return "", PersonTokenInfo{}, ErrNotSignedIn
	}
	name, err := tokenName(name)
	if err != nil {
		return "", PersonTokenInfo{}, err
	}
	switch {
	case days == 0:
		days = DefaultPersonTokenDays
	case days < 0 || days > MaxPersonTokenDays:
		return "", PersonTokenInfo{}, fmt.Errorf("%w: expires_in_days is 1 to %d (0: %d)", ErrInput, MaxPersonTokenDays, DefaultPersonTokenDays)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now().UTC()
	t.dropExpired(now)
	if n := len(t.of(person.Subject)); n >= MaxPersonTokens {
		return "", PersonTokenInfo{}, fmt.Errorf("%w: you hold %d tokens, the most one person may: revoke one first", ErrInput, n)
	}
	tok := NewToken()
	person.Via = "" // how they authenticate is decided at each use
	pt := &PersonToken{ID: randomTokenID(), Hash: hashToken(tok), Name: name, Person: person, Groups: CleanGroups(groups), GroupsUntil: now.Add(TokenGroupsFor), Created: now,
		Expires: now.Add(time.Duration(days) * 24 * time.Hour)}
	t.byHash[pt.Hash] = pt
	if err := t.save(); err != nil {
		delete(t.byHash, pt.Hash)
		return "", PersonTokenInfo{}, err
	}
	return tok, pt.info(), nil
}

// randomTokenID is a token's public id: 64 random bits in hex, unrelated
// to the token.
func randomTokenID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Verify is the person token names, as authenticated by it now
// (actor.ViaAPIToken), and their groups as the token keeps them; false for
// no token, an unknown, a revoked or an expired one (the groups only
// until GroupsUntil). Its last use is
// recorded (and written to the file at most once a lastUsedEvery).
func (t *PersonTokens) Verify(token string) (actor.Actor, []string, bool) {
	if !strings.HasPrefix(token, TokenPrefix) || len(token) > 200 {
		return actor.Actor{}, nil, false
	}
	h := hashToken(token)
	t.mu.Lock()
	defer t.mu.Unlock()
	pt, ok := t.byHash[h]
	now := t.now().UTC()
	if !ok || !now.Before(pt.Expires) {
		return actor.Actor{}, nil, false
	}
	pt.LastUsed = now
	if now.Sub(t.saved[h]) >= lastUsedEvery {
		t.save() // best effort: a failed write loses a last use, not the token
	}
	a := pt.Person
	a.Via = actor.ViaAPIToken
	if !now.Before(pt.GroupsUntil) {
		return a, nil, true
	}
	return a, slices.Clone(pt.Groups), true
}

// List is subject's live tokens, newest first.
func (t *PersonTokens) List(subject string) []PersonTokenInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []PersonTokenInfo{}
	now := t.now()
	for _, pt := range t.of(subject) {
		if now.Before(pt.Expires) {
			out = append(out, pt.info())
		}
	}
	return out
}

// Revoke removes subject's token id; it is refused from the next request.
// Another person's token is ErrNoSuchItem, as an unknown one is.
func (t *PersonTokens) Revoke(subject, id string) (PersonTokenInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, pt := range t.of(subject) {
		if pt.ID == id {
			delete(t.byHash, pt.Hash)
			if err := t.save(); err != nil {
				t.byHash[pt.Hash] = pt
				return PersonTokenInfo{}, err
			}
			return pt.info(), nil
		}
	}
	return PersonTokenInfo{}, fmt.Errorf("token %q: %w", id, ErrNoSuchItem)
}

// PersonTokenOwner is a token as an admin sees it: whose, and its dates.
type PersonTokenOwner struct {
	PersonTokenInfo
	Person actor.Actor `json:"person"`
}

// All is every live token, with its owner, newest first.
func (t *PersonTokens) All() []PersonTokenOwner {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []PersonTokenOwner{}
	now := t.now()
	for _, pt := range t.byHash {
		if now.Before(pt.Expires) {
			out = append(out, PersonTokenOwner{PersonTokenInfo: pt.info(), Person: pt.Person})
		}
	}
	slices.SortFunc(out, func(a, b PersonTokenOwner) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// RevokeAny removes the token id, whoever's it is (an admin revoking a
// departed person's), and answers whose it was.
func (t *PersonTokens) RevokeAny(id string) (PersonTokenOwner, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for h, pt := range t.byHash {
		if pt.ID == id {
			delete(t.byHash, h)
			if err := t.save(); err != nil {
				t.byHash[h] = pt
				return PersonTokenOwner{}, err
			}
			return PersonTokenOwner{PersonTokenInfo: pt.info(), Person: pt.Person}, nil
		}
	}
	return PersonTokenOwner{}, fmt.Errorf("token %q: %w", id, ErrNoSuchItem)
}

// of is subject's tokens, newest first (t.mu held).
func (t *PersonTokens) of(subject string) []*PersonToken {
	var out []*PersonToken
	if subject == "" {
		return nil
	}
	for _, pt := range t.byHash {
		if pt.Person.Subject == subject {
			out = append(out, pt)
		}
	}
	slices.SortFunc(out, func(a, b *PersonToken) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// dropExpired forgets expired tokens (t.mu held; the next save writes it).
func (t *PersonTokens) dropExpired(now time.Time) {
	for h, pt := range t.byHash {
		if !now.Before(pt.Expires) {
			delete(t.byHash, h)
		}
	}
}

func (pt *PersonToken) info() PersonTokenInfo {
	return PersonTokenInfo{ID: pt.ID, Name: pt.Name, Created: pt.Created, LastUsed: pt.LastUsed, Expires: pt.Expires}
}

func (t *PersonTokens) save() error {
	list := make([]PersonToken, 0, len(t.byHash))
	for _, pt := range t.byHash {
		list = append(list, *pt)
	}
	slices.SortFunc(list, func(a, b PersonToken) int { return strings.Compare(a.ID, b.ID) })
	if err := saveList(t.path, "person tokens", list); err != nil {
		return err
	}
	clear(t.saved)
	for _, pt := range list {
		t.saved[pt.Hash] = pt.LastUsed
	}
	return nil
}
