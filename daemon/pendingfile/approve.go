package pendingfile

import (
	"encoding/json"
	"fmt"

	"askuser/socketproto"
)

// approved is a request's answers as a save sends them, with what the file
// holds for "Allow means seen" (docs/contract.md §5, §6): an answer that
// chooses an option approving its preview is sent with the digest the saved
// buffer holds under "approvesDigest" for that option, and only when that is
// the digest of the preview the daemon holds, that is, when the buffer
// showed that preview whole under "approves". A digest the answer names
// itself, or one a draft carried, counts for nothing here: the file's proof
// is the buffer. problems says, for each answer refused, which and why,
// without the expected digest.
func approved(p *socketproto.Pending, draft []json.RawMessage, digests []ApprovesDigest) (sent []json.RawMessage, problems []string) {
	sent = make([]json.RawMessage, len(draft))
	copy(sent, draft)
	for i, q := range p.Questions {
		if i >= len(draft) {
			break
		}
		o := socketproto.ApprovingChoice(q, draft[i])
		if o < 0 {
			continue
		}
		label := q.Options[o].Label
		var saved string
		if i < len(digests) {
			saved = digests[i][label]
		}
		switch {
		case saved == "":
			problems = append(problems, fmt.Sprintf("questions[%d].answer: %q approves everything \"approves\" shows for it, and is taken from the file only with the \"approvesDigest\" the daemon writes beside it; this save has none for %q. Keep that field as written (reload the file if it is gone) and save the answer again",
				i, label, label))
			continue
		case saved != socketproto.PreviewDigest(q.Options[o].Preview):
			problems = append(problems, fmt.Sprintf("questions[%d].answer: %q approves everything \"approves\" shows for it, and this save's \"approvesDigest\" %q is not the digest of that preview as the daemon holds it (the buffer shows another one, or the field was edited). Reload the file, read \"approves\" as it is now and save the answer again",
				i, label, saved))
			continue
		}
		sent[i] = socketproto.WithPreviewDigest(q, draft[i], saved)
	}
	return sent, problems
}
