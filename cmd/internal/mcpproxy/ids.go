package mcpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The proxy owns the ids of the server's requests it answers itself
// (docs/contract.md §8). The client may answer only what it was sent: an
// elicitation askuser is asking never reached it, and a response from it to
// that id — or to any id it was never sent — would reach the server as the
// user's answer while askuser still asks. Such a response is dropped and
// said on stderr.
//
// What the proxy decides a line is, the server must read the same way, or a
// response could pass for a request on the way: encoding/json takes a
// "Method" key for "method", and of two "id" keys one reader keeps the
// first, another the last. So the client's lines are read strictly — valid
// JSON with no duplicate key, keys matched case-exactly — and its messages
// may carry only the members JSON-RPC gives them (an allow-list: any other
// spelling of "id" or "method" is not one of them). What is refused never
// reaches the server.

// decodeExact decodes a JSON-RPC message, or part of one, matching keys
// case-exactly, as the MCP SDKs read them. As encoding/json reads, the
// last of duplicate keys wins and invalid UTF-8 is taken: the server's
// lines are read with it as they come (the client's are checked first).
func decodeExact(data []byte, v any) error {
	return jsonv2.Unmarshal(data, v, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}

// The members JSON-RPC 2.0 gives a request (or notification) and a
// response; a message of the client's with any other is not relayed.
var (
	requestMembers  = []string{"jsonrpc", "id", "method", "params"}
	responseMembers = []string{"jsonrpc", "id", "result", "error"}
)

// JSON-RPC's error codes for what the client sent.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// idKey is a request id as a map key: a string id and a number id with the
// same digits are different ids.
func idKey(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return "s" + s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "?" + string(raw)
	}
	return "n" + b.String()
}

// validID reports whether raw is an id MCP allows: a string or a number.
func validID(raw jsontext.Value) bool {
	k := raw.Kind()
	return k == '"' || k == '0'
}

// sentToClient notes the requests in a line relayed to the client, which
// it may now answer. A line is looked into only when it may hold one.
func (r *relay) sentToClient(line []byte) {
	if !has(line, `"method"`) || !has(line, `"id"`) {
		return
	}
	for _, m := range messagesOf(line) {
		if m.Method != "" && len(m.ID) > 0 {
			r.mu.Lock()
			if r.clientOwes == nil {
				r.clientOwes = map[string]bool{}
			}
			r.clientOwes[idKey(m.ID)] = true
			r.mu.Unlock()
		}
	}
}

// fromClientChecked is line without what of it must not reach the server,
// or nil when nothing is left to relay: a line that is not JSON is answered
// with a parse error, a message that is not one the client may send with
// Invalid Request (both with id null, as JSON-RPC has it when the id cannot
// be known), and a response to a request the client was never sent (or
// answered already) is dropped; each is said on stderr. A blank line is
// skipped.
func (r *relay) fromClientChecked(line []byte) []byte {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil
	}
	if !jsontext.Value(trimmed).IsValid() {
		r.refuse(rpcParseError, "Parse error: the line is not JSON (or has a key twice, or is not UTF-8)")
		return nil
	}
	if trimmed[0] == '[' {
		return r.checkBatch(line, trimmed)
	}
	if r.check(jsontext.Value(trimmed)) {
		return line
	}
	return nil
}

// checkBatch keeps the messages of a JSON-RPC batch that may be relayed;
// the line goes on unchanged when all may.
func (r *relay) checkBatch(line, trimmed []byte) []byte {
	var parts []jsontext.Value
	if jsonv2.Unmarshal(trimmed, &parts) != nil {
		return nil // IsValid said it is a JSON array
	}
	if len(parts) == 0 {
		r.refuse(rpcInvalidRequest, "Invalid Request: an empty batch")
		return nil
	}
	kept := parts[:0]
	for _, p := range parts {
		if r.check(p) {
			kept = append(kept, p)
		}
	}
	switch {
	case len(kept) == len(parts):
		return line
	case len(kept) == 0:
		return nil
	}
	out, err := jsonv2.Marshal(kept)
	if err != nil {
		return nil
	}
	return append(out, '\n')
}

// check reports whether one message of the client's, valid JSON, may go to
// the server: a request or notification (a non-empty string "method"),
// or a response to a request the client was sent and has not answered (no
// "method"; that request is then taken off the list). Anything else is
// refused or dropped here.
func (r *relay) check(raw jsontext.Value) bool {
	if raw.Kind() != '{' {
		r.refuse(rpcInvalidRequest, "Invalid Request: a JSON-RPC message is a JSON object")
		return false
	}
	var members map[string]jsontext.Value
	if jsonv2.Unmarshal(raw, &members) != nil {
		return false // IsValid said it is a JSON object
	}
	if method, ok := members["method"]; ok {
		if k := stranger(members, requestMembers); k != "" {
			r.refuse(rpcInvalidRequest, fmt.Sprintf("Invalid Request: a request has no member %q (only %s)", k, strings.Join(requestMembers, ", ")))
			return false
		}
		var name string
		if method.Kind() != '"' || jsonv2.Unmarshal(method, &name) != nil || name == "" {
			r.refuse(rpcInvalidRequest, "Invalid Request: method: want a non-empty string")
			return false
		}
		if id, ok := members["id"]; ok && !validID(id) {
			r.refuse(rpcInvalidRequest, "Invalid Request: id: want a string or a number")
			return false
		}
		return true
	}
	// A response, or something that some reader could take for one.
	if k := stranger(members, responseMembers); k != "" {
		r.droppedf("a message with the member %q, which a response does not have (only %s)", k, strings.Join(responseMembers, ", "))
		return false
	}
	id, ok := members["id"]
	if !ok || !validID(id) {
		r.droppedf("a response without a string or number id")
		return false
	}
	if r.unowed(id) {
		r.droppedf("the client's response to id %s, a request it was never sent or has answered already", id)
		return false
	}
	return true
}

// stranger is a member of m that allowed does not name, or "".
func stranger(m map[string]jsontext.Value, allowed []string) string {
	var odd []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			odd = append(odd, k)
		}
	}
	if len(odd) == 0 {
		return ""
	}
	slices.Sort(odd) // the same line, the same message
	return odd[0]
}

// unowed reports whether id is not that of a request the client was sent
// and has not answered; one it was sent is taken off the list.
func (r *relay) unowed(id []byte) bool {
	key := idKey(id)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.clientOwes[key] {
		delete(r.clientOwes, key)
		return false
	}
	return true
}

func (r *relay) droppedf(format string, args ...any) {
	if r.stderr == nil {
		return
	}
	fmt.Fprintf(r.stderr, "askuser-client mcp-proxy: dropped "+format+"\n", args...)
}

// refuse answers the client that what it sent was not relayed.
func (r *relay) refuse(code int, msg string) {
	r.replyError(r.toClient, json.RawMessage("null"), code, "askuser-client mcp-proxy: "+msg)
	if r.stderr != nil {
		fmt.Fprintf(r.stderr, "askuser-client mcp-proxy: refused a line from the client (%d): %s\n", code, msg)
	}
}

// messagesOf reads a line as one JSON-RPC message or a batch of them.
func messagesOf(line []byte) []message {
	var m message
	if decodeExact(line, &m) == nil {
		return []message{m}
	}
	var batch []message
	_ = decodeExact(line, &batch)
	return batch
}
