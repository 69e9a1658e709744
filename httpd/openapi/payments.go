package openapi

import (
	"strconv"

	"github.com/vspec/catalogue/httpd/x402"
)

// Payments describes per-request payments (x402) for the document; nil
// Inputs.Payments documents none.
type Payments struct {
	Network           string           // CAIP-2 network, e.g. eip155:8453
	Asset             string           // token contract
	AssetName         string           // its EIP-712 name
	PayTo             string           // recipient
	MaxTimeoutSeconds int64            // offered payment time-out
	Prices            map[string]int64 // atomic units by operationId
	PerMinute         int64            // keyless paid calls per network per minute
	Settles           string           // who settles, in words
}

// payable documents x402 on the operations with a price: a third way to
// authenticate, the 402, PAYMENT-RESPONSE on the 200, and the 504 of a
// settlement without a clear outcome.
func (b *builder) payable() {
	p := b.in.Payments
	if p == nil {
		return
	}
	for _, item := range b.paths {
		for _, method := range []string{"get", "head"} {
			op, _ := item.(obj)[method].(obj)
			if op == nil {
				continue
			}
			id, _ := op["operationId"].(string)
			if method == "head" {
				id = id[:len(id)-len("Head")]
			}
			price, ok := p.Prices[id]
			if !ok {
				continue
			}
			op["security"] = []obj{{"apiKey": []string{}}, {"bearer": []string{}}, {"x402": []string{}}}
			rs := op["responses"].(obj)
			rs["402"] = rref("PaymentRequired")
			if method == "get" {
				rs["504"] = rref("SettlementUnknown")
				op["description"] = op["description"].(string) + "\n\nWithout a key: " + x402.USD(price) + " USD per call (" + strconv.FormatInt(price, 10) +
					" atomic units), paid with x402 v2 in `PAYMENT-SIGNATURE`; a call without payment gets 402 with the offer in `PAYMENT-REQUIRED`. Only a 2xx is charged; a paid 200 is `Cache-Control: no-store` without an ETag (each payment buys one response) and If-None-Match is ignored. " +
					"A settlement the facilitator does not confirm in time is a 504 with the payment's reference in `Payment-Reference`: the payment may have been taken and is reconciled. A request with a key never gets 402."
				ok := rs["200"].(obj)
				h := obj{}
				for k, v := range ok["headers"].(obj) {
					h[k] = v
				}
				h["PAYMENT-RESPONSE"] = href("PAYMENT-RESPONSE")
				ok2 := obj{}
				for k, v := range ok {
					ok2[k] = v
				}
				ok2["headers"] = h
				rs["200"] = ok2
			}
		}
	}
}

