package redisstore

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/vspec/catalogue/httpd/access"
)

// The demo key flow: a request under its token's hash until the token is
// burned (then a trace of it, for the "already used" answer), the address
// of each issued key, and each network's requests per day.
func requestName(tok [32]byte) string {
	return prefix + "demo:req:{" + hex.EncodeToString(tok[:]) + "}"
}
func usedName(tok [32]byte) string  { return prefix + "demo:used:{" + hex.EncodeToString(tok[:]) + "}" }
func emailName(email string) string { return prefix + "demo:email:" + access.NormalizeEmail(email) }
func networkDayName(day time.Time, network string) string {
	return prefix + "demo:net:" + day.UTC().Format(time.DateOnly) + ":" + network
}

// recordRequest stores a request (ARGV[2], kept ARGV[3] ms) unless the
// address has a key (KEYS[1]) or the network's count of the day (KEYS[2])
// has reached ARGV[1].
var recordRequest = rueidis.NewLuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 'issued' end
local n = tonumber(redis.call('GET', KEYS[2]) or '0')
if n >= tonumber(ARGV[1]) then return 'too_many' end
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], 172800)
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
return 'ok'`)

// RecordDemoRequest stores a request in one script run: refused when a key
// was issued to the address or the network has made perDay requests today.
func (s *Store) RecordDemoRequest(tokenHash [32]byte, r access.DemoRequest, perDay int) error {
	v, err := json.Marshal(r)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	keys := []string{emailName(r.Email), networkDayName(r.Created, r.Network), requestName(tokenHash)}
	res, err := recordRequest.Exec(ctx, s.c, keys, []string{strconv.Itoa(perDay), string(v), ms(s.opts.RequestRetention)}).ToString()
	switch {
	case err != nil:
		return down("recording a key request", err)
	case res == "issued":
		return access.ErrKeyIssued
	case res == "too_many":
		return access.ErrTooManyToday
	}
	return nil
}

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// decrement takes one from a counter KEYS[1] that holds more than zero.
var decrement = rueidis.NewLuaScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 1 then return redis.call('DECR', KEYS[1]) end
redis.call('DEL', KEYS[1])
return 0`)

// WithdrawDemoRequest deletes a request (GETDEL: its link must not work)
// and gives its network's count of the day back.
func (s *Store) WithdrawDemoRequest(tokenHash [32]byte) error {
	ctx, cancel := s.ctx()
	defer cancel()
	v, err := s.c.Do(ctx, s.c.B().Getdel().Key(requestName(tokenHash)).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return nil
	}
	if err != nil {
		return down("withdrawing a key request", err)
	}
	var r access.DemoRequest
	if err := json.Unmarshal([]byte(v), &r); err != nil {
		return fmt.Errorf("cannot read key request: %w", err)
	}
	if err := decrement.Exec(ctx, s.c, []string{networkDayName(r.Created, r.Network)}, nil).Error(); err != nil {
		return down("withdrawing a key request", err)
	}
	return nil
}

// burn burns the token KEYS[1] with GETDEL, keeping a trace in KEYS[2] for
// ARGV[1] ms: {1, request} to the one caller that burned it, {2, request}
// to a later one, {0} for an unknown token.
var burn = rueidis.NewLuaScript(`
local v = redis.call('GETDEL', KEYS[1])
if v then
  redis.call('SET', KEYS[2], v, 'PX', ARGV[1])
  return {1, v}
end
local u = redis.call('GET', KEYS[2])
if u then return {2, u} end
return {0}`)

// issue mints a demo key for an address: the address (KEYS[1]) is taken
// with SET NX, then the key's record (KEYS[2]) is stored and listed
// (KEYS[3]). 0 when the address already has a key.
var issue = rueidis.NewLuaScript(`
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 2))
redis.call('SADD', KEYS[3], ARGV[1])
return 1`)

