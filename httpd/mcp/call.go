package mcp

import (
	"context"
	"encoding/json"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vspec/catalogue/httpd"
)

// run answers a tool call with its operation's answer for the caller the
// keeper admitted. A success is the REST body as structuredContent with a
// JSON text copy (answer). The body is not validated again against the
// output schema here: the REST responses are validated against the OpenAPI
// description in httpd's tests, the output schemas are checked against
// that description (TestOutputSchemasMatchOpenAPI), and the tests here
// validate every structuredContent they receive. Validating a 30 KB spec
// sheet on every call cost 4 ms, twenty times the call itself.
func (t *tools) run(ctx context.Context, req *sdk.CallToolRequest, tool string, op httpd.Operation, in args) (*sdk.CallToolResult, any, error) {
	turn := turnOf(ctx)
	if turn == nil { // the keeper did not see this call: never answer it unchecked
		return failure("This tool call was not admitted: send one tools/call per HTTP request."), nil, nil
	}
	if turn.key != nil {
		body, err := t.svc.Call(op, in, httpd.Caller{Key: turn.key})
		if err != nil {
			return refusal(err, ""), nil, nil
		}
		turn.served()
		return answer(body), nil, nil
	}
	if gate := t.svc.Payments(); gate != nil {
		if raw, ok := req.Params.Meta[metaPayment]; ok {
			return t.paid(ctx, gate, tool, op, in, raw)
		}
	}
	body, err := t.svc.Call(op, in, httpd.Caller{})
	switch {
	case err == nil:
		res := answer(body)
		res.Content = append(res.Content, &sdk.TextContent{Text: t.demoNote()})
		return res, nil, nil
	case err.Status == http.StatusForbidden && t.svc.Payments() != nil:
		return t.paymentRequired(tool, op, "", ""), nil, nil
	}
	return refusal(err, t.demoNote()), nil, nil
}

// demoNote tells a caller without a key where its answer came from and how
// to reach the full catalogue.
func (t *tools) demoNote() string {
	s := "Answered from the free 40-car demo set, since the call carried no API key. For the full catalogue, send an API key as Authorization: Bearer <key> (" + t.svc.UpgradeURL() + ")"
	if t.svc.Payments() != nil {
		s += ", or pay per call with x402: put a signed x402 PaymentPayload in params._meta[\"x402/payment\"] (a call outside the demo set answers with the offer to sign)"
	}
	return s + "."
}

// answer is the result of a successful call: the REST body as
// structuredContent and as a JSON text for clients that read only content.
func answer(body []byte) *sdk.CallToolResult {
	return &sdk.CallToolResult{StructuredContent: json.RawMessage(body), Content: []sdk.Content{&sdk.TextContent{Text: string(body)}}}
}

// refusal turns an operation's error into a tool error saying what was
// wrong, with a note appended when given.
func refusal(err *httpd.Error, note string) *sdk.CallToolResult {
	text := err.Error()
	if note != "" {
		text += "\n\n" + note
	}
	return failure(text)
}

// failure is a tool error with a text.
func failure(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}
