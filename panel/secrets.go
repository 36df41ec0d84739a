package panel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/vault"
)

// Secrets: the vault's names, never a value. A value is typed once into a
// password field, posted, handed to the admin API and forgotten: no page,
// redirect, flash or log line carries it, and a form re-drawn after an
// error has its value field empty.

// secretFormLimit is the largest secret form the panel reads: a value of
// vault.MaxValue, form-encoded (up to three bytes a byte), and the rest of
// the form. Anything larger is refused before it is read.
const secretFormLimit = 3*vault.MaxValue + 4<<10

// secretScope is the vault a secrets page or action is about: the
// server-wide one (project "") or a project's.
type secretScope struct {
	Project string
	Base    string // the panel's page of the scope
	API     string // the admin API's secrets path of the scope
	Vault   string // the admin API's vault status path
}

func scopeOf(r *http.Request) secretScope {
	project := r.PathValue("project")
	if project == "" {
		return secretScope{Base: "/ui/secrets", API: "/api/v1/secrets", Vault: "/api/v1/vault"}
	}
	return secretScope{Project: project, Base: projectPath(project, "/secrets"), API: apiProject(project, "/secrets"), Vault: apiProject(project, "/vault")}
}

func (s secretScope) secret(name, rest string) string {
	return s.API + "/" + url.PathEscape(name) + rest
}

// Label names the scope in sentences: "the server-wide vault", "alpha's vault".
func (s secretScope) Label() string {
	if s.Project == "" {
		return "the server-wide vault"
	}
	return s.Project + "'s vault"
}

// secretRow is one secret as the page shows it.
type secretRow struct {
	vault.Info
	Kind     string // where it lives: SOPS file, Docker secret, _FILE, environment, server-wide vault
	Writable bool   // it lives in the SOPS file with a value: rotate and revoke apply
}

// whereKind says where a secret lives, in the page's words.
func whereKind(in vault.Info) string {
	switch {
	case in.Source == vault.SourceSOPS:
		return "SOPS file"
	case in.Source == vault.SourceDocker && strings.HasPrefix(in.Location, "$"):
		return "_FILE"
	case in.Source == vault.SourceDocker:
		return "Docker secret"
	case in.Source == vault.SourceEnv:
		return "environment"
	case in.Location != "":
		return "server-wide vault"
	}
	return "nowhere"
}

type secretsData struct {
	Scope    secretScope
	Status   vault.Status
	Secrets  []secretRow
	Projects []string // every project, for the scope tabs
	Error    string   // what the API answered instead of the list or status
	// After a failed action: what it said, the add form's name (never the
	// value), and the secret whose rotation failed (its form unfolded).
	Problem, Name, Rotate string
	MaxKB                 int
}

// loadSecrets asks the API for the scope's vault and its secrets.
func (c *call) loadSecrets(sc secretScope) (secretsData, error) {
	d := secretsData{Scope: sc, MaxKB: vault.MaxValue >> 10}
	var errs []string
	if err := c.get(sc.Vault, &d.Status); err != nil {
		if statusOf(err) == http.StatusUnauthorized {
			return d, err
		}
		errs = append(errs, err.Error())
	}
	var list []vault.Info
	if err := c.get(sc.API, &list); err != nil {
		if statusOf(err) == http.StatusUnauthorized {
			return d, err
		}
		errs = append(errs, err.Error())
	}
	for _, in := range list {
		d.Secrets = append(d.Secrets, secretRow{Info: in, Kind: whereKind(in),
			Writable: in.Source == vault.SourceSOPS && in.Fingerprint != "" && in.Revoked.IsZero()})
	}
	d.Error = strings.Join(errs, "; ")
	return d, nil
}

// showSecrets draws the scope's page with code; d's Problem, Name and
// Rotate say what a failed action left to show.
func (c *call) showSecrets(w http.ResponseWriter, code int, sc secretScope, problem, name, rotate string) {
	d, err := c.loadSecrets(sc)
	if err != nil {
		c.failed(w, "Secrets", err)
		return
	}
	d.Problem, d.Name, d.Rotate = problem, name, rotate
	pg := c.page("Secrets", "secrets", sc.Project, nil)
	pg.Project = "" // the scope tabs choose the vault, server-wide included
	for _, ps := range pg.Projects {
		d.Projects = append(d.Projects, ps.ID)
	}
	if problem != "" {
		pg.Flash = &flash{Text: problem}
	}
	pg.Data = d
	c.p.renderPage(w, code, "secrets", pg)
}

func (p *Panel) secrets(w http.ResponseWriter, r *http.Request, c *call) {
	c.showSecrets(w, http.StatusOK, scopeOf(r), "", "", "")
}

