package agents

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// A fake model server for the real agent programs: it speaks the provider's
// API (Anthropic Messages for Claude Code, OpenAI chat completions for pi),
// scripts the tool calls the "model" makes, one after the other, and records
// what the agent gave back as each tool's result. It listens on 127.0.0.1
// only.

// fakeStep is one tool call the model makes.
type fakeStep struct {
	Tool  string         // the tool's name as the agent offers it
	Input map[string]any // its arguments
}

// fakeResult is what the model received for one step.
type fakeResult struct {
	Text    string    // the tool result's text, blocks joined by "\n"
	IsError bool      // the agent marked it as an error
	At      time.Time // when the request carrying it arrived
}

// fakeModel is the scripted model. Its state is shared by concurrent
// requests (agents make side calls: titles, token counts).
type fakeModel struct {
	t     *testing.T
	steps []fakeStep
	srv   *httptest.Server

	mu      sync.Mutex
	results map[int]fakeResult // by step index
	got     chan int           // step index, each time a new result arrives
	log     []string           // method and path of every request, for failures
	done    bool               // the final answer was sent
}

func newFakeModel(t *testing.T, steps ...fakeStep) *fakeModel {
	t.Helper()
	m := &fakeModel{t: t, steps: steps, results: map[int]fakeResult{}, got: make(chan int, len(steps)+1)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(m.serve)}}
	m.srv.Start()
	t.Cleanup(m.srv.Close)
	return m
}

// URL is the server's base URL, http://127.0.0.1:PORT.
func (m *fakeModel) URL() string { return m.srv.URL }

// toolUseID is the id of step i's tool call; the result names it.
func fakeToolUseID(i int) string { return fmt.Sprintf("toolu_askuser_%02d", i) }

// Result waits for step i's result.
func (m *fakeModel) Result(i int, within time.Duration) fakeResult {
	m.t.Helper()
	deadline := time.After(within)
	for {
		m.mu.Lock()
		r, ok := m.results[i]
		m.mu.Unlock()
		if ok {
			return r
		}
		select {
		case <-m.got:
		case <-deadline:
			m.t.Fatalf("the model never received the result of step %d (%s) within %v; requests:\n%s",
				i, m.steps[i].Tool, within, m.requests())
		}
	}
}

func (m *fakeModel) requests() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.log, "\n")
}

// record notes the results found in a request and returns the next step to
// call (-1: none left, answer in text).
func (m *fakeModel) record(results map[string]fakeResult) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	next := 0
	for i := range m.steps {
		r, ok := results[fakeToolUseID(i)]
		if !ok {
			break
		}
		if _, seen := m.results[i]; !seen {
			m.results[i] = r
			m.got <- i
		}
		next = i + 1
	}
	if next >= len(m.steps) {
		m.done = true
		return -1
	}
	return next
}

func (m *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.log = append(m.log, r.Method+" "+r.URL.Path)
	if os.Getenv("ASKUSER_FAKE_MODEL_DUMP") != "" {
		_ = os.WriteFile(fmt.Sprintf("%s-%d.json", os.Getenv("ASKUSER_FAKE_MODEL_DUMP"), len(m.log)), body, 0o600)
	}
	m.mu.Unlock()
	switch {
	case strings.HasSuffix(r.URL.Path, "/messages/count_tokens"):
		writeJSONResponse(w, map[string]any{"input_tokens": 1000})
	case strings.HasSuffix(r.URL.Path, "/messages"):
		m.anthropic(w, body)
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		m.openAIChat(w, body)
	case strings.HasSuffix(r.URL.Path, "/responses"):
		m.openAIResponses(w, body)
	case isGeminiPath(r.URL.Path):
		m.gemini(w, r, body)
	default:
		http.NotFound(w, r)
	}
}

