// Package elicit turns an MCP elicitation (elicitation/create: a form's
// requestedSchema, or a URL) into askuser questions of a typed kind (docs/contract.md §3
// "Typed answers", §8), and the daemon's result back into the elicitation's
// result: accept with content of the right JSON types, or decline.
//
// It knows nothing of JSON-RPC, processes or the daemon's socket: the
// elicitation proxy (askuser-client mcp-proxy) and Claude Code's Elicitation
// hook both hand it the form as they received it and send on what it returns.
package elicit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"askuser/socketproto"
)

// Modes of an elicitation.
const (
	ModeForm = "form"
	ModeURL  = "url"
)

// Actions of an elicitation's result.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// Labels of a URL elicitation's question.
const (
	LabelFinished = "I finished there"
	LabelDecline  = "Decline"
)

// Params is an elicitation as MCP's elicitation/create carries it. Claude
// Code's hook names the schema requested_schema; its caller copies it here.
type Params struct {
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// Result is the elicitation's result, as elicitation/create returns it.
// Content is set for an accepted form only; an optional field left empty is
// absent from it.
type Result struct {
	Action  string                     `json:"action"`
	Content map[string]json.RawMessage `json:"content,omitempty"`
}

// Cancel is the result of an elicitation that was withdrawn before the user
// answered (the server cancelled it, the client went away).
func Cancel() Result { return Result{Action: ActionCancel} }

// Form is an elicitation as askuser questions, one per field in the order
// the server gave them (a URL elicitation, or a form without fields, is one
// question), and how to read the answers back.
type Form struct {
	Questions []socketproto.Question
	fields    []string // the property each question answers; "" for the one question of a URL or empty form
	url       bool
}

// Build turns an elicitation into questions. A field of a kind askuser
// cannot ask (a nested object, an array of free text) is an error naming
// it: the caller refuses the elicitation rather than answer part of it.
func Build(p Params) (*Form, error) {
	switch mode(p) {
	case ModeURL:
		return urlForm(p)
	case ModeForm:
		return schemaForm(p)
	}
	return nil, fmt.Errorf("mode: %q is neither %q nor %q", p.Mode, ModeForm, ModeURL)
}

// mode is the elicitation's mode, inferred as MCP does when absent: a URL
// makes it a URL elicitation.
func mode(p Params) string {
	if p.Mode != "" {
		return p.Mode
	}
	if p.URL != "" {
		return ModeURL
	}
	return ModeForm
}

// urlForm shows the URL as text — never opened: the user opens it, or not —
// and asks whether they finished there.
func urlForm(p Params) (*Form, error) {
	if p.URL == "" {
		return nil, errors.New("url: missing for a URL elicitation")
	}
	text := joinText(p.Message, "Open this address yourself (askuser does not open it):\n"+p.URL+"\n\nDid you finish there?")
	q := socketproto.Question{
		Question: text,
		Header:   "Open a URL",
		Options: []socketproto.Option{
			{Label: LabelFinished, Description: "tell the server you completed the step at that address"},
			{Label: LabelDecline, Description: "do not go there"},
		},
		Input: &socketproto.Input{Type: socketproto.InputString, Enum: []string{LabelFinished, LabelDecline}},
	}
	return &Form{Questions: []socketproto.Question{q}, fields: []string{""}, url: true}, nil
}

// schemaForm makes one question per property of the requested schema.
func schemaForm(p Params) (*Form, error) {
	var schema struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if raw := bytes.TrimSpace(p.RequestedSchema); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if err := json.Unmarshal(raw, &schema); err != nil {
			return nil, fmt.Errorf("requestedSchema: %v", err)
		}
	}
	if schema.Type != "" && schema.Type != "object" {
		return nil, fmt.Errorf("requestedSchema.type: must be \"object\", got %q", schema.Type)
	}
	names, props, err := orderedObject(schema.Properties)
	if err != nil {
		return nil, fmt.Errorf("requestedSchema.properties: %v", err)
	}
	if len(names) == 0 {
		return confirmForm(p), nil
	}
	required := map[string]bool{}
	for _, r := range schema.Required {
		required[r] = true
	}
	f := &Form{}
	seen := map[string]bool{}
	for i, name := range names {
		q, err := fieldQuestion(name, props[name], required[name])
		if err != nil {
			return nil, fmt.Errorf("requestedSchema.properties.%s: %v", name, err)
		}
		// Answers are keyed by question text, and the user should not
		// meet the same question twice: two fields of the same title are
		// told apart by their names.
		if seen[q.Question] {
			q.Question += " (" + name + ")"
		}
		seen[q.Question] = true
		if i == 0 {
			q.Question = joinText(p.Message, q.Question)
		}
		f.Questions = append(f.Questions, q)
		f.fields = append(f.fields, name)
	}
	return f, nil
}

