// Package x402test pays x402 offers in tests: a payer with a local
// secp256k1 key that signs EIP-3009 authorizations as the official clients
// do. It holds no funds and talks to no chain.
package x402test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"

	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/httpd/x402/eip3009"
)

// Payer signs payments with one key.
type Payer struct {
	key     *secp256k1.PrivateKey
	Address eip3009.Address
}

// NewPayer returns a payer with the private key given in hex (with or
// without 0x), or a fresh key when hexKey is empty.
func NewPayer(hexKey string) (*Payer, error) {
	var key *secp256k1.PrivateKey
	if hexKey == "" {
		var err error
		if key, err = secp256k1.GeneratePrivateKey(); err != nil {
			return nil, err
		}
	} else {
		b, err := hex.DecodeString(trim0x(hexKey))
		if err != nil || len(b) != 32 {
			return nil, fmt.Errorf("x402test: the key must be 32 bytes of hex")
		}
		key = secp256k1.PrivKeyFromBytes(b)
	}
	pub := key.PubKey().SerializeUncompressed()
	h := sha3.NewLegacyKeccak256()
	h.Write(pub[1:])
	var a eip3009.Address
	copy(a[:], h.Sum(nil)[12:])
	return &Payer{key: key, Address: a}, nil
}

func trim0x(s string) string {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s[2:]
	}
	return s
}

// Sign returns the r‖s‖v signature of a digest, v in {27, 28}, low s.
func (p *Payer) Sign(digest [32]byte) [65]byte {
	compact := ecdsa.SignCompact(p.key, digest[:], false) // [27+recid] ‖ r ‖ s
	var sig [65]byte
	copy(sig[:64], compact[1:])
	sig[64] = compact[0]
	return sig
}

// Pay builds the payment of the first requirement of an offer as
// @x402/fetch 2.27 does: validAfter 0, validBefore now plus the timeout,
// a random nonce, signed under the requirement's EIP-712 domain.
func (p *Payer) Pay(offer x402.PaymentRequired, now time.Time) (*x402.PaymentPayload, error) {
	if len(offer.Accepts) == 0 {
		return nil, fmt.Errorf("x402test: the offer accepts nothing")
	}
	req := offer.Accepts[0]
	var nonce [32]byte
	rand.Read(nonce[:])
	auth := x402.Authorization{
		From:        p.Address.String(),
		To:          req.PayTo,
		Value:       req.Amount,
		ValidAfter:  "0",
		ValidBefore: strconv.FormatInt(now.Unix()+req.MaxTimeoutSeconds, 10),
		Nonce:       "0x" + hex.EncodeToString(nonce[:]),
	}
	return p.PayAuthorization(offer, auth)
}

// PayAuthorization signs a given authorization for the first requirement
// of an offer, for tests that need a particular (perhaps wrong) one.
func (p *Payer) PayAuthorization(offer x402.PaymentRequired, auth x402.Authorization) (*x402.PaymentPayload, error) {
	req := offer.Accepts[0]
	a, err := eip3009.ParseAuthorization(auth.From, auth.To, auth.Value, auth.ValidAfter, auth.ValidBefore, auth.Nonce)
	if err != nil {
		return nil, err
	}
	domain, err := Domain(req)
	if err != nil {
		return nil, err
	}
	sig := p.Sign(a.Digest(domain))
	res := offer.Resource
	return &x402.PaymentPayload{
		X402Version: x402.Version,
		Payload:     x402.ExactPayload{Authorization: auth, Signature: "0x" + hex.EncodeToString(sig[:])},
		Resource:    &res,
		Accepted:    req,
	}, nil
}

// Domain returns the EIP-712 domain a requirement's authorizations are
// signed under.
func Domain(req x402.Requirements) (eip3009.Domain, error) {
	var chain uint64
	if _, err := fmt.Sscanf(req.Network, "eip155:%d", &chain); err != nil {
		return eip3009.Domain{}, fmt.Errorf("x402test: network %q: %v", req.Network, err)
	}
	contract, err := eip3009.ParseAddress(req.Asset)
	if err != nil || req.Extra == nil {
		return eip3009.Domain{}, fmt.Errorf("x402test: the requirement has no usable asset domain")
	}
	return eip3009.Domain{Name: req.Extra.Name, Version: req.Extra.Version, ChainID: chain, VerifyingContract: contract}, nil
}

// Header returns a payment as a PAYMENT-SIGNATURE value.
func Header(p *x402.PaymentPayload) string {
	h, err := x402.EncodeHeader(p)
	if err != nil {
		panic(err)
	}
	return h
}
