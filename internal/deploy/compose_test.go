package deploy_test

import (
	"context"
	"maps"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/redact"
)

const composeFile = "docker-compose.yml"

// bundled is each profile and the service it adds.
var bundled = map[string]string{
	"with-qdrant":     "qdrant",
	"with-kanboard":   "kanboard",
	"with-embeddings": "embeddings",
}

// giteaURL is the one setting Compose requires.
var baseEnv = map[string]string{"GITEA_URL": "https://gitea.example.com"}

// combinations is every set of profiles: none, each, every pair, all three.
func combinations() [][]string {
	names := slices.Sorted(maps.Keys(bundled))
	var out [][]string
	for mask := 0; mask < 1<<len(names); mask++ {
		var c []string
		for i, n := range names {
			if mask&(1<<i) != 0 {
				c = append(c, n)
			}
		}
		out = append(out, c)
	}
	return out
}

func comboName(profiles []string) string {
	if len(profiles) == 0 {
		return "no-profile"
	}
	return strings.Join(profiles, "+")
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found from the test's directory: %v", err)
	}
	return root
}

// load reads docker-compose.yml as `docker compose --profile P… up` does,
// with env as the only environment (no OS environment, no .env file), and
// drops what no running service uses.
func load(t *testing.T, env map[string]string, profiles []string) (*types.Project, error) {
	t.Helper()
	root := repoRoot(t)
	var kv []string
	for k, v := range env {
		kv = append(kv, k+"="+v)
	}
	opts, err := cli.NewProjectOptions([]string{filepath.Join(root, composeFile)},
		cli.WithWorkingDirectory(root), cli.WithEnv(kv), cli.WithProfiles(profiles))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		return nil, err
	}
	return p.WithoutUnnecessaryResources(), nil
}

func mustLoad(t *testing.T, env map[string]string, profiles []string) *types.Project {
	t.Helper()
	p, err := load(t, env, profiles)
	if err != nil {
		t.Fatalf("%s with profiles %v: %v", composeFile, profiles, err)
	}
	return p
}

func with(extra map[string]string) map[string]string {
	env := maps.Clone(baseEnv)
	maps.Copy(env, extra)
	return env
}

func bridle(t *testing.T, p *types.Project) types.ServiceConfig {
	t.Helper()
	s, err := p.GetService("bridle")
	if err != nil {
		t.Fatalf("%s: no bridle service running with profiles %v: %v", composeFile, p.Profiles, err)
	}
	return s
}

// env is a service's environment with unset values as "".
func env(s types.ServiceConfig) map[string]string {
	out := map[string]string{}
	for k, v := range s.Environment {
		if v != nil {
			out[k] = *v
		} else {
			out[k] = ""
		}
	}
	return out
}

// forEachCombination runs f for every set of profiles, with the base
// environment.
func forEachCombination(t *testing.T, f func(t *testing.T, profiles []string, p *types.Project)) {
	for _, profiles := range combinations() {
		t.Run(comboName(profiles), func(t *testing.T) {
			f(t, profiles, mustLoad(t, baseEnv, profiles))
		})
	}
}

func TestServicesPerProfiles(t *testing.T) {
	forEachCombination(t, func(t *testing.T, profiles []string, p *types.Project) {
		want := []string{"bridle"}
		for _, pr := range profiles {
			want = append(want, bundled[pr])
		}
		slices.Sort(want)
		if diff := cmp.Diff(want, p.ServiceNames()); diff != "" {
			t.Errorf("services running with profiles %v (-want +got):\n%s", profiles, diff)
		}
		for pr, svc := range bundled {
			if !slices.Contains(profiles, pr) && !slices.Contains(p.DisabledServiceNames(), svc) {
				t.Errorf("service %s runs without its profile %s", svc, pr)
			}
		}
	})
}

