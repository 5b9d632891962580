package views

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the README's key table from the key table")

const (
	keysBegin = "<!-- The key table below is views/keytable.go's; `go test ./views -run TestREADMEKeyTable -update` rewrites it. -->\n"
	keysEnd   = "<!-- end of the key table -->\n"
)

// readmeKeyTable renders the key table as the README shows it: one row per
// binding, grouped by where they apply (lists first, prompts last), in the
// table's order within a group.
func readmeKeyTable() string {
	var b strings.Builder
	b.WriteString("| key | where | does |\n|---|---|---|\n")
	for _, r := range keyRows() {
		b.WriteString("| " + r.keys + " | " + r.where + " | " + r.does + " |\n")
	}
	return b.String()
}

// TestREADMEKeyTable: the README's table of keys is the key table's, so the
// documentation cannot say a key does what it does not (docs/contract.md §6 "One key
// table").
func TestREADMEKeyTable(t *testing.T) {
	t.Parallel()
	const path = "../README.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	before, rest, ok := strings.Cut(text, keysBegin)
	if !ok {
		t.Fatalf("README.md lacks the line %q that starts the key table", keysBegin)
	}
	table, after, ok := strings.Cut(rest, keysEnd)
	if !ok {
		t.Fatalf("README.md lacks the line %q that ends the key table", keysEnd)
	}
	want := readmeKeyTable()
	if table == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(before+keysBegin+want+keysEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's key table differs from views/keytable.go; run go test ./views -run TestREADMEKeyTable -update\n got:\n%s\nwant:\n%s", table, want)
}

// TestKeyTableIsWhole: every binding says what it does and where, and does
// something.
func TestKeyTableIsWhole(t *testing.T) {
	t.Parallel()
	for i, b := range keyTable {
		if b.keyNames == "" || b.doc == "" || b.where == 0 || b.do == nil {
			t.Errorf("binding %d (%q) is incomplete: %+v", i, b.hint, b)
		}
		if strings.Contains(b.doc, "|") || strings.Contains(b.keyNames, "|") {
			t.Errorf("binding %d: a | would break the README's table", i)
		}
	}
}
