package deploy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bridle-dev/bridle/redact"
)

// An instruction is one logical line of a Dockerfile: continuation lines
// joined, comments dropped.
type instruction struct {
	line int    // where it starts, 1-based
	cmd  string // upper case: FROM, RUN, …
	args string
}

// A stage is one FROM and what follows it.
type stage struct {
	from, name string
	body       []instruction
}

// parseDockerfile reads the subset of the Dockerfile syntax the build uses:
// instructions, backslash continuations and # comments (parser directives
// included). Heredocs are refused: the test would misread them.
func parseDockerfile(t *testing.T, text string) []stage {
	t.Helper()
	var stages []stage
	var cur *instruction
	flush := func() {
		if cur == nil {
			return
		}
		in := *cur
		cur = nil
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			f = slices.DeleteFunc(f, func(s string) bool { return strings.HasPrefix(s, "--") })
			st := stage{}
			if len(f) > 0 {
				st.from = f[0]
			}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.name = f[2]
			}
			stages = append(stages, st)
			return
		}
		if len(stages) == 0 {
			if in.cmd != "ARG" {
				t.Errorf("Dockerfile:%d: %s before the first FROM", in.line, in.cmd)
			}
			return
		}
		stages[len(stages)-1].body = append(stages[len(stages)-1].body, in)
	}
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cont := strings.HasSuffix(line, "\\")
		line = strings.TrimSpace(strings.TrimSuffix(line, "\\"))
		if cur == nil {
			cmd, args, _ := strings.Cut(line, " ")
			cur = &instruction{line: i + 1, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)}
		} else {
			cur.args += " " + line
		}
		if strings.Contains(cur.args, "<<") {
			t.Fatalf("Dockerfile:%d: a heredoc, which this test does not parse", cur.line)
		}
		if !cont {
			flush()
		}
	}
	flush()
	return stages
}

// execForm decodes a JSON-array argument (ENTRYPOINT ["/bridle"]); ok is
// false for the shell form.
func execForm(args string) ([]string, bool) {
	var v []string
	if !strings.HasPrefix(strings.TrimSpace(args), "[") || json.Unmarshal([]byte(args), &v) != nil {
		return nil, false
	}
	return v, true
}

