package gateway

import (
	"bufio"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/upstream"
	"github.com/bridle-dev/bridle/vault"
	"github.com/bridle-dev/bridle/vendorsync"
)

//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI is the admin API's OpenAPI 3.1 document.
func OpenAPI() []byte { return openAPIDoc }

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openAPIDoc)
}

// APIError is every error the admin API answers, with its HTTP status.
type APIError struct {
	Error    string `json:"error"`
	Code     string `json:"code"` // bad_request, unauthorized, not_found, conflict, forbidden, role (the caller's role is below the route's), unavailable, internal
	MergeURL string `json:"merge_url,omitempty"`
}

// MaxAPIBody is the largest admin API request body.
const MaxAPIBody = 64 << 10

// adminAuth admits the admin credential (unless auth.break_glass is off),
// as the break-glass person, and a person's own API token (PersonTokens),
// as that person (actor.ViaAPIToken): the request's context carries that
// actor from here on, whatever it carried before. Anything else is
// refused, counted against the address (refuse).
func (s *Server) adminAuth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := bearer(r)
		if s.adminCredential(tok) {
			h.ServeHTTP(w, r.WithContext(actor.With(r.Context(), s.breakGlass())))
			return
		}
		if a, groups, ok := s.people.Verify(tok); ok {
			h.ServeHTTP(w, r.WithContext(WithGroups(actor.With(r.Context(), a), groups)))
			return
		}
		s.refuse(w, r, "admin")
	})
}

// adminCredential reports whether tok is the admin credential and it is
// accepted.
func (s *Server) adminCredential(tok string) bool {
	return tok != "" && !s.auth.Load().breakGlassOff() && s.admin.Check(tok)
}

// personAuth is the panel's way into the admin API, in process: a request
// whose context carries a person the panel signed in (never one a client
// could send: no header makes a context value) acts as that person; any
// other needs the admin credential.
func (s *Server) personAuth(h http.Handler) http.Handler {
	admin := s.adminAuth(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a, ok := actor.From(r.Context()); ok && a.IsHuman() && a.Via != actor.ViaBreakGlass && bearer(r) == "" {
			h.ServeHTTP(w, r)
			return
		}
		admin.ServeHTTP(w, r)
	})
}

func (s *Server) api() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.HandleFunc(rt.Method+" "+rt.Path, s.allow(rt.Role, rt.handle))
	}
	mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, fmt.Errorf("%w: no endpoint %s %s (see /api/v1/openapi.json)", errNotFound, r.Method, r.URL.Path))
	})
	return mux
}

// route is one admin API endpoint; routes() is what the committed OpenAPI
// document is generated from and checked against.
type route struct {
	Method, Path string
	Summary      string
	In, Out      any      // the request and response bodies' types (nil: none)
	Code         int      // the success status
	Query        []string // query parameters
	Stream       bool     // the response is NDJSON lines of Out
	// Role is the least role the route needs (see Role); a route that
	// declares none is refused to everyone.
	Role   Role
	handle http.HandlerFunc
}

