package gateway

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/vault"
)

// serverAuditLog names the log of server-wide vault changes: no project id
// can start with '-'.
const serverAuditLog = "-server"

// openVault opens the server-wide vault (SecretsConfig) and its audit log.
func (s *Server) openVault() error {
	key, err := vault.LoadKey(filepath.Join(s.cfg.StateDir, "gateway", "vault.key"))
	if err != nil {
		return err
	}
	s.vaultKey = key
	s.serverAudit = audit.Open(s.cfg.StateDir, serverAuditLog, s.red)
	s.vault = vault.Open(s.ctx, s.vaultOptions("server", s.cfg.Secrets.Dir, s.serverAudit, nil))
	if err := s.vault.Err(); err != nil {
		s.log.Error("the server-wide vault's SOPS file cannot be opened; its secrets fail until it can", "err", err)
	}
	return nil
}

// watchVaults reloads a vault whose SOPS file changed on disk (a git pull,
// sops edit), every Refresh, until the server closes: its consumers get
// the new values as after a rotation.
func (s *Server) watchVaults() {
	scopes := []*vault.Scope{s.vault}
	for _, id := range s.ids {
		scopes = append(scopes, s.projects[id].vault)
	}
	t := time.NewTicker(s.opts.Refresh)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		for _, v := range scopes {
			if v.Stale() {
				if err := v.Reload(s.ctx); err != nil {
					s.log.Error("the vault's SOPS file changed and cannot be opened; the previous values stay in use", "scope", v.Name(), "err", err)
				} else {
					s.log.Info("the vault's SOPS file changed on disk; reloaded", "scope", v.Name())
				}
			}
		}
	}
}

// vaultOptions are a scope's: dir's SOPS file, the Docker secrets, the
// environment when the server was given one, changes committed and audited.
func (s *Server) vaultOptions(scope, dir string, log *audit.Log, parent *vault.Scope) vault.Options {
	o := vault.Options{Scope: scope, Dir: dir, DockerDir: s.cfg.Secrets.DockerDir, Getenv: s.opts.Getenv, Key: s.vaultKey,
		Redactor: s.red, Parent: parent, Now: s.now, NewCodec: s.opts.NewCodec,
		Warn:     func(m string) { s.log.Warn(m, "scope", scope) },
		OnChange: func(ctx context.Context, c vault.Change) { s.recordVault(ctx, log, c) },
	}
	if o.NewCodec == nil {
		getenv := s.opts.Getenv
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		o.NewCodec = func() (vault.Codec, error) {
			p, err := vault.FindHelper(getenv)
			if err != nil {
				return nil, err
			}
			return vault.ExecCodec{Path: p, Env: vault.HelperEnv(getenv, s.cfg.Secrets.AgeKeyFile)}, nil
		}
	}
	if dir != "" {
		o.Commit = func(ctx context.Context, files map[string][]byte, message string) (string, error) {
			h := who(ctx) // the person whose request changed the vault
			name, email := h.Name, h.Email
			if name == "" {
				name, email = "Bridle admin", "admin@bridle.invalid"
			}
			sig := &object.Signature{Name: name, Email: email, When: s.now()}
			c, err := scaffold.CommitIn(dir, files, sig, message)
			if errors.Is(err, scaffold.ErrNotCommitted) && scope == "server" {
				return "", nil // a plain directory: written only
			}
			return c, err
		}
	}
	return o
}

// recordVault writes a vault change to log as an admin event (source user).
func (s *Server) recordVault(ctx context.Context, log *audit.Log, c vault.Change) {
	summary := "secret " + c.Name + ": " + c.Op
	if c.Op == "rekey" {
		summary = "vault re-keyed"
	}
	d := map[string]any{"scope": c.Scope, "op": c.Op}
	if c.Fingerprint != "" {
		d["fingerprint"] = c.Fingerprint
	}
	if c.Commit != "" {
		d["commit"] = c.Commit
	}
	project := c.Scope
	if project == "server" {
		project = ""
	}
	a := who(ctx)
	if err := log.Append(audit.Event{Kind: audit.KindAdmin, Actor: &a, Source: "user", Summary: summary, ID: c.Name, Detail: d, Project: project}); err != nil {
		s.log.Warn("audit event not written", "scope", c.Scope, "err", err)
	}
}

// SecretValue is a secret's new value, for set and rotate: the only
// request that carries one; no answer ever does.
type SecretValue struct {
	Value string `json:"value"`
}

// RekeyRequest names the age recipients the vault is encrypted to from now on.
type RekeyRequest struct {
	Recipients []string `json:"recipients"`
}

// Rekeyed is the vault after a re-key.
type Rekeyed struct {
	Scope      string   `json:"scope"`
	Recipients []string `json:"recipients"`
}

// scoped resolves the vault a route acts on: the server's, or {project}'s.
func (s *Server) scoped(project bool, h func(http.ResponseWriter, *http.Request, *vault.Scope, *audit.Log)) http.HandlerFunc {
	if !project {
		return func(w http.ResponseWriter, r *http.Request) { h(w, r, s.vault, s.serverAudit) }
	}
	return s.project(func(w http.ResponseWriter, r *http.Request, p *Project) { h(w, r, p.vault, p.audit) })
}

