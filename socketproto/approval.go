package socketproto

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// PreviewDigest names the preview an approving option approves (docs/contract.md
// §3, §6 "Allow means seen"): "sha256:" and the first 16 hex digits of the
// SHA-256 of the preview's UTF-8 bytes, as the daemon holds it. A surface
// learns it only by showing the whole preview (the pane and the page once it
// was all on screen, the pending file beside the whole "approves", the CLI's
// `show`), and an answer that chooses the option must carry it as
// "previewDigest": the daemon refuses the choice otherwise. It proves no
// secret; it ties the approval to the text that was shown, so an Allow sent
// without its preview in view is refused rather than taken.
func PreviewDigest(preview string) string {
	sum := sha256.Sum256([]byte(preview))
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// checkApproval refuses a selection that chooses an option approving its
// preview without naming that preview's digest. The expected digest is
// never in the message: a caller that did not show the preview must not
// learn it from the refusal.
func checkApproval(q Question, sel selection) error {
	for i, chosen := range sel.chosen {
		o := q.Options[i]
		if !chosen || !o.ApprovesPreview {
			continue
		}
		switch {
		case sel.digest == "":
			return fmt.Errorf("%q approves everything in its preview; the answer must name that preview as \"previewDigest\", which a surface gives only once the whole preview was shown (askuser-client show ID prints it)", truncateForError(o.Label))
		case sel.digest != PreviewDigest(o.Preview):
			return fmt.Errorf("previewDigest %q is not the digest of %q's preview as the daemon holds it; show the request again (askuser-client show ID) and answer from what it prints", truncateForError(sel.digest), truncateForError(o.Label))
		}
	}
	return nil
}

// CheckApproval refuses an answer to q that chooses an option approving its
// preview unless the answer names that preview's digest ("previewDigest" in
// the object form). An answer that does not read is left to NormalizeAnswer
// to refuse, with its own reason.
func CheckApproval(q Question, raw json.RawMessage) error {
	if !approves(q) {
		return nil
	}
	sel, none, err := readSelection(q, raw)
	if none || err != nil {
		return nil
	}
	return checkApproval(q, sel)
}

// ApprovingChoice is the index of the option that raw, an answer to q,
// chooses and that approves its preview (approvesPreview, docs/contract.md
// §3), or -1 when it chooses none or is no answer the rules can read. A
// surface asks before sending: such a choice must carry the digest of a
// preview it showed whole. A single-select question (the only kind with
// such options) has at most one choice.
func ApprovingChoice(q Question, raw json.RawMessage) int {
	q = ApplyInput(q)
	sel, none, err := readSelection(q, raw)
	if none || err != nil {
		return -1
	}
	for i, chosen := range sel.chosen {
		if chosen && q.Options[i].ApprovesPreview {
			return i
		}
	}
	return -1
}

// WithPreviewDigest is raw in the object form with "previewDigest" set to
// digest, meaning the same answer otherwise: the pending file, which takes
// an approval only with the digest the saved buffer showed beside the whole
// preview, gives it to the answer this way. raw that does not read is
// returned as it is.
func WithPreviewDigest(q Question, raw json.RawMessage, digest string) json.RawMessage {
	sel, none, err := readSelection(q, raw)
	if none || err != nil {
		return raw
	}
	obj := struct {
		Selected      []string `json:"selected"`
		Custom        string   `json:"custom,omitempty"`
		Notes         string   `json:"notes,omitempty"`
		Typing        string   `json:"typing,omitempty"`
		PreviewDigest string   `json:"previewDigest"`
	}{Selected: []string{}, Custom: sel.custom, Notes: sel.notes, Typing: DraftTyping(raw), PreviewDigest: digest}
	for i, chosen := range sel.chosen {
		if chosen {
			obj.Selected = append(obj.Selected, q.Options[i].Label)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(obj) != nil {
		return raw
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// approves reports whether any option of q approves its preview.
func approves(q Question) bool {
	for _, o := range q.Options {
		if o.ApprovesPreview {
			return true
		}
	}
	return false
}
