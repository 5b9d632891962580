package acp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The contract names every ACP method and field the proxy reads or writes
// (docs/contract.md §11 "ACP"): this package's source is read, so a method
// or field added tomorrow fails here until the contract names it.
func TestContractNamesACPMethodsAndFields(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	contract := string(doc)
	start := strings.Index(contract, "### ACP")
	if start < 0 {
		t.Fatal(`docs/contract.md has no "### ACP" section`)
	}
	section := contract[start:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	named := func(s string) bool {
		return strings.Contains(section, `"`+s+`"`) || strings.Contains(section, "`"+s+"`") || strings.Contains(section, "`"+s+" ")
	}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	var missing []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "integrate.go" {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if strings.HasPrefix(name.Name, "Method") && i < len(n.Values) {
						if lit, ok := n.Values[i].(*ast.BasicLit); ok {
							v, _ := strconv.Unquote(lit.Value)
							if !named(v) {
								missing = append(missing, "method "+strconv.Quote(v))
							}
						}
					}
				}
			case *ast.Field:
				if n.Tag == nil {
					return true
				}
				tag, _ := strconv.Unquote(n.Tag.Value)
				js, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
				if js != "" && js != "-" && !named(js) {
					missing = append(missing, "field "+strconv.Quote(js)+" ("+fset.Position(n.Pos()).String()+")")
				}
			}
			return true
		})
	}
	for _, m := range missing {
		t.Errorf("docs/contract.md §11 \"ACP\" does not name the %s", m)
	}
}
