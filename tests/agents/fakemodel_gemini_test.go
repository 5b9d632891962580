package agents

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// --- Gemini generateContent (Gemini CLI) ------------------------------------
//
// Gemini CLI reaches the model at $GOOGLE_GEMINI_BASE_URL (it then uses the
// "gateway" auth type, with GEMINI_API_KEY as its key) and calls
// POST /v1beta/models/MODEL:streamGenerateContent?alt=sse for the
// conversation, :generateContent for side calls (routing, next-speaker
// checks, which want JSON), and :countTokens.

// isGeminiPath reports whether path is one of Gemini's model methods.
func isGeminiPath(path string) bool {
	return strings.Contains(path, ":generateContent") || strings.Contains(path, ":streamGenerateContent") ||
		strings.Contains(path, ":countTokens")
}

type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type geminiPart struct {
	Text             string `json:"text"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiResultText is a function response as the model reads it: Gemini CLI
// sends {"output": "…"} (an MCP tool's text), or {"error": "…"}.
func geminiResultText(raw json.RawMessage) (string, bool) {
	var r struct {
		Output  *string         `json:"output"`
		Error   json.RawMessage `json:"error"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return string(raw), false
	}
	switch {
	case len(r.Error) > 0:
		var s string
		if json.Unmarshal(r.Error, &s) == nil {
			return s, true
		}
		return string(r.Error), true
	case r.Output != nil:
		return *r.Output, false
	case len(r.Content) > 0:
		return contentText(r.Content), false
	}
	return string(raw), false
}

// geminiCallID is the step's id in a function response's id: Gemini CLI
// prefixes the model's call id with the tool's name ("NAME__ID").
func geminiCallID(id string) string {
	if i := strings.Index(id, "toolu_askuser_"); i >= 0 {
		return id[i:]
	}
	return id
}

func (m *fakeModel) gemini(w http.ResponseWriter, r *http.Request, body []byte) {
	if strings.Contains(r.URL.Path, ":countTokens") {
		writeJSONResponse(w, map[string]any{"totalTokens": 1000})
		return
	}
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := time.Now()
	results := map[string]fakeResult{}
	offered := map[string]bool{}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				text, isErr := geminiResultText(fr.Response)
				results[geminiCallID(fr.ID)] = fakeResult{Text: text, IsError: isErr, At: now}
			}
		}
	}
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			offered[d.Name] = true
		}
	}
	var part map[string]any
	switch next := m.geminiNext(req, results); {
	case req.GenerationConfig.ResponseMimeType == "application/json" || len(req.GenerationConfig.ResponseJSONSchema) > 0 || len(req.GenerationConfig.ResponseSchema) > 0:
		// A side call that wants JSON (which model to route to, who speaks
		// next): one object that answers each.
		part = map[string]any{"text": `{"reasoning":"fake model","next_speaker":"user","model_choice":"flash"}`}
	case next >= 0 && offered[m.steps[next].Tool]:
		part = map[string]any{"functionCall": map[string]any{"id": fakeToolUseID(next), "name": m.steps[next].Tool, "args": m.steps[next].Input}}
	case next >= 0:
		names := make([]string, 0, len(offered))
		for n := range offered {
			names = append(names, n)
		}
		m.t.Logf("fake model: step %d: tool %s not offered (offered: %v)", next, m.steps[next].Tool, names)
		part = map[string]any{"text": fmt.Sprintf("The tool %s is not offered.", m.steps[next].Tool)}
	default:
		part = map[string]any{"text": "Done."}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  "gemini-fake",
	}
	if !strings.Contains(r.URL.Path, ":streamGenerateContent") {
		writeJSONResponse(w, resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	b, _ := json.Marshal(resp)
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// geminiNext records the results a conversation request carries and
// returns the next step (-1: none, or a side call without tools).
func (m *fakeModel) geminiNext(req geminiRequest, results map[string]fakeResult) int {
	if len(req.Tools) == 0 {
		return -1
	}
	return m.record(results)
}