func writeJSONResponse(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// --- Anthropic Messages (Claude Code) ---------------------------------------

type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// contentText is a tool result's content as the APIs send it: a string, or
// a list of blocks of which the text ones count (Anthropic's tool_result,
// OpenAI's message content and function_call_output alike).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (m *fakeModel) anthropic(w http.ResponseWriter, body []byte) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := time.Now()
	results := map[string]fakeResult{}
	for _, msg := range req.Messages {
		var blocks []anthropicBlock
		if json.Unmarshal(msg.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results[b.ToolUseID] = fakeResult{Text: contentText(b.Content), IsError: b.IsError, At: now}
			}
		}
	}
	// Only the main conversation offers the tools; side calls (a title,
	// a summary) get a word of text.
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
	}
	next := -1
	if len(req.Tools) > 0 {
		next = m.record(results)
	}
	var block map[string]any
	stop := "end_turn"
	switch {
	case next >= 0 && offered[m.steps[next].Tool]:
		block = map[string]any{"type": "tool_use", "id": fakeToolUseID(next), "name": m.steps[next].Tool, "input": m.steps[next].Input}
		stop = "tool_use"
	case next >= 0:
		names := make([]string, 0, len(req.Tools))
		for _, t := range req.Tools {
			names = append(names, t.Name)
		}
		block = map[string]any{"type": "text", "text": fmt.Sprintf("The tool %s is not offered; offered: %s", m.steps[next].Tool, strings.Join(names, ", "))}
		m.t.Logf("fake model: step %d: tool %s not offered (offered: %v)", next, m.steps[next].Tool, names)
	default:
		block = map[string]any{"type": "text", "text": "Done."}
	}
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	if !req.Stream {
		writeJSONResponse(w, map[string]any{
			"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 10},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	ev := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
	if block["type"] == "tool_use" {
		input, _ := json.Marshal(block["input"])
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{
			"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{
			"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": block["text"]}})
	}
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 10}})
	ev("message_stop", map[string]any{"type": "message_stop"})
}

// --- OpenAI chat completions (pi) -------------------------------------------

type openAIChatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (m *fakeModel) openAIChat(w http.ResponseWriter, body []byte) {
	var req openAIChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := time.Now()
	results := map[string]fakeResult{}
	for _, msg := range req.Messages {
		if msg.Role == "tool" {
			results[msg.ToolCallID] = fakeResult{Text: contentText(msg.Content), At: now}
		}
	}
	next := -1
	if len(req.Tools) > 0 {
		next = m.record(results)
	}
	delta := map[string]any{"role": "assistant", "content": "Done."}
	finish := "stop"
	if next >= 0 {
		args, _ := json.Marshal(m.steps[next].Input)
		delta = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": fakeToolUseID(next), "type": "function",
			"function": map[string]any{"name": m.steps[next].Tool, "arguments": string(args)}}}}
		finish = "tool_calls"
	}
	model := req.Model
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": delta["content"]}
		if tc, ok := delta["tool_calls"]; ok {
			msg["tool_calls"] = tc
		}
		writeJSONResponse(w, map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": now.Unix(), "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(choice map[string]any, extra map[string]any) {
		c := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": now.Unix(), "model": model,
			"choices": []any{}}
		if choice != nil {
			c["choices"] = []any{choice}
		}
		for k, v := range extra {
			c[k] = v
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"index": 0, "delta": delta, "finish_reason": nil}, nil)
	chunk(map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}, nil)
	chunk(nil, map[string]any{"usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// --- OpenAI Responses (Codex) -----------------------------------------------

type openAIResponsesRequest struct {
	Model string            `json:"model"`
	Input []json.RawMessage `json:"input"`
	Tools []json.RawMessage `json:"tools"`
}

func (m *fakeModel) openAIResponses(w http.ResponseWriter, body []byte) {
	var req openAIResponsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := time.Now()
	results := map[string]fakeResult{}
	for _, raw := range req.Input {
		var item struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		}
		if json.Unmarshal(raw, &item) != nil || item.Type != "function_call_output" {
			continue
		}
		text := contentText(item.Output)
		var structured struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(item.Output, &structured) == nil && structured.Content != "" {
			text = structured.Content
		}
		results[item.CallID] = fakeResult{Text: text, At: now}
	}
	next := -1
	if len(req.Tools) > 0 {
		next = m.record(results)
	}
	var item map[string]any
	if next >= 0 {
		args, _ := json.Marshal(m.steps[next].Input)
		// Codex offers an MCP server's tools in a namespace (mcp__askuser)
		// and expects the call to name it apart from the tool.
		name, ns := m.steps[next].Tool, ""
		if strings.HasPrefix(name, "mcp__") {
			if i := strings.LastIndex(name, "__"); i > len("mcp") {
				ns, name = name[:i], name[i+2:]
			}
		}
		item = map[string]any{"type": "function_call", "id": "fc_" + fakeToolUseID(next), "call_id": fakeToolUseID(next),
			"name": name, "arguments": string(args)}
		if ns != "" {
			item["namespace"] = ns
		}
	} else {
		item = map[string]any{"type": "message", "role": "assistant", "id": "msg_fake", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "Done.", "annotations": []any{}}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
	}
	resp := map[string]any{"id": "resp_fake", "object": "response", "created_at": now.Unix(), "model": req.Model, "status": "in_progress", "output": []any{}}
	ev(map[string]any{"type": "response.created", "response": resp})
	ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	done := map[string]any{"id": "resp_fake", "object": "response", "created_at": now.Unix(), "model": req.Model, "status": "completed",
		"output": []any{item}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 10, "total_tokens": 20,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}
	ev(map[string]any{"type": "response.completed", "response": done})
}
