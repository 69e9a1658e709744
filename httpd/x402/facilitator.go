package x402

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/vspec/catalogue/httpd/x402/eip3009"
)

// Facilitator verifies payments and settles them (the x402 facilitator
// API: POST /verify, POST /settle, GET /supported).
type Facilitator interface {
	Verify(ctx context.Context, p *PaymentPayload, r Requirements) (VerifyResponse, error)
	Settle(ctx context.Context, p *PaymentPayload, r Requirements) (SettlementResponse, error)
	Supported(ctx context.Context) (SupportedResponse, error)
}

// VerifyResponse is a facilitator's verdict on a payment.
type VerifyResponse struct {
	IsValid        bool   `json:"isValid"`
	InvalidReason  string `json:"invalidReason,omitempty"`
	InvalidMessage string `json:"invalidMessage,omitempty"`
	Payer          string `json:"payer,omitempty"`
}

// SupportedKind is a payment kind a facilitator handles.
type SupportedKind struct {
	X402Version int    `json:"x402Version"`
	Scheme      string `json:"scheme"`
	Network     string `json:"network"`
}

// SupportedResponse lists what a facilitator handles.
type SupportedResponse struct {
	Kinds      []SupportedKind     `json:"kinds"`
	Extensions []string            `json:"extensions"`
	Signers    map[string][]string `json:"signers"`
}

// facilitatorRequest is the body of /verify and /settle.
type facilitatorRequest struct {
	X402Version         int             `json:"x402Version"`
	PaymentPayload      *PaymentPayload `json:"paymentPayload"`
	PaymentRequirements Requirements    `json:"paymentRequirements"`
}

// HTTPFacilitator is the client of a remote facilitator.
type HTTPFacilitator struct {
	// URL is the facilitator's base URL, e.g. https://x402.org/facilitator.
	URL string
	// AuthHeader, when set, is sent on every call, e.g.
	// "Authorization: Bearer …".
	AuthHeader string
	// VerifyTimeout and SettleTimeout bound the calls. Defaults 10 s and
	// 30 s (settlement waits for the transaction's receipt).
	VerifyTimeout, SettleTimeout time.Duration
	// Client is the HTTP client. Default: one with no overall timeout (the
	// per-call timeouts apply).
	Client *http.Client
}

func (f *HTTPFacilitator) client() *http.Client {
	if f.Client != nil {
		return f.Client
	}
	return http.DefaultClient
}

