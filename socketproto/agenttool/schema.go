package agenttool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"askuser/socketproto"
)

// Schema is the JSON Schema (draft 2020-12) of a tool's input:
// {"questions": […], "metadata": {…}}. It states the same bounds as
// socketproto.ValidateRequest with the default limits, so a model that
// follows the schema is never refused. tool is ask_user ("" too) or ask_user_question; any other
// name gives nil. This is the one source for `askuser-client schema` and for
// the MCP server's tools.
func Schema(tool string) json.RawMessage {
	strict := false
	switch tool {
	case "", socketproto.ToolAskUser:
	case socketproto.ToolAskUserQuestion:
		strict = true
	default:
		return nil
	}
	lim := socketproto.DefaultLimits()
	maxQ, minO, maxO, maxHeader := lim.MaxQuestionsHard, 0, lim.MaxOptionsHard, socketproto.FlexibleMaxHeader
	if strict {
		maxQ, minO, maxO, maxHeader = socketproto.StrictMaxQuestions, socketproto.StrictMinOptions, socketproto.StrictMaxOptions, socketproto.StrictMaxHeader
	}

	option := obj{
		{"type", "object"},
		{"description", "One choice. Do not add an \"Other\" option: the user can always type their own answer."},
		{"properties", obj{
			{"label", obj{
				{"type", "string"}, {"minLength", 1}, {"maxLength", socketproto.MaxLabelChars},
				{"description", "What the user picks, 1 to 5 words; unique within the question. Put the recommended option first and end its label with \" (Recommended)\"."},
			}},
			{"description", obj{
				{"type", "string"}, {"maxLength", socketproto.MaxDescriptionChars},
				{"description", "What this choice means or implies, shown under the label."},
			}},
			{"preview", obj{
				{"type", "string"}, {"maxLength", socketproto.MaxPreviewChars},
				{"description", "Optional code snippet, mockup or diagram shown beside the list while this option is focused (several lines allowed)."},
			}},
		}},
		{"required", []string{"label"}},
		{"additionalProperties", false},
	}

	headerDesc := fmt.Sprintf("A very short label for the question, at most %d characters, e.g. \"Database\" or \"Auth method\".", maxHeader)
	multiDesc := "true if the user may pick several options; false for exactly one."
	optionsDesc := fmt.Sprintf("The choices, %d to %d.", minO, maxO)
	if strict {
		headerDesc = fmt.Sprintf("Required. A very short label shown as a tab, at most %d characters, e.g. \"Database\" or \"Auth method\".", maxHeader)
		multiDesc = "Required. true if the user may pick several options; false for exactly one."
	} else {
		optionsDesc = fmt.Sprintf("The choices, at most %d. Omit or leave empty for a free-text question.", maxO)
		multiDesc = "Optional, default false. true if the user may pick several options."
	}
	// An empty header is "no header" in the flexible profile, so only the
	// strict one sets minLength.
	header := obj{{"type", "string"}}
	if strict {
		header = append(header, kv{"minLength", 1})
	}
	header = append(header, kv{"maxLength", maxHeader}, kv{"description", headerDesc})
	questionProps := obj{
		{"question", obj{
			{"type", "string"}, {"minLength", 1}, {"maxLength", socketproto.MaxQuestionChars},
			{"description", "The full question, ending with a question mark; unique within the call. Give the context the user needs to decide."},
		}},
		{"header", header},
		{"multiSelect", obj{{"type", "boolean"}, {"description", multiDesc}}},
	}
	opts := obj{{"type", "array"}}
	if minO > 0 {
		opts = append(opts, kv{"minItems", minO})
	}
	opts = append(opts, kv{"maxItems", maxO}, kv{"description", optionsDesc}, kv{"items", option})
	questionProps = append(questionProps, kv{"options", opts})
	required := []string{"question"}
	if strict {
		required = []string{"question", "header", "options", "multiSelect"}
	}
	question := obj{
		{"type", "object"},
		{"description", "One question for the user."},
		{"properties", questionProps},
		{"required", required},
		{"additionalProperties", false},
	}

	schema := obj{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"type", "object"},
		{"properties", obj{
			{"questions", obj{
				{"type", "array"}, {"minItems", 1}, {"maxItems", maxQ},
				{"description", fmt.Sprintf("1 to %d questions, answered together in one go. Batch related questions into one call.", maxQ)},
				{"items", question},
			}},
			{"metadata", obj{
				{"type", "object"},
				{"description", fmt.Sprintf("Optional context for the user and for logs, e.g. {\"source\": \"project-setup\"}; at most %d bytes.", socketproto.MaxMetadataBytes)},
			}},
		}},
		{"required", []string{"questions"}},
		{"additionalProperties", false},
	}
	var compact, out bytes.Buffer
	schema.writeTo(&compact)
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		panic(err) // built from literals above: cannot fail
	}
	return out.Bytes()
}