// paymentComponents are the schemes, headers, responses and schemas of
// x402, merged into the document's components when payments are on.
func (b *builder) paymentComponents(c obj) {
	p := b.in.Payments
	if p == nil {
		return
	}
	c["securitySchemes"].(obj)["x402"] = obj{"type": "apiKey", "in": "header", "name": "PAYMENT-SIGNATURE",
		"description": "No key: an x402 version 2 payment, the standard base64 (with padding) of an `X402PaymentPayload` JSON object answering the offer of a 402. " +
			"Scheme `exact` (EIP-3009 transferWithAuthorization), network `" + p.Network + "`, asset " + p.Asset + " (" + p.AssetName + ", 6 decimals), pay to " + p.PayTo +
			". An undecodable header is a 400. " + p.Settles}
	s := obj{"type": "string", "contentEncoding": "base64"}
	c["headers"].(obj)["PAYMENT-REQUIRED"] = obj{"description": "The offer: base64 of an `X402PaymentRequired` JSON object. `error` says why an earlier payment was refused. Present on every 402 except one after a failed settlement.", "schema": s}
	c["headers"].(obj)["PAYMENT-RESPONSE"] = obj{"description": "The settlement: base64 of an `X402SettlementResponse` JSON object. On a paid 200, `success` true and `transaction` the receipt; on a 402 after a failed settlement, `success` false and `errorReason`.", "schema": s}
	c["responses"].(obj)["PaymentRequired"] = obj{
		"description": "No key and no valid payment: the offer is in PAYMENT-REQUIRED (a refused payment's reason in its `error`); a failed settlement carries PAYMENT-RESPONSE instead and nothing is charged. The body says the same in words.",
		"headers":     obj{"PAYMENT-REQUIRED": href("PAYMENT-REQUIRED"), "PAYMENT-RESPONSE": href("PAYMENT-RESPONSE")},
		"content":     obj{"application/json": obj{"schema": ref("ProblemDetail")}},
	}
	c["headers"].(obj)["Payment-Reference"] = obj{"description": "The reference a payment whose settlement has no clear outcome is recorded under for reconciliation: `pay_` and 16 hex digits, stable for the payment.",
		"required": true, "schema": obj{"type": "string", "pattern": "^pay_[0-9a-f]{16}$"}}
	c["responses"].(obj)["SettlementUnknown"] = obj{
		"description": "The call was served and its payment's settlement asked for, but the facilitator did not confirm it in time (no answer, a reset connection, a 5xx, an unreadable answer): " +
			"the answer is withheld, and the payment may have been taken. It is recorded under the reference in Payment-Reference (the detail names it too) and reconciled by the operator; it is never said to be uncharged. A new call needs a new payment.",
		"headers": obj{"Payment-Reference": href("Payment-Reference")},
		"content": obj{"application/problem+json": obj{"schema": ref("ProblemDetail")}},
	}
	str := obj{"type": "string"}
	reqs := obj{"type": "object", "required": []string{"scheme", "network", "asset", "amount", "payTo", "maxTimeoutSeconds", "extra"}, "properties": obj{
		"scheme": obj{"type": "string", "const": "exact"}, "network": obj{"type": "string", "examples": []string{p.Network}}, "asset": str,
		"amount": obj{"type": "string", "pattern": "^[0-9]+$", "description": "Atomic units (6 decimals): 50000 is 0.05 USD."},
		"payTo":  str, "maxTimeoutSeconds": obj{"type": "integer", "examples": []int64{p.MaxTimeoutSeconds}},
		"extra": obj{"type": "object", "description": "The asset's EIP-712 domain.", "properties": obj{"name": str, "version": str}, "required": []string{"name", "version"}},
	}}
	resource := obj{"type": "object", "required": []string{"url"}, "properties": obj{"url": str, "description": str, "mimeType": str}}
	sc := c["schemas"].(obj)
	sc["X402Requirements"] = reqs
	sc["X402PaymentRequired"] = obj{"type": "object", "description": "Decoded PAYMENT-REQUIRED.", "required": []string{"x402Version", "resource", "accepts"}, "properties": obj{
		"x402Version": obj{"type": "integer", "const": 2}, "error": obj{"type": "string", "description": "Why an earlier payment was refused, e.g. invalid_exact_evm_nonce_already_used."},
		"resource": resource, "accepts": obj{"type": "array", "items": ref("X402Requirements")}}}
	sc["X402PaymentPayload"] = obj{"type": "object", "description": "Decoded PAYMENT-SIGNATURE.", "required": []string{"x402Version", "payload", "accepted"}, "properties": obj{
		"x402Version": obj{"type": "integer", "const": 2}, "resource": resource, "accepted": ref("X402Requirements"),
		"payload": obj{"type": "object", "required": []string{"authorization", "signature"}, "properties": obj{
			"signature": obj{"type": "string", "description": "65 bytes r‖s‖v in hex, v 27 or 28, low s."},
			"authorization": obj{"type": "object", "required": []string{"from", "to", "value", "validAfter", "validBefore", "nonce"}, "properties": obj{
				"from": str, "to": obj{"type": "string", "description": "Must be payTo."}, "value": obj{"type": "string", "description": "Must equal amount exactly."},
				"validAfter":  obj{"type": "string", "description": "Unix seconds; at most 5 s ahead of the server's clock."},
				"validBefore": obj{"type": "string", "description": "Unix seconds; at least 6 s from now and at most maxTimeoutSeconds + 5 min."},
				"nonce":       obj{"type": "string", "description": "32 bytes hex; each (from, nonce) is accepted once, ever."}}}}}}}
	sc["X402SettlementResponse"] = obj{"type": "object", "description": "Decoded PAYMENT-RESPONSE.", "required": []string{"success", "transaction", "network"}, "properties": obj{
		"success": obj{"type": "boolean"}, "transaction": obj{"type": "string", "description": "The receipt: a transaction hash, or `local:0x…` from the built-in facilitator, which settles nothing on a chain."},
		"network": str, "payer": str, "amount": str, "errorReason": str}}
}
