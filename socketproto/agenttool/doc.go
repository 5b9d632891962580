// Package agenttool is askuser as a coding agent sees it: the two question
// tools' input JSON Schemas and model-facing descriptions (ask_user_question,
// strict; ask_user, flexible), and the shapes a result takes at the agent's
// edge (claude, pi, text; docs/contract.md §3, §7, §8).
//
// It is built on socketproto's rules and limits, so a model that follows a
// schema is never refused by the daemon. The daemon and the pane do not
// import it: what they share with the client stays in socketproto.
package agenttool