func TestEveryServiceHasAProfileButBridle(t *testing.T) {
	p := mustLoad(t, baseEnv, slices.Collect(maps.Keys(bundled)))
	for name, s := range p.Services {
		switch {
		case name == "bridle" && len(s.Profiles) > 0:
			t.Errorf("service bridle has profiles %v: it must run in every combination", s.Profiles)
		case name != "bridle" && len(s.Profiles) != 1:
			t.Errorf("service %s has profiles %v: a bundled service belongs to exactly one with-* profile", name, s.Profiles)
		case name != "bridle" && bundled[s.Profiles[0]] != name:
			t.Errorf("service %s is under profile %s, which the test expects to add %q", name, s.Profiles[0], bundled[s.Profiles[0]])
		}
	}
}

func TestSecretsAreFilesUnderSecrets(t *testing.T) {
	root := repoRoot(t)
	forEachCombination(t, func(t *testing.T, profiles []string, p *types.Project) {
		for _, name := range p.ServiceNames() {
			s := p.Services[name]
			for _, ref := range s.Secrets {
				sec, ok := p.Secrets[ref.Source]
				if !ok {
					t.Errorf("service %s uses secret %s, which is not declared under the top-level secrets:", name, ref.Source)
					continue
				}
				want := filepath.Join(root, "secrets", ref.Source)
				switch {
				case bool(sec.External):
					t.Errorf("secret %s is external: declare it with file: ./secrets/%s", ref.Source, ref.Source)
				case sec.Environment != "" || sec.Content != "":
					t.Errorf("secret %s is taken from the environment or inline content: declare it with file: ./secrets/%s", ref.Source, ref.Source)
				case sec.File != want:
					t.Errorf("secret %s is the file %s, want ./secrets/%s (so that one directory holds, and .gitignore and .dockerignore keep out, every secret)", ref.Source, sec.File, ref.Source)
				}
				if ref.Target != "" && ref.Target != ref.Source && ref.Target != "/run/secrets/"+ref.Source {
					t.Errorf("service %s mounts secret %s at %s: keep the default /run/secrets/%s the *_FILE variables name", name, ref.Source, ref.Target, ref.Source)
				}
			}
		}
		// What running services need is exactly the set of files to create.
		var used []string
		for _, s := range p.Services {
			for _, ref := range s.Secrets {
				used = append(used, ref.Source)
			}
		}
		slices.Sort(used)
		if diff := cmp.Diff(slices.Compact(used), p.SecretNames()); diff != "" {
			t.Errorf("secrets left after dropping unused ones (-used +declared):\n%s", diff)
		}
	})
}

// TestBridleMountsEverySecretItCanUse states the Compose constraint the
// file is built around: bridle runs in every combination and a service's
// secrets cannot depend on the active profiles, so every secret bridle may
// need (for a bundled or an external service) is mounted always, and the
// secret files are the same five whatever the profiles.
func TestBridleMountsEverySecretItCanUse(t *testing.T) {
	want := []string{"bridle_admin_token", "embeddings_api_key", "gitea_token", "kanboard_token", "qdrant_api_key"}
	forEachCombination(t, func(t *testing.T, profiles []string, p *types.Project) {
		var got []string
		for _, ref := range bridle(t, p).Secrets {
			got = append(got, ref.Source)
		}
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("bridle's secrets (-want +got):\n%s", diff)
		}
	})
}

