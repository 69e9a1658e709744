package x402

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/vspec/catalogue/httpd/ratelog"
)

// Sale names what a served payment bought, for the record kept when its
// settlement has no clear outcome.
type Sale struct {
	Resource  string // the resource paid for: its public URL, or mcp://tool/<name>
	Operation string // the operation, e.g. "GET /v1/search"
}

// Outcome is how the settlement of a served payment ended.
type Outcome uint8

// The outcomes of Gate.Settle.
const (
	// Settled: the facilitator settled; Settlement.Response is its
	// success and receipt. Serve the answer.
	Settled Outcome = iota + 1
	// Refused: the facilitator answered clearly that it did not settle, or
	// was never reached; nothing was charged. Withhold the answer: 402.
	Refused
	// Unknown: the facilitator was asked and did not answer clearly in
	// time (a timeout, a reset connection, a 5xx, an unreadable answer).
	// The payment may have been taken: it is recorded as StateUnknown under
	// Settlement.Reference for an operator to reconcile. Withhold the
	// answer and never say that nothing was charged.
	Unknown
)

func (o Outcome) String() string {
	switch o {
	case Settled:
		return "settled"
	case Refused:
		return "refused"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Settlement is the result of Gate.Settle.
type Settlement struct {
	Outcome Outcome
	// Response is the PAYMENT-RESPONSE of a Settled (success, transaction)
	// or Refused (success false, errorReason) payment.
	Response SettlementResponse
	// Reference names the record of an Unknown payment (see Reference).
	Reference string
	// Err is the facilitator's failure, when there was one.
	Err error
}

// ErrNotSent is wrapped by a facilitator's error when its request never
// reached the facilitator (it could not be built, or the connection could
// not be made): nothing can have been settled.
var ErrNotSent = errors.New("the request did not reach the facilitator")

// settleFloor is the least time a settlement is given, even when the
// served call left less before the caller's deadline: a settlement that
// is never sent would charge nothing, but serve nothing either.
const settleFloor = time.Second

// Settle settles a payment whose call was served and says how it ended,
// by deadline at the latest (and within Config.SettleTimeout): Settled,
// Refused, or Unknown, which is recorded in the store (StateUnknown, with
// the payer, nonce, amount, sale, time and the facilitator's error) under
// the returned reference. ctx's values reach the facilitator, its
// cancellation does not: once the answer exists, a client going away must
// not abandon a settlement half-way.
//
// A settlement still running at the deadline goes on in the background
// for up to the offer's timeout, beyond which the authorization is of no
// use anyway; a clear answer that arrives late resolves the record (by
// "facilitator").
//
// This is the one place where the REST and MCP surfaces settle.
func (g *Gate) Settle(ctx context.Context, p *Payment, deadline time.Time, sale Sale) Settlement {
	wait := g.cfg.SettleTimeout
	if !deadline.IsZero() {
		wait = min(wait, max(time.Until(deadline), settleFloor))
	}
	type result struct {
		r   SettlementResponse
		err error
	}
	done := make(chan result, 1) // buffered: the call never waits for a reader
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(g.cfg.MaxTimeout, wait))
	go func() {
		defer cancel()
		// A panic in the facilitator's client would end the process from
		// this goroutine: it is a failed settlement with no clear outcome.
		defer func() {
			if v := recover(); v != nil {
				slog.Error("BUG: panic while settling a payment", "payer", p.Payer, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				done <- result{err: fmt.Errorf("%w: the settlement failed inside this server: %v", ErrFacilitator, v)}
			}
		}()
		r, err := g.cfg.Facilitator.Settle(sctx, p.Payload, p.Requirements)
		done <- result{r, err}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case res := <-done:
		s := g.classify(p, res.r, res.err)
		if s.Outcome == Unknown {
			s.Reference = g.recordUnknown(p, sale, s.Err)
		}
		return s
	case <-timer.C:
		err := fmt.Errorf("%w: POST /settle did not answer within %v", ErrFacilitator, wait.Round(time.Millisecond))
		ref := g.recordUnknown(p, sale, err)
		go func() {
			res := <-done
			g.lateAnswer(p, ref, g.classify(p, res.r, res.err))
		}()
		return Settlement{Outcome: Unknown, Reference: ref, Err: err,
			Response: SettlementResponse{Network: p.Requirements.Network, Payer: p.Payer, Amount: p.Requirements.Amount}}
	}
}

// classify sorts a facilitator's answer to /settle into an outcome.
func (g *Gate) classify(p *Payment, r SettlementResponse, err error) Settlement {
	if r.Network == "" {
		r.Network = g.cfg.Network
	}
	if r.Payer == "" {
		r.Payer = p.Payer
	}
	switch {
	case err != nil && errors.Is(err, ErrNotSent):
		ratelog.Default.Printf("x402 settle", "settling %s's payment: %v; nothing was charged", p.Payer, err)
		return Settlement{Outcome: Refused, Err: err,
			Response: SettlementResponse{ErrorReason: "unexpected_settle_error", Network: g.cfg.Network, Payer: p.Payer}}
	case err != nil:
		return Settlement{Outcome: Unknown, Err: err,
			Response: SettlementResponse{Network: r.Network, Payer: r.Payer, Amount: p.Requirements.Amount}}
	case r.Success && r.Transaction == "":
		// It says it settled and names no receipt: it may have taken it.
		return Settlement{Outcome: Unknown, Err: fmt.Errorf("%w: /settle reported success without a transaction", ErrFacilitator),
			Response: SettlementResponse{Network: r.Network, Payer: r.Payer, Amount: p.Requirements.Amount}}
	case r.Success:
		return Settlement{Outcome: Settled, Response: r}
	}
	if r.ErrorReason == "" {
		r.ErrorReason = "unexpected_settle_error"
	}
	r.Transaction = ""
	ratelog.Default.Printf("x402 settle refused", "the facilitator did not settle %s's payment: %s", p.Payer, r.ErrorReason)
	return Settlement{Outcome: Refused, Response: r}
}

// recordUnknown records a payment of unknown outcome and returns its
// reference. The reference is derived from the authorization, so a
// failure to record still leaves the log and the payer with the same
// name for it.
func (g *Gate) recordUnknown(p *Payment, sale Sale, cause error) string {
	a := &p.Payload.Payload.Authorization
	rec := PaymentRecord{
		Reference: Reference(p.Payer, a.Nonce), Payer: p.Payer, Nonce: a.Nonce,
		Amount: p.Requirements.Amount, Asset: p.Requirements.Asset, Network: p.Requirements.Network, PayTo: p.Requirements.PayTo,
		ValidBefore: a.ValidBefore, Resource: sale.Resource, Operation: sale.Operation,
		At: g.cfg.Now().UTC(), Error: cause.Error(),
	}
	ratelog.Default.Printf("x402 settle", "the settlement of payment %s (payer %s, nonce %s, %s atomic units, %s) has no clear outcome and may have been taken; recorded as %s for reconciliation: %v",
		rec.Reference, rec.Payer, rec.Nonce, rec.Amount, rec.Operation, StateUnknown, cause)
	if err := g.cfg.Nonces.RecordUnknown(rec); err != nil {
		ratelog.Default.Printf("x402 settle record", "recording payment %s (payer %s, nonce %s, %s atomic units, %s) as %s failed: %v",
			rec.Reference, rec.Payer, rec.Nonce, rec.Amount, rec.Operation, StateUnknown, err)
	}
	return rec.Reference
}

// lateAnswer resolves the record of a payment whose settlement answered
// after its caller's deadline, when the answer is clear.
func (g *Gate) lateAnswer(p *Payment, ref string, s Settlement) {
	state := StateUnsettled
	switch s.Outcome {
	case Settled:
		state = StateSettled
	case Unknown:
		ratelog.Default.Printf("x402 settle late", "payment %s (payer %s) still has no clear outcome: %v", ref, p.Payer, s.Err)
		return
	}
	if _, err := g.cfg.Nonces.Resolve(ref, state, s.Response.Transaction, "facilitator"); err != nil {
		ratelog.Default.Printf("x402 settle late", "the facilitator answered late for payment %s (%s, transaction %q); resolving its record failed: %v", ref, state, s.Response.Transaction, err)
		return
	}
	ratelog.Default.Printf("x402 settle late", "payment %s (payer %s) resolved %s by the facilitator's late answer (transaction %q)", ref, p.Payer, state, s.Response.Transaction)
}
