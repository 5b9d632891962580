package jsonerr

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncdé\nf")
	cases := []struct{ off, line, col int }{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 3}, {7, 2, 4}, {8, 3, 1}, {99, 3, 2}, {-1, 1, 1},
	}
	var many Lines
	for _, c := range cases {
		if l, col := LineCol(data, c.off); l != c.line || col != c.col {
			t.Errorf("offset %d: line %d column %d, want %d %d", c.off, l, col, c.line, c.col)
		}
		if l, col := many.LineCol(data, c.off); l != c.line || col != c.col {
			t.Errorf("Lines, offset %d: line %d column %d, want %d %d", c.off, l, col, c.line, c.col)
		}
	}
	if got := Where(data, 5); got != "line 2, column 3" {
		t.Errorf("Where = %q", got)
	}
}

func TestKinds(t *testing.T) {
	types := map[reflect.Type]string{
		reflect.TypeFor[string](): String, reflect.TypeFor[int](): WholeNumber, reflect.TypeFor[float64](): Number,
		reflect.TypeFor[bool](): Boolean, reflect.TypeFor[[]string](): List, reflect.TypeFor[map[string]int](): Object,
		reflect.TypeFor[struct{}](): Object, nil: "a different type",
	}
	for typ, want := range types {
		if got := KindOfType(typ); got != want {
			t.Errorf("KindOfType(%v) = %q, want %q", typ, got, want)
		}
	}
	for text, want := range map[string]string{`"x"`: String, `1.5`: Number, `true`: Boolean, `[1]`: List, `{}`: Object, `null`: Null} {
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatal(err)
		}
		if got := KindOf(v); got != want {
			t.Errorf("KindOf(%s) = %q, want %q", text, got, want)
		}
		if got := KindAt(text[0]); got != want {
			t.Errorf("KindAt(%s) = %q, want %q", text, got, want)
		}
	}
	if got := KindOf(json.Number("3")); got != Number {
		t.Errorf("KindOf(json.Number) = %q", got)
	}
}