func (s *Server) routes() []route {
	type obj = map[string]any
	return []route{
		{Method: "GET", Path: "/api/v1/openapi.json", Role: RoleSignedIn, Summary: "This document", Out: obj{}, handle: s.openAPI},
		{Method: "GET", Path: "/api/v1/me", Role: RoleSignedIn, Summary: "Who the admin API acts for (the person proposals, approvals and rejections are attributed to), or why no one is named", Out: Me{}, handle: s.getMe},
		{Method: "GET", Path: "/api/v1/me/tokens", Role: RoleSignedIn, Summary: "Your own API tokens (name, dates, last use; never a token)", Out: []PersonTokenInfo{}, handle: s.listMyTokens},
		{Method: "POST", Path: "/api/v1/me/tokens", Role: RoleViewer, Summary: "Mint an API token of your own (shown once), acting as you with your role at each request; only for a person signed in through the identity provider (the panel's account page, bridle login), never the admin credential", In: PersonTokenRequest{}, Out: MintedPersonToken{}, Code: http.StatusCreated, handle: s.mintMyToken},
		{Method: "DELETE", Path: "/api/v1/me/tokens/{id}", Role: RoleSignedIn, Summary: "Revoke an API token of your own: refused from the next request", Out: PersonTokenInfo{}, handle: s.revokeMyToken},
		{Method: "GET", Path: "/api/v1/tokens", Role: RoleAdmin, Summary: "Every person's API tokens, with whose each is (never a token)", Out: []PersonTokenOwner{}, handle: s.listPeopleTokens},
		{Method: "DELETE", Path: "/api/v1/tokens/{id}", Role: RoleAdmin, Summary: "Revoke any person's API token (a departed person's, a leaked one): refused from the next request", Out: PersonTokenOwner{}, handle: s.revokePersonToken},
		{Method: "GET", Path: "/api/v1/projects", Role: RoleViewer, Summary: "The projects and their rules' status", Out: []ProjectStatus{}, handle: s.listProjects},
		{Method: "GET", Path: "/api/v1/projects/{project}", Role: RoleViewer, Summary: "One project's status", Out: ProjectStatus{}, handle: s.project(s.getProject)},
		{Method: "GET", Path: "/api/v1/projects/{project}/agents", Role: RoleViewer, Summary: "The project's agents: token dates and granted permissions, never a token", Out: []AgentView{}, handle: s.project(s.listAgents)},
		{Method: "POST", Path: "/api/v1/projects/{project}/agents", Role: RoleAdmin, Summary: "Mint a new agent's token (shown once)", In: AddAgentRequest{}, Out: Minted{}, Code: http.StatusCreated, handle: s.project(s.addAgent)},
		{Method: "POST", Path: "/api/v1/projects/{project}/agents/{agent}/rotate", Role: RoleAdmin, Summary: "Replace an agent's token (shown once)", Out: Minted{}, handle: s.project(s.rotateAgent)},
		{Method: "DELETE", Path: "/api/v1/projects/{project}/agents/{agent}", Role: RoleAdmin, Summary: "Revoke an agent's token", Out: TokenInfo{}, handle: s.project(s.revokeAgent)},
		{Method: "GET", Path: "/api/v1/sessions", Role: RoleViewer, Summary: "Open MCP sessions", Query: []string{"project"}, Out: []Session{}, handle: s.listSessions},
		{Method: "GET", Path: "/api/v1/projects/{project}/rules", Role: RoleViewer, Summary: "The served rules: status and compiled snapshot", Out: Rules{}, handle: s.project(s.getRules)},
		{Method: "GET", Path: "/api/v1/projects/{project}/rules/{agent}", Role: RoleViewer, Summary: "One agent's rendered instruction file and its size", Out: Render{}, handle: s.project(s.getRender)},
		{Method: "GET", Path: "/api/v1/projects/{project}/rules/{agent}/explain", Role: RoleViewer, Summary: "What one agent receives: sections, guardrails per tier, size, permissions, what its harness enforces", Out: renderers.Explanation{}, handle: s.project(s.explain)},
		{Method: "GET", Path: "/api/v1/projects/{project}/rules/source", Role: RoleViewer, Summary: "Main's bridle.yaml as written (comments and all) and its commit: what an edit is made from", Out: RulesSource{}, handle: s.project(s.rulesSource)},
		{Method: "GET", Path: "/api/v1/projects/{project}/proposals", Role: RoleViewer, Summary: "Proposals (open by default), filtered by source (agent, vendor, user) and text (q, in title and author), in number order or newest first (order=newest), paged with limit and offset; X-Total-Count is the number before paging", Query: []string{"state", "source", "q", "order", "limit", "offset"}, Out: []proposals.Proposal{}, handle: s.project(s.listProposals)},
		{Method: "POST", Path: "/api/v1/projects/{project}/proposals", Role: RoleApprover, Summary: "Propose a change to the rules as the admin (a guardrail, a section, a pattern, a promotion, dismissing vendor suggestions or an edit): a proposal, never a direct write", In: ProposeRequest{}, Out: proposals.Proposal{}, Code: http.StatusCreated, handle: s.project(s.propose)},
		{Method: "GET", Path: "/api/v1/projects/{project}/proposals/{number}", Role: RoleViewer, Summary: "A proposal, its recorded change and the diff of each agent's render", Out: ProposalView{}, handle: s.project(s.getProposal)},
		{Method: "POST", Path: "/api/v1/projects/{project}/proposals/{number}/approve", Role: RoleApprover, Summary: "Approve (merge) a proposal as the admin; on Gitea with the admin's own Gitea token, else the merge link (409)", In: ApproveRequest{}, Out: proposals.Proposal{}, handle: s.project(s.approveProposal)},
		{Method: "POST", Path: "/api/v1/projects/{project}/proposals/{number}/reject", Role: RoleApprover, Summary: "Reject (close) a proposal with a reason", In: RejectRequest{}, Out: proposals.Proposal{}, handle: s.project(s.rejectProposal)},
		{Method: "GET", Path: "/api/v1/projects/{project}/patterns", Role: RoleViewer, Summary: "Pattern examples, their chunks and last index", Out: []memory.ExampleStatus{}, handle: s.project(s.listPatterns)},
		{Method: "GET", Path: "/api/v1/projects/{project}/patterns/search", Role: RoleViewer, Summary: "Search the pattern examples' indexed chunks (hybrid; ?q=, arch_tag=, limit=)", Query: []string{"q", "arch_tag", "limit"}, Out: []mcp.PatternHit{}, handle: s.project(s.searchPatterns)},
		{Method: "POST", Path: "/api/v1/projects/{project}/patterns/reindex", Role: RoleAdmin, Summary: "Re-index the pattern examples (or ?tag=), streaming progress as NDJSON", Query: []string{"tag"}, Out: Progress{}, Stream: true, handle: s.project(s.reindex)},
		{Method: "GET", Path: "/api/v1/projects/{project}/memory", Role: RoleViewer, Summary: "Browse (no q) or search (q) the project's memory", Query: []string{"q", "kind", "agent", "tag", "limit"}, Out: []MemoryView{}, handle: s.project(s.listMemory)},
		{Method: "DELETE", Path: "/api/v1/projects/{project}/memory/{id}", Role: RoleAdmin, Summary: "Forget one memory", Out: Forgotten{}, handle: s.project(s.forget)},
		{Method: "POST", Path: "/api/v1/projects/{project}/memory/purge", Role: RoleAdmin, Summary: "Delete the memories a filter matches; confirm must be their number", In: PurgeRequest{}, Out: Purged{}, handle: s.project(s.purge)},
		{Method: "POST", Path: "/api/v1/projects/{project}/upstreams/{name}/restart", Role: RoleAdmin, Summary: "Restart an upstream MCP server (its secrets are read again: after rotating one)", Out: upstream.Status{}, handle: s.project(s.restartUpstream)},
		{Method: "POST", Path: "/api/v1/projects/{project}/vendor/sync", Role: RoleApprover, Summary: "Sync the vendors' published guidance: one proposal of suggestions per vendor (?agent= for one)", Query: []string{"agent"}, Out: []vendorsync.Result{}, handle: s.project(s.vendorSync)},
		{Method: "GET", Path: "/api/v1/secrets", Role: RoleViewer, Summary: "The server-wide vault's secrets: where each lives, its keyed fingerprint, dates and consumers, never a value", Out: []vault.Info{}, handle: s.scoped(false, s.listSecrets)},
		{Method: "POST", Path: "/api/v1/secrets/{name}", Role: RoleAdmin, Summary: "Store a new server-wide secret (encrypted in its SOPS file, committed)", In: SecretValue{}, Out: vault.Info{}, Code: http.StatusCreated, handle: s.scoped(false, s.putSecret("set"))},
		{Method: "POST", Path: "/api/v1/secrets/{name}/rotate", Role: RoleAdmin, Summary: "Replace a server-wide secret's value; every consumer uses the new one when this returns", In: SecretValue{}, Out: vault.Info{}, handle: s.scoped(false, s.putSecret("rotate"))},
		{Method: "DELETE", Path: "/api/v1/secrets/{name}", Role: RoleAdmin, Summary: "Revoke a server-wide secret: consumers answer \"secret NAME was revoked\"", Out: vault.Info{}, handle: s.scoped(false, s.revokeSecret)},
		{Method: "GET", Path: "/api/v1/vault", Role: RoleViewer, Summary: "The server-wide vault itself: its SOPS file, recipients and helper, and whether it can store secrets now (never a value)", Out: vault.Status{}, handle: s.scoped(false, s.vaultStatus)},
		{Method: "POST", Path: "/api/v1/vault/rekey", Role: RoleAdmin, Summary: "Re-encrypt the server-wide SOPS file to new age recipients", In: RekeyRequest{}, Out: Rekeyed{}, handle: s.scoped(false, s.rekey)},
		{Method: "GET", Path: "/api/v1/projects/{project}/secrets", Role: RoleViewer, Summary: "The project's secrets (its rules repository's SOPS file, Docker secrets, the ones it uses from the server), never a value", Out: []vault.Info{}, handle: s.scoped(true, s.listSecrets)},
		{Method: "POST", Path: "/api/v1/projects/{project}/secrets/{name}", Role: RoleAdmin, Summary: "Store a new secret in the project's SOPS file (committed to its rules repository)", In: SecretValue{}, Out: vault.Info{}, Code: http.StatusCreated, handle: s.scoped(true, s.putSecret("set"))},
		{Method: "POST", Path: "/api/v1/projects/{project}/secrets/{name}/rotate", Role: RoleAdmin, Summary: "Replace a project secret's value; every consumer uses the new one when this returns", In: SecretValue{}, Out: vault.Info{}, handle: s.scoped(true, s.putSecret("rotate"))},
		{Method: "DELETE", Path: "/api/v1/projects/{project}/secrets/{name}", Role: RoleAdmin, Summary: "Revoke a project secret", Out: vault.Info{}, handle: s.scoped(true, s.revokeSecret)},
		{Method: "GET", Path: "/api/v1/projects/{project}/vault", Role: RoleViewer, Summary: "The project's vault itself: its SOPS file, recipients and helper, and whether it can store secrets now", Out: vault.Status{}, handle: s.scoped(true, s.vaultStatus)},
		{Method: "POST", Path: "/api/v1/projects/{project}/vault/rekey", Role: RoleAdmin, Summary: "Re-encrypt the project's SOPS file to new age recipients", In: RekeyRequest{}, Out: Rekeyed{}, handle: s.scoped(true, s.rekey)},
		{Method: "GET", Path: "/api/v1/integrations", Role: RoleViewer, Summary: "Each backend: up or down, and since when", Out: []BackendStatus{}, handle: s.integrations},
		{Method: "GET", Path: "/api/v1/audit", Role: RoleViewer, Summary: "The audit timeline, newest first: the logs' events and the rules' history (merges, unreviewed changes), as bridle audit shows them", Query: []string{"project", "source", "agent", "kind", "since", "until", "limit"}, Out: []audit.Event{}, handle: s.listAudit},
	}
}

