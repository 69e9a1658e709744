package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/VictoriaMetrics/metrics"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// recovering is the SDK middleware that keeps a panic in a method's
// handling from taking the process down: the SDK runs each request in a
// goroutine of its own with no recover, so one panic there (a null
// arguments object once did it, with no key) ended the REST API too. A
// panic is logged with its stack at ERROR, counted, and answered as a
// JSON-RPC internal error; the request id reaches the log through the
// method name and the panic value.
func recovering(panics *metrics.Counter) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					panics.Inc()
					slog.Error("BUG: panic in an MCP request, answered as an internal error", "method", method, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
					res, err = nil, &jsonrpc.Error{Code: codeInternalError, Message: "The server failed on this request; the failure is logged. Retry later, or report it."}
				}
			}()
			return next(ctx, method, req)
		}
	}
}