func TestNoSecretValueInEnvironment(t *testing.T) {
	// Every secret-looking variable set on the host, to a value that must
	// not reach any container's environment or command line.
	const leak = "leaked-secret-value-7f3a"
	hostile := with(nil)
	for _, k := range []string{"GITEA_TOKEN", "QDRANT_API_KEY", "KANBOARD_TOKEN", "EMBEDDINGS_API_KEY",
		"BRIDLE_ADMIN_TOKEN", "BRIDLE_TOKEN", "API_KEY", "HF_TOKEN", "KANBOARD_PASSWORD"} {
		hostile[k] = leak
	}
	for _, profiles := range combinations() {
		t.Run(comboName(profiles), func(t *testing.T) {
			p := mustLoad(t, hostile, profiles)
			for _, name := range p.ServiceNames() {
				s := p.Services[name]
				mounted := map[string]bool{}
				for _, ref := range s.Secrets {
					mounted["/run/secrets/"+ref.Source] = true
				}
				for k, v := range env(s) {
					if strings.Contains(v, leak) {
						t.Errorf("service %s: environment %s takes a secret-named host variable's value", name, k)
					}
					if !strings.HasSuffix(k, "_FILE") {
						if redact.IsSecretName(k) {
							t.Errorf("service %s: environment %s is named as a secret: pass the value as a file (a Docker secret) and set %s_FILE to its path", name, k, k)
						}
						continue
					}
					switch {
					case v == "":
						// unset: the file is not used
					case !path.IsAbs(v) || strings.ContainsAny(v, " \t\n") || path.Clean(v) != v:
						t.Errorf("service %s: %s=%q is not a clean absolute path inside the container", name, k, v)
					case strings.HasPrefix(v, "/run/secrets/") && !mounted[v]:
						t.Errorf("service %s: %s=%s names a secret the service does not mount (add it under the service's secrets:)", name, k, v)
					}
				}
				for _, arg := range append(slices.Clone(s.Command), s.Entrypoint...) {
					if strings.Contains(arg, leak) {
						t.Errorf("service %s: command line takes a secret-named host variable's value", name)
					}
				}
			}
		})
	}
}

func TestBridleHardening(t *testing.T) {
	forEachCombination(t, func(t *testing.T, profiles []string, p *types.Project) {
		s := bridle(t, p)
		if !s.ReadOnly {
			t.Error("bridle: read_only is not true: its root file system must be read-only (state and cache are volumes, /tmp a tmpfs)")
		}
		if !slices.Contains(s.Tmpfs, "/tmp") {
			t.Errorf("bridle: tmpfs %v has no /tmp (a read-only root needs a writable /tmp)", s.Tmpfs)
		}
		if !slices.Equal(s.CapDrop, []string{"ALL"}) || len(s.CapAdd) > 0 {
			t.Errorf("bridle: cap_drop %v, cap_add %v: want cap_drop [ALL] and nothing added", s.CapDrop, s.CapAdd)
		}
		if !slices.Contains(s.SecurityOpt, "no-new-privileges:true") {
			t.Errorf("bridle: security_opt %v lacks no-new-privileges:true", s.SecurityOpt)
		}
		if s.Privileged {
			t.Error("bridle: privileged")
		}
		if uid, _, _ := strings.Cut(s.User, ":"); uid == "" || uid == "0" || uid == "root" {
			t.Errorf("bridle: user %q: set a non-root user (the image's nonroot, 65532:65532)", s.User)
		}
		if s.Restart != types.RestartPolicyUnlessStopped {
			t.Errorf("bridle: restart %q, want %s", s.Restart, types.RestartPolicyUnlessStopped)
		}
		if s.Build == nil || s.Build.Context != repoRoot(t) {
			t.Errorf("bridle: build %+v, want the repository root (build: .)", s.Build)
		}
		if s.Image == "" {
			t.Error("bridle: no image name: the built image is untagged")
		}
	})
}

func TestBridleHealthcheckIsExecForm(t *testing.T) {
	want := []string{"CMD", "/bridle", "serve", "health", "--url", "http://127.0.0.1:7777/healthz"}
	forEachCombination(t, func(t *testing.T, profiles []string, p *types.Project) {
		hc := bridle(t, p).HealthCheck
		if hc == nil || hc.Disable {
			t.Fatal("bridle: no healthcheck")
		}
		if diff := cmp.Diff(want, []string(hc.Test)); diff != "" {
			t.Errorf("bridle healthcheck test (-want +got):\n%s\nthe image has no shell: the test must be exec form (CMD, not CMD-SHELL or a string)", diff)
		}
		if hc.Interval == nil || hc.Timeout == nil || hc.Retries == nil {
			t.Errorf("bridle healthcheck: set interval, timeout and retries (got %+v)", hc)
		}
	})
}