var (
	errBadRequest = errors.New("bad request")
	errNotFound   = errors.New("not found")
)

// project resolves {project}; an unknown one is 404 (the admin may know
// every project's name).
func (s *Server) project(h func(http.ResponseWriter, *http.Request, *Project)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, ok := s.projects[r.PathValue("project")]
		if !ok {
			s.fail(w, fmt.Errorf("%w: no project %q", errNotFound, r.PathValue("project")))
			return
		}
		h(w, r, p)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// ok writes v masked: nothing the API answers carries a known secret.
func (s *Server) ok(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, code, json.RawMessage(s.red.JSON(b)))
}

// fail answers err with its status; its message is masked.
func (s *Server) fail(w http.ResponseWriter, err error) {
	code, name := http.StatusInternalServerError, "internal"
	if c, n, ok := vaultStatus(err); ok {
		code, name = c, n
	}
	switch {
	case code != http.StatusInternalServerError:
	case errors.Is(err, errBadRequest), errors.Is(err, ErrInput), errors.Is(err, memory.ErrInput),
		errors.Is(err, proposals.ErrBadInput), errors.Is(err, proposals.ErrInvalid), errors.Is(err, proposals.ErrNoChange):
		code, name = http.StatusBadRequest, "bad_request"
	case errors.Is(err, errNotFound), errors.Is(err, ErrNoSuchItem), errors.Is(err, proposals.ErrNotFound), errors.Is(err, memory.ErrNotFound):
		code, name = http.StatusNotFound, "not_found"
	case errors.Is(err, ErrExists), errors.Is(err, proposals.ErrConflict), errors.Is(err, proposals.ErrState),
		errors.Is(err, proposals.ErrDirty), errors.Is(err, proposals.ErrTampered):
		code, name = http.StatusConflict, "conflict"
	case errors.Is(err, proposals.ErrSelfApproval), errors.Is(err, proposals.ErrForbidden), errors.Is(err, proposals.ErrProtected):
		code, name = http.StatusForbidden, "forbidden"
	case errors.Is(err, proposals.ErrUnauthorized):
		code, name = http.StatusForbidden, "forbidden" // the Gitea credential, not the admin's
	case errors.Is(err, proposals.ErrUnavailable), errors.Is(err, memory.ErrUnavailable):
		code, name = http.StatusBadGateway, "unavailable"
	}
	if code == http.StatusInternalServerError {
		s.log.Error("admin api", "err", err)
	}
	writeJSON(w, code, APIError{Error: s.red.Redact(err.Error()), Code: name})
}

// decode reads one JSON object of at most MaxAPIBody bytes, refusing
// unknown fields; an empty body is the zero value.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	if r.Body == nil {
		return nil
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxAPIBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fmt.Errorf("%w: the body is larger than %d bytes", errBadRequest, MaxAPIBody)
		}
		return fmt.Errorf("%w: the body is not the JSON object expected: %v", errBadRequest, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: one JSON object, nothing after it", errBadRequest)
	}
	return nil
}

// record appends an admin event, by the request's actor, to the project's
// log.
func (s *Server) record(r *http.Request, p *Project, summary, id string, detail map[string]any) {
	a := who(r.Context())
	e := audit.Event{Kind: audit.KindAdmin, Actor: &a, Summary: summary, ID: id, Detail: detail, Project: p.ID}
	if err := p.audit.Append(e); err != nil {
		s.log.Warn("audit event not written", "project", p.ID, "err", err)
	}
}

func (s *Server) listProjects(w http.ResponseWriter, _ *http.Request) {
	out := []ProjectStatus{}
	for _, id := range s.ids {
		out = append(out, s.projectStatus(s.projects[id]))
	}
	s.ok(w, http.StatusOK, out)
}

func (s *Server) getProject(w http.ResponseWriter, _ *http.Request, p *Project) {
	s.ok(w, http.StatusOK, s.projectStatus(p))
}

// Minted is a token shown once: after add or rotate.
type Minted struct {
	Token string    `json:"token"`
	Agent TokenInfo `json:"agent"`
	MCP   string    `json:"mcp"` // the path the agent connects to
}

func (s *Server) listAgents(w http.ResponseWriter, _ *http.Request, p *Project) {
	s.ok(w, http.StatusOK, s.agents(p))
}

// AgentView is an agent of a project: its token's dates and what the
// rules let it do.
type AgentView struct {
	TokenInfo
	Profile     bool     `json:"profile"` // the rules have a profile for it
	Permissions []string `json:"permissions"`
}

