// Package previewform draws the input of a file tool as the file it makes:
// a Write's content as the file's text, numbered; an Edit's or MultiEdit's
// old and new text as a diff; a patch (Codex's apply_patch, OpenCode's
// unified diff) as its hunks, numbered where the patch says where they go.
// An approving option names the form of its preview ("previewForm",
// docs/contract.md §3), set by the integrations; every surface (the pane,
// the web page, askuser-client show) draws the same lines from the same
// preview, and "Allow means seen" counts those lines.
//
// The lines are derived from the preview alone and deterministically: the
// preview stays what is approved and what its digest names. Nothing of the
// preview is left out: fields the form does not know are listed as they
// are, text after the tool's input (a rule kept for later) follows as it
// is, and a preview that does not have the form's shape is not drawn in it
// at all (Render returns nil, and the preview is shown as it is).
//
// Text from the agent passes through socketproto/agenttext: control
// characters in a file's text are shown as escapes (Visible), never
// dropped. It imports the standard library and agenttext only.
package previewform