func TestPortsBindLoopbackByDefault(t *testing.T) {
	forEachCombination(t, func(t *testing.T, profiles []string, p *types.Project) {
		for _, name := range p.ServiceNames() {
			for _, port := range p.Services[name].Ports {
				if port.Published != "" && port.HostIP != "127.0.0.1" {
					t.Errorf("service %s publishes %s:%s->%d: by default bind 127.0.0.1 only", name, port.HostIP, port.Published, port.Target)
				}
			}
		}
		ports := bridle(t, p).Ports
		if len(ports) != 1 || ports[0].Target != 7777 || ports[0].Published != "7777" {
			t.Errorf("bridle ports %+v: want 127.0.0.1:7777:7777", ports)
		}
	})
	t.Run("BRIDLE_PUBLISH", func(t *testing.T) {
		// A WireGuard address, for remote agents.
		p := mustLoad(t, with(map[string]string{"BRIDLE_PUBLISH": "10.8.0.1:7777"}), nil)
		ports := bridle(t, p).Ports
		if len(ports) != 1 || ports[0].HostIP != "10.8.0.1" || ports[0].Published != "7777" || ports[0].Target != 7777 {
			t.Errorf("bridle ports with BRIDLE_PUBLISH=10.8.0.1:7777: %+v", ports)
		}
	})
}

func TestImagesArePinned(t *testing.T) {
	p := mustLoad(t, baseEnv, slices.Collect(maps.Keys(bundled)))
	for _, name := range p.ServiceNames() {
		s := p.Services[name]
		if s.Build != nil {
			continue
		}
		ref := s.Image
		if i := strings.LastIndex(ref, "/"); i >= 0 {
			ref = ref[i+1:]
		}
		_, tag, ok := strings.Cut(ref, ":")
		if !ok || tag == "" || tag == "latest" || tag == "stable" || tag == "nightly" {
			t.Errorf("service %s: image %q is not pinned to a version tag", name, s.Image)
		}
		if s.Restart != types.RestartPolicyUnlessStopped {
			t.Errorf("service %s: restart %q, want %s", name, s.Restart, types.RestartPolicyUnlessStopped)
		}
		for _, v := range s.Volumes {
			if v.Type != types.VolumeTypeVolume {
				t.Errorf("service %s: %s volume %s: keep bundled services' data in named volumes", name, v.Type, v.Target)
			}
		}
	}
}

func TestEnvDefaults(t *testing.T) {
	want := map[string]string{
		"BRIDLE_CONFIG":           "/etc/bridle/serve.yaml",
		"BRIDLE_LISTEN":           "0.0.0.0:7777",
		"BRIDLE_STATE_DIR":        "/var/lib/bridle",
		"BRIDLE_DATA_DIR":         "/var/lib/bridle/memory",
		"BRIDLE_CACHE_DIR":        "/var/cache/bridle",
		"BRIDLE_LOG_FORMAT":       "json",
		"BRIDLE_LOG_LEVEL":        "info",
		"BRIDLE_ADMIN_TOKEN_FILE": "/run/secrets/bridle_admin_token",
		"BRIDLE_TLS_CERT_FILE":    "",
		"BRIDLE_TLS_KEY_FILE":     "",
		"BRIDLE_ALLOWED_ORIGINS":  "",
		"GITEA_URL":               baseEnv["GITEA_URL"],
		"GITEA_TOKEN_FILE":        "/run/secrets/gitea_token",
		"BRIDLE_GITEA_REPO":       "",
		// Empty: not used (the embedded store, the offline embedder, no
		// Kanboard tools), whatever the profiles; a bundled service is used
		// once its URL is set (TestBundledURLs).
		"QDRANT_URL":              "",
		"QDRANT_API_KEY_FILE":     "/run/secrets/qdrant_api_key",
		"EMBEDDINGS_URL":          "",
		"EMBEDDINGS_MODEL":        "BAAI/bge-small-en-v1.5",
		"EMBEDDINGS_API_KEY_FILE": "/run/secrets/embeddings_api_key",
		"KANBOARD_URL":            "",
		"KANBOARD_USER":           "jsonrpc",
		"KANBOARD_TOKEN_FILE":     "/run/secrets/kanboard_token",
	}
	forEachCombination(t, func(t *testing.T, profiles []string, p *types.Project) {
		if diff := cmp.Diff(want, env(bridle(t, p))); diff != "" {
			t.Errorf("bridle's environment with only GITEA_URL set (-want +got):\n%s", diff)
		}
	})
}

