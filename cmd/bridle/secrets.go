package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/vault"
)

// secretsFlags say which vault a secrets verb acts on: a rules
// repository's (--rules), or a gateway's (--server; --project for a
// project's, none for the server-wide one).
type secretsFlags struct {
	adminFlags
	rules string
}

func (s *secretsFlags) register(cmd *cobra.Command) {
	rulesFlag(cmd, &s.rules, "the rules repository whose "+vault.FileName+" to use (a directory, or its bridle.yaml)")
	cmd.Flags().StringVar(&s.server, "server", "", "go through this gateway's admin API (`url`; default $BRIDLE_SERVER with --project)")
	cmd.Flags().StringVar(&s.project, "project", "", "with --server: the gateway's `project` (none: its server-wide vault)")
	cmd.Flags().StringVar(&s.tokenFile, "admin-token-file", "", "with --server: the admin credential's `file` (default $BRIDLE_ADMIN_TOKEN_FILE)")
	cmd.Flags().BoolVar(&s.json, "json", false, "print the answer as one JSON document on stdout")
}

// remote reports whether the verb goes through a gateway.
func (s *secretsFlags) remote(cmd *cobra.Command, io *streams) (bool, error) {
	if s.server == "" && (s.project == "" || io.f.ServerURL() == "") {
		if s.project != "" {
			return false, usageErr("--project names a gateway's project: give --server URL (or set BRIDLE_SERVER)")
		}
		return false, nil
	}
	if cmd.Flags().Lookup("rules").Changed {
		return true, usageErr("--rules cannot go with --server: the gateway holds the vault")
	}
	return true, nil
}

