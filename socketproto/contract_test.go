package socketproto

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The contract cannot drift unseen: every message type, every field a
// message carries (through the types it is made of), and every value of the
// protocol's enumerations (error codes, roles, outcomes, vias, statuses,
// states) that the code speaks must be named in docs/contract.md. The code
// is read as source, so a message or field added tomorrow is checked
// without anyone remembering to list it here.
func TestContractNamesEveryMessageFieldAndValue(t *testing.T) {
	doc, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	contract := string(doc)
	named := func(s string) bool {
		return strings.Contains(contract, `"`+s+`"`) || strings.Contains(contract, "`"+s+"`")
	}
	src := parseProtocol(t)

	var missing []string
	for typ, msgType := range src.messages {
		if !named(msgType) {
			missing = append(missing, "message type "+strconv.Quote(msgType)+" ("+typ+")")
		}
		for _, f := range src.fields(typ) {
			if !named(f.json) {
				missing = append(missing, "field "+strconv.Quote(f.json)+" of "+f.owner)
			}
		}
	}
	for _, c := range src.values {
		if !named(c.value) {
			missing = append(missing, c.typ+" value "+strconv.Quote(c.value))
		}
	}
	// And the other way: a role the contract gives a client is one the
	// daemon takes.
	roles := map[string]bool{}
	for _, c := range src.values {
		if c.typ == "Role" {
			roles[c.value] = true
		}
	}
	for _, m := range roleMention.FindAllStringSubmatch(contract, -1) {
		if !roles[m[1]] {
			missing = append(missing, "a role the daemon takes: it says role "+strconv.Quote(m[1]))
		}
	}
	sort.Strings(missing)
	missing = compactStrings(missing)
	for _, m := range missing {
		t.Errorf("docs/contract.md does not name %s", m)
	}
	if len(src.messages) < 20 {
		t.Errorf("found only %d message types in the source; the parser lost its way", len(src.messages))
	}
}

// roleMention finds "role `x`" and "role "x"" in the contract's prose.
var roleMention = regexp.MustCompile("role [`\"]([a-z]+)[`\"]")

// protocolSource is what the drift test reads from socketproto's source.
type protocolSource struct {
	messages map[string]string          // Go type → its "type"
	structs  map[string]*ast.StructType // Go type → its definition
	values   []enumValue                // the enumerations' constants
	seen     map[string]bool            // fields(): types already walked
}

type enumValue struct{ typ, value string }

type jsonField struct{ owner, json string }

// enumTypes are the string types whose constants are protocol words.
var enumTypes = map[string]bool{"ErrorCode": true, "Role": true, "Outcome": true, "Via": true,
	"RequestStatus": true, "DaemonState": true}

func parseProtocol(t *testing.T) *protocolSource {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	src := &protocolSource{messages: map[string]string{}, structs: map[string]*ast.StructType{}}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.Name != "MessageType" || d.Recv == nil || len(d.Body.List) != 1 {
					continue
				}
				ret, ok := d.Body.List[0].(*ast.ReturnStmt)
				if !ok || len(ret.Results) != 1 {
					continue
				}
				lit, ok := ret.Results[0].(*ast.BasicLit)
				if !ok {
					continue
				}
				v, _ := strconv.Unquote(lit.Value)
				src.messages[typeName(d.Recv.List[0].Type)] = v
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if st, ok := s.Type.(*ast.StructType); ok {
							src.structs[s.Name.Name] = st
						}
					case *ast.ValueSpec:
						id, ok := s.Type.(*ast.Ident)
						if !ok || !enumTypes[id.Name] {
							continue
						}
						for _, v := range s.Values {
							if lit, ok := v.(*ast.BasicLit); ok {
								val, _ := strconv.Unquote(lit.Value)
								src.values = append(src.values, enumValue{id.Name, val})
							}
						}
					}
				}
			}
		}
	}
	return src
}

// fields lists the JSON fields of typ and of every socketproto struct it is
// made of (embedded, pointed to, in a list or a map), each type once per
// call.
func (p *protocolSource) fields(typ string) []jsonField {
	p.seen = map[string]bool{}
	return p.walk(typ)
}

func (p *protocolSource) walk(typ string) []jsonField {
	st, ok := p.structs[typ]
	if !ok || p.seen[typ] {
		return nil
	}
	p.seen[typ] = true
	var out []jsonField
	for _, f := range st.Fields.List {
		name := ""
		if f.Tag != nil {
			tag, _ := strconv.Unquote(f.Tag.Value)
			name, _, _ = strings.Cut(reflect.StructTag(tag).Get("json"), ",")
		}
		if name == "-" {
			continue
		}
		if name != "" && len(f.Names) > 0 && ast.IsExported(f.Names[0].Name) {
			out = append(out, jsonField{typ, name})
		}
		out = append(out, p.walk(typeName(f.Type))...)
	}
	return out
}

// typeName is the socketproto type named by a type expression, through
// pointers, slices and maps; "" for anything else.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.ArrayType:
		return typeName(e.Elt)
	case *ast.MapType:
		return typeName(e.Value)
	}
	return ""
}

func compactStrings(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