// restore puts back a burned token whose key could not be minted.
var restore = rueidis.NewLuaScript(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[2])
return 1`)

// RedeemDemoToken burns the token with GETDEL (of any number of concurrent
// clicks on any replicas exactly one gets the request), then mints the
// key with SET NX on the address. When the minting fails on our side the
// token is put back, so the link still works.
func (s *Store) RedeemDemoToken(tokenHash [32]byte, now time.Time, ttl time.Duration) (string, *access.Key, access.DemoRequest, error) {
	var req access.DemoRequest
	ctx, cancel := s.ctx()
	defer cancel()
	res, err := burn.Exec(ctx, s.c, []string{requestName(tokenHash), usedName(tokenHash)}, []string{ms(s.opts.RequestRetention)}).ToArray()
	if err != nil {
		return "", nil, req, down("burning an activation token", err)
	}
	state, err := res[0].AsInt64()
	if err != nil || state == 0 {
		return "", nil, req, errors.Join(err, access.ErrTokenUnusable)
	}
	v, err := res[1].ToString()
	if err != nil {
		return "", nil, req, down("burning an activation token", err)
	}
	if err := json.Unmarshal([]byte(v), &req); err != nil {
		return "", nil, req, fmt.Errorf("cannot read key request: %w", err)
	}
	if state == 2 {
		return "", nil, req, access.ErrTokenUsed
	}
	now = now.UTC()
	if now.Sub(req.Created) > ttl {
		return "", nil, req, access.ErrTokenUnusable
	}
	text, err := access.NewKeyText(access.PlanDemo)
	if err != nil {
		return "", nil, req, err
	}
	email := access.NormalizeEmail(req.Email)
	key := &access.Key{Hash: access.HashKey([]byte(text)), Plan: access.PlanDemo, State: access.StateActive, Email: email,
		Note: "self-service demo key (" + req.Company + ")", Created: now, Changed: now}
	args := append([]string{key.Hash.String()}, keyFields(key)...)
	ok, err := issue.Exec(ctx, s.c, []string{emailName(email), keyName(key.Hash), keySet}, args).AsInt64()
	if err != nil {
		// The link must keep working: put the token back (with a fresh
		// deadline: this one may be what failed).
		rctx, rcancel := s.ctx()
		defer rcancel()
		if rerr := restore.Exec(rctx, s.c, []string{requestName(tokenHash), usedName(tokenHash)}, []string{v, ms(s.opts.RequestRetention)}).Error(); rerr != nil {
			s.opts.Log.Printf("redis restore", "cannot put back an activation token whose key could not be minted (the link no longer works): %v", rerr)
		}
		return "", nil, req, down("issuing a demo key", err)
	}
	if ok == 0 {
		return "", nil, req, access.ErrKeyIssued
	}
	return text, key, req, nil
}

// PeekDemoToken reads what RedeemDemoToken would find, changing nothing:
// the pending request or the trace of a burned one (one round trip), then
// whether the address already holds a key (a second).
func (s *Store) PeekDemoToken(tokenHash [32]byte, now time.Time, ttl time.Duration) (access.DemoRequest, error) {
	var req access.DemoRequest
	ctx, cancel := s.ctx()
	defer cancel()
	res := s.c.DoMulti(ctx, s.c.B().Get().Key(requestName(tokenHash)).Build(), s.c.B().Get().Key(usedName(tokenHash)).Build())
	pending, perr := res[0].ToString()
	used, uerr := res[1].ToString()
	for _, err := range []error{perr, uerr} {
		if err != nil && !rueidis.IsRedisNil(err) {
			return req, down("looking up an activation token", err)
		}
	}
	v := cmp.Or(pending, used)
	if v == "" {
		return req, access.ErrTokenUnusable
	}
	if err := json.Unmarshal([]byte(v), &req); err != nil {
		return req, fmt.Errorf("cannot read key request: %w", err)
	}
	switch {
	case pending == "":
		return req, access.ErrTokenUsed
	case now.UTC().Sub(req.Created) > ttl:
		return req, access.ErrTokenUnusable
	}
	issued, err := s.c.Do(ctx, s.c.B().Exists().Key(emailName(req.Email)).Build()).AsInt64()
	switch {
	case err != nil:
		return req, down("looking up an activation token", err)
	case issued > 0:
		return req, access.ErrKeyIssued
	}
	return req, nil
}