func newSecretsCmd(io *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secrets",
		Short: "Keep secrets in the vault, by name; never show a value",
		Long: `Secrets manages the vault: named secrets that configuration refers to as
secret:NAME (token: secret:gitea-bot), never by value. A name is looked up
in the rules repository's ` + vault.FileName + ` (SOPS, age recipients), then in
Docker secrets (/run/secrets/NAME, NAME_FILE), then in the variable NAME
(development only: a warning says so).

set and rotate read the value from stdin (hidden when it is a terminal) or
--from-file, never from an argument. A change to the SOPS file is a commit
on main with only encrypted values in it, and an audit event. list shows
where each secret lives, a keyed fingerprint (HMAC under the vault key in
the state directory, so that equal values can be recognised without the
value being guessable), the dates and what uses it — never a value.

The SOPS file is read and written by the bridle-sops helper, next to bridle
(from the checkout bridle was built from: go install ./cmd/bridle-sops;
without it, each verb prints the exact command): its cloud SDKs stay out of
bridle, whose commands start in milliseconds. The
age identity is SOPS_AGE_KEY_FILE, else the one bridle secrets init made.

With --server URL the verbs go through the gateway's admin API
(BRIDLE_ADMIN_TOKEN_FILE): --project P for a project's vault, none for the
server-wide one.`,
		Example: `  bridle secrets init --rules rules
  printf %s "$TOKEN" | bridle secrets set gitea-bot --rules rules
  bridle secrets set kanboard-claude --rules rules --from-file /tmp/kb-token
  bridle secrets list --rules rules
  bridle secrets rotate gitea-bot --rules rules < new-token
  bridle secrets revoke gitea-bot --rules rules
  bridle secrets rekey --rules rules --recipient age1… --recipient age1…
  bridle secrets list --server http://127.0.0.1:7777 --project runic --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	cmd.AddCommand(newSecretsInitCmd(io), newSecretsPutCmd(io, "set"), newSecretsPutCmd(io, "rotate"),
		newSecretsRevokeCmd(io), newSecretsListCmd(io), newSecretsRekeyCmd(io))
	return cmd
}

// identityFile is where bridle secrets init keeps the age identity:
// $XDG_CONFIG_HOME/bridle/age.key.
func (f *factory) identityFile() string {
	dir := f.getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := f.getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "bridle", "age.key")
}

// ageKeyFile is the identity the SOPS helper gets: SOPS_AGE_KEY_FILE, else
// init's when it exists, else "" (sops' own default places).
func (f *factory) ageKeyFile() string {
	if p := strings.TrimSpace(f.getenv("SOPS_AGE_KEY_FILE")); p != "" {
		return p
	}
	if p := f.identityFile(); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Vault is the rules repository's vault, as the CLI opens it: changes are
// committed as the git committer and written to the audit log.
func (f *factory) Vault(rules string) (*vault.Scope, error) {
	dir := rules
	if st, err := os.Stat(rules); err != nil {
		return nil, usageErr("--rules %s: %w", rules, errors.Unwrap(err))
	} else if !st.IsDir() {
		dir = filepath.Dir(rules)
	}
	state, err := f.StateDir()
	if err != nil {
		return nil, err
	}
	key, err := vault.LoadKey(filepath.Join(state, "vault.key"))
	if err != nil {
		return nil, err
	}
	return vault.Open(context.Background(), vault.Options{
		Scope: "local", Dir: dir, DockerDir: f.getenv("BRIDLE_DOCKER_SECRETS"), Getenv: f.getenv, Key: key, Redactor: f.Redactor(),
		NewCodec: func() (vault.Codec, error) {
			p, err := vault.FindHelper(f.getenv)
			if err != nil {
				return nil, err
			}
			return vault.ExecCodec{Path: p, Env: vault.HelperEnv(f.getenv, f.ageKeyFile())}, nil
		},
		Commit: func(_ context.Context, files map[string][]byte, message string) (string, error) {
			sig, err := commitIdentity(dir)
			if err != nil {
				return "", err
			}
			return commitIn(dir, files, sig, message)
		},
		OnChange: func(_ context.Context, c vault.Change) { f.auditVault(dir, c) },
	}), nil
}

func newSecretsInitCmd(io *streams) *cobra.Command {
	var rules, identity string
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create an age identity and a .sops.yaml naming it",
		Long: `Init creates an age identity (at --identity, default
$XDG_CONFIG_HOME/bridle/age.key, readable by you only; kept if it exists) and
writes .sops.yaml in the rules repository naming its recipient, committed
on main. Give the identity to the gateway as SOPS_AGE_KEY_FILE (a Docker
secret in Compose); add other people's recipients with bridle secrets rekey.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if identity == "" {
				identity = io.f.identityFile()
			}
			if identity == "" {
				return usageErr("--identity FILE: there is no HOME to keep the age identity under")
			}
			recipient, created, err := ensureIdentity(identity)
			if err != nil {
				return err
			}
			dir, err := rulesDirOf(findRules(rules))
			if err != nil {
				return err
			}
			written, err := vault.Init(context.Background(), dir, []string{recipient}, func(_ context.Context, files map[string][]byte, msg string) (string, error) {
				sig, err := commitIdentity(dir)
				if err != nil {
					return "", err
				}
				return commitIn(dir, files, sig, msg)
			})
			if err != nil {
				return err
			}
			if created {
				fmt.Fprintf(io.errOut, "created the age identity %s (keep it secret; back it up)\n", display(identity))
			}
			if written {
				fmt.Fprintf(io.errOut, "wrote %s naming %s, committed\n", display(filepath.Join(dir, vault.ConfigName)), recipient)
			} else {
				fmt.Fprintf(io.errOut, "%s exists already; to add %s: bridle secrets rekey --recipient …\n", display(filepath.Join(dir, vault.ConfigName)), recipient)
			}
			fmt.Fprintln(io.out, recipient)
			return nil
		},
	}
	rulesFlag(cmd, &rules, "the rules repository to write .sops.yaml in")
	cmd.Flags().StringVar(&identity, "identity", "", "the age identity `file` to create or use (default $XDG_CONFIG_HOME/bridle/age.key)")
	return cmd
}

// ensureIdentity returns the recipient of the identity at path, creating
// one when there is none.
func ensureIdentity(path string) (recipient string, created bool, err error) {
	if b, err := os.ReadFile(path); err == nil {
		for line := range strings.Lines(string(b)) {
			if r, ok := strings.CutPrefix(strings.TrimSpace(line), "# public key: "); ok {
				return r, false, nil
			}
		}
		return "", false, fmt.Errorf("the age identity %s has no \"# public key:\" line: give its recipient with bridle secrets rekey --recipient", path)
	}
	key, recipient, err := vault.NewIdentity()
	if err != nil {
		return "", false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", false, err
	}
	if _, err := f.Write(key); err != nil {
		f.Close()
		return "", false, err
	}
	return recipient, true, f.Close()
}

