package x402

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// Version is the x402 protocol version spoken here.
const Version = 2

// Header names of the HTTP transport.
const (
	HeaderRequired  = "PAYMENT-REQUIRED"  // server to client: base64 PaymentRequired
	HeaderSignature = "PAYMENT-SIGNATURE" // client to server: base64 PaymentPayload
	HeaderResponse  = "PAYMENT-RESPONSE"  // server to client: base64 SettlementResponse
)

// Resource describes what is being paid for.
type Resource struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// Extra carries the EIP-712 domain of the asset, which the payer signs
// under.
type Extra struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Requirements is one way to pay that the server accepts (an item of
// PaymentRequired.accepts, echoed back as PaymentPayload.accepted).
type Requirements struct {
	Scheme            string `json:"scheme"`
	Network           string `json:"network"`
	Asset             string `json:"asset"`
	Amount            string `json:"amount"` // atomic units, decimal
	PayTo             string `json:"payTo"`
	MaxTimeoutSeconds int64  `json:"maxTimeoutSeconds"`
	Extra             *Extra `json:"extra,omitempty"`
}

// PaymentRequired is the offer a 402 carries.
type PaymentRequired struct {
	X402Version int            `json:"x402Version"`
	Error       string         `json:"error,omitempty"`
	Resource    Resource       `json:"resource"`
	Accepts     []Requirements `json:"accepts"`
	Extensions  map[string]any `json:"extensions,omitempty"`
}

// Authorization is the EIP-3009 transferWithAuthorization the payer
// signed, as it travels: integers in decimal, the nonce in hex.
type Authorization struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
}

// ExactPayload is the scheme-specific part of a payment.
type ExactPayload struct {
	Authorization Authorization `json:"authorization"`
	Signature     string        `json:"signature"`
}

// PaymentPayload is what the payer sends: the accepted requirements and the
// signed authorization.
type PaymentPayload struct {
	X402Version int            `json:"x402Version"`
	Payload     ExactPayload   `json:"payload"`
	Resource    *Resource      `json:"resource,omitempty"`
	Accepted    Requirements   `json:"accepted"`
	Extensions  map[string]any `json:"extensions,omitempty"`
}

// SettlementResponse reports a settlement: on success the transaction is
// the receipt.
type SettlementResponse struct {
	Success     bool   `json:"success"`
	ErrorReason string `json:"errorReason,omitempty"`
	Transaction string `json:"transaction"`
	Network     string `json:"network"`
	Payer       string `json:"payer,omitempty"`
	Amount      string `json:"amount,omitempty"`
}

// EncodeHeader renders v as a header value: standard base64 (with padding)
// of its JSON, as the protocol's clients expect.
func EncodeHeader(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// MaxHeaderBytes bounds a PAYMENT-SIGNATURE value: a real one is about
// 1.5 KB.
const MaxHeaderBytes = 16 << 10

// ErrMalformed is wrapped by every decoding error of DecodePayment.
var ErrMalformed = errors.New("malformed payment")

// DecodePayment decodes a PAYMENT-SIGNATURE value strictly: standard
// base64 with padding, one JSON object and nothing after it, x402Version 2.
// Unknown members are ignored (the protocol grows by adding them). The
// error says what was wrong.
func DecodePayment(header []byte) (*PaymentPayload, error) {
	if len(header) > MaxHeaderBytes {
		return nil, fmt.Errorf("%w: the header is longer than %d bytes", ErrMalformed, MaxHeaderBytes)
	}
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(header)))
	n, err := base64.StdEncoding.Strict().Decode(raw, header)
	if err != nil {
		return nil, fmt.Errorf("%w: the header is not standard base64 (RFC 4648 §4, with padding): %v", ErrMalformed, err)
	}
	return DecodePaymentJSON(raw[:n])
}

// DecodePaymentJSON decodes a PaymentPayload given as JSON (the agent
// surface carries it in _meta unencoded).
func DecodePaymentJSON(raw []byte) (*PaymentPayload, error) {
	var p PaymentPayload
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: the payload is not a PaymentPayload JSON object: %v", ErrMalformed, err)
	}
	// Decoder.More only looks for another value: a stray '}' or ']' after
	// the object passes it. Anything but whitespace after the object is
	// data the payer did not mean.
	if rest := bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("%w: the payload has data after its JSON object: %q", ErrMalformed, rest[:min(len(rest), 16)])
	}
	if p.X402Version != Version {
		return nil, fmt.Errorf("%w: x402Version is %d; this server speaks version %d", ErrMalformed, p.X402Version, Version)
	}
	return &p, nil
}