func TestEnvOverrides(t *testing.T) {
	tests := []struct {
		name     string
		profiles []string
		set      map[string]string
		want     map[string]string // bridle's environment
		absent   string            // a bundled service that must not run
	}{
		{name: "an existing Qdrant, no profile",
			set:    map[string]string{"QDRANT_URL": "http://qdrant.internal:6334"},
			want:   map[string]string{"QDRANT_URL": "http://qdrant.internal:6334", "QDRANT_API_KEY_FILE": "/run/secrets/qdrant_api_key"},
			absent: "qdrant"},
		{name: "an existing Kanboard, no profile",
			set:    map[string]string{"KANBOARD_URL": "https://kanboard.example.com/jsonrpc.php", "KANBOARD_USER": "bridle-bot"},
			want:   map[string]string{"KANBOARD_URL": "https://kanboard.example.com/jsonrpc.php", "KANBOARD_USER": "bridle-bot"},
			absent: "kanboard"},
		{name: "LM Studio on the host, no profile",
			set:    map[string]string{"EMBEDDINGS_URL": "http://host.docker.internal:1234/v1", "EMBEDDINGS_MODEL": "text-embedding-nomic-embed-text-v1.5"},
			want:   map[string]string{"EMBEDDINGS_URL": "http://host.docker.internal:1234/v1", "EMBEDDINGS_MODEL": "text-embedding-nomic-embed-text-v1.5"},
			absent: "embeddings"},
		{name: "an existing Qdrant beside the bundled Kanboard",
			profiles: []string{"with-kanboard"},
			set:      map[string]string{"QDRANT_URL": "http://10.0.0.5:6334", "KANBOARD_URL": "http://kanboard/jsonrpc.php"},
			want:     map[string]string{"QDRANT_URL": "http://10.0.0.5:6334", "KANBOARD_URL": "http://kanboard/jsonrpc.php"},
			absent:   "qdrant"},
		{name: "the single-project Gitea set-up",
			set:  map[string]string{"GITEA_URL": "https://git.acme.dev", "BRIDLE_GITEA_REPO": "acme/runic-gateway-rules"},
			want: map[string]string{"GITEA_URL": "https://git.acme.dev", "BRIDLE_GITEA_REPO": "acme/runic-gateway-rules", "GITEA_TOKEN_FILE": "/run/secrets/gitea_token"}},
		{name: "logs and origins",
			set:  map[string]string{"BRIDLE_LOG_FORMAT": "text", "BRIDLE_LOG_LEVEL": "debug", "BRIDLE_ALLOWED_ORIGINS": "https://panel.example.com,https://ops.example.com"},
			want: map[string]string{"BRIDLE_LOG_FORMAT": "text", "BRIDLE_LOG_LEVEL": "debug", "BRIDLE_ALLOWED_ORIGINS": "https://panel.example.com,https://ops.example.com"}},
		{name: "TLS in the container",
			set:  map[string]string{"BRIDLE_TLS_CERT_FILE": "/etc/bridle/tls/cert.pem", "BRIDLE_TLS_KEY_FILE": "/etc/bridle/tls/key.pem"},
			want: map[string]string{"BRIDLE_TLS_CERT_FILE": "/etc/bridle/tls/cert.pem", "BRIDLE_TLS_KEY_FILE": "/etc/bridle/tls/key.pem"}},
		{name: "the container's own settings are not the host's",
			set:  map[string]string{"BRIDLE_LISTEN": "127.0.0.1:9999", "BRIDLE_STATE_DIR": "/home/me/.local/state/bridle"},
			want: map[string]string{"BRIDLE_LISTEN": "0.0.0.0:7777", "BRIDLE_STATE_DIR": "/var/lib/bridle"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustLoad(t, with(tt.set), tt.profiles)
			got := env(bridle(t, p))
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("bridle %s = %q, want %q", k, got[k], v)
				}
			}
			if tt.absent != "" && slices.Contains(p.ServiceNames(), tt.absent) {
				t.Errorf("service %s runs though its profile is off", tt.absent)
			}
		})
	}
}