func rulesDirOf(rules string) (string, error) {
	st, err := os.Stat(rules)
	if err != nil {
		return "", usageErr("--rules %s: %w", rules, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return filepath.Dir(rules), nil
	}
	return rules, nil
}

// readValue reads a secret's value from --from-file or stdin (without
// echo on a terminal): never from an argument.
func readValue(cmd *cobra.Command, io *streams, file string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", usageErr("--from-file: %w", err)
		}
		return string(b), nil
	}
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(io.errOut, "value (not shown): ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(io.errOut)
		return string(b), err
	}
	b, err := readAllLimited(in, vault.MaxValue+1)
	return string(b), err
}

// secretNameArg accepts one argument, a secret's name, and names it when it
// is not one: typed where a name belongs on the command line (the value
// comes from stdin or a file), it is echoed, unlike a secret:… reference
// in a configuration, which may be a value pasted by mistake.
func secretNameArg(cmd *cobra.Command, args []string) error {
	if err := cobra.ExactArgs(1)(cmd, args); err != nil {
		return err
	}
	if err := vault.ValidName(args[0]); err != nil {
		return usageErr("%q %w", args[0], err)
	}
	return nil
}

func newSecretsPutCmd(io *streams, op string) *cobra.Command {
	var s secretsFlags
	var from string
	short := map[string]string{"set": "Store a new secret (value from stdin or --from-file)",
		"rotate": "Replace a secret's value; its consumers pick it up"}[op]
	cmd := &cobra.Command{
		Use:   op + " NAME",
		Short: short,
		Args:  secretNameArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			remote, err := s.remote(cmd, io)
			if err != nil {
				return err
			}
			value, err := readValue(cmd, io, from)
			io.f.Redactor().Add(strings.TrimRight(value, "\r\n"))
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var info vault.Info
			if remote {
				cl, err := s.client(io)
				if err != nil {
					return err
				}
				if op == "set" {
					info, err = cl.SetSecret(ctx, s.project, args[0], value)
				} else {
					info, err = cl.RotateSecret(ctx, s.project, args[0], value)
				}
				if err != nil {
					return err
				}
			} else {
				v, err := io.f.Vault(findRules(s.rules))
				if err != nil {
					return err
				}
				if op == "set" {
					info, err = v.Set(ctx, args[0], value)
				} else {
					info, err = v.Rotate(ctx, args[0], value)
				}
				if err != nil {
					return err
				}
			}
			return printInfo(io, info, s.json, map[string]string{"set": "stored", "rotate": "rotated"}[op])
		},
	}
	s.register(cmd)
	cmd.Flags().StringVar(&from, "from-file", "", "read the value from this `file` instead of stdin")
	return cmd
}

func newSecretsRevokeCmd(io *streams) *cobra.Command {
	var s secretsFlags
	cmd := &cobra.Command{
		Use:   "revoke NAME",
		Short: "Remove a secret; its consumers then answer that it was revoked",
		Args:  secretNameArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			remote, err := s.remote(cmd, io)
			if err != nil {
				return err
			}
			var info vault.Info
			if remote {
				cl, err := s.client(io)
				if err != nil {
					return err
				}
				if info, err = cl.RevokeSecret(context.Background(), s.project, args[0]); err != nil {
					return err
				}
			} else {
				v, err := io.f.Vault(findRules(s.rules))
				if err != nil {
					return err
				}
				if info, err = v.Revoke(context.Background(), args[0]); err != nil {
					return err
				}
			}
			return printInfo(io, info, s.json, "revoked")
		},
	}
	s.register(cmd)
	return cmd
}

func printInfo(io *streams, in vault.Info, asJSON bool, verb string) error {
	if asJSON {
		return writeJSON(io, in)
	}
	fp := ""
	if in.Fingerprint != "" {
		fp = " (fingerprint " + in.Fingerprint + ")"
	}
	fmt.Fprintf(io.errOut, "%s secret %s in %s%s\n", verb, in.Name, in.Location, fp)
	return nil
}

