package agentclients

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Call is one tool call the fake model asks for: the tool's name, as the
// harness names it (run_shell_command, bash, …), and its arguments.
type Call struct {
	Name string
	Args map[string]any
}

// Result is one tool result the harness sent back to the model: the ID of
// the call it answers ("call_N" for the Nth scripted call) and what the
// model saw (an OpenAI tool message's text; a Gemini functionResponse's
// response, as JSON).
type Result struct{ ID, Text string }

// FakeModel is a loopback stand-in for the model APIs the agent CLIs call,
// so that a real session runs with no network model. It promises:
//   - It serves Gemini's generateContent and streamGenerateContent (point
//     GOOGLE_GEMINI_BASE_URL at URL) and OpenAI's chat completions,
//     streamed or not, and /models (point OPENAI_BASE_URL or
//     COPILOT_PROVIDER_BASE_URL at URL+"/v1").
//   - A request whose last turn is the user's gets every scripted call at
//     once, the Nth with ID "call_N"; a request whose last turn holds tool
//     results, or that offers no tools, gets the text "DONE", so a
//     session ends after one round of calls. Gemini's structured side
//     requests (a response schema) get a JSON answer that hands the turn
//     back to the user.
//   - Every request body is kept; Results and Requests read them. It is
//     closed when the test ends.
type FakeModel struct {
	URL   string
	calls []Call

	mu     sync.Mutex
	bodies []string
}

// NewFakeModel starts a fake model that answers with calls.
func NewFakeModel(t testing.TB, calls ...Call) *FakeModel {
	t.Helper()
	m := &FakeModel{calls: calls}
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(srv.Close)
	m.URL = srv.URL
	return m
}

// Requests returns the bodies of the requests received so far, in order.
func (m *FakeModel) Requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.bodies...)
}

// Results returns the tool results of the last request that carried any:
// each request carries the whole conversation, so that one holds them all.
func (m *FakeModel) Results() []Result {
	reqs := m.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if rs := results(reqs[i]); len(rs) > 0 {
			return rs
		}
	}
	return nil
}

func (m *FakeModel) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, string(body))
	m.mu.Unlock()
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 10})
	case strings.HasSuffix(p, ":generateContent"), strings.HasSuffix(p, ":streamGenerateContent"):
		m.gemini(w, body, strings.HasSuffix(p, ":streamGenerateContent"))
	case strings.HasSuffix(p, "/chat/completions"):
		m.openai(w, body)
	case strings.HasSuffix(p, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "fake", "object": "model"}}})
	default:
		http.NotFound(w, r)
	}
}

type geminiRequest struct {
	Contents []struct {
		Parts []map[string]json.RawMessage `json:"parts"`
	} `json:"contents"`
	GenerationConfig map[string]json.RawMessage `json:"generationConfig"`
}

type openaiRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role       string          `json:"role"`
		ToolCallID string          `json:"tool_call_id"`
		Content    json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []json.RawMessage `json:"tools"`
}

func (m *FakeModel) gemini(w http.ResponseWriter, body []byte, stream bool) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	answered := false
	if n := len(req.Contents); n > 0 {
		for _, p := range req.Contents[n-1].Parts {
			answered = answered || p["functionResponse"] != nil
		}
	}
	g := req.GenerationConfig
	var parts []any
	switch {
	case g["responseSchema"] != nil || g["responseJsonSchema"] != nil || string(g["responseMimeType"]) == `"application/json"`:
		parts = []any{map[string]any{"text": `{"reasoning":"fake","next_speaker":"user","model_choice":"flash"}`}}
	case answered || len(m.calls) == 0:
		parts = []any{map[string]any{"text": "DONE"}}
	default:
		for i, c := range m.calls {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"id": callID(i), "name": c.Name, "args": c.Args}})
		}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "fake",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	b, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

func (m *FakeModel) openai(w http.ResponseWriter, body []byte) {
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n := len(req.Messages)
	useTools := len(m.calls) > 0 && len(req.Tools) > 0 && (n == 0 || req.Messages[n-1].Role != "tool")
	var toolCalls []any
	finish := "stop"
	if useTools {
		finish = "tool_calls"
		for i, c := range m.calls {
			args, _ := json.Marshal(c.Args)
			toolCalls = append(toolCalls, map[string]any{"index": i, "id": callID(i), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": string(args)}})
		}
	}
	msg := map[string]any{"role": "assistant", "content": "DONE"}
	if useTools {
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": toolCalls}
	}
	usage := map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": "fake", "object": "chat.completion", "created": 1, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(choices []any, usage any) {
		b, _ := json.Marshal(map[string]any{"id": "fake", "object": "chat.completion.chunk", "created": 1, "model": "fake", "choices": choices, "usage": usage})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk([]any{map[string]any{"index": 0, "delta": msg, "finish_reason": nil}}, nil)
	chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil)
	chunk([]any{}, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// results reads the tool results in one request body, Gemini's or OpenAI's.
func results(body string) []Result {
	var rs []Result
	var g geminiRequest
	if json.Unmarshal([]byte(body), &g) == nil {
		for _, c := range g.Contents {
			for _, p := range c.Parts {
				var fr struct {
					ID       string          `json:"id"`
					Response json.RawMessage `json:"response"`
				}
				if p["functionResponse"] != nil && json.Unmarshal(p["functionResponse"], &fr) == nil {
					rs = append(rs, Result{ID: fr.ID, Text: string(fr.Response)})
				}
			}
		}
	}
	var o openaiRequest
	if json.Unmarshal([]byte(body), &o) == nil {
		for _, msg := range o.Messages {
			if msg.Role == "tool" {
				rs = append(rs, Result{ID: msg.ToolCallID, Text: contentText(msg.Content)})
			}
		}
	}
	return rs
}

// contentText is an OpenAI message's content: a string, or the text of
// its parts.
func contentText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(c, &parts) != nil {
		return string(c)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func callID(i int) string { return fmt.Sprintf("call_%d", i) }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
