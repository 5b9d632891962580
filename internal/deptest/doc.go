// Package deptest holds askuser's layering, as README's map of the code
// draws it, as a test (tailscale's tstest/deptest): each rule lists a
// package's transitive imports with `go list -deps -json` and fails on one
// it must not have, naming the chain that brings it in. The faces' core and
// the web pane know no terminal; the clients know nothing of the daemon;
// the daemon knows no face and no command; the agents' folders, which the
// daemon reads, know neither the daemon nor a face; the wire knows only
// itself and internal/; and no package outside internal/agents names a kind
// of agent.
//
// It has no code of its own: the rules are its test.
package deptest
