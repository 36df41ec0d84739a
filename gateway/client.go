package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/proposals"
)

// Client calls a gateway's admin API: the CLI's admin verbs with --server
// go through it, as the web panel and scripts do.
type Client struct {
	base  string
	token string
	// person: token is a person's own (bridle login), not the admin
	// credential; a refusal says how to sign in again.
	person bool
	http   *http.Client
}

// ErrUnauthorized is the gateway refusing the credential sent: the admin
// credential, or a person's token (expired, revoked).
var ErrUnauthorized = errors.New("the gateway refused the credential")

// RemoteError is an error the admin API answered.
type RemoteError struct {
	Status   int
	API      APIError
	sentinel error
}

func (e *RemoteError) Error() string {
	msg := e.API.Error
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	if e.API.MergeURL != "" {
		msg += ": " + e.API.MergeURL
	}
	return "gateway: " + msg
}

func (e *RemoteError) Unwrap() error { return e.sentinel }

// NewClient returns a client of the gateway at base (scheme://host:port)
// with the admin credential token.
func NewClient(base, token string) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: --server %q is not an http(s) URL", ErrInput, base)
	}
	return &Client{base: strings.TrimRight(base, "/"), token: token, http: &http.Client{Timeout: 60 * time.Second}}, nil
}

// NewPersonClient returns a client of the gateway at base acting as the
// person whose API token (bridle login's) token is.
func NewPersonClient(base, token string) (*Client, error) {
	c, err := NewClient(base, token)
	if err != nil {
		return nil, err
	}
	c.person = true
	return c, nil
}

// Base is the gateway's URL as the client calls it.
func (c *Client) Base() string { return c.base }

// Project is one project's status: its rules' commit and whether they are
// loaded and approved.
func (c *Client) Project(ctx context.Context, project string) (ProjectStatus, error) {
	var out ProjectStatus
	err := c.do(ctx, http.MethodGet, "/api/v1/projects/"+url.PathEscape(project), nil, &out)
	return out, err
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("gateway %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return fmt.Errorf("gateway %s: %w", c.base, err)
	}
	if resp.StatusCode >= 300 {
		re := &RemoteError{Status: resp.StatusCode}
		json.Unmarshal(b, &re.API)
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			re.sentinel, re.API.Error = ErrUnauthorized, "the gateway refused the admin credential (check BRIDLE_ADMIN_TOKEN_FILE)"
			if c.person {
				re.API.Error = "the gateway refused your sign-in (its token expired or was revoked): run bridle login --server " + c.base + " again"
			}
		case http.StatusNotFound:
			re.sentinel = ErrNoSuchItem
		case http.StatusConflict:
			re.sentinel = ErrExists
			if re.API.Code == "conflict" {
				re.sentinel = proposals.ErrConflict
			}
		case http.StatusBadRequest:
			re.sentinel = ErrInput
		case http.StatusForbidden:
			re.sentinel = proposals.ErrForbidden
		}
		return re
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("gateway %s: unexpected answer: %w", c.base, err)
	}
	return nil
}

func agentPath(project string, rest ...string) string {
	p := "/api/v1/projects/" + url.PathEscape(project) + "/agents"
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

// AddAgent mints an agent's token.
func (c *Client) AddAgent(ctx context.Context, project, agent string) (Minted, error) {
	var m Minted
	err := c.do(ctx, http.MethodPost, agentPath(project), map[string]string{"agent": agent}, &m)
	return m, err
}

// RotateAgent replaces an agent's token.
func (c *Client) RotateAgent(ctx context.Context, project, agent string) (Minted, error) {
	var m Minted
	err := c.do(ctx, http.MethodPost, agentPath(project, agent, "rotate"), nil, &m)
	return m, err
}

// RevokeAgent removes an agent's token.
func (c *Client) RevokeAgent(ctx context.Context, project, agent string) (TokenInfo, error) {
	var t TokenInfo
	err := c.do(ctx, http.MethodDelete, agentPath(project, agent), nil, &t)
	return t, err
}

// Agents lists a project's agents.
func (c *Client) Agents(ctx context.Context, project string) ([]AgentView, error) {
	var out []AgentView
	err := c.do(ctx, http.MethodGet, agentPath(project), nil, &out)
	return out, err
}

// Proposals lists a project's proposals in state.
func (c *Client) Proposals(ctx context.Context, project string, state proposals.State) ([]proposals.Proposal, error) {
	var out []proposals.Proposal
	err := c.do(ctx, http.MethodGet, "/api/v1/projects/"+url.PathEscape(project)+"/proposals?state="+url.QueryEscape(string(state)), nil, &out)
	return out, err
}

// Approve approves proposal n as the admin.
func (c *Client) Approve(ctx context.Context, project string, n int, in ApproveRequest) (proposals.Proposal, error) {
	var out proposals.Proposal
	err := c.do(ctx, http.MethodPost, fmt.Sprintf("/api/v1/projects/%s/proposals/%d/approve", url.PathEscape(project), n), in, &out)
	return out, err
}

// Reject rejects proposal n with reason.
func (c *Client) Reject(ctx context.Context, project string, n int, reason string) (proposals.Proposal, error) {
	var out proposals.Proposal
	err := c.do(ctx, http.MethodPost, fmt.Sprintf("/api/v1/projects/%s/proposals/%d/reject", url.PathEscape(project), n), map[string]string{"reason": reason}, &out)
	return out, err
}

// Sessions lists the open sessions of project ("" for all).
func (c *Client) Sessions(ctx context.Context, project string) ([]Session, error) {
	var out []Session
	q := ""
	if project != "" {
		q = "?project=" + url.QueryEscape(project)
	}
	err := c.do(ctx, http.MethodGet, "/api/v1/sessions"+q, nil, &out)
	return out, err
}

// Me is who the gateway says the client acts for.
func (c *Client) Me(ctx context.Context) (Me, error) {
	var out Me
	err := c.do(ctx, http.MethodGet, "/api/v1/me", nil, &out)
	return out, err
}

// MyTokens lists the API tokens of the person the client acts for.
func (c *Client) MyTokens(ctx context.Context) ([]PersonTokenInfo, error) {
	var out []PersonTokenInfo
	err := c.do(ctx, http.MethodGet, "/api/v1/me/tokens", nil, &out)
	return out, err
}

// RevokeMyToken revokes the person's own token id.
func (c *Client) RevokeMyToken(ctx context.Context, id string) (PersonTokenInfo, error) {
	var out PersonTokenInfo
	err := c.do(ctx, http.MethodDelete, "/api/v1/me/tokens/"+url.PathEscape(id), nil, &out)
	return out, err
}

// ExchangeLoginCode trades bridle login's one-time code for the person's
// token (at CLITokenPath; no credential is sent).
func (c *Client) ExchangeLoginCode(ctx context.Context, in CLIExchange) (MintedPersonToken, error) {
	var out MintedPersonToken
	anon := *c
	anon.token = ""
	err := anon.do(ctx, http.MethodPost, CLITokenPath, in, &out)
	return out, err
}