func (s *Server) agents(p *Project) []AgentView {
	snap, _, _ := p.mcp.Rules()
	out := []AgentView{}
	for _, t := range s.tokens.List(p.ID) {
		out = append(out, agentView(t, snap))
	}
	return out
}

func agentView(t TokenInfo, snap *compiler.Snapshot) AgentView {
	v := AgentView{TokenInfo: t, Permissions: []string{}}
	if snap == nil {
		return v
	}
	if _, ok := snap.Document.AgentProfiles[t.Agent]; ok {
		v.Profile = true
		perms := snap.Document.Permissions[t.Agent]
		for _, name := range schema.PermissionNames {
			if perms.Allows(name) {
				v.Permissions = append(v.Permissions, name)
			}
		}
	}
	return v
}

func (s *Server) addAgent(w http.ResponseWriter, r *http.Request, p *Project) {
	var in AddAgentRequest
	if err := decode(w, r, &in); err != nil {
		s.fail(w, err)
		return
	}
	tok, info, err := s.tokens.Add(p.ID, strings.TrimSpace(in.Agent))
	if err != nil {
		s.fail(w, err)
		return
	}
	s.red.Add(tok)
	s.record(r, p, "minted a token for agent "+info.Agent, info.Agent, nil)
	writeJSON(w, http.StatusCreated, Minted{Token: tok, Agent: info, MCP: "/p/" + p.ID + "/mcp"}) // unmasked: shown once, here
}

func (s *Server) rotateAgent(w http.ResponseWriter, r *http.Request, p *Project) {
	tok, info, err := s.tokens.Rotate(p.ID, r.PathValue("agent"))
	if err != nil {
		s.fail(w, err)
		return
	}
	s.red.Add(tok)
	closed := s.closeSessions(p, info.Agent)
	s.record(r, p, "rotated the token of agent "+info.Agent, info.Agent, map[string]any{"sessions_closed": closed})
	writeJSON(w, http.StatusOK, Minted{Token: tok, Agent: info, MCP: "/p/" + p.ID + "/mcp"})
}

func (s *Server) revokeAgent(w http.ResponseWriter, r *http.Request, p *Project) {
	info, err := s.tokens.Revoke(p.ID, r.PathValue("agent"))
	if err != nil {
		s.fail(w, err)
		return
	}
	closed := s.closeSessions(p, info.Agent)
	s.record(r, p, "revoked the token of agent "+info.Agent, info.Agent, map[string]any{"sessions_closed": closed})
	s.ok(w, http.StatusOK, info)
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	project := r.URL.Query().Get("project")
	if project != "" && s.projects[project] == nil {
		s.fail(w, fmt.Errorf("%w: no project %q", errNotFound, project))
		return
	}
	s.ok(w, http.StatusOK, s.liveSessions(project))
}

func (s *Server) liveSessions(project string) []Session {
	open := map[string]map[string]bool{}
	for _, id := range s.ids {
		ids := map[string]bool{}
		for ss := range s.projects[id].mcp.SDK().Sessions() {
			ids[ss.ID()] = true
		}
		open[id] = ids
	}
	return s.sessions.list(project, func(p, id string) bool { return open[p][id] })
}

// Rules is a project's served rules.
type Rules struct {
	Status   ProjectStatus      `json:"status"`
	Snapshot *compiler.Snapshot `json:"snapshot,omitempty"`
}

func (s *Server) getRules(w http.ResponseWriter, _ *http.Request, p *Project) {
	snap, _, err := p.mcp.Rules()
	if snap == nil && err != nil {
		s.fail(w, fmt.Errorf("%w: %w", proposals.ErrUnavailable, err))
		return
	}
	s.ok(w, http.StatusOK, Rules{Status: s.projectStatus(p), Snapshot: snap})
}

// Render is one agent's rendered instruction file and its size.
type Render struct {
	Agent   string `json:"agent"`
	Path    string `json:"path"`
	Content string `json:"content"`
	Bytes   int    `json:"bytes"`
	Lines   int    `json:"lines"`
}

// snapshot is the project's served snapshot; without one it answers why
// (502) and returns nil.
func (s *Server) snapshot(w http.ResponseWriter, p *Project) *compiler.Snapshot {
	snap, _, err := p.mcp.Rules()
	if snap == nil {
		s.fail(w, fmt.Errorf("%w: %w", proposals.ErrUnavailable, err))
	}
	return snap
}

// render is the snapshot's render for the {agent} of r; without one it
// answers why and returns false.
func (s *Server) render(w http.ResponseWriter, r *http.Request, p *Project) (*compiler.Snapshot, renderers.File, bool) {
	snap := s.snapshot(w, p)
	if snap == nil {
		return nil, renderers.File{}, false
	}
	f, ok := snap.Render(r.PathValue("agent"))
	if !ok {
		s.fail(w, fmt.Errorf("%w: no render for agent %q", errNotFound, r.PathValue("agent")))
	}
	return snap, f, ok
}

func (s *Server) getRender(w http.ResponseWriter, r *http.Request, p *Project) {
	_, f, ok := s.render(w, r, p)
	if !ok {
		return
	}
	s.ok(w, http.StatusOK, Render{Agent: f.Agent, Path: f.Path, Content: f.Content, Bytes: len(f.Content), Lines: strings.Count(f.Content, "\n")})
}

func (s *Server) explain(w http.ResponseWriter, r *http.Request, p *Project) {
	snap, f, ok := s.render(w, r, p)
	if !ok {
		return
	}
	e, err := renderers.ExplainAll(&snap.Document, f)
	if err != nil {
		s.fail(w, err)
		return
	}
	s.ok(w, http.StatusOK, e)
}

func (s *Server) service(p *Project) (proposals.Service, error) {
	b, err := p.proposals()
	if err != nil {
		return proposals.Service{}, err
	}
	return proposals.Service{Backend: b, Version: s.opts.Version, Redactor: s.red}, nil
}

// MaxProposalPage is the most proposals one listing with a limit returns.
const MaxProposalPage = 1000