func (s *Server) listSecrets(w http.ResponseWriter, _ *http.Request, v *vault.Scope, _ *audit.Log) {
	s.ok(w, http.StatusOK, v.List())
}

func (s *Server) vaultStatus(w http.ResponseWriter, _ *http.Request, v *vault.Scope, _ *audit.Log) {
	s.ok(w, http.StatusOK, v.Status())
}

func (s *Server) putSecret(op string) func(http.ResponseWriter, *http.Request, *vault.Scope, *audit.Log) {
	return func(w http.ResponseWriter, r *http.Request, v *vault.Scope, _ *audit.Log) {
		var in SecretValue
		err := decode(w, r, &in)
		s.red.Add(in.Value) // before anything could echo it
		if err != nil {
			s.fail(w, err)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Minute)
		defer cancel()
		var info vault.Info
		code := http.StatusOK
		if op == "set" {
			info, err = v.Set(ctx, r.PathValue("name"), in.Value)
			code = http.StatusCreated
		} else {
			info, err = v.Rotate(ctx, r.PathValue("name"), in.Value)
		}
		if err != nil {
			s.fail(w, err)
			return
		}
		s.ok(w, code, info)
	}
}

func (s *Server) revokeSecret(w http.ResponseWriter, r *http.Request, v *vault.Scope, _ *audit.Log) {
	info, err := v.Revoke(r.Context(), r.PathValue("name"))
	if err != nil {
		s.fail(w, err)
		return
	}
	s.ok(w, http.StatusOK, info)
}

func (s *Server) rekey(w http.ResponseWriter, r *http.Request, v *vault.Scope, _ *audit.Log) {
	var in RekeyRequest
	if err := decode(w, r, &in); err != nil {
		s.fail(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Minute)
	defer cancel()
	if err := v.Rekey(ctx, in.Recipients); err != nil {
		s.fail(w, err)
		return
	}
	rs, _ := vault.CheckRecipients(in.Recipients)
	s.ok(w, http.StatusOK, Rekeyed{Scope: v.Name(), Recipients: rs})
}

// vaultStatus maps the vault's errors to the admin API's statuses.
func vaultStatus(err error) (int, string, bool) {
	switch {
	case errors.Is(err, vault.ErrBadName), errors.Is(err, vault.ErrFormat):
		return http.StatusBadRequest, "bad_request", true
	case errors.Is(err, vault.ErrNotFound):
		return http.StatusNotFound, "not_found", true
	case errors.Is(err, vault.ErrExists), errors.Is(err, vault.ErrRevoked), errors.Is(err, vault.ErrReadOnly):
		return http.StatusConflict, "conflict", true
	case errors.Is(err, vault.ErrKey), errors.Is(err, vault.ErrIntegrity), errors.Is(err, vault.ErrSource), errors.Is(err, vault.ErrNoCodec):
		return http.StatusServiceUnavailable, "vault_unavailable", true
	}
	return 0, "", false
}

func secretPath(project string, rest ...string) string {
	p := "/api/v1/secrets"
	if project != "" {
		p = "/api/v1/projects/" + url.PathEscape(project) + "/secrets"
	}
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

// Secrets lists a scope's secrets (project "" for the server-wide vault).
func (c *Client) Secrets(ctx context.Context, project string) ([]vault.Info, error) {
	var out []vault.Info
	err := c.do(ctx, http.MethodGet, secretPath(project), nil, &out)
	return out, err
}

// Vault is a scope's vault status: its SOPS file, recipients, and why it
// cannot be read or written (project "" for the server-wide vault).
func (c *Client) Vault(ctx context.Context, project string) (vault.Status, error) {
	var out vault.Status
	p := "/api/v1/vault"
	if project != "" {
		p = "/api/v1/projects/" + url.PathEscape(project) + "/vault"
	}
	err := c.do(ctx, http.MethodGet, p, nil, &out)
	return out, err
}

// SetSecret stores a new secret; RotateSecret replaces one's value.
func (c *Client) SetSecret(ctx context.Context, project, name, value string) (vault.Info, error) {
	var out vault.Info
	err := c.do(ctx, http.MethodPost, secretPath(project, name), SecretValue{Value: value}, &out)
	return out, err
}

// RotateSecret replaces a secret's value; every consumer uses the new one
// when it returns.
func (c *Client) RotateSecret(ctx context.Context, project, name, value string) (vault.Info, error) {
	var out vault.Info
	err := c.do(ctx, http.MethodPost, secretPath(project, name, "rotate"), SecretValue{Value: value}, &out)
	return out, err
}

// RevokeSecret removes a secret's value; consumers answer "secret NAME was revoked".
func (c *Client) RevokeSecret(ctx context.Context, project, name string) (vault.Info, error) {
	var out vault.Info
	err := c.do(ctx, http.MethodDelete, secretPath(project, name), nil, &out)
	return out, err
}

// Rekey encrypts a scope's SOPS file to recipients from now on.
func (c *Client) Rekey(ctx context.Context, project string, recipients []string) (Rekeyed, error) {
	var out Rekeyed
	p := "/api/v1/vault/rekey"
	if project != "" {
		p = "/api/v1/projects/" + url.PathEscape(project) + "/vault/rekey"
	}
	err := c.do(ctx, http.MethodPost, p, RekeyRequest{Recipients: recipients}, &out)
	return out, err
}
