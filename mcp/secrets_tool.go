package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/vault"
)

// secretsToolset is the vault seen by agents: names and metadata. No tool
// returns a value; secrets.read grants this list and nothing more.
func secretsToolset(list func() []vault.Info) Toolset {
	return Toolset{ID: ToolsetSecrets, Enabled: configured(list != nil), Tools: []Tool{listSecrets(list)}}
}

// SecretView is a secret as list_secrets shows it: never its value, nor
// its fingerprint.
type SecretView struct {
	Name      string    `json:"name"`
	Scope     string    `json:"scope" jsonschema:"the project's id, or server for a server-wide secret"`
	Source    string    `json:"source,omitempty" jsonschema:"sops, docker or env"`
	Available bool      `json:"available" jsonschema:"whether consumers can read it now"`
	Created   time.Time `json:"created,omitzero"`
	Rotated   time.Time `json:"rotated,omitzero"`
	Revoked   time.Time `json:"revoked,omitzero"`
	UsedBy    []string  `json:"used_by"`
	Problem   string    `json:"problem,omitempty"`
}

// SecretList is list_secrets' result.
type SecretList struct {
	Secrets []SecretView `json:"secrets"`
}

func listSecrets(list func() []vault.Info) Tool {
	return newTool(Tool{
		Name:  "list_secrets",
		Title: "List the vault's secrets",
		Description: "The names of the secrets Bridle holds for this project (and server-wide), where each lives, when it was created, " +
			"rotated or revoked and what uses it. Never a value: Bridle injects secrets into the services that need them; " +
			"refer to one by name (secret:NAME), never ask for or write its value.",
		Toolset:    ToolsetSecrets,
		Permission: schema.PermSecretsRead,
		ReadOnly:   true,
	}, nil, func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, SecretList, error) {
		out := SecretList{Secrets: []SecretView{}}
		for _, in := range list() {
			out.Secrets = append(out.Secrets, SecretView{Name: in.Name, Scope: in.Scope, Source: string(in.Source),
				Available: in.Error == "" && in.Revoked.IsZero(), Created: in.Created, Rotated: in.Rotated, Revoked: in.Revoked,
				UsedBy: in.UsedBy, Problem: in.Error})
		}
		return nil, out, nil
	})
}
