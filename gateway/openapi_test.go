package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/vault"
)

var update = flag.Bool("update", false, "rewrite openapi.json from the route table")

var pathParam = regexp.MustCompile(`\{([a-z]+)\}`)

// openAPIFor is the OpenAPI 3.1 document of the routes: every body type
// is reflected from its Go type into components.schemas.
func openAPIFor(routes []route) ([]byte, error) {
	named := map[string]reflect.Type{}
	var clash error
	r := &jsonschema.Reflector{
		// A schema is named by its package and type (vault.Status is
		// VaultStatus, upstream.Status UpstreamStatus): two packages'
		// types of one name never share a component, and two types that
		// still would fail the generation.
		Namer: func(t reflect.Type) string {
			name := t.Name()
			if pkg := path.Base(t.PkgPath()); t.PkgPath() != "" && pkg != "gateway" && !strings.HasPrefix(strings.ToLower(name), pkg) {
				name = strings.ToUpper(pkg[:1]) + pkg[1:] + name
			}
			if name == "" {
				return name // unnamed: inlined, never a component
			}
			if other, ok := named[name]; ok && other != t && clash == nil {
				clash = fmt.Errorf("openapi: %s and %s would both be components.schemas.%s", other, t, name)
			}
			named[name] = t
			return name
		},
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == reflect.TypeFor[compiler.Snapshot]() {
				return &jsonschema.Schema{Type: "object", Description: "The compiled snapshot, as bridle compile writes it."}
			}
			return nil
		},
	}
	schemas := map[string]any{}
	ref := func(v any) map[string]any {
		if _, isObj := v.(map[string]any); isObj {
			return map[string]any{"type": "object"}
		}
		t := reflect.TypeOf(v)
		array := t.Kind() == reflect.Slice
		if array {
			t = t.Elem()
		}
		s := r.ReflectFromType(t)
		b, _ := json.Marshal(s)
		b = bytes.ReplaceAll(b, []byte(`"#/$defs/`), []byte(`"#/components/schemas/`))
		var m map[string]any
		json.Unmarshal(b, &m)
		if defs, ok := m["$defs"].(map[string]any); ok {
			for k, d := range defs {
				schemas[k] = d
			}
		}
		one := map[string]any{"$ref": m["$ref"]}
		if array {
			return map[string]any{"type": "array", "items": one}
		}
		return one
	}
	paths := map[string]map[string]any{}
	errRef := ref(APIError{})
	for _, rt := range routes {
		op := map[string]any{"summary": rt.Summary, "operationId": strings.ToLower(rt.Method) + opName(rt.Path),
			"security": []any{map[string]any{"admin": []any{}}}, "x-bridle-role": string(rt.Role)}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(rt.Path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		for _, q := range rt.Query {
			params = append(params, map[string]any{"name": q, "in": "query", "required": false, "schema": map[string]any{"type": "string"}})
		}
		if params != nil {
			op["parameters"] = params
		}
		if rt.In != nil {
			op["requestBody"] = map[string]any{"required": false, "content": map[string]any{"application/json": map[string]any{"schema": ref(rt.In)}}}
		}
		ct := "application/json"
		if rt.Stream {
			ct = "application/x-ndjson"
		}
		code := rt.Code
		if code == 0 {
			code = http.StatusOK
		}
		op["responses"] = map[string]any{
			fmt.Sprint(code): map[string]any{"description": http.StatusText(code), "content": map[string]any{ct: map[string]any{"schema": ref(rt.Out)}}},
			"401":            map[string]any{"description": "no admin credential, or a wrong one (no detail)"},
			"403":            map[string]any{"description": "the caller's role is below x-bridle-role (the admin credential is admin)", "content": map[string]any{"application/json": map[string]any{"schema": errRef}}},
			"429":            map[string]any{"description": "too many failed authentications from this address"},
			"default":        map[string]any{"description": "an error", "content": map[string]any{"application/json": map[string]any{"schema": errRef}}},
		}
		if paths[rt.Path] == nil {
			paths[rt.Path] = map[string]any{}
		}
		paths[rt.Path][strings.ToLower(rt.Method)] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Bridle gateway admin API", "version": "1",
			"description": "The admin API of bridle serve: the CLI's --server verbs and the web panel use it. Every mutating call is an audit event naming who made it. Each operation's x-bridle-role is the least role it needs: signed-in, viewer, approver or admin (the admin credential is admin)."},
		"paths": paths,
		"components": map[string]any{
			"schemas":         schemas,
			"securitySchemes": map[string]any{"admin": map[string]any{"type": "http", "scheme": "bearer", "description": "the admin credential (BRIDLE_ADMIN_TOKEN_FILE)"}},
		},
	}
	if clash != nil {
		return nil, clash
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n'), err
}

