package x402

import (
	"context"
	"time"
)

// Sold is how one paid call ended: see Sell.
type Sold struct {
	// Verify is why the payment was not accepted: a *Rejection the payer
	// must redo, or an error wrapping ErrFacilitator. Nothing was served
	// or charged.
	Verify error
	// Served reports that the call was answered with a success. When it is
	// false (and Verify is nil) the answer was not a success: nothing was
	// settled and the answer stands.
	Served bool
	// Settlement is how the settlement of a served call ended: only a
	// Settled call's answer may be sent; a Refused or Unknown one is
	// withheld (Settlement.Reference names an Unknown one).
	Settlement
}

// Sell runs one call paid per request, the sequence every transport
// follows: verify the payment for price, serve the call, and settle only
// when serve reports a success, by deadline (see Settle). serve answers
// the call into the transport's own response and reports whether it is a
// success; the transport then sends that answer only when Sold says it was
// Settled, and withholds it otherwise.
func (g *Gate) Sell(ctx context.Context, payload *PaymentPayload, price int64, deadline time.Time, sale Sale, serve func() bool) Sold {
	pay, err := g.Verify(ctx, payload, price)
	if err != nil {
		return Sold{Verify: err}
	}
	if !serve() {
		return Sold{}
	}
	return Sold{Served: true, Settlement: g.Settle(ctx, pay, deadline, sale)}
}