func newSecretsListCmd(io *streams) *cobra.Command {
	var s secretsFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the secrets: where each lives, fingerprint, dates, users",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			remote, err := s.remote(cmd, io)
			if err != nil {
				return err
			}
			var infos []vault.Info
			var vaultErr error
			if remote {
				cl, err := s.client(io)
				if err != nil {
					return err
				}
				if infos, err = cl.Secrets(context.Background(), s.project); err != nil {
					return err
				}
				// The list answers what could be read; the vault's status
				// says what could not.
				st, err := cl.Vault(context.Background(), s.project)
				if err != nil {
					return err
				}
				if st.Error != "" {
					vaultErr = errors.New(st.Error)
				}
			} else {
				v, err := io.f.Vault(findRules(s.rules))
				if err != nil {
					return err
				}
				vaultErr = v.Err()
				infos = v.List()
			}
			if infos == nil {
				infos = []vault.Info{}
			}
			if vaultErr != nil {
				if len(infos) == 0 {
					// Never "no secrets yet" for a vault that cannot be read.
					return fmt.Errorf("secrets list: %w", vaultErr)
				}
				fmt.Fprintf(io.errOut, "warning: %v\n", vaultErr)
			}
			if s.json {
				return writeJSON(io, infos)
			}
			if len(infos) == 0 {
				none(io, "no secrets yet", "add one with bridle secrets set NAME (the value on stdin)")
				return nil
			}
			w := table(io.out, "NAME", "SOURCE", "LOCATION", "FINGERPRINT", "CREATED", "ROTATED", "USED BY")
			day := func(t time.Time) string {
				if t.IsZero() {
					return "-"
				}
				return t.Format(time.RFC3339)
			}
			for _, in := range infos {
				fp := in.Fingerprint
				switch {
				case !in.Revoked.IsZero():
					fp = "revoked " + day(in.Revoked)
				case in.Error != "":
					fp = "error: " + in.Error
				}
				used := strings.Join(in.UsedBy, ", ")
				if used == "" {
					used = "-"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cell(in.Name), cell(string(in.Source)), cell(in.Location), cell(fp),
					day(in.Created), day(in.Rotated), cell(used))
			}
			return w.Flush()
		},
	}
	s.register(cmd)
	return cmd
}

func newSecretsRekeyCmd(io *streams) *cobra.Command {
	var s secretsFlags
	var recipients []string
	cmd := &cobra.Command{
		Use:   "rekey",
		Short: "Re-encrypt the SOPS file to a new set of age recipients",
		Long: `Rekey re-encrypts the vault's SOPS file with a new data key to exactly the
--recipient keys given (your own included, or you lose access), and writes
them to .sops.yaml, in one commit. Someone removed can still decrypt the
file's old versions in git history: rotate the secrets they could read.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(recipients) == 0 {
				return usageErr("--recipient age1… is required (once per recipient)")
			}
			remote, err := s.remote(cmd, io)
			if err != nil {
				return err
			}
			if remote {
				cl, err := s.client(io)
				if err != nil {
					return err
				}
				r, err := cl.Rekey(context.Background(), s.project, recipients)
				if err != nil {
					return err
				}
				if s.json {
					return writeJSON(io, r)
				}
				fmt.Fprintf(io.errOut, "re-keyed the %s vault to %d recipient(s)\n", r.Scope, len(r.Recipients))
				return nil
			}
			v, err := io.f.Vault(findRules(s.rules))
			if err != nil {
				return err
			}
			if err := v.Rekey(context.Background(), recipients); err != nil {
				return err
			}
			if s.json {
				return writeJSON(io, map[string]any{"scope": v.Name(), "recipients": recipients})
			}
			fmt.Fprintf(io.errOut, "re-keyed %s to %d recipient(s), committed\n", display(v.Path()), len(recipients))
			return nil
		},
	}
	s.register(cmd)
	cmd.Flags().StringArrayVar(&recipients, "recipient", nil, "an age `recipient` (age1…) to encrypt to; repeat for each")
	return cmd
}

// commitIn commits the vault's files on main of dir's repository.
func commitIn(dir string, files map[string][]byte, sig *object.Signature, message string) (string, error) {
	return scaffold.CommitIn(dir, files, sig, message)
}

// auditVault records a change to the local audit log of dir's project.
func (f *factory) auditVault(dir string, c vault.Change) {
	state, err := f.StateDir()
	if err != nil {
		return
	}
	d := map[string]any{"op": c.Op, "file": filepath.Join(dir, vault.FileName)}
	if c.Fingerprint != "" {
		d["fingerprint"] = c.Fingerprint
	}
	if c.Commit != "" {
		d["commit"] = c.Commit
	}
	summary := "secret " + c.Name + ": " + c.Op
	if c.Op == "rekey" {
		summary = "vault re-keyed"
	}
	project := scaffold.ProjectID(dir)
	_ = audit.Open(state, project, f.Redactor()).Append(audit.Event{Kind: audit.KindVault, Source: "user", Project: project, Summary: summary, ID: c.Name, Detail: d})
}
