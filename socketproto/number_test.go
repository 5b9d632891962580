package socketproto

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A number answer reaches the agent exactly as the user typed it, or is
// refused naming why (docs/contract.md §3 "Typed answers"): what a JSON
// reader (an IEEE-754 double) would take as another number never passes
// for the user's. Before, 9007199254740993 was sent as 9007199254740992
// and 3.0000000000000001 taken as the whole number 3.
func TestTypedNumberAsTyped(t *testing.T) {
	t.Parallel()
	integer := &Input{Type: InputInteger}
	number := &Input{Type: InputNumber}
	for _, c := range []struct {
		in      *Input
		typed   string // as the user typed it (a string answer)
		json    string // the answer's JSON; "" when refused
		refusal string
	}{
		{integer, "42", "42", ""},
		{integer, " -7 ", "-7", ""},
		{integer, "0", "0", ""},
		{integer, "-0", "-0", ""},
		{integer, "9007199254740991", "9007199254740991", ""},
		{integer, "-9007199254740991", "-9007199254740991", ""},
		{integer, "9007199254740992", "", "9007199254740992: an integer beyond ±9007199254740991 is not carried exactly by JSON numbers"},
		{integer, "9007199254740993", "", "9007199254740993: an integer beyond ±9007199254740991 is not carried exactly by JSON numbers"},
		{integer, "-9007199254740993", "", "beyond ±9007199254740991"},
		{integer, "123456789012345678901234567890", "", "beyond ±9007199254740991"},
		{integer, "1e400", "", "beyond ±9007199254740991"},
		{integer, "3.0000000000000001", "", "3.0000000000000001 is not a whole number"},
		{integer, "2.5", "", "2.5 is not a whole number"},
		{integer, "1e-400", "", "1e-400 is not a whole number"},
		{integer, "3.0", "", "3.0 is a whole number written with a point or an exponent, which an integer's reader may refuse; write 3"},
		{integer, "1e3", "", "write 1000"},
		{integer, "+5", "", "+5 is not written as JSON writes a number; write 5"},
		{integer, "007", "", "write 7"},
		{integer, "1_000", "", "write 1000"},
		{integer, "0x10", "", `"0x10" is not a number`},
		{integer, "Infinity", "", `"Infinity" is not a number`},
		{integer, "NaN", "", `"NaN" is not a number`},
		{number, "1.50", "1.50", ""},
		{number, "0.1", "0.1", ""},
		{number, "-2.5e-3", "-2.5e-3", ""},
		{number, "1E6", "1E6", ""},
		{number, "3.0", "3.0", ""},
		{number, "0.30000000000000004", "0.30000000000000004", ""},
		{number, "9007199254740992", "9007199254740992", ""},
		{number, "1.7976931348623157e308", "1.7976931348623157e308", ""},
		{number, "5e-324", "5e-324", ""},
		{number, "9007199254740993", "", "9007199254740993 has more digits than a JSON number carries (a reader takes it as 9007199254740992)"},
		{number, "3.0000000000000001", "", "3.0000000000000001 has more digits than a JSON number carries (a reader takes it as 3)"},
		{number, "0.1000000000000000055511151231257827", "", "has more digits than a JSON number carries (a reader takes it as 0.1)"},
		{number, "4.9e-324", "", "(a reader takes it as 5e-324)"},
		{number, "1e-400", "", "(a reader takes it as 0)"},
		{number, "1e400", "", "1e400 is beyond what a JSON number holds"},
		{number, ".5", "", ".5 is not written as JSON writes a number; write 0.5"},
		{number, "5.", "", "write 5"},
		{number, "0x1p4", "", "write 16"},
		{number, "Inf", "", `"Inf" is not a number`},
		{number, "five", "", `"five" is not a number`},
	} {
		q := Question{Question: "How many?", Input: c.in}
		raw, _ := json.Marshal(c.typed)
		a, answered, err := NormalizeAnswer(q, raw)
		if c.refusal != "" {
			var re *RuleError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), c.refusal) {
				t.Errorf("%s %q: %v; want a rule error with %q", c.in.Type, c.typed, err, c.refusal)
			}
			continue
		}
		if err != nil || !answered {
			t.Errorf("%s %q: answered %v, %v", c.in.Type, c.typed, answered, err)
			continue
		}
		if got, _ := json.Marshal(a.Answer); string(got) != c.json || a.Answer.Text != c.json {
			t.Errorf("%s %q: sent as %s (text %q), want %s", c.in.Type, c.typed, got, a.Answer.Text, c.json)
		}
		// The same number given as a JSON number (the pending file, --answers)
		// is carried the same way.
		if a2, _, err := NormalizeAnswer(q, json.RawMessage(c.json)); err != nil || string(a2.Answer.JSON) != c.json {
			t.Errorf("%s %s as a JSON number: %s, %v", c.in.Type, c.json, a2.Answer.JSON, err)
		}
	}
}

func TestParseJSONNumber(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    string
		want decimal
		ok   bool
	}{
		{"0", decimal{}, true},
		{"-0.000e5", decimal{}, true},
		{"1.50", decimal{digits: "15", exp: -1}, true},
		{"-1200", decimal{neg: true, digits: "12", exp: 2}, true},
		{"0.001e+2", decimal{digits: "1", exp: -1}, true},
		{"12E-3", decimal{digits: "12", exp: -3}, true},
		{"1e99999999999999999999", decimal{digits: "1", exp: 1e9}, true},
		{"", decimal{}, false},
		{"-", decimal{}, false},
		{"01", decimal{}, false},
		{"1.", decimal{}, false},
		{".1", decimal{}, false},
		{"1e", decimal{}, false},
		{"+1", decimal{}, false},
		{"1 ", decimal{}, false},
	} {
		got, ok := parseJSONNumber(c.s)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parseJSONNumber(%q) = %+v, %v; want %+v, %v", c.s, got, ok, c.want, c.ok)
		}
	}
}