// listProposals lists a project's proposals: ?state (open), source, q,
// order (number or newest), limit and offset. Without a limit it answers
// every match, as it always has; X-Total-Count is the number of matches
// before paging either way.
func (s *Server) listProposals(w http.ResponseWriter, r *http.Request, p *Project) {
	q := r.URL.Query()
	state := proposals.State(cmp.Or(q.Get("state"), "open"))
	if !slices.Contains([]proposals.State{proposals.Open, proposals.Merged, proposals.Closed, proposals.All}, state) {
		s.fail(w, fmt.Errorf("%w: state is open, merged, closed or all", errBadRequest))
		return
	}
	source, text, order := q.Get("source"), strings.ToLower(strings.TrimSpace(q.Get("q"))), cmp.Or(q.Get("order"), "number")
	if source != "" && !slices.Contains([]string{"agent", "vendor", "user"}, source) {
		s.fail(w, fmt.Errorf("%w: source is agent, vendor or user", errBadRequest))
		return
	}
	if order != "number" && order != "newest" {
		s.fail(w, fmt.Errorf("%w: order is number or newest", errBadRequest))
		return
	}
	limit, err := limitOf(q.Get("limit"), 0, MaxProposalPage)
	if err != nil {
		s.fail(w, err)
		return
	}
	offset := 0
	if v := q.Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 {
			s.fail(w, fmt.Errorf("%w: offset is a number from 0", errBadRequest))
			return
		}
	}
	svc, err := s.service(p)
	if err != nil {
		s.fail(w, err)
		return
	}
	list, err := svc.Backend.List(r.Context(), state)
	if err != nil {
		s.backendFailed(p, "proposals")
		s.fail(w, err)
		return
	}
	if source != "" || text != "" {
		list = slices.DeleteFunc(list, func(pr proposals.Proposal) bool {
			return source != "" && ProposalSource(pr) != source ||
				text != "" && !strings.Contains(strings.ToLower(pr.Title+" "+pr.Author), text)
		})
	}
	if order == "newest" {
		slices.SortStableFunc(list, func(a, b proposals.Proposal) int {
			return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), b.Number-a.Number)
		})
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(len(list)))
	list = list[min(offset, len(list)):]
	if limit > 0 {
		list = list[:min(limit, len(list))]
	}
	if list == nil {
		list = []proposals.Proposal{}
	}
	s.ok(w, http.StatusOK, list)
}

// ProposalSource is who made a proposal: agent, vendor or user, from its
// recorded origin, else from its labels (source/agent, …).
func ProposalSource(pr proposals.Proposal) string {
	if pr.Draft != nil && pr.Draft.Origin.Source != "" {
		return string(pr.Draft.Origin.Source)
	}
	for _, src := range []string{"agent", "vendor", "user"} {
		for _, l := range pr.Labels {
			if strings.Contains(l, src) {
				return src
			}
		}
	}
	return "user"
}

// RulesSource is main's rules document as written, and the commit it is
// read at: what the panel's edit forms edit.
type RulesSource struct {
	Path     string `json:"path"` // the rules file in its repository
	Commit   string `json:"commit"`
	Document string `json:"document"`
}

func (s *Server) rulesSource(w http.ResponseWriter, r *http.Request, p *Project) {
	svc, err := s.service(p)
	if err != nil {
		s.fail(w, err)
		return
	}
	doc, commit, err := svc.Backend.Main(r.Context())
	if err != nil {
		s.backendFailed(p, "proposals")
		s.fail(w, fmt.Errorf("%w: main's rules: %w", proposals.ErrUnavailable, err))
		return
	}
	s.ok(w, http.StatusOK, RulesSource{Path: "bridle.yaml", Commit: commit, Document: string(doc)})
}

// ProposalView is a proposal with what approving it merges: the change its
// commit records and the effect on each agent's rendered file.
type ProposalView struct {
	proposals.Proposal
	Recorded    *proposals.Change     `json:"recorded,omitempty"`
	Origin      *proposals.Origin     `json:"origin,omitempty"`
	RecordError string                `json:"record_error,omitempty"`
	Diffs       []proposals.AgentDiff `json:"diffs,omitempty"`
}

func number(r *http.Request) (int, error) {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%w: %q is not a proposal number", errBadRequest, r.PathValue("number"))
	}
	return n, nil
}