// TestBundledURLs checks the URLs the compose file's header gives for each
// profile: the host is the bundled service, and the port is one it listens
// on, so that setting the profile and that URL connects the two.
func TestBundledURLs(t *testing.T) {
	tests := []struct {
		profile, variable, url string
		port                   func(s types.ServiceConfig) string // the port the service listens on
	}{
		{"with-qdrant", "QDRANT_URL", "http://qdrant:6334", func(types.ServiceConfig) string { return "6334" }}, // Qdrant's gRPC port
		{"with-kanboard", "KANBOARD_URL", "http://kanboard/jsonrpc.php", func(types.ServiceConfig) string { return "80" }},
		{"with-embeddings", "EMBEDDINGS_URL", "http://embeddings:8080/v1", flagValue("--port")},
	}
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), composeFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			if !strings.Contains(string(raw), tt.variable+"="+tt.url) {
				t.Errorf("%s's header does not document %s=%s for %s", composeFile, tt.variable, tt.url, tt.profile)
			}
			p := mustLoad(t, with(map[string]string{tt.variable: tt.url}), []string{tt.profile})
			if got := env(bridle(t, p))[tt.variable]; got != tt.url {
				t.Errorf("bridle %s = %q, want %q", tt.variable, got, tt.url)
			}
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			svc, err := p.GetService(u.Hostname())
			if err != nil {
				t.Fatalf("%s names host %s, which is no running service with %s: %v", tt.url, u.Hostname(), tt.profile, err)
			}
			port := u.Port()
			if port == "" {
				port = "80"
			}
			if want := tt.port(svc); port != want {
				t.Errorf("%s: port %s, but %s listens on %s", tt.url, port, svc.Name, want)
			}
		})
	}
}

// flagValue reads a service's listening port from its command line.
func flagValue(flag string) func(types.ServiceConfig) string {
	return func(s types.ServiceConfig) string {
		if i := slices.Index(s.Command, flag); i >= 0 && i+1 < len(s.Command) {
			return s.Command[i+1]
		}
		return "(no " + flag + " in the command)"
	}
}

func TestGiteaURLIsRequired(t *testing.T) {
	for _, profiles := range combinations() {
		t.Run(comboName(profiles), func(t *testing.T) {
			_, err := load(t, map[string]string{}, profiles)
			if err == nil || !strings.Contains(err.Error(), "GITEA_URL") {
				t.Errorf("loading without GITEA_URL: error %v, want one that names GITEA_URL", err)
			}
		})
	}
}

func TestBridleVolumes(t *testing.T) {
	root := repoRoot(t)
	p := mustLoad(t, baseEnv, nil)
	s := bridle(t, p)
	e := env(s)
	byTarget := map[string]types.ServiceVolumeConfig{}
	for _, v := range s.Volumes {
		byTarget[v.Target] = v
	}
	for _, dir := range []string{e["BRIDLE_STATE_DIR"], e["BRIDLE_CACHE_DIR"]} {
		v, ok := byTarget[dir]
		if !ok || v.Type != types.VolumeTypeVolume || v.ReadOnly {
			t.Errorf("bridle: %s is not a writable named volume (got %+v)", dir, v)
		}
	}
	if !strings.HasPrefix(e["BRIDLE_DATA_DIR"], e["BRIDLE_STATE_DIR"]+"/") {
		t.Errorf("bridle: BRIDLE_DATA_DIR %s is outside the state volume %s", e["BRIDLE_DATA_DIR"], e["BRIDLE_STATE_DIR"])
	}
	cfg, ok := byTarget[e["BRIDLE_CONFIG"]]
	if !ok || cfg.Type != types.VolumeTypeBind || !cfg.ReadOnly {
		t.Fatalf("bridle: BRIDLE_CONFIG %s is not a read-only bind mount (got %+v)", e["BRIDLE_CONFIG"], cfg)
	}
	if want := filepath.Join(root, "deploy", "bridle-serve.yaml"); cfg.Source != want {
		t.Errorf("bridle: the serve config comes from %s, want %s by default", cfg.Source, want)
	}
	p = mustLoad(t, with(map[string]string{"BRIDLE_SERVE_CONFIG": "/srv/bridle/serve.yaml"}), nil)
	for _, v := range bridle(t, p).Volumes {
		if v.Target == e["BRIDLE_CONFIG"] && v.Source != "/srv/bridle/serve.yaml" {
			t.Errorf("bridle: BRIDLE_SERVE_CONFIG=/srv/bridle/serve.yaml mounts %s", v.Source)
		}
	}
}

