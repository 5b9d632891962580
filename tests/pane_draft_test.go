package tests

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"askuser/tests/termpane"
	"askuser/tests/testdaemon"
)

// TestPaneShowsDraftFromPendingFile: an answer typed into the real pending
// file (saved the way editors do, by rename) shows pre-filled in the pane,
// and the pane sends it with the rest.
func TestPaneShowsDraftFromPendingFile(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := termpane.StartSim(t, e, 80, 24)
	req := `{"requestId":"draft-1","questions":[
	  {"question":"Which database should we use?","header":"Database","options":[{"label":"PostgreSQL"},{"label":"SQLite"}]},
	  {"question":"What should we name this service?","header":"Name"}]}`
	if _, errs, code := e.Client(req, "ask", "--no-wait", "-"); code != 0 {
		t.Fatalf("ask --no-wait: exit %d: %s", code, errs)
	}
	p.WaitFor("□ Database  □ Name")

	// The pane may show the request before the daemon has rewritten the file.
	path := e.Pending
	var doc struct {
		Instructions string           `json:"instructions"`
		Requests     []map[string]any `json:"requests"`
	}
	testdaemon.Eventually(t, "the pending file to list draft-1", func() (bool, string) {
		b, err := os.ReadFile(path)
		return err == nil && json.Unmarshal(b, &doc) == nil && len(doc.Requests) == 1, string(b)
	})
	q0 := doc.Requests[0]["questions"].([]any)[0].(map[string]any)
	q0["answer"] = "sqlite" // normalised like any answer: case-insensitive label
	b, _ := json.MarshalIndent(doc, "", "  ")
	tmp := path + ".edit"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	p.WaitFor("■ Database  □ Name", "2. SQLite ✓")

	p.Key(tcell.KeyTab, 0)
	p.WaitFor("What should we name this service?")
	p.TypeText("billing")
	p.Key(tcell.KeyEnter, 0) // to the Submit tab
	p.WaitFor("→ SQLite", "→ billing")
	p.Key(tcell.KeyEnter, 0)
	out, errs, code := e.Client("", "wait", "draft-1")
	if code != 0 || !strings.Contains(out, `"SQLite"`) || !strings.Contains(out, `"billing"`) || !strings.Contains(out, `"pane"`) {
		t.Fatalf("wait: exit %d\n%s\n%s", code, out, errs)
	}
}