// secretValue is the form's value, or why it cannot be stored (without
// its length: a refused value is described, never measured).
func secretValue(r *http.Request) (string, string) {
	v := r.PostFormValue("value")
	b, _ := json.Marshal(gateway.SecretValue{Value: v})
	switch {
	case strings.TrimSpace(v) == "":
		return "", "Nothing was stored: the value is empty. Type or paste it into the value field."
	case len(v) > vault.MaxValue || len(b) > gateway.MaxAPIBody:
		return "", fmt.Sprintf("Nothing was stored: the value is larger than %d KB, the most a secret may hold.", vault.MaxValue>>10)
	}
	return v, ""
}

// failedCode is the status a failed action's page is answered with.
func failedCode(err error) int {
	if code := statusOf(err); code != 0 {
		return code
	}
	return http.StatusInternalServerError
}

func (p *Panel) addSecret(w http.ResponseWriter, r *http.Request, c *call) {
	sc := scopeOf(r)
	name := strings.TrimSpace(r.PostFormValue("name"))
	value, bad := secretValue(r)
	if bad != "" {
		c.showSecrets(w, http.StatusBadRequest, sc, bad, name, "")
		return
	}
	if err := vault.ValidName(name); err != nil {
		c.showSecrets(w, http.StatusBadRequest, sc, "Nothing was stored: "+err.Error()+".", name, "")
		return
	}
	var in vault.Info
	f, err := c.action(sc.Project, "POST", sc.secret(name, ""), gateway.SecretValue{Value: value}, &in)
	if err != nil {
		if statusOf(err) == http.StatusUnauthorized {
			c.failed(w, "Secrets", err)
			return
		}
		c.showSecrets(w, failedCode(err), sc, "Nothing was stored: "+err.Error(), name, "")
		return
	}
	f.Text = fmt.Sprintf("Stored secret %s in %s (fingerprint %s), encrypted and committed. Configuration uses it as secret:%s.", name, sc.Label(), in.Fingerprint, name)
	c.done(w, sc.Base, f)
}

func (p *Panel) rotateSecret(w http.ResponseWriter, r *http.Request, c *call) {
	sc, name := scopeOf(r), r.PathValue("name")
	value, bad := secretValue(r)
	if bad != "" {
		c.showSecrets(w, http.StatusBadRequest, sc, strings.Replace(bad, "Nothing was stored", "Nothing was rotated", 1), "", name)
		return
	}
	var in vault.Info
	f, err := c.action(sc.Project, "POST", sc.secret(name, "/rotate"), gateway.SecretValue{Value: value}, &in)
	if err != nil {
		if statusOf(err) == http.StatusUnauthorized {
			c.failed(w, "Secrets", err)
			return
		}
		c.showSecrets(w, failedCode(err), sc, "Nothing was rotated: "+err.Error(), "", name)
		return
	}
	f.Text = fmt.Sprintf("Rotated secret %s in %s: new fingerprint %s. %s", name, sc.Label(), in.Fingerprint, consumersSentence(in.UsedBy, "use the new value from now on"))
	c.done(w, sc.Base, f)
}

// consumersSentence says what a change means for a secret's consumers.
func consumersSentence(usedBy []string, what string) string {
	if len(usedBy) == 0 {
		return "Nothing in the configuration uses it."
	}
	return "Its consumers (" + strings.Join(usedBy, ", ") + ") " + what + "."
}

type revokeData struct {
	Scope  secretScope
	Secret vault.Info
}

// revokeSecret is two steps: without confirm it draws a confirmation
// naming the secret and its consumers; with confirm (the secret's name)
// the API revokes it.
func (p *Panel) revokeSecret(w http.ResponseWriter, r *http.Request, c *call) {
	sc, name := scopeOf(r), r.PathValue("name")
	confirm := r.PostFormValue("confirm")
	if confirm == "" {
		var list []vault.Info
		if err := c.get(sc.API, &list); err != nil {
			c.failed(w, "Secrets", err)
			return
		}
		for _, in := range list {
			if in.Name == name {
				c.render(w, "revoke", "Revoke "+name, "secrets", sc.Project, revokeData{Scope: sc, Secret: in})
				return
			}
		}
		c.done(w, sc.Base, flash{Text: fmt.Sprintf("Nothing was revoked: %s holds no secret %s.", sc.Label(), name)})
		return
	}
	if confirm != name {
		c.done(w, sc.Base, flash{Text: fmt.Sprintf("Nothing was revoked: the confirmation names %q, not %s.", confirm, name)})
		return
	}
	var in vault.Info
	f, err := c.action(sc.Project, "DELETE", sc.secret(name, ""), nil, &in)
	if err != nil {
		if statusOf(err) == http.StatusUnauthorized {
			c.failed(w, "Secrets", err)
			return
		}
		c.done(w, sc.Base, flash{Text: "Nothing was revoked: " + err.Error()})
		return
	}
	f.Text = fmt.Sprintf("Revoked secret %s in %s: its value is gone from the SOPS file (committed). %s", name, sc.Label(),
		consumersSentence(in.UsedBy, `answer "secret `+name+` was revoked" until it is set again`))
	c.done(w, sc.Base, f)
}
