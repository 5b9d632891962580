// Package mcpserver is `askuser-client mcp` (docs/contract.md §8): a Model Context
// Protocol server, built on the official Go SDK, with the tools
// ask_user_question (strict), ask_user (flexible) and permission_prompt
// (Claude Code's --permission-prompt-tool). A call is checked here, so the
// model hears its mistake at once and in the daemon's words, then asked
// through askclient, waited for with progress notifications, and shaped by
// agenttool.
//
// It knows nothing of flags, config files or signals: the command's main
// (askuser-mcp's) resolves those and hands over a Config and a context.
package mcpserver
