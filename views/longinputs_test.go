package views

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/socketproto/previewform"
)

// fileToolQuestion is a permission prompt for a file tool as the
// integrations build it: Allow approves the input, indented JSON, and names
// the form it is drawn in.
func fileToolQuestion(t *testing.T, tool, form string, input map[string]any) socketproto.Question {
	t.Helper()
	pv, err := json.MarshalIndent(input, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	q := question("Allow the agent to use "+tool+" with the input shown?", "Permission")
	single := false
	q.MultiSelect = &single
	q.Options = []socketproto.Option{
		{Label: "Allow", Description: "Run " + tool + " with this input", Preview: string(pv), ApprovesPreview: true, PreviewForm: form},
		{Label: "Deny", Description: "Do not run it"},
	}
	return q
}

func sixtyLines() string {
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "\tfmt.Println(\"line %d\")\n", i)
	}
	return b.String()
}

// A Write's file is drawn as its text, numbered, not as one JSON string
// with literal \n; Allow is taken once its last drawn line was on screen,
// and names the digest of the preview itself.
func TestAWriteIsDrawnAsTheFileAndReadToTheEnd(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	q := fileToolQuestion(t, "Write", previewform.Write, map[string]any{"file_path": "/src/app/main.go", "content": sixtyLines()})
	h.Event(snap(pending("req-1", q)))
	h.Has("file_path: /src/app/main.go", "content: 60 lines", ` 1      fmt.Println("line 1")`)
	h.HasNot(`\n`, `"line 60"`)

	h.Press("1")
	if len(h.D.Sent()) != 0 {
		t.Fatalf("Allow taken with the end of the file never shown: %v", h.D.Sent())
	}
	for i := 0; i < 40 && !strings.Contains(h.Text(), `"line 60"`); i++ {
		h.Press("}")
	}
	h.Has(`60      fmt.Println("line 60")`)
	h.Press("1")
	got := h.Answers("req-1")
	if len(got) != 1 || got[0]["selected"].([]any)[0] != "Allow" {
		t.Fatalf("after reading the whole file, Allow was not sent: %v", got)
	}
	if want := socketproto.PreviewDigest(q.Options[0].Preview); got[0]["previewDigest"] != want {
		t.Fatalf("Allow sent with previewDigest %v, want the preview's %s", got[0]["previewDigest"], want)
	}
}

// An Edit is a diff of its old and new text, with line numbers; a line
// longer than the panel wraps beside its gutter, all of it shown.
func TestAnEditIsDrawnAsADiff(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	long := "// " + strings.Repeat("word ", 30) + "END"
	q := fileToolQuestion(t, "Edit", previewform.Edit, map[string]any{
		"file_path": "/src/a.go", "old_string": "func A() {\n\treturn 1\n}", "new_string": "func A() int {\n\treturn 2\n}\n" + long, "replace_all": false})
	h.Event(snap(pending("req-1", q)))
	h.Has("file_path: /src/a.go", "old_string (3 lines) → new_string", "(4 lines)",
		"1   - func A() {", "  1 + func A() int {", "3 3   }", "  4 + // word", "END", "replace_all: false")
	h.HasNot(`\n`, `\t`)
	h.Press("1")
	if got := h.Answers("req-1"); len(got) != 1 || got[0]["previewDigest"] != socketproto.PreviewDigest(q.Options[0].Preview) {
		t.Fatalf("a diff that fits is read at once; sent %v", got)
	}
}

// Control characters in a file's text are shown as escapes, never sent to
// the terminal; CRLF line ends are said once; at 40×12 the drawn preview
// still shows and scrolls, and Allow waits for its last line.
func TestADrawnFileShowsItsControlsAndFitsASmallTerminal(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	q := fileToolQuestion(t, "Write", previewform.Write, map[string]any{"file_path": "/w.bat", "content": "@echo off\r\necho \x1b[31mred\x07\r\nexit\r\n"})
	h.Event(snap(pending("req-1", q)))
	h.Has("Preview 1–", "file_path: /w.bat")
	h.Press("1")
	if len(h.D.Sent()) != 0 {
		t.Fatalf("Allow taken at 40×12 with the file not all shown: %v", h.D.Sent())
	}
	for i := 0; i < 10 && !strings.Contains(h.Text(), "3  exit"); i++ {
		h.Press("}")
	}
	h.Has(`2  echo \u001b[31mred\u0007`, "3  exit")
	h.HasNot(`\r`)
	h.Press("{", "{", "{", "{")
	h.Has("content: 3 lines, CRLF line endings")
	h.Press("1")
	if got := h.Answers("req-1"); len(got) != 1 || got[0]["previewDigest"] != socketproto.PreviewDigest(q.Options[0].Preview) {
		t.Fatalf("Allow not taken once the whole file was shown: %v", got)
	}
}
