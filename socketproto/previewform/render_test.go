package previewform

import (
	"encoding/json"
	"strings"
	"testing"
)

// preview is input as the integrations write a preview: indented JSON.
func preview(t *testing.T, input any) string {
	t.Helper()
	b, err := json.MarshalIndent(input, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func check(t *testing.T, form, pv, want string) {
	t.Helper()
	got := Plain(Render(form, pv))
	if got != strings.TrimLeft(want, "\n") {
		t.Errorf("Render(%s) drew\n%s\nwant\n%s", form, got, strings.TrimLeft(want, "\n"))
	}
}

func TestWriteIsTheFilesText(t *testing.T) {
	// encoding/json keeps map keys sorted: content before file_path.
	pv := "{\n  \"file_path\": \"/src/a.go\",\n  \"content\": \"package a\\n\\nfunc A() {}\\n\"\n}"
	check(t, Write, pv, `
file_path: /src/a.go
content: 3 lines
1  package a
2
3  func A() {}
`)
}

func TestWriteNumbersEveryLineOfALongFile(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 60; i++ {
		b.WriteString("line of the file " + strings.Repeat("x", i) + "\n")
	}
	lines := Render(Write, preview(t, map[string]string{"file_path": "/f", "content": b.String()}))
	n := 0
	for _, l := range lines {
		if l.Kind == Text {
			n++
			if l.New != n {
				t.Fatalf("line %d numbered %d", n, l.New)
			}
		}
	}
	if n != 60 {
		t.Fatalf("drew %d lines of the file, want 60", n)
	}
}

func TestWriteCRLFAndNoFinalNewline(t *testing.T) {
	check(t, Write, preview(t, map[string]string{"file_path": "/w.bat", "content": "@echo off\r\necho hi\r\nexit"}), `
file_path: /w.bat
content: 3 lines, CRLF line endings, no newline at the end
1  @echo off
2  echo hi
3  exit
\ No newline at end of file
`)
	// A lone "\r" is not a line end: it shows.
	check(t, Write, preview(t, map[string]string{"content": "a\r\nb\nc\rd\n"}), `
content: 3 lines
1  a\r
2  b
3  c\rd
`)
}

func TestControlCharactersShowAsEscapes(t *testing.T) {
	check(t, Write, preview(t, map[string]string{"content": "\x1b[2J\u202eevil\ttab\x07\n"}), `
content: 1 line
1  \u001b[2J\u202eevil    tab\u0007
`)
	for _, l := range Render(Edit, preview(t, map[string]any{"old_string": "a\x1b]0;x\x07", "new_string": "b\u0085"})) {
		if strings.ContainsFunc(l.Text, func(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }) {
			t.Errorf("a control character reached a line: %q", l.Text)
		}
	}
}

func TestEditIsADiffOfOldAndNew(t *testing.T) {
	pv := "{\n  \"file_path\": \"/src/a.go\",\n  \"old_string\": \"func A() {\\n\\treturn 1\\n}\",\n  \"new_string\": \"func A() int {\\n\\treturn 2\\n}\",\n  \"replace_all\": false\n}"
	check(t, Edit, pv, `
file_path: /src/a.go
old_string (3 lines) → new_string (3 lines)
1   - func A() {
2   -     return 1
  1 + func A() int {
  2 +     return 2
3 3   }
replace_all: false
`)
}

func TestEditNoNewlineAtTheEndOfOneSide(t *testing.T) {
	check(t, Edit, preview(t, map[string]any{"old_string": "a\nb", "new_string": "a\nb\n"}), `
old_string (2 lines) → new_string (2 lines)
1 1   a
2   - b
\ No newline at end of file
  2 + b
`)
}

func TestEditCRLF(t *testing.T) {
	check(t, Edit, preview(t, map[string]any{"old_string": "a\r\nb\r\n", "new_string": "a\r\nc\r\n"}), `
old_string (2 lines) → new_string (2 lines)
line endings: CRLF
1 1   a
2   - b
  2 + c
`)
	// Only one side CRLF: the "\r" is what changed, and it shows.
	check(t, Edit, preview(t, map[string]any{"old_string": "a\r\n", "new_string": "a\n"}), `
old_string (1 line) → new_string (1 line)
1   - a\r
  1 + a
`)
}

func TestMultiEditIsOneDiffPerEdit(t *testing.T) {
	pv := preview(t, map[string]any{"file_path": "/m.txt", "edits": []map[string]any{
		{"old_string": "one", "new_string": "uno"},
		{"old_string": "two", "new_string": "dos", "replace_all": true},
	}})
	check(t, Edit, pv, `
file_path: /m.txt
edits: 2
edit 1 of 2: old_string (1 line) → new_string (1 line)
1   - one
  1 + uno
edit 2 of 2: old_string (1 line) → new_string (1 line)
  replace_all: true
1   - two
  1 + dos
`)
}

func TestCodexApplyPatch(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: hello.txt\n+Hello\n+world\n*** Update File: src/app.py\n@@ def greet():\n-    print(\"Hi\")\n+    print(\"Hello\")\n     return\n*** Delete File: old.txt\n*** End Patch\n"
	check(t, Patch, preview(t, map[string]string{"command": patch}), `
command:
*** Begin Patch
*** Add File: hello.txt
  1 + Hello
  2 + world
*** Update File: src/app.py
@@ def greet():
    -     print("Hi")
    +     print("Hello")
          return
*** Delete File: old.txt
*** End Patch
`)
	// Older hooks give the command as a list.
	lines := Render(Patch, preview(t, map[string]any{"command": []string{"apply_patch", patch}}))
	if len(lines) == 0 || lines[0].Text != "command[0]: apply_patch" || lines[1].Text != "command[1]:" {
		t.Errorf("a command list drew %+v", lines[:min(2, len(lines))])
	}
}

func TestOpenCodeEditIsItsUnifiedDiff(t *testing.T) {
	diff := "Index: /p/a.txt\n===================================================================\n--- /p/a.txt\n+++ /p/a.txt\n@@ -10,3 +10,3 @@\n keep\n-old\n+new\n last\n\\ No newline at end of file\n"
	pv := preview(t, map[string]any{"permission": "edit", "patterns": []string{"a.txt"},
		"metadata": map[string]any{"filepath": "/p/a.txt", "diff": diff}})
	check(t, Patch, pv, `
metadata:
metadata.diff:
Index: /p/a.txt
===================================================================
--- /p/a.txt
+++ /p/a.txt
@@ -10,3 +10,3 @@
10 10   keep
11    - old
   11 + new
12 12   last
\ No newline at end of file
metadata.filepath: /p/a.txt
patterns: [
  "a.txt"
]
permission: edit
`)
}

func TestLongLinesStayWhole(t *testing.T) {
	long := strings.Repeat("0123456789", 100)
	lines := Render(Write, preview(t, map[string]string{"content": long}))
	if lines[1].Text != long {
		t.Errorf("a long line was changed: %d characters", len(lines[1].Text))
	}
}

func TestRestOfThePreviewFollows(t *testing.T) {
	pv := preview(t, map[string]string{"content": "x\n"}) + "\n\nand from now on: allow Write in this project"
	check(t, Write, pv, `
content: 1 line
1  x

and from now on: allow Write in this project
`)
}

func TestNotTheFormsShapeIsNotDrawn(t *testing.T) {
	for _, c := range []struct{ form, pv string }{
		{"", `{"content":"x"}`},
		{"table", `{"content":"x"}`},
		{Write, `{"file_path":"/a"}`},
		{Write, `not json`},
		{Edit, `{"old_string":"a"}`},
		{Edit, `{"edits":[{"old_string":"a"}]}`},
		{Patch, `{"command":"ls -la"}`},
		{Write, `{"content":"x"`},
	} {
		if got := Render(c.form, c.pv); got != nil {
			t.Errorf("Render(%q, %q) = %+v, want nil", c.form, c.pv, got)
		}
	}
}

func TestBigDiffsHideNothing(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 3000; i++ {
		a.WriteString("a" + strings.Repeat("x", i%7) + "\n")
		b.WriteString("b" + strings.Repeat("y", i%5) + "\n")
	}
	lines := Render(Edit, preview(t, map[string]any{"old_string": a.String(), "new_string": b.String()}))
	dels, adds := 0, 0
	for _, l := range lines {
		switch l.Kind {
		case Del:
			dels++
		case Add:
			adds++
		}
	}
	if dels != 3000 || adds != 3000 {
		t.Errorf("drew %d taken out and %d put in, want 3000 each", dels, adds)
	}
}
