// Package agenttext is the one way askuser shows text that came from an
// agent (a question, header, label, description, preview, agent name, an
// error the daemon echoes): the terminal pane, the web page, the pending file
// and the CLI's output all pass it through here, so no surface shows
// something another surface would hide.
//
// What it does, and why (docs/contract.md §6 "Untrusted text"):
//
//   - Terminal control sequences and every other control character are
//     removed: they act on the terminal rather than being read.
//   - Bidi controls (Unicode's Bidi_Control set: the embeddings, overrides
//     and isolates U+202A–U+202E and U+2066–U+2069, and the invisible
//     direction marks U+200E, U+200F and U+061C) are shown as a visible
//     escape, `\u202e`. Dropping them would hide that what is shown differs
//     from what runs ("Trojan Source"); keeping them would let the text read
//     differently from what it is. The escape is the same form the pending
//     file writes, so the user sees the same thing everywhere.
//
// Typed tidies what a user pasted with the same escape parser.
//
// It knows nothing of the daemon, the pane or the page, and imports only the
// standard library.
package agenttext