// confirmForm is a form that asks for nothing but consent: accept (with empty
// content) or decline.
func confirmForm(p Params) *Form {
	msg := p.Message
	if strings.TrimSpace(msg) == "" {
		msg = "An MCP server asks for your confirmation."
	}
	q := socketproto.Question{
		Question: msg,
		Header:   "Confirm",
		Input:    &socketproto.Input{Type: socketproto.InputBoolean},
	}
	return &Form{Questions: []socketproto.Question{socketproto.ApplyInput(q)}, fields: []string{""}}
}

func joinText(message, text string) string {
	if strings.TrimSpace(message) == "" {
		return text
	}
	return strings.TrimSpace(message) + "\n\n" + text
}

// property is one field's schema: the primitives MCP elicitation allows.
type property struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Pattern     string          `json:"pattern"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	Enum        []string        `json:"enum"`
	EnumNames   []string        `json:"enumNames"` // legacy titles of enum values
	OneOf       []titledValue   `json:"oneOf"`     // titled enum
	AnyOf       []titledValue   `json:"anyOf"`
	Items       *property       `json:"items"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Default     json.RawMessage `json:"default"`
	Properties  json.RawMessage `json:"properties"`
}

// titledValue is one value of a titled enum: {"const": "eu", "title": "Europe"}.
type titledValue struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// fieldQuestion is one property as a typed question: its title (else its
// name) and description as the question, its name as the header.
func fieldQuestion(name string, raw json.RawMessage, required bool) (socketproto.Question, error) {
	var pr property
	if err := json.Unmarshal(raw, &pr); err != nil {
		return socketproto.Question{}, err
	}
	if len(bytes.TrimSpace(pr.Properties)) > 0 {
		return socketproto.Question{}, errors.New("a nested object; a form's fields must be primitives")
	}
	in, titles, note, err := inputOf(pr)
	if err != nil {
		return socketproto.Question{}, err
	}
	if !required {
		f := false
		in.Required = &f
	}
	in.Default = pr.Default
	text := pr.Title
	if strings.TrimSpace(text) == "" {
		text = name
	}
	if d := strings.TrimSpace(pr.Description); d != "" {
		text += "\n" + d
	}
	if note != "" {
		text += "\n" + note
	}
	q := socketproto.ApplyInput(socketproto.Question{Question: text, Header: header(name), Input: in})
	for i := range q.Options {
		if i < len(titles) && titles[i] != "" && titles[i] != q.Options[i].Label {
			q.Options[i].Description = titles[i]
		}
	}
	// A default the rule itself refuses would refuse the whole form; the
	// user is asked without it instead.
	if len(in.Default) > 0 && socketproto.ValidateRequest(socketproto.Request{Questions: []socketproto.Question{q}}, socketproto.DefaultLimits()) != nil {
		q.Input.Default = nil
	}
	return q, nil
}

// inputOf is the typed rule of a property, with the titles of its choices
// (for enums that have them) and a note for what askuser cannot check.
func inputOf(pr property) (in *socketproto.Input, titles []string, note string, err error) {
	switch pr.Type {
	case "string", "":
		if pr.Type == "" && len(pr.Enum) == 0 && len(pr.OneOf) == 0 {
			return nil, nil, "", errors.New("no type; a form's field is a string, number, integer, boolean or array of choices")
		}
		return stringInput(pr)
	case "number", "integer":
		return &socketproto.Input{Type: pr.Type, Minimum: pr.Minimum, Maximum: pr.Maximum}, nil, "", nil
	case "boolean":
		return &socketproto.Input{Type: socketproto.InputBoolean}, nil, "", nil
	case "array":
		return arrayInput(pr)
	}
	return nil, nil, "", fmt.Errorf("type %q: a form's field is a string, number, integer, boolean or array of choices", pr.Type)
}

