package testdaemon

import (
	"encoding/json"

	"askuser/socketproto"
)

// Seen is answer as a surface that showed q's whole preview sends it: when
// it chooses an option approving its preview, with that preview's digest,
// which the daemon requires (docs/contract.md §3 "The daemon checks it too").
func Seen(q socketproto.Question, answer json.RawMessage) json.RawMessage {
	if i := socketproto.ApprovingChoice(q, answer); i >= 0 {
		return socketproto.WithPreviewDigest(q, answer, socketproto.PreviewDigest(q.Options[i].Preview))
	}
	return answer
}