func opName(path string) string {
	var b strings.Builder
	for _, part := range strings.Split(strings.TrimPrefix(path, "/api/v1/"), "/") {
		part = strings.Trim(part, "{}")
		for _, w := range strings.FieldsFunc(part, func(r rune) bool { return r == '.' || r == '-' || r == '_' }) {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// The committed document is what the route table generates: run
// go test ./gateway -run OpenAPIDrift -update after changing a route.
func TestOpenAPIDrift(t *testing.T) {
	want, err := openAPIFor((&Server{}).routes())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(OpenAPI(), want) && !*update {
		t.Fatal("gateway/openapi.json is not what the routes generate: run go test ./gateway -run OpenAPIDrift -update")
	}
}

// schemaOf compiles the response schema of method path from the
// committed document.
func schemaOf(t *testing.T, method, path string) *sjs.Schema {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	c := sjs.NewCompiler()
	if err := c.AddResource("openapi.json", doc); err != nil {
		t.Fatal(err)
	}
	op, ok := doc["paths"].(map[string]any)[path].(map[string]any)[strings.ToLower(method)].(map[string]any)
	if !ok {
		t.Fatalf("openapi.json has no %s %s", method, path)
	}
	for code := range op["responses"].(map[string]any) {
		if code[0] == '2' {
			ptr := "#/paths/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(path) + "/" + strings.ToLower(method) + "/responses/" + code + "/content"
			content := op["responses"].(map[string]any)[code].(map[string]any)["content"].(map[string]any)
			for ct := range content {
				s, err := c.Compile("openapi.json" + ptr + "/" + strings.ReplaceAll(ct, "/", "~1") + "/schema")
				if err != nil {
					t.Fatalf("compile %s %s: %v", method, path, err)
				}
				return s
			}
		}
	}
	t.Fatalf("%s %s has no success response", method, path)
	return nil
}

// conforms fails unless body is valid against the documented response.
func conforms(t *testing.T, method, path string, body []byte) {
	t.Helper()
	v, err := sjs.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s %s: not JSON: %v\n%s", method, path, err, body)
	}
	if err := schemaOf(t, method, path).Validate(v); err != nil {
		t.Errorf("%s %s: the answer does not match openapi.json: %v\n%.600s", method, path, err, body)
	}
}

// Every route in the mux is documented, and every handler's answer in a
// walk through the API matches its documented schema.
func TestHandlersMatchTheOpenAPIDocument(t *testing.T) {
	vopt, recipient := withVault(t)
	g := twoProjects(t, vopt)
	if _, err := vault.Init(context.Background(), g.srv.projects["alpha"].Config.Rules, []string{recipient}, nil); err != nil {
		t.Fatal(err)
	}
	tok := g.mint(t, "alpha", "claude")
	cs := g.mustConnect(t, "alpha", tok, "claude-code")
	callText(t, cs, "remember", map[string]any{"text": "We chose SQLite for the queue.", "kind": "decision"})
	callText(t, cs, "propose_guardrail", map[string]any{"id": "no-force-push", "statement": "Never force-push.", "severity": "guidance", "why": "We lost work."})
	var mems []MemoryView
	g.api(t, adminToken, "GET", "/api/v1/projects/alpha/memory", nil, &mems)
	if len(mems) != 1 {
		t.Fatalf("memory = %+v", mems)
	}
	seen := map[string]bool{}
	for _, c := range []struct {
		method, path, route string
		body                any
	}{
		{"GET", "/api/v1/openapi.json", "", nil},
		{"GET", "/api/v1/me", "", nil},
		{"GET", "/api/v1/projects", "", nil},
		{"GET", "/api/v1/projects/alpha", "/api/v1/projects/{project}", nil},
		{"GET", "/api/v1/projects/alpha/agents", "/api/v1/projects/{project}/agents", nil},
		{"POST", "/api/v1/projects/alpha/agents", "/api/v1/projects/{project}/agents", AddAgentRequest{Agent: "codex"}},
		{"POST", "/api/v1/projects/alpha/agents/codex/rotate", "/api/v1/projects/{project}/agents/{agent}/rotate", nil},
		{"DELETE", "/api/v1/projects/alpha/agents/codex", "/api/v1/projects/{project}/agents/{agent}", nil},
		{"GET", "/api/v1/sessions", "", nil},
		{"GET", "/api/v1/projects/alpha/rules", "/api/v1/projects/{project}/rules", nil},
		{"GET", "/api/v1/projects/alpha/rules/claude", "/api/v1/projects/{project}/rules/{agent}", nil},
		{"GET", "/api/v1/projects/alpha/rules/claude/explain", "/api/v1/projects/{project}/rules/{agent}/explain", nil},
		{"GET", "/api/v1/projects/alpha/rules/source", "/api/v1/projects/{project}/rules/source", nil},
		{"GET", "/api/v1/projects/alpha/proposals", "/api/v1/projects/{project}/proposals", nil},
		{"GET", "/api/v1/projects/alpha/proposals?order=newest&source=agent&q=force&limit=1&offset=0", "/api/v1/projects/{project}/proposals", nil},
		{"GET", "/api/v1/projects/alpha/proposals/1", "/api/v1/projects/{project}/proposals/{number}", nil},
		{"POST", "/api/v1/projects/alpha/proposals/1/approve", "/api/v1/projects/{project}/proposals/{number}/approve", ApproveRequest{}},
		{"POST", "/api/v1/projects/alpha/proposals", "/api/v1/projects/{project}/proposals", ProposeRequest{Change: proposals.Change{Kind: proposals.KindGuardrail,
			Guardrail: &schema.Guardrail{ID: "small-commits", Statement: "Keep commits small.", Severity: schema.Guidance}, Rationale: "Easier review."}}},
		{"GET", "/api/v1/projects/alpha/patterns", "/api/v1/projects/{project}/patterns", nil},
		{"GET", "/api/v1/projects/alpha/patterns/search?q=outbox+relay&limit=3", "/api/v1/projects/{project}/patterns/search", nil},
		{"POST", "/api/v1/projects/alpha/patterns/reindex", "/api/v1/projects/{project}/patterns/reindex", nil},
		{"GET", "/api/v1/projects/alpha/memory?q=queue", "/api/v1/projects/{project}/memory", nil},
		{"POST", "/api/v1/projects/alpha/memory/purge", "/api/v1/projects/{project}/memory/purge", PurgeRequest{}},
		{"DELETE", "/api/v1/projects/alpha/memory/" + mems[0].ID, "/api/v1/projects/{project}/memory/{id}", nil},
		{"POST", "/api/v1/projects/alpha/vendor/sync", "/api/v1/projects/{project}/vendor/sync", nil},
		{"POST", "/api/v1/secrets/walk", "/api/v1/secrets/{name}", SecretValue{Value: "walk-value-1"}},
		{"POST", "/api/v1/secrets/walk/rotate", "/api/v1/secrets/{name}/rotate", SecretValue{Value: "walk-value-2"}},
		{"GET", "/api/v1/secrets", "", nil},
		{"DELETE", "/api/v1/secrets/walk", "/api/v1/secrets/{name}", nil},
		{"GET", "/api/v1/vault", "", nil},
		{"POST", "/api/v1/vault/rekey", "", RekeyRequest{Recipients: []string{recipient}}},
		{"POST", "/api/v1/projects/alpha/secrets/walk", "/api/v1/projects/{project}/secrets/{name}", SecretValue{Value: "walk-value-3"}},
		{"POST", "/api/v1/projects/alpha/secrets/walk/rotate", "/api/v1/projects/{project}/secrets/{name}/rotate", SecretValue{Value: "walk-value-4"}},
		{"GET", "/api/v1/projects/alpha/secrets", "/api/v1/projects/{project}/secrets", nil},
		{"DELETE", "/api/v1/projects/alpha/secrets/walk", "/api/v1/projects/{project}/secrets/{name}", nil},
		{"GET", "/api/v1/projects/alpha/vault", "/api/v1/projects/{project}/vault", nil},
		{"POST", "/api/v1/projects/alpha/vault/rekey", "/api/v1/projects/{project}/vault/rekey", RekeyRequest{Recipients: []string{recipient}}},
		{"GET", "/api/v1/integrations", "", nil},
		{"GET", "/api/v1/tokens", "", nil},
		{"GET", "/api/v1/audit?project=alpha", "/api/v1/audit", nil},
	} {
		route := c.route
		if route == "" {
			route = strings.Split(c.path, "?")[0]
		}
		var body io.Reader
		if c.body != nil {
			b, _ := json.Marshal(c.body)
			body = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(c.method, g.url+c.path, body)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Errorf("%s %s: %d %s", c.method, c.path, resp.StatusCode, b)
			continue
		}
		seen[c.method+" "+route] = true
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-ndjson") {
			for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
				if len(line) > 0 {
					conforms(t, c.method, route, line)
				}
			}
			continue
		}
		conforms(t, c.method, route, b)
	}
	// The reject route is walked in TestProposalsThroughTheAdminAPI, the
	// upstream restart in TestKanboardAndUpstreamThroughTheGateway, a
	// person's tokens (which the admin credential has none of) in
	// TestPersonTokens; every other route must be walked here.
	for _, rt := range (&Server{}).routes() {
		if !seen[rt.Method+" "+rt.Path] && !slices.Contains([]string{"POST /api/v1/projects/{project}/proposals/{number}/reject",
			"POST /api/v1/projects/{project}/upstreams/{name}/restart", "GET /api/v1/me/tokens", "POST /api/v1/me/tokens",
			"DELETE /api/v1/me/tokens/{id}", "DELETE /api/v1/tokens/{id}"}, rt.Method+" "+rt.Path) {
			t.Errorf("%s %s is not walked by this test", rt.Method, rt.Path)
		}
	}
}

// The documented schemas are strict: an answer with a field the document
// does not name, or without one it requires, does not conform.
func TestOpenAPISchemasAreStrict(t *testing.T) {
	s := schemaOf(t, "GET", "/api/v1/projects/{project}")
	for _, bad := range []string{`{"bogus": 1}`, `[]`, `{"id": "a"}`} {
		v, _ := sjs.UnmarshalJSON(strings.NewReader(bad))
		if s.Validate(v) == nil {
			t.Errorf("%s conforms to ProjectStatus", bad)
		}
	}
}
