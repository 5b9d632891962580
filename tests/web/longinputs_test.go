package web

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"askuser/tests/webpane"
)

// A file tool's permission prompt on a phone (390×844): a Write's file is
// drawn as its text with line numbers, an Edit as a diff of old → new, not
// as one JSON string with literal \n; Allow is taken once every drawn line
// was on screen, and the daemon takes it with the digest of the preview it
// holds.

// fileTool is a permission prompt for a file tool as the integrations ask
// it: Allow approves the input (indented JSON) and names its form.
func fileTool(t *testing.T, tool, form string, input map[string]any) string {
	t.Helper()
	pv, err := json.MarshalIndent(input, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := json.Marshal(map[string]any{"questions": []any{map[string]any{
		"question": "Allow the agent to use " + tool + " with the input shown?", "header": "Permission",
		"options": []any{
			map[string]any{"label": "Allow", "description": "Run " + tool + " with this input", "preview": string(pv), "approvesPreview": true, "previewForm": form},
			map[string]any{"label": "Deny", "description": "Do not run it"},
		}}}})
	return string(req)
}

// drawnText is the approving preview as the page drew it, one line a row.
const drawnText = `[...document.querySelectorAll('pre[data-approves] .pl')].map(l => l.textContent).join('\n')`

func TestWebWriteDrawnAsTheFile(t *testing.T) {
	t.Parallel()
	dir := phoneShots(t)
	e, _, b := webpane.Setup(t, 390, 844)
	var content strings.Builder
	content.WriteString("package main\n\nimport \"fmt\"\n\nfunc main() {\n")
	for i := 1; i <= 54; i++ {
		fmt.Fprintf(&content, "\tfmt.Println(\"step %d of the program\")\n", i)
	}
	content.WriteString("\t// a long line: " + strings.Repeat("wrapped beside its number ", 6) + "END\n}\n")
	res := askOnSocket(t, e, fileTool(t, "Write", "write", map[string]any{"file_path": "/src/app/main.go", "content": content.String()}))
	b.WaitText("What “Allow” approves", "file_path: /src/app/main.go", "content: 61 lines")
	drawn := webpane.JSValue[string](b, drawnText)
	for _, want := range []string{" 1  package main", "10      fmt.Println(\"step 5 of the program\")", "61  }"} {
		if !strings.Contains(drawn, want) {
			t.Errorf("the file as drawn lacks %q:\n%s", want, drawn)
		}
	}
	if strings.Contains(drawn, `\n`) || strings.Contains(drawn, `"content"`) {
		t.Errorf("the file is drawn as its JSON, not its text:\n%s", drawn)
	}
	// The long line wraps beside its number, not under it.
	if got := webpane.JSValue[bool](b, `(() => { const rows = [...document.querySelectorAll('pre[data-approves] .pl.text')];
		const long = rows.find(r => r.textContent.includes('END'));
		const t = long.querySelector('.t'), g = long.querySelector('.g');
		return t.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(t).lineHeight) && t.getBoundingClientRect().left >= g.getBoundingClientRect().right; })()`); !got {
		t.Errorf("the long line does not wrap beside its number")
	}
	checkLayout(t, b, 390)
	b.Screenshot(filepath.Join(dir, "phone-write.png"))

	b.Settled()
	b.Click(`button.option[data-option="0"]`)
	b.ClickText("Send")
	b.WaitText(`Not taken: "Allow" approves everything in its preview`)
	b.ReadApproval()
	b.WaitText("— read to the end")
	b.Click(`button.option[data-option="0"]`)
	b.ClickText("Send")
	if r := b.Result(res); !r.Answered || r.Answers[0].Answer.Text != "Allow" {
		t.Fatalf("result %+v", r)
	}
	b.WaitText("No questions waiting")
}

func TestWebEditDrawnAsADiff(t *testing.T) {
	t.Parallel()
	dir := phoneShots(t)
	e, _, b := webpane.Setup(t, 390, 844)
	res := askOnSocket(t, e, fileTool(t, "Edit", "edit", map[string]any{
		"file_path":   "/src/app/server.go",
		"old_string":  "func (s *Server) Start() error {\n\tln, err := net.Listen(\"tcp\", s.addr)\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn s.serve(ln)\n}",
		"new_string":  "func (s *Server) Start(ctx context.Context) error {\n\tvar lc net.ListenConfig\n\tln, err := lc.Listen(ctx, \"tcp\", s.addr)\n\tif err != nil {\n\t\treturn fmt.Errorf(\"listening on %s: %w\", s.addr, err)\n\t}\n\treturn s.serve(ln)\n}",
		"replace_all": false,
	}))
	b.WaitText("What “Allow” approves", "file_path: /src/app/server.go", "old_string (7 lines) → new_string (8 lines)")
	drawn := webpane.JSValue[string](b, drawnText)
	for _, want := range []string{"1   - func (s *Server) Start() error {", "  1 + func (s *Server) Start(ctx context.Context) error {", "3 4       if err != nil {", "7 8   }", "replace_all: false"} {
		if !strings.Contains(drawn, want) {
			t.Errorf("the diff as drawn lacks %q:\n%s", want, drawn)
		}
	}
	if n := webpane.JSValue[float64](b, `document.querySelectorAll('pre[data-approves] .pl.del').length`); n != 3 {
		t.Errorf("%v lines drawn as taken out, want 3:\n%s", n, drawn)
	}
	checkLayout(t, b, 390)
	b.Screenshot(filepath.Join(dir, "phone-edit.png"))

	b.Settled()
	b.ReadApproval()
	b.WaitText("— read to the end")
	b.Click(`button.option[data-option="0"]`)
	b.ClickText("Send")
	if r := b.Result(res); !r.Answered || r.Answers[0].Answer.Text != "Allow" {
		t.Fatalf("result %+v", r)
	}
}
