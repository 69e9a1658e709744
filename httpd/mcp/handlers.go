package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vspec/catalogue/httpd"
)

// Each tool is a payable operation of httpd: its arguments are the
// operation's parameters as httpd.Service.ToolInputSchema names them, and
// run (call.go) answers them with httpd.Service.Call.

// tools holds the tool handlers.
type tools struct {
	svc *httpd.Service
}

// args are a tool call's arguments, validated against its input schema.
type args = map[string]json.RawMessage

// handler is the handler of the tool that exposes op.
func (t *tools) handler(tool string, op httpd.Operation) sdk.ToolHandlerFor[args, any] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in args) (*sdk.CallToolResult, any, error) {
		return t.run(ctx, req, tool, op, in)
	}
}
