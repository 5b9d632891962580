package testdaemon

import (
	"encoding/json"
	"fmt"
	"strings"

	"askuser/socketproto"
)

// BigRequestLine is an ask_user_request line with wait:false as large as
// the limits of socketproto/validate.go let it be while staying under
// max_message_bytes (some 900 KB): the most questions, 14 options each,
// every option with the longest preview. The memory attacks (bench/memattack,
// the web pane's bounds) park it so that every copy of the queue is big.
func BigRequestLine(id string) []byte {
	type option struct {
		Label   string `json:"label"`
		Preview string `json:"preview"`
	}
	type question struct {
		Question string   `json:"question"`
		Options  []option `json:"options"`
	}
	preview := strings.Repeat("p", socketproto.MaxPreviewChars)
	qs := make([]question, socketproto.DefaultLimits().MaxQuestionsHard)
	for i := range qs {
		qs[i].Question = fmt.Sprintf("Question %d?", i+1)
		for j := range 14 {
			qs[i].Options = append(qs[i].Options, option{Label: fmt.Sprintf("Option %d", j+1), Preview: preview})
		}
	}
	b, err := json.Marshal(struct {
		Type      string     `json:"type"`
		RequestID string     `json:"requestId"`
		Wait      bool       `json:"wait"`
		Questions []question `json:"questions"`
	}{"ask_user_request", id, false, qs})
	if err != nil {
		panic(err) // plain structs of strings always encode
	}
	return append(b, '\n')
}
