package redisstore

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/httpd/x402/eip3009"
)

// The payment half of the access state (x402.Ledger): a claimed
// authorization per (payer, nonce) until an hour after it expires, a
// receipt per settled authorization with a list of them all, and the
// payments of unknown outcome in one hash by reference.
func authName(kind string, from eip3009.Address, nonce [32]byte) string {
	return prefix + "x402:" + kind + ":{" + hex.EncodeToString(from[:]) + hex.EncodeToString(nonce[:]) + "}"
}

const (
	receiptList = prefix + "x402:receipts"
	recordHash  = prefix + "x402:records"
)

// Claim takes the authorization with SET NX, expiring an hour after
// validBefore (the validity check refuses it by then anyway): of any
// number of concurrent claims on any replicas exactly one is new.
func (s *Store) Claim(from eip3009.Address, nonce [32]byte, validBefore uint64) (bool, error) {
	until := max(int64(validBefore), s.opts.Now().Unix()) + 3600
	ctx, cancel := s.ctx()
	defer cancel()
	err := s.c.Do(ctx, s.c.B().Set().Key(authName("nonce", from, nonce)).Value("1").Nx().Pxat(time.Unix(until, 0)).Build()).Error()
	if rueidis.IsRedisNil(err) {
		return false, nil
	}
	if err != nil {
		return false, down("claiming a payment authorization", err)
	}
	return true, nil
}

// addReceipt stores the receipt KEYS[1] = ARGV[1] unless one is there,
// and lists it (KEYS[2]).
var addReceipt = rueidis.NewLuaScript(`
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
return 1`)

// AddReceipt stores a receipt under its authorization unless one is there.
func (s *Store) AddReceipt(from eip3009.Address, nonce [32]byte, r x402.Receipt) (bool, error) {
	v, err := json.Marshal(r)
	if err != nil {
		return false, err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	n, err := addReceipt.Exec(ctx, s.c, []string{authName("receipt", from, nonce), receiptList}, []string{string(v)}).AsInt64()
	if err != nil {
		return false, down("storing a receipt", err)
	}
	return n == 1, nil
}

// Settled reports whether an authorization has a receipt.
func (s *Store) Settled(from eip3009.Address, nonce [32]byte) (bool, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	n, err := s.c.Do(ctx, s.c.B().Exists().Key(authName("receipt", from, nonce)).Build()).AsInt64()
	if err != nil {
		return false, down("looking up a receipt", err)
	}
	return n == 1, nil
}

// Receipts returns every receipt, in the order stored.
func (s *Store) Receipts() ([]x402.Receipt, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	vs, err := s.c.Do(ctx, s.c.B().Lrange().Key(receiptList).Start(0).Stop(-1).Build()).AsStrSlice()
	if err != nil {
		return nil, down("listing receipts", err)
	}
	return decodeAll[x402.Receipt](vs)
}

func decodeAll[T any](vs []string) ([]T, error) {
	out := make([]T, 0, len(vs))
	for _, v := range vs {
		var r T
		if err := json.Unmarshal([]byte(v), &r); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// RecordUnknown records a payment of unknown outcome unless one is
// recorded under its reference (HSETNX).
func (s *Store) RecordUnknown(r x402.PaymentRecord) error {
	r.State = x402.StateUnknown
	v, err := json.Marshal(r)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.c.Do(ctx, s.c.B().Hsetnx().Key(recordHash).Field(r.Reference).Value(string(v)).Build()).Error(); err != nil {
		return down("recording a payment", err)
	}
	return nil
}

// Records returns the recorded payments, oldest first: those still
// unknown, or with all every one.
func (s *Store) Records(all bool) ([]x402.PaymentRecord, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	m, err := s.c.Do(ctx, s.c.B().Hvals().Key(recordHash).Build()).AsStrSlice()
	if err != nil {
		return nil, down("listing payments", err)
	}
	rs, err := decodeAll[x402.PaymentRecord](m)
	rs = slices.DeleteFunc(rs, func(r x402.PaymentRecord) bool { return !all && r.State != x402.StateUnknown })
	slices.SortFunc(rs, func(a, b x402.PaymentRecord) int {
		return cmp.Or(a.At.Compare(b.At), strings.Compare(a.Reference, b.Reference))
	})
	return rs, err
}

// Record returns the payment recorded under a reference.
func (s *Store) Record(ref string) (x402.PaymentRecord, error) {
	var r x402.PaymentRecord
	ctx, cancel := s.ctx()
	defer cancel()
	v, err := s.c.Do(ctx, s.c.B().Hget().Key(recordHash).Field(ref).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return r, fmt.Errorf("%w: %q", x402.ErrNoRecord, ref)
	}
	if err != nil {
		return r, down("reading a payment", err)
	}
	return r, json.Unmarshal([]byte(v), &r)
}

// swapRecord replaces the field ARGV[1] of KEYS[1] by ARGV[3] if it still
// holds ARGV[2].
var swapRecord = rueidis.NewLuaScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1`)

// Resolve marks a payment of unknown outcome settled or unsettled: the
// record is replaced only if no one resolved it meanwhile.
func (s *Store) Resolve(ref, state, transaction, by string) (x402.PaymentRecord, error) {
	if err := x402.CheckResolution(state, transaction); err != nil {
		return x402.PaymentRecord{}, err
	}
	for range 3 { // bounded: another resolver can win at most once
		ctx, cancel := s.ctx()
		old, err := s.c.Do(ctx, s.c.B().Hget().Key(recordHash).Field(ref).Build()).ToString()
		cancel()
		if rueidis.IsRedisNil(err) {
			return x402.PaymentRecord{}, fmt.Errorf("%w: %q", x402.ErrNoRecord, ref)
		}
		if err != nil {
			return x402.PaymentRecord{}, down("reading a payment", err)
		}
		var r x402.PaymentRecord
		if err := json.Unmarshal([]byte(old), &r); err != nil {
			return r, err
		}
		if r.State != x402.StateUnknown {
			return r, x402.ResolvedError(r)
		}
		at := s.opts.Now().UTC()
		r.State, r.Transaction, r.ResolvedAt, r.ResolvedBy = state, transaction, &at, by
		v, err := json.Marshal(r)
		if err != nil {
			return r, err
		}
		ctx, cancel = s.ctx()
		n, err := swapRecord.Exec(ctx, s.c, []string{recordHash}, []string{ref, old, string(v)}).AsInt64()
		cancel()
		if err != nil {
			return r, down("resolving a payment", err)
		}
		if n == 1 {
			return r, nil
		}
	}
	return x402.PaymentRecord{}, down("resolving a payment", fmt.Errorf("the record of %s kept changing", ref))
}

var _ x402.Ledger = (*Store)(nil)
