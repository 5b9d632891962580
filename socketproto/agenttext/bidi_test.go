package agenttext

import (
	"encoding/json"
	"testing"
)

func TestIsBidiControl(t *testing.T) {
	t.Parallel()
	for _, r := range []rune{0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069} {
		if !IsBidiControl(r) {
			t.Errorf("%U is a bidi control", r)
		}
	}
	for _, r := range []rune{'a', 0x05d0, 0x0627, 0x200b, 0x200d, 0x2029, 0x202f, 0x2065, 0x206a, 0xfeff} {
		if IsBidiControl(r) {
			t.Errorf("%U is not a bidi control", r)
		}
	}
}

// EscapeJSON leaves the value as it was for a JSON reader, and no raw bidi
// control in the bytes.
func TestEscapeJSON(t *testing.T) {
	t.Parallel()
	for _, v := range []string{
		"plain",
		"rm -rf ./tmp \u2067;\u2066 # safe",
		"user\u202Egnp.exe and \u200F\u061C\u200E marks, é 🚀 ש",
		"\u202E",
	} {
		enc, err := json.Marshal(map[string]any{"approves": v, "n": 1})
		if err != nil {
			t.Fatal(err)
		}
		got := EscapeJSON(enc)
		for _, r := range string(got) {
			if IsBidiControl(r) {
				t.Fatalf("EscapeJSON(%s) = %s: raw %U left", enc, got, r)
			}
		}
		var back map[string]any
		if err := json.Unmarshal(got, &back); err != nil || back["approves"] != v {
			t.Fatalf("EscapeJSON(%s) = %s reads back as %q (%v)", enc, got, back["approves"], err)
		}
	}
	plain := []byte(`{"a":"b"}`)
	if got := EscapeJSON(plain); &got[0] != &plain[0] {
		t.Error("JSON without bidi controls was copied; it should come back as it is")
	}
}

func FuzzEscapeJSON(f *testing.F) {
	for _, s := range []string{"\u202Eabc", "a\u200fb", "\xe2\x80", "\xd8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc, _ := json.Marshal(s)
		var back string
		if err := json.Unmarshal(EscapeJSON(enc), &back); err != nil {
			t.Fatalf("EscapeJSON broke %s: %v", enc, err)
		}
		var want string
		_ = json.Unmarshal(enc, &want)
		if back != want {
			t.Fatalf("EscapeJSON changed %q to %q", want, back)
		}
	})
}
