package x402

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/vspec/catalogue/httpd/ratelog"
	"github.com/vspec/catalogue/httpd/x402/eip3009"
)

// Networks and assets known by name. Other EVM networks work when the
// asset and its EIP-712 domain are configured.
const (
	NetworkBase        = "eip155:8453"
	NetworkBaseSepolia = "eip155:84532"
)

// knownAssets are the USDC deployments the official clients pay without
// extra configuration, with their EIP-712 domains.
var knownAssets = map[string]struct{ asset, name, version string }{
	NetworkBase:        {"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "USD Coin", "2"},
	NetworkBaseSepolia: {"0x036CbD53842c5426634e7929541eC2318f3dCF7e", "USDC", "2"},
}

// Config is how payments are taken.
type Config struct {
	// PayTo is the recipient address. Required.
	PayTo string
	// Network is a CAIP-2 EVM network. Default NetworkBase.
	Network string
	// Asset is the token contract; AssetName and AssetVersion its EIP-712
	// domain. Defaults: USDC of a known network.
	Asset, AssetName, AssetVersion string
	// MaxTimeout is how long a payment may take (maxTimeoutSeconds).
	// Default 60 s.
	MaxTimeout time.Duration
	// ClockMargin is the tolerance for a payer's clock running ahead in
	// validAfter. Default 5 s.
	ClockMargin time.Duration
	// SettleTimeout is the longest the caller of Settle waits for the
	// facilitator's answer before the outcome counts as unknown (the
	// caller may set an earlier deadline: its write timeout). Default
	// DefaultSettleTimeout.
	SettleTimeout time.Duration
	// Facilitator verifies and settles. Required.
	Facilitator Facilitator
	// Nonces records every accepted authorization so it is never accepted
	// again. Required.
	Nonces Ledger
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Gate checks payments for prices and settles them.
type Gate struct {
	cfg    Config
	domain eip3009.Domain
	payTo  eip3009.Address
	local  bool // the facilitator is the built-in one: its verify repeats Gate's checks
}

// DefaultSettleTimeout is the default of Config.SettleTimeout: inside the
// default 10 s write timeout of the server, with room to answer.
const DefaultSettleTimeout = 7 * time.Second

// minValidity is how long an authorization must stay valid for settlement
// to reach the chain in time (the SDKs use 6 s).
const minValidity = 6 * time.Second

// New checks cfg and returns its gate.
func New(cfg Config) (*Gate, error) {
	if cfg.Network == "" {
		cfg.Network = NetworkBase
	}
	if known, ok := knownAssets[cfg.Network]; ok && cfg.Asset == "" {
		cfg.Asset, cfg.AssetName, cfg.AssetVersion = known.asset, known.name, known.version
	}
	if cfg.MaxTimeout == 0 {
		cfg.MaxTimeout = 60 * time.Second
	}
	if cfg.ClockMargin == 0 {
		cfg.ClockMargin = 5 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SettleTimeout == 0 {
		cfg.SettleTimeout = DefaultSettleTimeout
	}
	if cfg.SettleTimeout < 0 {
		return nil, fmt.Errorf("x402: the settlement timeout %v is negative", cfg.SettleTimeout)
	}
	if cfg.Facilitator == nil || cfg.Nonces == nil {
		return nil, errors.New("x402: a facilitator and a nonce store are required")
	}
	if cfg.MaxTimeout < 10*time.Second || cfg.MaxTimeout%time.Second != 0 {
		return nil, fmt.Errorf("x402: the payment timeout %v must be whole seconds, at least 10", cfg.MaxTimeout)
	}
	payTo, err := eip3009.ParseAddress(cfg.PayTo)
	if err != nil {
		return nil, fmt.Errorf("x402: payTo: %w", err)
	}
	domain, err := domainOf(cfg.Network, cfg.Asset, cfg.AssetName, cfg.AssetVersion)
	if err != nil {
		return nil, err
	}
	_, local := cfg.Facilitator.(*Local)
	return &Gate{cfg: cfg, domain: domain, payTo: payTo, local: local}, nil
}

// domainOf returns the EIP-712 domain an asset's authorizations are signed
// under.
func domainOf(network, asset, name, version string) (eip3009.Domain, error) {
	chain, ok := strings.CutPrefix(network, "eip155:")
	id, err := strconv.ParseUint(chain, 10, 64)
	if !ok || err != nil || id == 0 {
		return eip3009.Domain{}, fmt.Errorf("x402: network %q is not an EVM network eip155:<chain id>", network)
	}
	contract, err := eip3009.ParseAddress(asset)
	if err != nil {
		return eip3009.Domain{}, fmt.Errorf("x402: asset: %w", err)
	}
	if name == "" || version == "" {
		return eip3009.Domain{}, fmt.Errorf("x402: the asset's EIP-712 name and version are required for network %s", network)
	}
	return eip3009.Domain{Name: name, Version: version, ChainID: id, VerifyingContract: contract}, nil
}

// Settles says in words who settles payments: the built-in facilitator
// records receipts and moves nothing on a chain.
func (g *Gate) Settles() string {
	if g.local {
		return "On this server payments are verified and recorded by the built-in local facilitator: receipts (transaction `local:0x…`) are kept in the server's state and nothing is settled on any chain."
	}
	return "Payments are verified and settled on chain by the configured facilitator; the transaction hash is the receipt."
}

// USD renders an amount in atomic units of a 6-decimal dollar stablecoin
// as dollars: 5000 is "0.005".
func USD(atomic int64) string { return strconv.FormatFloat(float64(atomic)/1e6, 'f', -1, 64) }

// Network returns the network payments are taken on.
func (g *Gate) Network() string { return g.cfg.Network }

// Offer returns the requirements of a price in atomic units of the asset.
func (g *Gate) Offer(amount int64) Requirements {
	return Requirements{
		Scheme:            "exact",
		Network:           g.cfg.Network,
		Asset:             g.domain.VerifyingContract.String(),
		Amount:            strconv.FormatInt(amount, 10),
		PayTo:             g.payTo.String(),
		MaxTimeoutSeconds: int64(g.cfg.MaxTimeout / time.Second),
		Extra:             &Extra{Name: g.domain.Name, Version: g.domain.Version},
	}
}

// Required returns the offer a 402 carries for a resource at a price;
// reason, when set, says why an earlier payment was refused.
func (g *Gate) Required(res Resource, amount int64, reason string) PaymentRequired {
	return PaymentRequired{X402Version: Version, Error: reason, Resource: res, Accepts: []Requirements{g.Offer(amount)}}
}

// Rejection is a payment refused for a reason the payer can fix by paying
// again: the reason is a protocol error code, the detail says it in words.
type Rejection struct {
	Reason string
	Detail string
}

func (r *Rejection) Error() string { return r.Reason + ": " + r.Detail }

func reject(reason, format string, args ...any) *Rejection {
	return &Rejection{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// ErrFacilitator is wrapped by errors of an unreachable or failing
// facilitator: a failure on the server's side, not the payer's.
var ErrFacilitator = errors.New("the payment facilitator is unavailable")

// Payment is a payment that passed verification, ready to be settled once
// the request was served.
type Payment struct {
	Payload      *PaymentPayload
	Requirements Requirements
	Payer        string
}

// Verify checks a payment for a price: the offer it accepted, then the
// authorization offline (recipient, amount, validity window, signature),
// then that it was never accepted before (recording it), then with the
// facilitator. A payment the payer must redo is a *Rejection; a facilitator
// failure wraps ErrFacilitator.
func (g *Gate) Verify(ctx context.Context, p *PaymentPayload, amount int64) (*Payment, error) {
	offer := g.Offer(amount)
	if rej := matchOffer(&p.Accepted, &offer); rej != nil {
		return nil, rej
	}
	auth, rej := checkExact(p, &offer, g.domain, g.cfg.Now(), g.cfg.ClockMargin, g.cfg.MaxTimeout)
	if rej != nil {
		return nil, rej
	}
	fresh, err := g.cfg.Nonces.Claim(auth.From, auth.Nonce, auth.ValidBefore.Uint64())
	if err != nil {
		ratelog.Default.Printf("x402 verify", "recording %s's authorization: %v; answered as the facilitator unavailable", auth.From, err)
		return nil, fmt.Errorf("%w: recording the authorization: %v", ErrFacilitator, err)
	}
	if !fresh {
		return nil, reject("invalid_exact_evm_nonce_already_used", "this authorization (payer %s, nonce %s) was already used; sign a new one", auth.From, p.Payload.Authorization.Nonce)
	}
	pay := &Payment{Payload: p, Requirements: offer, Payer: auth.From.String()}
	if g.local {
		return pay, nil // the built-in facilitator's verify is the check above
	}
	v, err := g.cfg.Facilitator.Verify(ctx, p, offer)
	if err != nil {
		ratelog.Default.Printf("x402 verify", "verifying %s's payment: %v; nothing was charged", pay.Payer, err)
		return nil, err
	}
	if !v.IsValid {
		detail := v.InvalidMessage
		if detail == "" {
			detail = "the facilitator refused the payment"
		}
		return nil, reject(v.InvalidReason, "%s", detail)
	}
	return pay, nil
}

// matchOffer checks that the payer accepted exactly what was offered.
func matchOffer(got, want *Requirements) *Rejection {
	switch {
	case got.Scheme != want.Scheme:
		return reject("unsupported_scheme", "the payment is for scheme %q; this server takes %q", got.Scheme, want.Scheme)
	case got.Network != want.Network:
		return reject("invalid_network", "the payment is on network %q; this server takes %s", got.Network, want.Network)
	case !strings.EqualFold(got.Asset, want.Asset):
		return reject("invalid_payment_requirements", "the payment is in asset %s; this server takes %s", got.Asset, want.Asset)
	case !strings.EqualFold(got.PayTo, want.PayTo):
		return reject("invalid_payment_requirements", "the payment accepted payTo %s; this server's is %s", got.PayTo, want.PayTo)
	case got.Amount != want.Amount:
		return reject("invalid_payment_requirements", "the payment accepted an amount of %s; this operation costs %s atomic units", got.Amount, want.Amount)
	case got.Extra == nil || got.Extra.Name == "" || got.Extra.Version == "":
		return reject("invalid_exact_evm_missing_eip712_domain", "accepted.extra must carry the asset's EIP-712 name and version")
	case got.Extra.Name != want.Extra.Name || got.Extra.Version != want.Extra.Version:
		return reject("invalid_payment_requirements", "accepted.extra names the EIP-712 domain %q version %q; the asset's is %q version %q", got.Extra.Name, got.Extra.Version, want.Extra.Name, want.Extra.Version)
	}
	return nil
}

// checkExact checks an exact-scheme authorization against requirements
// offline: well-formed, to the recipient, for the amount, valid now and
// for long enough, signed by its payer under domain.
func checkExact(p *PaymentPayload, req *Requirements, domain eip3009.Domain, now time.Time, margin, maxTimeout time.Duration) (eip3009.Authorization, *Rejection) {
	a := &p.Payload.Authorization
	auth, err := eip3009.ParseAuthorization(a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce)
	if err != nil {
		return auth, reject("invalid_payload", "payload.authorization: %v", err)
	}
	sig, err := eip3009.ParseSignature(p.Payload.Signature)
	if err != nil {
		return auth, reject("invalid_exact_evm_signature", "payload.signature: %v", err)
	}
	payTo, err := eip3009.ParseAddress(req.PayTo)
	if err != nil || auth.To != payTo {
		return auth, reject("invalid_exact_evm_recipient_mismatch", "the authorization pays %s; the recipient is %s", a.To, req.PayTo)
	}
	want, ok := new(big.Int).SetString(req.Amount, 10)
	if !ok || auth.Value.Cmp(want) != 0 {
		return auth, reject("invalid_exact_evm_payload_authorization_value_mismatch", "the authorization's value is %s; the price is exactly %s", a.Value, req.Amount)
	}
	unix := big.NewInt(now.Unix())
	if auth.ValidAfter.Cmp(big.NewInt(now.Add(margin).Unix())) > 0 {
		return auth, reject("invalid_exact_evm_payload_authorization_valid_after", "the authorization is valid only after %s (Unix time %s); it is %d now", a.ValidAfter, a.ValidAfter, unix)
	}
	if auth.ValidBefore.Cmp(big.NewInt(now.Add(minValidity).Unix())) < 0 {
		return auth, reject("invalid_exact_evm_payload_authorization_valid_before", "the authorization expires at Unix time %s, less than %v from now (%d)", a.ValidBefore, minValidity, unix)
	}
	// An authorization valid for much longer than the offer's timeout would
	// have to be remembered that long to refuse its replay.
	if limit := now.Add(maxTimeout + 5*time.Minute).Unix(); auth.ValidBefore.Cmp(big.NewInt(limit)) > 0 {
		return auth, reject("invalid_exact_evm_payload_authorization_valid_before", "the authorization is valid until Unix time %s; it may not outlast the payment timeout of %d s by more than 5 minutes", a.ValidBefore, req.MaxTimeoutSeconds)
	}
	signer, err := eip3009.Recover(auth.Digest(domain), sig)
	if err != nil {
		return auth, reject("invalid_exact_evm_signature", "%v", err)
	}
	if signer != auth.From {
		return auth, reject("invalid_exact_evm_signature", "the signature is not %s's for this authorization under the %s (version %s) domain on chain %d", a.From, domain.Name, domain.Version, domain.ChainID)
	}
	return auth, nil
}