func (s *Server) getProposal(w http.ResponseWriter, r *http.Request, p *Project) {
	n, err := number(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	svc, err := s.service(p)
	if err != nil {
		s.fail(w, err)
		return
	}
	ctx := r.Context()
	pr, err := svc.Backend.Get(ctx, n)
	if err != nil {
		s.fail(w, err)
		return
	}
	v := ProposalView{Proposal: pr}
	if pr.State == proposals.Open {
		if rec, err := svc.Record(ctx, pr); err != nil {
			v.RecordError = err.Error()
		} else {
			v.Recorded, v.Origin = &rec.Draft.Change, &rec.Draft.Origin
		}
		v.Diffs = s.diffs(ctx, svc.Backend, pr)
	}
	s.ok(w, http.StatusOK, v)
}

// diffs compiles the proposal's base and head and diffs each agent's
// render; nil when either cannot be read.
func (s *Server) diffs(ctx context.Context, b proposals.Backend, pr proposals.Proposal) []proposals.AgentDiff {
	if pr.Head == "" {
		return nil
	}
	head, err := b.Commit(ctx, pr.Head)
	if err != nil || head.Rules == nil {
		return nil
	}
	after, _ := compiler.CompileBytes(compiler.Input{Name: "bridle.yaml (proposed)", Data: head.Rules}, s.opts.Version)
	if after == nil {
		return nil
	}
	var before *compiler.Snapshot
	if pr.Base != "" {
		if base, err := b.Commit(ctx, pr.Base); err == nil && base.Rules != nil {
			before, _ = compiler.CompileBytes(compiler.Input{Name: "bridle.yaml", Data: base.Rules}, s.opts.Version)
		}
	}
	return proposals.RenderDiffs(before, after)
}

// ProposeRequest proposes a change as the admin. The proposer recorded is
// admin.name of the configuration; vendor updates are the vendor sync's.
type ProposeRequest struct {
	Change proposals.Change `json:"change"`
}

// proposeKinds are the kinds of change the admin may propose. A vendor
// change from the admin only dismisses suggestions: what a vendor
// suggests, or withdrew, is the vendor sync's to say.
var proposeKinds = []proposals.Kind{proposals.KindGuardrail, proposals.KindRules, proposals.KindPattern, proposals.KindPromote, proposals.KindVendor, proposals.KindEdit}

func (s *Server) propose(w http.ResponseWriter, r *http.Request, p *Project) {
	var in ProposeRequest
	if err := decode(w, r, &in); err != nil {
		s.fail(w, err)
		return
	}
	if !slices.Contains(proposeKinds, in.Change.Kind) {
		s.fail(w, fmt.Errorf("%w: change.kind is one of guardrail, rules, pattern, promote, vendor (dismiss) or edit", errBadRequest))
		return
	}
	if v := in.Change.Vendor; in.Change.Kind == proposals.KindVendor && (v == nil || len(v.Add)+len(v.Withdraw) > 0 || len(v.Dismiss) == 0) {
		s.fail(w, fmt.Errorf("%w: a vendor change from the admin dismisses suggestions (vendor.dismiss); new and withdrawn ones come from the vendor sync", errBadRequest))
		return
	}
	who, err := s.needHuman(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	svc, err := s.service(p)
	if err != nil {
		s.fail(w, err)
		return
	}
	pr, err := svc.Propose(r.Context(), proposals.Draft{Change: in.Change, Origin: proposals.OriginOf(who)})
	if err != nil {
		s.fail(w, err)
		return
	}
	s.record(r, p, fmt.Sprintf("proposed #%d: %s", pr.Number, pr.Title), strconv.Itoa(pr.Number), map[string]any{"subject": in.Change.Subject()})
	s.ok(w, http.StatusCreated, pr)
}

// ApproveRequest approves a proposal as the admin.
type ApproveRequest struct {
	// GiteaToken is the approver's own Gitea token, used for this merge
	// only (so Gitea records the approval as theirs) and never stored.
	// Without it, a Gitea project's approval answers the merge link.
	GiteaToken string `json:"gitea_token,omitempty"`
	// Self approves a proposal of one's own: the sole maintainer's choice
	// (auth.sole_maintainer; without one, the admin credential's while no
	// provider is configured). Anyone else is refused (403).
	Self bool `json:"self,omitempty"`
}

func (s *Server) approveProposal(w http.ResponseWriter, r *http.Request, p *Project) {
	n, err := number(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	var in ApproveRequest
	if err := decode(w, r, &in); err != nil {
		s.fail(w, err)
		return
	}
	svc, err := s.service(p)
	if err != nil {
		s.fail(w, err)
		return
	}
	ctx := r.Context()
	if in.Self && !s.auth.Load().MayApproveOwn(who(ctx)) {
		s.fail(w, fmt.Errorf("%w: only the sole maintainer (auth.sole_maintainer) approves a proposal of their own; %s is not, so another person must approve it",
			proposals.ErrSelfApproval, who(ctx)))
		return
	}
	if a, auth := who(ctx), s.auth.Load(); a.Via == actor.ViaBreakGlass && !(auth.SoleMaintainer != "" && auth.MayApproveOwn(a)) {
		// The credential cannot tell who holds it, so it approves no
		// proposal of a person who signs in as themselves (through the
		// provider; with one configured, no person's at all) — its holder
		// could be that person (four eyes).
		pr, err := svc.Backend.Get(ctx, n)
		if err != nil {
			s.fail(w, err)
			return
		}
		o, provider := pr.Draft, auth.OIDC
		if person := o == nil || o.Origin.Source == schema.SourceUser; person && (provider != nil || o != nil && actor.SignedInSubject(o.Origin.Subject)) {
			s.fail(w, fmt.Errorf("%w: people sign in as themselves here, and the admin credential approves no person's proposal (it cannot tell who holds it, who may be its author); sign in as yourself",
				proposals.ErrSelfApproval))
			return
		}
	}
	principal := proposals.Principal{Actor: who(ctx), SelfOK: in.Self}
	if p.gitea != nil {
		// Never the bot's token: the approval is the person's, in Gitea —
		// the token they signed in to the panel with, on that same Gitea,
		// or their own they sent.
		tok := strings.TrimSpace(in.GiteaToken)
		if tok == "" {
			tok = s.providerToken(ctx, p.gitea.URL)
		}
		if tok == "" {
			pr, err := svc.Backend.Get(ctx, n)
			if err != nil {
				s.fail(w, err)
				return
			}
			writeJSON(w, http.StatusConflict, APIError{Code: "approve_in_gitea", MergeURL: pr.URL,
				Error: "approvals on Gitea are made with your own Gitea identity: merge the pull request there, or send your own gitea_token"})
			return
		}
		s.red.Add(tok)
		o := *p.gitea
		o.Token = tok
		b, err := proposals.NewGitea(o)
		if err != nil {
			s.fail(w, err)
			return
		}
		svc.Backend = b
		principal.Actor = actor.Actor{} // Gitea says who the token's user is
	} else if _, err := s.needHuman(r); err != nil {
		s.fail(w, err)
		return
	}
	pr, err := svc.Approve(ctx, n, principal)
	if err != nil {
		s.fail(w, err)
		return
	}
	// Agents are served the approved rules from their next request on,
	// not after the next periodic check.
	p.mcp.Reload()
	s.record(r, p, fmt.Sprintf("approved proposal #%d", n), strconv.Itoa(n), map[string]any{"merged_by": pr.MergedBy, "merge_commit": pr.MergeCommit})
	s.ok(w, http.StatusOK, pr)
}

func (s *Server) rejectProposal(w http.ResponseWriter, r *http.Request, p *Project) {
	n, err := number(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	var in RejectRequest
	if err := decode(w, r, &in); err != nil {
		s.fail(w, err)
		return
	}
	if len(in.Reason) > 2000 {
		s.fail(w, fmt.Errorf("%w: a reason of at most 2000 bytes", errBadRequest))
		return
	}
	svc, err := s.service(p)
	if err != nil {
		s.fail(w, err)
		return
	}
	by := who(r.Context())
	if !by.Named() && p.gitea == nil {
		// On Gitea the pull request is closed as the token's user.
		s.fail(w, fmt.Errorf("%w: %s", errBadRequest, humanMissing))
		return
	}
	pr, err := svc.Reject(r.Context(), n, by.Name, in.Reason)
	if err != nil {
		s.fail(w, err)
		return
	}
	s.record(r, p, fmt.Sprintf("rejected proposal #%d", n), strconv.Itoa(n), map[string]any{"reason": in.Reason})
	s.ok(w, http.StatusOK, pr)
}

func (s *Server) backendFailed(p *Project, backend string) {
	s.metrics.backendErrs.WithLabelValues(p.ID, backend).Inc()
}

func (s *Server) listPatterns(w http.ResponseWriter, r *http.Request, p *Project) {
	snap := s.snapshot(w, p)
	if snap == nil {
		return
	}
	st, _, err := p.memory()
	if err != nil {
		s.backendFailed(p, "memory")
		s.fail(w, err)
		return
	}
	s.ok(w, http.StatusOK, memory.Statuses(r.Context(), st, snap.Document.Patterns.Custom))
}

// searchPatterns is the search_pattern_examples tool's search for the
// admin: the examples' indexed chunks (hostile data: code from the example
// repositories, shown as text).
func (s *Server) searchPatterns(w http.ResponseWriter, r *http.Request, p *Project) {
	q := r.URL.Query()
	limit, err := limitOf(q.Get("limit"), 10, memory.MaxK)
	if err != nil {
		s.fail(w, err)
		return
	}
	text, arch := strings.TrimSpace(q.Get("q")), strings.TrimSpace(q.Get("arch_tag"))
	if text == "" {
		s.fail(w, fmt.Errorf("%w: q: say what code you are looking for", errBadRequest))
		return
	}
	st, emb, err := p.memory()
	if err != nil {
		s.backendFailed(p, "memory")
		s.fail(w, err)
		return
	}
	hits, err := memory.SearchPatterns(r.Context(), st, emb, text, arch, limit, memory.Hybrid)
	if errors.Is(err, memory.ErrNoCollection) {
		s.ok(w, http.StatusOK, []mcp.PatternHit{})
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	s.ok(w, http.StatusOK, mcp.PatternHits(hits))
}

// Progress is one line of a re-index's NDJSON stream: progress lines, then
// one result (or error) line per example.
type Progress struct {
	ReferenceTag string             `json:"reference_tag"`
	Stage        string             `json:"stage,omitempty"` // clone, walk or embed
	Done         int                `json:"done,omitempty"`
	Total        int                `json:"total,omitempty"`
	Result       *memory.IndexStats `json:"result,omitempty"`
	Error        string             `json:"error,omitempty"`
}

// reindex re-indexes the project's examples (or ?tag=), streaming
// progress as NDJSON.
func (s *Server) reindex(w http.ResponseWriter, r *http.Request, p *Project) {
	snap := s.snapshot(w, p)
	if snap == nil {
		return
	}
	tag := r.URL.Query().Get("tag")
	type job struct {
		pattern string
		ex      int
		p       int
	}
	var jobs []job
	for i, pat := range snap.Document.Patterns.Custom {
		for j, ex := range pat.ExampleRepos {
			if tag == "" || ex.ReferenceTag == tag {
				jobs = append(jobs, job{pattern: pat.Name, p: i, ex: j})
			}
		}
	}
	if tag != "" && len(jobs) == 0 {
		s.fail(w, fmt.Errorf("%w: no example with reference_tag %q", errNotFound, tag))
		return
	}
	st, emb, err := p.memory()
	if err != nil {
		s.backendFailed(p, "memory")
		s.fail(w, err)
		return
	}
	s.record(r, p, "re-indexed pattern examples", tag, nil)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	rc := http.NewResponseController(w)
	line := func(v Progress) {
		b, _ := json.Marshal(v)
		bw.Write(s.red.JSON(b))
		bw.WriteByte('\n')
		bw.Flush()
		rc.Flush()
	}
	var last time.Time
	for _, j := range jobs {
		ex := snap.Document.Patterns.Custom[j.p].ExampleRepos[j.ex]
		ix := &memory.Indexer{Store: st, Embedder: emb, Examples: s.opts.Examples, Redactor: s.red,
			Progress: func(stage string, done, total int) {
				if now := time.Now(); now.Sub(last) > 100*time.Millisecond || done == total {
					last = now
					line(Progress{ReferenceTag: ex.ReferenceTag, Stage: stage, Done: done, Total: total})
				}
			}}
		stats, err := ix.Index(r.Context(), j.pattern, ex)
		if err != nil {
			s.backendFailed(p, "memory")
			line(Progress{ReferenceTag: ex.ReferenceTag, Error: err.Error()})
			continue
		}
		line(Progress{ReferenceTag: ex.ReferenceTag, Result: &stats})
	}
}

// MemoryView is a stored memory as the admin API shows it.
type MemoryView struct {
	ID      string   `json:"id"`
	Text    string   `json:"text"`
	Kind    string   `json:"kind"`
	Agent   string   `json:"agent"`
	Session string   `json:"session,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Created string   `json:"created,omitempty"`
	Score   float64  `json:"score,omitempty"`
}

func memoryView(r memory.Record, score float64) MemoryView {
	return MemoryView{ID: r.ID, Text: r.Text, Kind: r.Payload["kind"], Agent: r.Payload["agent"], Session: r.Payload["session"],
		Tags: r.Tags, Created: r.Payload["created"], Score: score}
}

func (s *Server) memoryOf(p *Project) (*memory.Memory, error) {
	st, emb, err := p.memory()
	if err != nil {
		s.backendFailed(p, "memory")
		return nil, err
	}
	return &memory.Memory{Store: st, Embedder: emb, Project: p.ID, Redactor: s.red}, nil
}

// listMemory browses (no q) or searches (q) the project's memory.
func (s *Server) listMemory(w http.ResponseWriter, r *http.Request, p *Project) {
	q := r.URL.Query()
	limit, err := limitOf(q.Get("limit"), 50, memory.MaxK*20)
	if err != nil {
		s.fail(w, err)
		return
	}
	kind, agent := q.Get("kind"), q.Get("agent")
	if kind != "" && !slices.Contains(memory.Kinds, kind) {
		s.fail(w, fmt.Errorf("%w: kind is one of %s", errBadRequest, strings.Join(memory.Kinds, ", ")))
		return
	}
	var tags []string
	if t := q.Get("tag"); t != "" {
		tags = []string{t}
	}
	m, err := s.memoryOf(p)
	if err != nil {
		s.fail(w, err)
		return
	}
	out := []MemoryView{}
	if text := q.Get("q"); text != "" {
		hits, err := m.Recall(r.Context(), memory.RecallQuery{Text: text, K: min(limit, memory.MaxK), Kind: kind, Agent: agent, Tags: tags})
		if err != nil {
			s.fail(w, err)
			return
		}
		for _, h := range hits {
			out = append(out, memoryView(h.Record, h.Score))
		}
	} else {
		recs, err := m.List(r.Context(), kind, tags, agent, limit)
		if err != nil && !errors.Is(err, memory.ErrNoCollection) {
			s.fail(w, err)
			return
		}
		for _, rec := range recs {
			out = append(out, memoryView(rec, 0))
		}
	}
	s.ok(w, http.StatusOK, out)
}

func limitOf(v string, def, max int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > max {
		return 0, fmt.Errorf("%w: limit is a number from 1 to %d", errBadRequest, max)
	}
	return n, nil
}

func (s *Server) forget(w http.ResponseWriter, r *http.Request, p *Project) {
	m, err := s.memoryOf(p)
	if err != nil {
		s.fail(w, err)
		return
	}
	id := r.PathValue("id")
	if err := m.Forget(r.Context(), id); err != nil {
		s.fail(w, err)
		return
	}
	s.record(r, p, "forgot a memory", id, nil)
	s.ok(w, http.StatusOK, Forgotten{Forgotten: id})
}

// AddAgentRequest mints a token for a new agent.
type AddAgentRequest struct {
	Agent string `json:"agent"` // a profile name in the rules: claude, codex, …
}

// RejectRequest rejects a proposal.
type RejectRequest struct {
	Reason string `json:"reason,omitempty"`
}

// Forgotten says which memory was forgotten.
type Forgotten struct {
	Forgotten string `json:"forgotten"`
}

// Purged says what a purge matched and deleted; Confirm says how to
// delete when nothing was.
type Purged struct {
	Matched int    `json:"matched"`
	Purged  int    `json:"purged"`
	Confirm string `json:"confirm,omitempty"`
}

// PurgeRequest deletes every memory matching its filter. Confirm must be
// the number of memories the filter matches now (a dry run, confirm 0 or
// absent, answers it without deleting).
type PurgeRequest struct {
	Kind    string `json:"kind,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Tag     string `json:"tag,omitempty"`
	Confirm int    `json:"confirm,omitempty"`
}

func (s *Server) purge(w http.ResponseWriter, r *http.Request, p *Project) {
	var in PurgeRequest
	if err := decode(w, r, &in); err != nil {
		s.fail(w, err)
		return
	}
	if in.Kind != "" && !slices.Contains(memory.Kinds, in.Kind) {
		s.fail(w, fmt.Errorf("%w: kind is one of %s", errBadRequest, strings.Join(memory.Kinds, ", ")))
		return
	}
	m, err := s.memoryOf(p)
	if err != nil {
		s.fail(w, err)
		return
	}
	var tags []string
	if in.Tag != "" {
		tags = []string{in.Tag}
	}
	n, err := m.Count(r.Context(), in.Kind, tags, in.Agent)
	if err != nil && !errors.Is(err, memory.ErrNoCollection) {
		s.fail(w, err)
		return
	}
	if in.Confirm != n || n == 0 {
		s.ok(w, http.StatusOK, Purged{Matched: n,
			Confirm: fmt.Sprintf("nothing deleted: send confirm: %d to delete the %d memories this filter matches", n, n)})
		return
	}
	got, err := m.Purge(r.Context(), in.Kind, tags, in.Agent)
	if err != nil {
		s.fail(w, err)
		return
	}
	s.record(r, p, fmt.Sprintf("purged %d memories", got), "", map[string]any{"kind": in.Kind, "agent": in.Agent, "tag": in.Tag})
	s.ok(w, http.StatusOK, Purged{Matched: n, Purged: got})
}

func (s *Server) restartUpstream(w http.ResponseWriter, r *http.Request, p *Project) {
	name := r.PathValue("name")
	i := slices.IndexFunc(p.upstreams, func(u *upstream.Upstream) bool { return u.Status().Name == name })
	if i < 0 {
		s.fail(w, fmt.Errorf("%w: project %s has no upstream %q", errNotFound, p.ID, name))
		return
	}
	u := p.upstreams[i]
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	err := u.Restart(ctx)
	st := u.Status()
	s.record(r, p, "restarted upstream "+name, name, map[string]any{"state": string(st.State)})
	if err != nil {
		s.backendFailed(p, "upstream:"+name)
		s.fail(w, fmt.Errorf("%w: upstream %s: %w", proposals.ErrUnavailable, name, err))
		return
	}
	s.ok(w, http.StatusOK, st)
}

// vendorSync runs bridle vendor sync for the project: proposals only; a
// human approves them. Its fetch state is kept in the state directory.
func (s *Server) vendorSync(w http.ResponseWriter, r *http.Request, p *Project) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Minute)
	defer cancel()
	origin := proposals.OriginOf(who(r.Context()))
	results, err := s.syncVendors(ctx, p, r.URL.Query().Get("agent"), origin)
	if err != nil {
		s.fail(w, err)
		return
	}
	s.record(r, p, fmt.Sprintf("synced the vendors' guidance: %d proposals", opened(results)), "", nil)
	s.ok(w, http.StatusOK, results)
}

// Integration is a backend service and whether it answers.
type Integration = BackendStatus

func (s *Server) integrations(w http.ResponseWriter, r *http.Request) {
	s.ok(w, http.StatusOK, s.backends(r.Context()))
}

// MaxAuditEvents is the most events one audit query returns.
const MaxAuditEvents = 1000

// listAudit is the audit timeline, newest first: ?project, source, agent,
// kind, since, until (RFC 3339), limit.
func (s *Server) listAudit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, err := limitOf(q.Get("limit"), 100, MaxAuditEvents)
	if err != nil {
		s.fail(w, err)
		return
	}
	f := audit.Filter{Agent: q.Get("agent"), Kind: q.Get("kind"), Source: q.Get("source")}
	if f.Source != "" && !slices.Contains([]string{"user", "agent", "vendor"}, f.Source) {
		s.fail(w, fmt.Errorf("%w: source is user, agent or vendor", errBadRequest))
		return
	}
	for _, t := range []struct {
		name string
		dst  *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if v := q.Get(t.name); v != "" {
			if *t.dst, err = time.Parse(time.RFC3339, v); err != nil {
				s.fail(w, fmt.Errorf("%w: %s is an RFC 3339 time, e.g. 2026-12-01T09:00:00Z", errBadRequest, t.name))
				return
			}
		}
	}
	ids := s.ids
	logs := []*audit.Log{s.serverAudit}
	if pj := q.Get("project"); pj != "" {
		logs = nil
		if s.projects[pj] == nil {
			s.fail(w, fmt.Errorf("%w: no project %q", errNotFound, pj))
			return
		}
		ids = []string{pj}
	}
	// Each log is read from its end, only as far as its newest limit
	// matches: the first page of a long log costs what the page holds.
	out := []audit.Event{}
	for _, id := range ids {
		logs = append(logs, s.projects[id].audit)
	}
	for _, l := range logs {
		events, _, err := l.Newest(f, limit)
		if err != nil {
			s.fail(w, err)
			return
		}
		out = append(out, events...)
	}
	// The rules' history, as bridle audit shows it: each merge into the
	// served branch, and each change on it no approved merge produced.
	for _, id := range ids {
		out = append(out, audit.Combine(f, s.projects[id].history(r.Context(), s.log))...)
	}
	slices.SortStableFunc(out, func(a, b audit.Event) int { return b.Time.Compare(a.Time) })
	if len(out) > limit {
		out = out[:limit]
	}
	s.ok(w, http.StatusOK, out)
}
