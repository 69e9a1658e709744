// Package x402 takes payment for single requests with x402 version 2, the
// "exact" scheme on an EVM network (USDC on Base by default, EIP-3009
// transferWithAuthorization).
//
// It owns the protocol's wire shapes and their strict header encoding, the
// offer of a price (PaymentRequired), the checks of a payment before the
// request is served (Gate.Verify: the accepted offer, the authorization's
// recipient, amount and validity window, the EIP-712 signature, replay),
// settlement after it was served (Gate.Settle: bounded by a deadline, and
// classified as settled, refused, or unknown, which is recorded in the
// store for an operator to resolve), the client of a remote facilitator
// and a built-in local facilitator that records receipts in the state
// directory instead of settling on a chain. How a route answers each
// outcome is the HTTP edge's business (httpd and httpd/mcp).
package x402