// TestServeConfigExample checks deploy/bridle-serve.yaml: it parses, it
// agrees with the container's environment, and it holds paths, never
// secret values.
func TestServeConfigExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "deploy", "bridle-serve.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Listen   string `yaml:"listen"`
		StateDir string `yaml:"state_dir"`
		Log      struct {
			Format string `yaml:"format"`
			Level  string `yaml:"level"`
		} `yaml:"log"`
		Admin struct {
			TokenFile string `yaml:"token_file"`
			Name      string `yaml:"name"`
			Email     string `yaml:"email"`
		} `yaml:"admin"`
		AllowedOrigins []string `yaml:"allowed_origins"`
		Vendor         struct {
			SyncInterval string `yaml:"sync_interval"`
		} `yaml:"vendor"`
		Projects map[string]struct {
			Gitea *struct {
				Repo string `yaml:"repo"`
				Path string `yaml:"path"`
			} `yaml:"gitea"`
			Rules string `yaml:"rules"`
		} `yaml:"projects"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("deploy/bridle-serve.yaml: %v", err)
	}
	e := env(bridle(t, mustLoad(t, baseEnv, nil)))
	if cfg.StateDir != e["BRIDLE_STATE_DIR"] {
		t.Errorf("state_dir %s, but the container's BRIDLE_STATE_DIR is %s", cfg.StateDir, e["BRIDLE_STATE_DIR"])
	}
	if cfg.Admin.TokenFile != e["BRIDLE_ADMIN_TOKEN_FILE"] {
		t.Errorf("admin.token_file %s, but the container's BRIDLE_ADMIN_TOKEN_FILE is %s", cfg.Admin.TokenFile, e["BRIDLE_ADMIN_TOKEN_FILE"])
	}
	if _, _, err := net.SplitHostPort(cfg.Listen); err != nil {
		t.Errorf("listen %q: %v", cfg.Listen, err)
	}
	if len(cfg.Projects) == 0 {
		t.Error("no projects: the example shows a Gitea project and a local one")
	}
	for id, pr := range cfg.Projects {
		if (pr.Gitea == nil) == (pr.Rules == "") {
			t.Errorf("project %s: give exactly one of gitea: and rules:", id)
		}
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	walk(doc, "", func(key, where string, v any) {
		if redact.IsSecretName(key) && !strings.HasSuffix(strings.ToLower(key), "_file") {
			t.Errorf("deploy/bridle-serve.yaml: %s looks like a secret value: name a file (%s_file) instead", where, key)
		}
	})
}

// walk calls f for every key of a decoded YAML document.
func walk(v any, where string, f func(key, where string, v any)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			at := strings.TrimPrefix(where+"."+k, ".")
			f(k, at, x)
			walk(x, at, f)
		}
	case []any:
		for i, x := range v {
			walk(x, where+"["+strconv.Itoa(i)+"]", f)
		}
	}
}

func TestIgnoredSecrets(t *testing.T) {
	root := repoRoot(t)
	for file, want := range map[string]string{".gitignore": "/secrets/", ".dockerignore": "secrets"} {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(strings.Split(string(b), "\n"), want) {
			t.Errorf("%s has no line %q: the secret files must stay out of %s", file, want, map[string]string{".gitignore": "git", ".dockerignore": "the build context"}[file])
		}
	}
}
