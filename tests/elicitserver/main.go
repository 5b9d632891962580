// Command elicitserver is an MCP server on stdio for the tests of
// `askuser-client mcp-proxy`: its tools ask their user through MCP
// elicitation and return what came back, so a test sees exactly what the
// server received.
//
//   - configure: a form with every field kind an elicitation allows;
//   - signin: a URL elicitation;
//   - echo: no elicitation (plain relay).
//
// With ELICITSERVER_STDIN_LOG=PATH it appends all it reads to PATH.
//
// Each result is the JSON text {"action":…, "content":…}, or
// {"error":"…"} when the elicitation failed.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Schema is the configure tool's form: every kind of field, some optional.
const Schema = `{"type":"object","properties":{
	"color":{"type":"string","title":"Colour","description":"the build's colour","enum":["red","blue"]},
	"count":{"type":"integer","title":"How many workers?","minimum":1,"maximum":5,"default":2},
	"ratio":{"type":"number","minimum":0,"maximum":1},
	"ok":{"type":"boolean","title":"Enable TLS?"},
	"name":{"type":"string","maxLength":20},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]}},
	"email":{"type":"string","format":"email","description":"optional"}},
	"required":["color","count","ratio","ok","name","tags"]}`

func main() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "elicitserver", Version: "1.0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "configure", Description: "Ask the user for the build settings.",
		InputSchema: json.RawMessage(`{"type":"object"}`)},
		asking(&mcp.ElicitParams{Message: "Build settings", RequestedSchema: json.RawMessage(Schema)}))
	srv.AddTool(&mcp.Tool{Name: "signin", Description: "Ask the user to sign in at a URL.",
		InputSchema: json.RawMessage(`{"type":"object"}`)},
		asking(&mcp.ElicitParams{Mode: "url", Message: "Sign in to the tracker", URL: "https://example.com/auth?state=xyz", ElicitationID: "e-1"}))
	srv.AddTool(&mcp.Tool{Name: "echo", Description: "Return the arguments.",
		InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(string(req.Params.Arguments)), nil
	})
	if err := srv.Run(context.Background(), transport()); err != nil {
		fmt.Fprintln(os.Stderr, "elicitserver:", err)
		os.Exit(1)
	}
}

// transport is stdio; with ELICITSERVER_STDIN_LOG set, every byte read
// from stdin is appended to that file first, so that a test sees all that
// reached the server, whether or not the SDK could read it.
func transport() mcp.Transport {
	path := os.Getenv("ELICITSERVER_STDIN_LOG")
	if path == "" {
		return &mcp.StdioTransport{}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "elicitserver:", err)
		os.Exit(1)
	}
	return &mcp.IOTransport{Reader: teeCloser{io.TeeReader(os.Stdin, f), os.Stdin}, Writer: os.Stdout}
}

type teeCloser struct {
	io.Reader
	io.Closer
}

// asking is a tool that elicits p the way the SDK has servers do it: it
// answers the call with the form as an input request, and reports the
// answer when the call comes again with it. A client on the stateless
// protocol (2026-07-28) sees that round trip; for older clients the SDK
// sends an elicitation/create request instead and calls the tool again.
func asking(p *mcp.ElicitParams) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if got, ok := req.Params.InputResponses["form"]; ok {
			res, isElicit := got.(*mcp.ElicitResult)
			if !isElicit {
				return elicited(nil, fmt.Errorf("inputResponses.form is a %T", got))
			}
			return elicited(res, nil)
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"form": p}}, nil
	}
}

func elicited(res *mcp.ElicitResult, err error) (*mcp.CallToolResult, error) {
	var out []byte
	if err != nil {
		out, _ = json.Marshal(map[string]string{"error": err.Error()})
	} else {
		out, _ = json.Marshal(res)
	}
	return text(string(out)), nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
