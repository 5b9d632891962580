package tests

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's map of the code ("Working on askuser") names every package
// there is (but the tests' and benchmarks' own, which it names as groups),
// and nothing that is gone.
func TestREADMEPackageMapMatchesTheTree(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := packageMap(t, string(readme))
	for p := range listed {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("README's package map lists %s, which does not exist", p)
		}
	}
	list := exec.Command("go", "list", "-f", "{{.Dir}}", "./...")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dir := range strings.Fields(string(out)) {
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		if rel == "tests" || strings.HasPrefix(rel, "tests/") || strings.HasPrefix(rel, "bench/") {
			continue
		}
		if !listed[rel] {
			t.Errorf("README's package map does not name the package %s/", rel)
		}
	}
}

// packageMap reads the paths of the README's map: the code block after
// "## Working on askuser". An indented entry is under the last unindented
// one; "a/b/, c/, d/" names a/b, a/c and a/d.
func packageMap(t *testing.T, readme string) map[string]bool {
	_, after, ok := strings.Cut(readme, "## Working on askuser\n")
	if !ok {
		t.Fatal(`README has no "## Working on askuser" section`)
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	entry := regexp.MustCompile(`^(\s*)([^\s,]+(?:, [^\s,]+)*)`)
	listed := map[string]bool{}
	parent := ""
	for _, line := range strings.Split(block, "\n") {
		m := entry.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		names := strings.Split(m[2], ", ")
		first := strings.TrimSuffix(names[0], "/")
		if m[1] == "" {
			parent = first
		} else {
			first = path.Join(parent, first)
		}
		listed[first] = true
		for _, n := range names[1:] {
			listed[path.Join(path.Dir(first), strings.TrimSuffix(n, "/"))] = true
		}
	}
	if len(listed) < 10 {
		t.Fatalf("read only %d entries from README's package map; the parser lost its way: %v", len(listed), listed)
	}
	return listed
}