// kv and obj keep the schema's keys in a readable order ("type" first),
// which a map would sort away.
type kv struct {
	k string
	v any
}

type obj []kv

// writeTo writes o as compact JSON. It is written out by hand rather than
// through a MarshalJSON method: encoding/json validates and compacts what
// every nested Marshaler returns again at each level, which made printing
// the schema most of `askuser-client schema`'s time.
func (o obj) writeTo(b *bytes.Buffer) {
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONValue(b, p.k)
		b.WriteByte(':')
		writeJSONValue(b, p.v)
	}
	b.WriteByte('}')
}

// writeJSONValue writes one of the values a schema is built from.
func writeJSONValue(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case obj:
		v.writeTo(b)
	default:
		// Strings, numbers, booleans and []string.
		out, err := json.Marshal(v)
		if err != nil {
			panic(err) // built from literals: cannot fail
		}
		b.Write(out)
	}
}

// Description is the model-facing description of a tool: what it does
// and the conventions that make its questions easy to answer. "" for an
// unknown tool.
func Description(tool string) string {
	var limits, result string
	switch tool {
	case "", socketproto.ToolAskUser:
		lim := socketproto.DefaultLimits()
		limits = fmt.Sprintf("Ask 1 to %d questions per call. A question may have up to %d options, or none for a free-text answer; a header (at most %d characters) is optional.", lim.MaxQuestionsHard, lim.MaxOptionsHard, socketproto.FlexibleMaxHeader)
		result = `The result is {"answered": true, "answers": [{"question", "answer", "selectedOption"/"selectedOptions", "custom", "wasCustom", "notes"}…]}; "answer" is a list for multiSelect questions.`
	case socketproto.ToolAskUserQuestion:
		limits = fmt.Sprintf("Ask 1 to %d questions per call, each with %d to %d options, a header of at most %d characters, and multiSelect set to true or false.", socketproto.StrictMaxQuestions, socketproto.StrictMinOptions, socketproto.StrictMaxOptions, socketproto.StrictMaxHeader)
		result = `The result is {"answers": {"question text": "chosen label or typed text"}}, several selections joined with ", ", plus "annotations" {"question text": {"notes": "…"}} when the user attached notes.`
	default:
		return ""
	}
	return strings.Join([]string{
		"Ask the user (the human you are working for) one or more questions and wait for the answers. Use it when you need a decision or a preference you cannot work out yourself: which approach, which library, what to name something, whether a risky step may go ahead.",
		"",
		"The call blocks until the user answers; there is no timeout. Do not ask what the conversation, the code or the files already answer, and do not ask just to confirm something you were told to do.",
		"",
		"Conventions:",
		"- Batch related questions into one call instead of asking one after another; the user answers them together.",
		"- Offer concrete options. Put the recommended option first and end its label with \" (Recommended)\".",
		"- Keep labels short (1 to 5 words) and explain each in its description; use preview for a code snippet or mockup worth comparing.",
		"- Keep headers very short (\"Database\", \"Auth method\").",
		"- Do not add an \"Other\" option: the user can always type their own answer instead of choosing one.",
		"- Set multiSelect to true only when several choices can apply together.",
		"- " + limits,
		"",
		result + ` If the user declines, the result says "cancelled": true: proceed without these answers, making the most reasonable choice yourself, and do not ask the same thing again at once.`,
	}, "\n")
}