func (f *HTTPFacilitator) call(ctx context.Context, method, path string, timeout time.Duration, in, out any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("%w: %w: %v", ErrFacilitator, ErrNotSent, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(f.URL, "/")+path, body)
	if err != nil {
		return fmt.Errorf("%w: %w: %v", ErrFacilitator, ErrNotSent, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if name, value, ok := strings.Cut(f.AuthHeader, ":"); ok {
		req.Header.Set(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	resp, err := f.client().Do(req)
	if err != nil {
		// A connection that could not be made carried no request; any
		// other failure may have come after the facilitator acted on it.
		var op *net.OpError
		if errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect") {
			return fmt.Errorf("%w: %w: %s %s: %v", ErrFacilitator, ErrNotSent, method, path, err)
		}
		return fmt.Errorf("%w: %s %s: %v", ErrFacilitator, method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("%w: %s %s: reading the answer: %v", ErrFacilitator, method, path, err)
	}
	// A refusal may come with a non-200 status and still carry a verdict.
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%w: %s %s answered %d with no JSON verdict: %.200s", ErrFacilitator, method, path, resp.StatusCode, raw)
	}
	if resp.StatusCode >= 500 {
		return fmt.Errorf("%w: %s %s answered %d: %.200s", ErrFacilitator, method, path, resp.StatusCode, raw)
	}
	return nil
}

// Verify asks the facilitator to verify a payment.
func (f *HTTPFacilitator) Verify(ctx context.Context, p *PaymentPayload, r Requirements) (VerifyResponse, error) {
	var v VerifyResponse
	err := f.call(ctx, http.MethodPost, "/verify", cmp.Or(f.VerifyTimeout, 10*time.Second), facilitatorRequest{Version, p, r}, &v)
	if err == nil && !v.IsValid && v.InvalidReason == "" {
		err = fmt.Errorf("%w: /verify refused the payment without a reason", ErrFacilitator)
	}
	return v, err
}

// Settle asks the facilitator to settle a payment. An error wraps
// ErrFacilitator, and ErrNotSent when the request never reached it.
func (f *HTTPFacilitator) Settle(ctx context.Context, p *PaymentPayload, r Requirements) (SettlementResponse, error) {
	var s SettlementResponse
	err := f.call(ctx, http.MethodPost, "/settle", cmp.Or(f.SettleTimeout, 30*time.Second), facilitatorRequest{Version, p, r}, &s)
	return s, err
}

// Supported asks what the facilitator handles.
func (f *HTTPFacilitator) Supported(ctx context.Context) (SupportedResponse, error) {
	var s SupportedResponse
	err := f.call(ctx, http.MethodGet, "/supported", 10*time.Second, nil, &s)
	return s, err
}

// Local is the built-in facilitator: it verifies payments offline (the
// checks of Gate.Verify) and "settles" by recording a receipt in the
// store. Nothing moves on any chain; its receipts' transactions begin with
// "local:" so they cannot be mistaken for transaction hashes.
type Local struct {
	Store       Ledger
	ClockMargin time.Duration // default 5 s
	MaxTimeout  time.Duration // default 60 s; see checkExact
	Now         func() time.Time
}

func (l *Local) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Local) check(p *PaymentPayload, r Requirements) (eip3009.Authorization, eip3009.Domain, *Rejection) {
	if r.Scheme != "exact" || p.Accepted.Scheme != "exact" {
		return eip3009.Authorization{}, eip3009.Domain{}, reject("unsupported_scheme", "only the exact scheme is supported")
	}
	if r.Extra == nil {
		return eip3009.Authorization{}, eip3009.Domain{}, reject("invalid_exact_evm_missing_eip712_domain", "the requirements carry no EIP-712 domain")
	}
	domain, err := domainOf(r.Network, r.Asset, r.Extra.Name, r.Extra.Version)
	if err != nil {
		return eip3009.Authorization{}, domain, reject("invalid_payment_requirements", "%v", err)
	}
	if rej := matchOffer(&p.Accepted, &r); rej != nil {
		return eip3009.Authorization{}, domain, rej
	}
	margin, maxTimeout := l.ClockMargin, l.MaxTimeout
	if margin == 0 {
		margin = 5 * time.Second
	}
	if maxTimeout == 0 {
		maxTimeout = time.Duration(r.MaxTimeoutSeconds) * time.Second
	}
	auth, rej := checkExact(p, &r, domain, l.now(), margin, maxTimeout)
	return auth, domain, rej
}

// Verify checks a payment offline, and that it was not settled before.
func (l *Local) Verify(_ context.Context, p *PaymentPayload, r Requirements) (VerifyResponse, error) {
	auth, _, rej := l.check(p, r)
	if rej == nil {
		settled, err := l.Store.Settled(auth.From, auth.Nonce)
		if err != nil {
			return VerifyResponse{}, fmt.Errorf("%w: looking up the receipt: %v", ErrFacilitator, err)
		}
		if settled {
			rej = reject("invalid_exact_evm_nonce_already_used", "this authorization was already settled")
		}
	}
	if rej != nil {
		return VerifyResponse{InvalidReason: rej.Reason, InvalidMessage: rej.Detail, Payer: p.Payload.Authorization.From}, nil
	}
	return VerifyResponse{IsValid: true, Payer: auth.From.String()}, nil
}

// Settle checks a payment again and records its receipt; an authorization
// is settled once.
func (l *Local) Settle(_ context.Context, p *PaymentPayload, r Requirements) (SettlementResponse, error) {
	auth, domain, rej := l.check(p, r)
	if rej != nil {
		return SettlementResponse{ErrorReason: rej.Reason, Network: r.Network, Payer: p.Payload.Authorization.From}, nil
	}
	digest := auth.Digest(domain)
	rec := Receipt{
		Transaction:   "local:0x" + hex.EncodeToString(digest[:]),
		Network:       r.Network,
		Asset:         r.Asset,
		Authorization: p.Payload.Authorization,
		Signature:     p.Payload.Signature,
		SettledAt:     l.now().UTC(),
	}
	if p.Resource != nil {
		rec.Resource = p.Resource.URL
	}
	stored, err := l.Store.AddReceipt(auth.From, auth.Nonce, rec)
	if err != nil {
		return SettlementResponse{}, fmt.Errorf("%w: recording the receipt: %v", ErrFacilitator, err)
	}
	if !stored {
		return SettlementResponse{ErrorReason: "invalid_exact_evm_nonce_already_used", Network: r.Network, Payer: auth.From.String()}, nil
	}
	return SettlementResponse{Success: true, Transaction: rec.Transaction, Network: r.Network, Payer: auth.From.String(), Amount: r.Amount}, nil
}

// Supported reports the exact scheme on the EVM networks.
func (l *Local) Supported(context.Context) (SupportedResponse, error) {
	return SupportedResponse{
		Kinds:      []SupportedKind{{Version, "exact", NetworkBase}, {Version, "exact", NetworkBaseSepolia}},
		Extensions: []string{},
		Signers:    map[string][]string{"eip155:*": {}},
	}, nil
}

// FacilitatorHandler serves a facilitator over HTTP: POST /verify, POST
// /settle and GET /supported, for running the built-in facilitator as a
// separate process (cmd/facilitator) or in tests.
func FacilitatorHandler(f Facilitator) http.Handler {
	mux := http.NewServeMux()
	handle := func(settle bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var in facilitatorRequest
			if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil || in.PaymentPayload == nil {
				writeJSON(w, http.StatusBadRequest, map[string]any{"isValid": false, "success": false, "invalidReason": "invalid_payload", "errorReason": "invalid_payload", "transaction": "", "network": ""})
				return
			}
			var out any
			var err error
			if settle {
				out, err = f.Settle(r.Context(), in.PaymentPayload, in.PaymentRequirements)
			} else {
				out, err = f.Verify(r.Context(), in.PaymentPayload, in.PaymentRequirements)
			}
			if err != nil {
				writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
				return
			}
			writeJSON(w, http.StatusOK, out)
		}
	}
	mux.HandleFunc("POST /verify", handle(false))
	mux.HandleFunc("POST /settle", handle(true))
	mux.HandleFunc("GET /supported", func(w http.ResponseWriter, r *http.Request) {
		s, err := f.Supported(r.Context())
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, s)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
