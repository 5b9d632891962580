package main

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The proxy owns the ids of the server's requests it answers itself
// (docs/contract.md §8). The client may answer only what it was sent: an
// elicitation askuser is asking never reached it, and a response from it to
// that id — or to any id it was never sent — would reach the server as the
// user's answer while askuser still asks. Such a response is dropped and
// said on stderr.

// idKey is a request id as a map key: a string id and a number id with the
// same digits are different ids.
func idKey(raw json.RawMessage) string {
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

// fromClientChecked is line without the client's responses to requests it
// was never sent (or answered already), each said on stderr; nil when
// nothing is left to relay. A line that is not JSON-RPC goes on unchanged:
// the server answers it.
func (r *relay) fromClientChecked(line []byte) []byte {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return r.checkBatch(line)
	}
	var m message
	if json.Unmarshal(line, &m) != nil || !r.unowed(m) {
		return line
	}
	r.dropped(m)
	return nil
}

// checkBatch drops the unowed responses of a JSON-RPC batch.
func (r *relay) checkBatch(line []byte) []byte {
	var parts []json.RawMessage
	if json.Unmarshal(line, &parts) != nil {
		return line
	}
	kept := parts[:0]
	for _, p := range parts {
		var m message
		if json.Unmarshal(p, &m) == nil && r.unowed(m) {
			r.dropped(m)
			continue
		}
		kept = append(kept, p)
	}
	switch {
	case len(kept) == len(parts):
		return line
	case len(kept) == 0:
		return nil
	}
	out, err := json.Marshal(kept)
	if err != nil {
		return nil
	}
	return append(out, '\n')
}

// unowed reports whether m is a response (an id and no method) to a
// request the client was not sent or has answered already; a response to
// one it was sent is taken off the list.
func (r *relay) unowed(m message) bool {
	if m.Method != "" || len(m.ID) == 0 {
		return false
	}
	key := idKey(m.ID)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.clientOwes[key] {
		delete(r.clientOwes, key)
		return false
	}
	return true
}

func (r *relay) dropped(m message) {
	if r.stderr == nil {
		return
	}
	fmt.Fprintf(r.stderr, "askuser-client mcp-proxy: dropped the client's response to id %s, a request it was never sent or has answered already\n", m.ID)
}

// messagesOf reads a line as one JSON-RPC message or a batch of them.
func messagesOf(line []byte) []message {
	var m message
	if json.Unmarshal(line, &m) == nil {
		return []message{m}
	}
	var batch []message
	_ = json.Unmarshal(line, &batch)
	return batch
}
