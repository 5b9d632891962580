package claudecode

import (
	"regexp"
	"strings"
	"time"
)

// The recorded transcript lines (testdata/transcript-*.jsonl), changed the
// way each test needs; exported to the hook's end-to-end tests
// (package claudecode_test) too.

// Stamped is a recorded transcript line written at when: the hook counts a
// result only if it was written after it began.
func Stamped(line string, when time.Time) string {
	return stampRE.ReplaceAllString(line, `"timestamp":"`+when.UTC().Format("2006-01-02T15:04:05.000Z")+`"`)
}

var stampRE = regexp.MustCompile(`"timestamp":"[^"]*"`)

// Refused is a recorded result turned into Claude Code's answer for a call
// refused in its dialog.
func Refused(result string) string {
	return strings.Replace(result, `"content":"hello","is_error":false`,
		`"content":"The user doesn't want to proceed with this tool use. The tool use was rejected.","is_error":true`, 1)
}

// Twin is a recorded line about another call with the same tool and input.
func Twin(line string) string { return strings.ReplaceAll(line, "toolu_askuser_00", "toolu_twin") }