func (s stage) all(cmd string) []instruction {
	var out []instruction
	for _, in := range s.body {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

func (s stage) last(cmd string) (instruction, bool) {
	all := s.all(cmd)
	if len(all) == 0 {
		return instruction{}, false
	}
	return all[len(all)-1], true
}

func readDockerfile(t *testing.T) []stage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := parseDockerfile(t, string(b))
	if len(stages) < 2 {
		t.Fatalf("Dockerfile has %d stage(s): want a build stage and a final one", len(stages))
	}
	return stages
}

func TestDockerfileBuildStage(t *testing.T) {
	stages := readDockerfile(t)
	final := stages[len(stages)-1]
	var build *stage
	for i, s := range stages[:len(stages)-1] {
		for _, in := range s.all("RUN") {
			if strings.Contains(in.args, "go build") {
				build = &stages[i]
			}
		}
	}
	if build == nil {
		t.Fatal("Dockerfile: no stage before the last runs go build")
	}
	if !strings.HasPrefix(build.from, "golang:") {
		t.Errorf("Dockerfile: the build stage is FROM %s, want golang:…", build.from)
	}
	if build.name == "" {
		t.Error("Dockerfile: the build stage has no name (FROM … AS build) for the final stage to copy from")
	}
	cgoOff := false
	for _, in := range build.body {
		if (in.cmd == "ENV" || in.cmd == "RUN") && strings.Contains(in.args, "CGO_ENABLED=0") {
			cgoOff = true
		}
	}
	if !cgoOff {
		t.Error("Dockerfile: the build stage does not set CGO_ENABLED=0: the binary must be static for a distroless/static image")
	}
	for _, in := range build.all("RUN") {
		if !strings.Contains(in.args, "go build") {
			continue
		}
		for _, want := range []string{"-trimpath", "./cmd/bridle", "--mount=type=cache,target=/go/pkg/mod", "--mount=type=cache,target=/root/.cache/go-build"} {
			if !strings.Contains(in.args, want) {
				t.Errorf("Dockerfile:%d: go build without %s", in.line, want)
			}
		}
	}
	copied := false
	for _, in := range final.all("COPY") {
		if strings.Contains(in.args, "--from="+build.name+" ") && strings.Contains(in.args, "/bridle") {
			copied = true
		}
	}
	if !copied {
		t.Errorf("Dockerfile: the final stage does not COPY --from=%s the binary", build.name)
	}
}

func TestDockerfileFinalStage(t *testing.T) {
	stages := readDockerfile(t)
	final := stages[len(stages)-1]
	if !strings.HasPrefix(final.from, "gcr.io/distroless/static") && final.from != "scratch" {
		t.Errorf("Dockerfile: final stage FROM %s, want distroless/static or scratch (no shell, no package manager)", final.from)
	}
	user, ok := final.last("USER")
	if !ok {
		t.Fatal("Dockerfile: the final stage sets no USER: the image would run as root")
	}
	if uid, _, _ := strings.Cut(user.args, ":"); uid == "" || uid == "0" || uid == "root" {
		t.Errorf("Dockerfile:%d: USER %s is root", user.line, user.args)
	}
	for _, in := range final.all("RUN") {
		if _, ok := execForm(in.args); !ok {
			t.Errorf("Dockerfile:%d: shell-form RUN in the final stage: it has no shell", in.line)
		}
	}
	for _, c := range []struct {
		cmd  string
		want []string
	}{{"ENTRYPOINT", []string{"/bridle"}}, {"CMD", []string{"serve"}}} {
		in, ok := final.last(c.cmd)
		if !ok {
			t.Errorf("Dockerfile: the final stage has no %s", c.cmd)
			continue
		}
		got, ok := execForm(in.args)
		if !ok {
			t.Errorf("Dockerfile:%d: %s %s is shell form: the image has no shell, use %s [\"…\"]", in.line, c.cmd, in.args, c.cmd)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Dockerfile:%d: %s (-want +got):\n%s", in.line, c.cmd, diff)
		}
	}
	if hc, ok := final.last("HEALTHCHECK"); ok {
		_, test, _ := strings.Cut(hc.args, "CMD ")
		if _, ok := execForm(test); !ok && hc.args != "NONE" {
			t.Errorf("Dockerfile:%d: HEALTHCHECK is not exec form: the image has no shell", hc.line)
		}
	}
	if in, ok := final.last("EXPOSE"); !ok || !slices.Contains(strings.Fields(in.args), "7777") {
		t.Error("Dockerfile: the final stage does not EXPOSE 7777")
	}
	var volumes []string
	for _, in := range final.all("VOLUME") {
		if v, ok := execForm(in.args); ok {
			volumes = append(volumes, v...)
		} else {
			volumes = append(volumes, strings.Fields(in.args)...)
		}
	}
	if !slices.Contains(volumes, "/var/lib/bridle") {
		t.Errorf("Dockerfile: VOLUME %v lacks /var/lib/bridle (the state)", volumes)
	}
	labels := strings.Join(func() []string {
		var out []string
		for _, in := range final.all("LABEL") {
			out = append(out, in.args)
		}
		return out
	}(), " ")
	for _, l := range []string{"org.opencontainers.image.source=", "org.opencontainers.image.version=", "org.opencontainers.image.title="} {
		if !strings.Contains(labels, l) {
			t.Errorf("Dockerfile: the final stage has no %s label", strings.TrimSuffix(l, "="))
		}
	}
	for _, in := range final.all("ENV") {
		for _, kv := range strings.Fields(in.args) {
			k, _, _ := strings.Cut(kv, "=")
			if redact.IsSecretName(k) && !strings.HasSuffix(k, "_FILE") {
				t.Errorf("Dockerfile:%d: ENV %s is named as a secret: images must not carry secrets", in.line, k)
			}
		}
		if strings.Contains(in.args, "BRIDLE_LISTEN=127.0.0.1") {
			t.Errorf("Dockerfile:%d: BRIDLE_LISTEN on loopback is unreachable from outside the container", in.line)
		}
	}
}

func TestParseDockerfile(t *testing.T) {
	stages := parseDockerfile(t, `# syntax=docker/dockerfile:1
ARG V=1
FROM --platform=$BUILDPLATFORM golang:1 AS build
RUN --mount=type=cache,target=/x \
    # a comment inside a continuation
    go build \
      ./cmd/x
FROM scratch
USER 1:1
ENTRYPOINT ["/x"]
`)
	want := []stage{
		{from: "golang:1", name: "build", body: []instruction{{line: 4, cmd: "RUN", args: "--mount=type=cache,target=/x go build ./cmd/x"}}},
		{from: "scratch", body: []instruction{{line: 9, cmd: "USER", args: "1:1"}, {line: 10, cmd: "ENTRYPOINT", args: `["/x"]`}}},
	}
	if diff := cmp.Diff(want, stages, cmp.AllowUnexported(stage{}, instruction{})); diff != "" {
		t.Errorf("parseDockerfile (-want +got):\n%s", diff)
	}
	if _, ok := execForm(`/bridle serve`); ok {
		t.Error("execForm accepted the shell form")
	}
}

func TestDockerignore(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for _, want := range []string{".git", "secrets", ".env"} {
		if !slices.Contains(lines, want) {
			t.Errorf(".dockerignore has no line %q", want)
		}
	}
	for _, needed := range []string{"go.mod", "go.sum", "cmd", "*.go", "**/*.go"} {
		if slices.Contains(lines, needed) {
			t.Errorf(".dockerignore excludes %s, which the build needs", needed)
		}
	}
}