func stringInput(pr property) (*socketproto.Input, []string, string, error) {
	if vals, titles := choices(pr.Enum, pr.EnumNames, pr.OneOf); len(vals) > 0 {
		return &socketproto.Input{Type: socketproto.InputString, Enum: vals}, titles, "", nil
	}
	in := &socketproto.Input{Type: socketproto.InputString, MinLength: pr.MinLength, MaxLength: pr.MaxLength}
	switch pr.Format {
	case "", socketproto.FormatEmail, socketproto.FormatURI, socketproto.FormatDate, socketproto.FormatDateTime:
		in.Format = pr.Format
	}
	note := ""
	if pr.Pattern != "" {
		// JSON Schema's patterns are ECMAScript's; the few Go cannot
		// compile are left to the server, which checks what it gets.
		if _, err := regexp.Compile(pr.Pattern); err == nil && len([]rune(pr.Pattern)) <= socketproto.MaxPatternChars {
			in.Pattern = pr.Pattern
		} else {
			note = "(must match /" + pr.Pattern + "/, which the server checks)"
		}
	}
	return in, nil, note, nil
}

func arrayInput(pr property) (*socketproto.Input, []string, string, error) {
	if pr.Items == nil {
		return nil, nil, "", errors.New("an array without items; a form's array is a list of choices")
	}
	vals, titles := choices(pr.Items.Enum, pr.Items.EnumNames, pr.Items.AnyOf)
	if len(vals) == 0 {
		vals, titles = choices(nil, nil, pr.Items.OneOf)
	}
	if len(vals) == 0 {
		return nil, nil, "", errors.New("an array of free values; a form's array is a list of choices (items.enum or items.anyOf)")
	}
	in := &socketproto.Input{
		Type:     socketproto.InputArray,
		Items:    &socketproto.InputItems{Type: socketproto.InputString, Enum: vals},
		MinItems: pr.MinItems,
		MaxItems: pr.MaxItems,
	}
	return in, titles, "", nil
}

// choices is an enum's values and their titles, from whichever way the
// schema gives them: enum (with the legacy enumNames), or oneOf/anyOf of
// {const, title}.
func choices(enum, enumNames []string, titled []titledValue) (vals, titles []string) {
	if len(enum) > 0 {
		if len(enumNames) == len(enum) {
			return enum, enumNames
		}
		return enum, nil
	}
	for _, t := range titled {
		vals = append(vals, t.Const)
		titles = append(titles, t.Title)
	}
	return vals, titles
}

// header is the field's name within the flexible profile's header limit.
func header(name string) string {
	r := []rune(name)
	if len(r) > socketproto.FlexibleMaxHeader {
		r = append(r[:socketproto.FlexibleMaxHeader-1], '…')
	}
	return string(r)
}

// orderedObject reads a JSON object's keys in the order written: a form's
// fields are asked in the order the server listed them.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("not an object")
	}
	var names []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := vals[name]; !dup {
			names = append(names, name)
		}
		vals[name] = v
	}
	return names, vals, nil
}

// Result reads the daemon's result as the elicitation's: a decline in askuser
// is a decline; answers are the content, each with its JSON type.
func (f *Form) Result(resp socketproto.Response) Result {
	if resp.Cancelled || !resp.Answered || len(resp.Answers) != len(f.Questions) {
		return Result{Action: ActionDecline}
	}
	if f.url {
		if resp.Answers[0].Answer.Text != LabelFinished {
			return Result{Action: ActionDecline}
		}
		return Result{Action: ActionAccept}
	}
	if f.fields[0] == "" { // a form without fields: Yes or No
		if string(resp.Answers[0].Answer.JSON) != "true" {
			return Result{Action: ActionDecline}
		}
		return Result{Action: ActionAccept, Content: map[string]json.RawMessage{}}
	}
	content := map[string]json.RawMessage{}
	for i, a := range resp.Answers {
		if v, ok := value(a.Answer); ok {
			content[f.fields[i]] = v
		}
	}
	return Result{Action: ActionAccept, Content: content}
}

// value is one answer as its field's JSON value; false for an optional field
// left empty, which the content leaves out.
func value(v socketproto.AnswerValue) (json.RawMessage, bool) {
	switch {
	case v.IsSkipped():
		return nil, false
	case len(v.JSON) > 0:
		return v.JSON, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return b, true
}
