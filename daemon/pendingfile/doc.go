// Package pendingfile owns the pending-questions file of docs/contract.md §5: its format,
// the atomic rewrite the daemon makes whenever the pending set changes, the
// watch that notices a user's save in any editor, and the merge that turns a
// saved file into answers, cancels and drafts.
//
// It knows the queue only through the small Queue interface, and never calls
// it while holding anything of its own: the queue must never wait for disk.
package pendingfile
