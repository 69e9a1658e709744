// Package eip3009 computes the EIP-712 digest of an EIP-3009
// TransferWithAuthorization and recovers its signer: the offline half of
// verifying an x402 `exact` payment on EVM.
//
// # Digest
//
// The signed message is the EIP-712 typed-data hash
//
//	digest          = keccak256(0x19 0x01 ‖ domainSeparator ‖ structHash)
//	domainSeparator = keccak256(domainTypeHash ‖ keccak256(name) ‖ keccak256(version) ‖ uint256(chainId) ‖ address(verifyingContract))
//	structHash      = keccak256(transferTypeHash ‖ from ‖ to ‖ value ‖ validAfter ‖ validBefore ‖ nonce)
//
// where every field is one 32-byte ABI word (addresses left-padded with
// zeros, integers big-endian) and the type hashes are keccak256 of
//
//	EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)
//	TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)
//
// For USDC the domain is the token's: name "USD Coin" (Base mainnet) or
// "USDC" (Base Sepolia), version "2", the chain id and the token contract.
//
// # Signature
//
// A signature is 65 bytes r ‖ s ‖ v with v 27 or 28, as x402 clients send it.
// Recover accepts only what USDC's on-chain ECRecover accepts: v ∈ {27, 28},
// r and s in [1, n-1] and s ≤ n/2 (low-s, so a signature has one encoding).
// Anything else is an error wrapping ErrSignature, so that a verifier can
// answer invalid_exact_evm_signature without settling a doomed transfer.
//
// # What is left to the caller
//
// Recover only says who signed the digest. A verifier must still compare
// the recovered address with Authorization.From (Address is comparable with
// ==), compare To and Value with the payment requirements, check
// ValidAfter/ValidBefore against its clock, and keep a replay cache of
// (From, Nonce) until ValidBefore: the chain rejects a reused nonce only at
// settlement. Signatures of smart wallets (EIP-1271, ERC-6492) need the chain
// and are out of scope.
//
// The package imports the standard library, golang.org/x/crypto/sha3
// (legacy Keccak-256) and github.com/decred/dcrd/dcrec/secp256k1/v4 (public
// key recovery).
package eip3009
