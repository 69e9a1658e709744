package redisstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/ratelog"
	"github.com/vspec/catalogue/httpd/tick"
)

// Options configures the store.
type Options struct {
	// Client is the connection: rueidis.ParseURL of the -store URL (see
	// ClientOption). Required.
	Client rueidis.ClientOption
	// Timeout bounds every store call. Default 50 ms.
	Timeout time.Duration
	// CacheTTL is how long a replica keeps a key record the server has not
	// invalidated. Default 1 minute: Redis invalidates a changed key at
	// once, the TTL only bounds a record whose invalidation was lost with
	// its connection (rueidis then drops the whole cache anyway).
	CacheTTL time.Duration
	// RequestRetention is how long a demo key request and the trace of a
	// used activation token are kept. Default 30 days; links expire before.
	RequestRetention time.Duration
	// Now is the clock of key dates (metering uses Redis' clock). Default
	// time.Now.
	Now func() time.Time
	// Log receives the failures of releases (a count that stays too high)
	// and the changes of Reachable. Default ratelog.Default.
	Log *ratelog.Logger
	// ProbeEvery is how often the store PINGs Redis in the background for
	// Reachable, each PING with that long to answer. Default 1 s.
	ProbeEvery time.Duration
}

// SetDefaults fills the zero fields.
func (o *Options) SetDefaults() {
	o.Timeout = cmp.Or(o.Timeout, 50*time.Millisecond)
	o.CacheTTL = cmp.Or(o.CacheTTL, time.Minute)
	o.RequestRetention = cmp.Or(o.RequestRetention, 30*24*time.Hour)
	o.ProbeEvery = cmp.Or(o.ProbeEvery, time.Second)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = ratelog.Default
	}
}

// ClientOption parses a -store URL, redis://[USER:PASSWORD@]HOST:PORT/DB
// or rediss:// for TLS, into the options of a rueidis client. Other
// schemes are an error naming the forms accepted. Its query parameters:
// ca=FILE (rediss:// only), the PEM certificates of the authorities that
// sign the server's certificate, instead of the system's; dial_timeout=D;
// client_name=NAME (CLIENT LIST). Any other parameter is an error, so that
// none of rueidis' (skip_verify, master_set, addr, …) is taken silently.
func ClientOption(url string) (rueidis.ClientOption, error) {
	opt, ca, err := parseURL(url)
	if err != nil || ca == "" {
		return opt, err
	}
	pool, err := loadCA(ca)
	if err != nil {
		return opt, err
	}
	opt.TLSConfig.RootCAs = pool
	return opt, nil
}

// urlParams are the query parameters a -store URL may have.
var urlParams = map[string]bool{"ca": true, "dial_timeout": true, "client_name": true}

// parseURL is ClientOption without reading the CA file, whose path it
// returns.
func parseURL(url string) (opt rueidis.ClientOption, ca string, err error) {
	const want = "want redis://[USER:PASSWORD@]HOST:PORT/DB or rediss://…[?ca=FILE] for TLS"
	// The parsers' errors may quote the URL, which may hold a password.
	var clean string // the URL as given to rueidis
	hide := func(err error) string {
		msg := err.Error()
		for _, s := range []string{url, clean} {
			if s != "" {
				msg = strings.ReplaceAll(msg, s, "(the URL)")
			}
		}
		return msg
	}
	u, err := neturl.Parse(url)
	if err != nil {
		return opt, "", fmt.Errorf("%s (%s)", want, hide(err))
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "redis" && scheme != "rediss" {
		return opt, "", fmt.Errorf("%s, not the scheme %q", want, u.Scheme)
	}
	if u.Hostname() == "" {
		return opt, "", fmt.Errorf("%s: the host is missing", want)
	}
	q, err := neturl.ParseQuery(u.RawQuery)
	if err != nil {
		return opt, "", fmt.Errorf("%s: the query does not parse", want)
	}
	for name, vs := range q {
		if !urlParams[name] {
			return opt, "", fmt.Errorf("%s: unknown parameter %q (accepted: ca, dial_timeout, client_name)", want, name)
		}
		if len(vs) != 1 {
			return opt, "", fmt.Errorf("%s: parameter %q given %d times", want, name, len(vs))
		}
	}
	if ca = q.Get("ca"); q.Has("ca") && (scheme != "rediss" || ca == "") {
		return opt, "", fmt.Errorf("%s: ca=FILE names the authorities of a TLS server, so it needs rediss:// and a file", want)
	}
	// rueidis reads the rest; without the ca parameter, which it ignores.
	q.Del("ca")
	u.RawQuery = q.Encode()
	clean = u.String()
	opt, err = rueidis.ParseURL(clean)
	if err != nil {
		return opt, "", fmt.Errorf("%s (%s)", want, hide(err))
	}
	if len(opt.InitAddress) != 1 {
		return opt, "", fmt.Errorf("want one Redis address, got %d", len(opt.InitAddress))
	}
	return opt, ca, nil
}

// loadCA reads the PEM certificates of file (at most 1 MiB) into a pool.
func loadCA(file string) (*x509.CertPool, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("the -store URL's ca=: %w", err)
	}
	defer f.Close()
	pem, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("the -store URL's ca=: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("the -store URL's ca=%s holds no PEM certificate", file)
	}
	return pool, nil
}

// RedactedURL is a -store URL with its password replaced, for messages and
// printed commands.
func RedactedURL(url string) string {
	if u, err := neturl.Parse(url); err == nil {
		return u.Redacted()
	}
	return "(not a URL)"
}

// Store is the access state in Redis. It is safe for concurrent use.
type Store struct {
	c    rueidis.Client
	opts Options
	rel  func(k *access.Key, wins [access.NumWindows]uint32)
	args sync.Map // access.Limits → their script arguments (limitArgs)
	// decoded holds the last key decoded in each slot (by its hash's first
	// two bytes), with the fields it was decoded from.
	decoded [decodedSlots]atomic.Pointer[decoded]
	// seen holds the hashes of the keys Lookup found lately.
	seen *access.KeyHashes
	// unreachable is why the last background PING failed; nil when it
	// was answered.
	unreachable atomic.Pointer[string]
	stop, done  chan struct{}
}

// Open connects to Redis and checks that it answers.
func Open(opts Options) (*Store, error) {
	opts.SetDefaults()
	co := opts.Client
	// A connection that cannot be made fails the call at its deadline
	// rather than after the default dial timeout.
	co.Dialer.Timeout = cmp.Or(co.Dialer.Timeout, time.Second)
	c, err := rueidis.NewClient(co)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to Redis at %v: %w", co.InitAddress, err)
	}
	s := &Store{c: c, opts: opts, seen: access.NewKeyHashes(), stop: make(chan struct{}), done: make(chan struct{})}
	s.rel = s.release
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Do(ctx, c.B().Ping().Build()).Error(); err != nil {
		c.Close()
		return nil, fmt.Errorf("the Redis at %v does not answer PING: %w", co.InitAddress, err)
	}
	// Redis Cluster is refused: several scripts write keys that hash to
	// different slots (a key's record and the list of keys, a demo request,
	// its address and its network's count, a receipt and the list of
	// receipts), which a Cluster rejects (CROSSSLOT).
	info, _ := c.Do(ctx, c.B().Info().Section("cluster").Build()).ToString()
	if c.Mode() == rueidis.ClientModeCluster || strings.Contains(info, "cluster_enabled:1") {
		c.Close()
		return nil, fmt.Errorf("the Redis at %v is a Redis Cluster node, which is not supported: the access state's scripts write keys of several hash slots at once; use one Redis primary (docs/fleet.md)", co.InitAddress)
	}
	go s.probe()
	return s, nil
}

// Close stops the probe and closes the connections.
func (s *Store) Close() error {
	close(s.stop)
	<-s.done
	s.c.Close()
	return nil
}

// Reachable reports whether Redis answered the store's last background
// PING (sent every Options.ProbeEvery on the connection requests use):
// nil if it did, else why not. It reads a cached result, so probes
// (/readyz) may call it as often as they like; a change is seen within
// two ProbeEvery.
func (s *Store) Reachable() error {
	if why := s.unreachable.Load(); why != nil {
		return fmt.Errorf("%w: Redis did not answer PING: %s", access.ErrUnavailable, *why)
	}
	return nil
}

// probe PINGs Redis every ProbeEvery until Close, and records the result
// for Reachable, logging each change.
func (s *Store) probe() {
	defer close(s.done)
	tick.Every(s.opts.ProbeEvery, s.stop, s.ping)
}

// ping is one probe.
func (s *Store) ping() {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.ProbeEvery)
	err := s.c.Do(ctx, s.c.B().Ping().Build()).Error()
	cancel()
	was := s.unreachable.Load()
	switch {
	case err != nil:
		why := err.Error()
		s.unreachable.Store(&why)
		if was == nil {
			s.opts.Log.Printf("redis unreachable", "Redis does not answer PING (/readyz answers 503 until it does): %s", why)
		}
	case was != nil:
		s.unreachable.Store(nil)
		s.opts.Log.Printf("redis reachable", "Redis answers PING again (/readyz ready)")
	}
}

// Client returns the store's Redis client, for other state kept beside the
// access state (the snapshot rollout).
func (s *Store) Client() rueidis.Client { return s.c }

// ctx returns the deadline of one store call.
func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.opts.Timeout)
}

// down wraps a failure of Redis as access.ErrUnavailable.
func down(op string, err error) error {
	return fmt.Errorf("%w: %s: %v", access.ErrUnavailable, op, err)
}

// Key names. A key's records share the hash tag {HASH} so that a script
// over them stays legal on Redis Cluster.
const prefix = "cat:"

func keyName(h access.Hash) string { return prefix + "key:{" + h.String() + "}" }

const keySet = prefix + "keys"

// secretName holds the fleet's token and cursor secret.
const secretName = prefix + "ids.secret"

// SharedSecret returns the fleet's secret of public tokens and cursors:
// the one stored in Redis, or a new one of size random bytes (hex) stored
// with SET NX, so that every replica uses the first one written.
func (s *Store) SharedSecret(size int) ([]byte, error) {
	raw := make([]byte, size)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("cannot draw a token secret: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.c.Do(ctx, s.c.B().Set().Key(secretName).Value(hex.EncodeToString(raw)).Nx().Build()).Error(); err != nil && !rueidis.IsRedisNil(err) {
		return nil, down("storing the token secret", err)
	}
	v, err := s.c.Do(ctx, s.c.B().Get().Key(secretName).Build()).ToString()
	if err != nil {
		return nil, down("reading the token secret", err)
	}
	return []byte(v), nil
}

// Keys.

// Lookup returns the key a client sent, through the client-side cache.
func (s *Store) Lookup(key []byte) (*access.Key, error) {
	return s.seen.Find(key, s.lookupHash)
}

// lookupHash returns the key of a hash, through the client-side cache.
func (s *Store) lookupHash(h access.Hash) (*access.Key, error) { return s.get(h, true) }

// recordFields are the fields of a key's hash, in the order decodeKey
// reads them.
var recordFields = []string{"plan", "state", "email", "note", "created", "changed"}

// decoded is a key decoded from the fields of its record, with the names
// of its record and its windows.
type decoded struct {
	fields      [6]string
	key         *access.Key
	name, usage string
}

// slot returns the slot of s.decoded that holds h's key when it was the
// last decoded there.
func (s *Store) slot(h access.Hash) *atomic.Pointer[decoded] {
	return &s.decoded[(uint(h[0])<<8|uint(h[1]))%decodedSlots]
}

// names returns the names of h's record and windows.
func (s *Store) names(h access.Hash) (name, usage string) {
	if d := s.slot(h).Load(); d != nil && d.key.Hash == h {
		return d.name, d.usage
	}
	return keyName(h), usageName(h)
}

// decodedSlots is the size of Store.decoded.
const decodedSlots = 4096

func (s *Store) get(h access.Hash, cached bool) (*access.Key, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	name, usage := s.names(h)
	var res rueidis.RedisResult
	if cached {
		res = s.c.DoCache(ctx, s.c.B().Hmget().Key(name).Field(recordFields...).Cache(), s.opts.CacheTTL)
	} else {
		res = s.c.Do(ctx, s.c.B().Hmget().Key(name).Field(recordFields...).Build())
	}
	f, found, err := fieldsOf(res)
	if err != nil {
		return nil, down("reading a key", err)
	}
	if !found {
		return nil, access.ErrNotFound
	}
	// A record the cache holds unchanged (the same strings) decodes to the
	// key decoded last time: no parsing on the request path.
	slot := s.slot(h)
	if d := slot.Load(); d != nil && d.key.Hash == h && d.fields == f {
		return d.key, nil
	}
	k, err := decodeKey(h, f)
	if err != nil {
		return nil, err
	}
	slot.Store(&decoded{fields: f, key: k, name: name, usage: usage})
	return k, nil
}

// fieldsOf reads the answer of HMGET recordFields: found is false when the
// key has no record.
func fieldsOf(res rueidis.RedisResult) (f [6]string, found bool, err error) {
	vs, err := res.ToArray()
	if err != nil {
		return f, false, err
	}
	if len(vs) != len(f) {
		return f, false, fmt.Errorf("HMGET answered %d fields, want %d", len(vs), len(f))
	}
	if vs[0].IsNil() {
		return f, false, nil
	}
	for i := range vs {
		if vs[i].IsNil() {
			continue
		}
		if f[i], err = vs[i].ToString(); err != nil {
			return f, false, err
		}
	}
	return f, true, nil
}

// decodeKey reads the fields of a key's hash, in the order of
// recordFields.
func decodeKey(h access.Hash, f [6]string) (*access.Key, error) {
	r := access.Record{Plan: f[0], State: f[1], Email: f[2], Note: f[3]}
	var err1, err2 error
	r.Created, err1 = time.Parse(time.RFC3339Nano, f[4])
	r.Changed, err2 = time.Parse(time.RFC3339Nano, f[5])
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("key record %s: %w", h.String()[:8], err)
	}
	return access.FromRecord(h, r)
}

// keyFields are the HSET arguments of a key's record.
func keyFields(k *access.Key) []string {
	r := k.Record()
	return []string{"plan", r.Plan, "state", r.State, "email", r.Email, "note", r.Note,
		"created", r.Created.Format(time.RFC3339Nano), "changed", r.Changed.Format(time.RFC3339Nano)}
}

var createKey = rueidis.NewLuaScript(`
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], ARGV[1])
return 1`)

// Create stores a new key and returns it; the text is never stored.
func (s *Store) Create(p access.Plan, state access.State, email, note string) (string, *access.Key, error) {
	if p.String() == "" {
		return "", nil, fmt.Errorf("unknown plan %d", p)
	}
	text, err := access.NewKeyText(p)
	if err != nil {
		return "", nil, err
	}
	now := s.opts.Now().UTC()
	k := &access.Key{Hash: access.HashKey([]byte(text)), Plan: p, State: state, Email: access.NormalizeEmail(email), Note: note, Created: now, Changed: now}
	ctx, cancel := s.ctx()
	defer cancel()
	args := append([]string{k.Hash.String()}, keyFields(k)...)
	if err := createKey.Exec(ctx, s.c, []string{keyName(k.Hash), keySet}, args).Error(); err != nil {
		return "", nil, down("storing a key", err)
	}
	return text, k, nil
}

var setState = rueidis.NewLuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'changed', ARGV[2])
return 1`)

// SetState changes the state of the key ref names. Redis invalidates the
// record in every replica's cache.
func (s *Store) SetState(ref string, state access.State) (*access.Key, error) {
	k, err := s.Find(ref)
	if err != nil {
		return nil, err
	}
	n := *k
	n.State, n.Changed = state, s.opts.Now().UTC()
	ctx, cancel := s.ctx()
	defer cancel()
	ok, err := setState.Exec(ctx, s.c, []string{keyName(k.Hash)}, []string{state.String(), n.Changed.Format(time.RFC3339Nano)}).AsInt64()
	if err != nil {
		return nil, down("changing a key", err)
	}
	if ok == 0 {
		return nil, access.ErrNotFound
	}
	return &n, nil
}

// Find returns the key a reference names: the key text itself, or at least
// 8 hex digits of the start of its hash.
func (s *Store) Find(ref string) (*access.Key, error) {
	if h, ok := access.RefHash(ref); ok {
		return s.get(h, false)
	}
	keys, err := s.List()
	if err != nil {
		return nil, err
	}
	return access.FindPrefix(keys, ref)
}

// List returns every key, oldest first.
func (s *Store) List() ([]*access.Key, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*s.opts.Timeout+time.Second)
	defer cancel()
	hashes, err := s.c.Do(ctx, s.c.B().Smembers().Key(keySet).Build()).AsStrSlice()
	if err != nil {
		return nil, down("listing keys", err)
	}
	cmds := make(rueidis.Commands, 0, len(hashes))
	hs := make([]access.Hash, 0, len(hashes))
	for _, x := range hashes {
		var h access.Hash
		if b, err := hex.DecodeString(x); err != nil || len(b) != len(h) {
			return nil, fmt.Errorf("the key set holds %q, not a key hash", x)
		} else {
			copy(h[:], b)
		}
		hs = append(hs, h)
		cmds = append(cmds, s.c.B().Hmget().Key(keyName(h)).Field(recordFields...).Build())
	}
	var out []*access.Key
	for i, r := range s.c.DoMulti(ctx, cmds...) {
		f, found, err := fieldsOf(r)
		if err != nil {
			return nil, down("listing keys", err)
		}
		if !found {
			continue
		}
		k, err := decodeKey(hs[i], f)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	access.SortKeys(out)
	return out, nil
}

// Metering. A key's three windows are one string, usageName, packed with
// Lua's struct library as eight little-endian doubles (usageFormat): the
// minute's number and count, the day's, the calendar month's, and the
// month's first and past-the-end seconds, so that the month, whose bounds
// take the civil-date arithmetic of monthLua, is worked out once a month
// per key rather than on every call. The string expires an hour after its
// month ends. One script run reads it (GET) and writes it with its expiry
// (SET PXAT): two commands besides the clock's TIME. (A hash per window
// took ten commands and three times Redis' CPU per call; bench/RESULTS.md,
// issue 18.) Doubles hold counts exactly up to 2^53.

// usageFormat is the struct format of a key's windows: minute, minute
// count, day, day count, month, month count, month start, month end.
const usageFormat = "'<dddddddd'"

// nowLua is where the scripts read the time: Redis' clock, so that every
// replica counts in the same windows whatever its own clock says.
const nowLua = `tonumber(redis.call('TIME')[1])`

// meterLua counts one call in the windows of KEYS[1] with the limits
// ARGV[1] (minute), ARGV[2] (day) and ARGV[3] (month), at the second NOW.
// When a window would pass its limit nothing is counted and the answer is
// {0, window, seconds until it ends}; otherwise {1, minute count, minute,
// day count, day, month count, month}.
const meterLua = `
local now = NOW
local raw = redis.call('GET', KEYS[1])
local mw, mn, dw, dn, Mw, Mn, ms, me = 0, 0, 0, 0, 0, 0, 0, 0
if raw then mw, mn, dw, dn, Mw, Mn, ms, me = struct.unpack(` + usageFormat + `, raw) end
local m, d = math.floor(now / 60), math.floor(now / 86400)
if now < ms or now >= me then
` + monthLua + `
  Mw, ms, me = month(now)
  Mn = 0
end
if mw ~= m then mw, mn = m, 0 end
if dw ~= d then dw, dn = d, 0 end
if mn >= tonumber(ARGV[1]) then return {0, 0, (m + 1) * 60 - now} end
if dn >= tonumber(ARGV[2]) then return {0, 1, (d + 1) * 86400 - now} end
if Mn >= tonumber(ARGV[3]) then return {0, 2, me - now} end
mn, dn, Mn = mn + 1, dn + 1, Mn + 1
redis.call('SET', KEYS[1], struct.pack(` + usageFormat + `, mw, mn, dw, dn, Mw, Mn, ms, me), 'PXAT', (me + 3600) * 1000)
return {1, mn, mw, dn, dw, Mn, Mw}`

var meter = rueidis.NewLuaScript(strings.Replace(meterLua, "NOW", nowLua, 1))

// monthLua defines month(now): the number of the calendar month in UTC
// that holds the Unix second now (months since January 1970), its first
// second and the second it ends (days from civil dates after H. Hinnant's
// algorithms).
const monthLua = `
local function civil(z)
  z = z + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local y = yoe + era * 400
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local m = mp < 10 and mp + 3 or mp - 9
  if m <= 2 then y = y + 1 end
  return y, m
end
local function days(y, m)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = m > 2 and m - 3 or m + 9
  local doy = math.floor((153 * mp + 2) / 5)
  return era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
end
local function month(now)
  local y, m = civil(math.floor(now / 86400))
  local ny, nm = y, m + 1
  if nm == 13 then ny, nm = y + 1, 1 end
  return (y - 1970) * 12 + m - 1, days(y, m) * 86400, days(ny, nm) * 86400
end
`

// unmeter takes one back from each window of KEYS[1] that is still the
// one ARGV[i] (minute, day, month) and holds a count.
var unmeter = rueidis.NewLuaScript(`
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local v = {struct.unpack(` + usageFormat + `, raw)}
for i = 1, 3 do
  if v[2 * i - 1] == tonumber(ARGV[i]) and v[2 * i] > 0 then v[2 * i] = v[2 * i] - 1 end
end
redis.call('SET', KEYS[1], struct.pack(` + usageFormat + `, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]), 'KEEPTTL')
return 1`)

// counts reads the count of the window of kind ARGV[1] (0 minute, 1 day,
// 2 month) of KEYS[1] now, on the server's clock: 0 for a window that has
// rolled over.
var counts = rueidis.NewLuaScriptReadOnly(`
local now = ` + nowLua + `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local mw, mn, dw, dn, Mw, Mn, ms, me = struct.unpack(` + usageFormat + `, raw)
local kind = tonumber(ARGV[1])
if kind == 0 and mw == math.floor(now / 60) then return mn end
if kind == 1 and dw == math.floor(now / 86400) then return dn end
if kind == 2 and ms <= now and now < me then return Mn end
return 0`)

// usageName is the string of a key's windows.
func usageName(h access.Hash) string { return prefix + "use:{" + h.String() + "}" }

// limitArgs are the limits of the three windows as script arguments,
// formatted once per set of limits (a plan's).
func (s *Store) limitArgs(l *access.Limits) []string {
	if a, ok := s.args.Load(*l); ok {
		return a.([]string)
	}
	a := []string{strconv.FormatInt(l[access.Minute], 10), strconv.FormatInt(l[access.Day], 10), strconv.FormatInt(l[access.Month], 10)}
	s.args.Store(*l, a)
	return a
}

// Reserve counts one call of k in its three windows in one script run on
// the server's clock; a full window counts nothing.
func (s *Store) Reserve(k *access.Key, now time.Time, limits *access.Limits) (access.Ticket, access.Window, bool, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	_, usage := s.names(k.Hash)
	res, err := meter.Exec(ctx, s.c, []string{usage}, s.limitArgs(limits)).AsIntSlice()
	return s.ticket(k, res, err)
}

// ticket reads the answer of meter.
func (s *Store) ticket(k *access.Key, res []int64, err error) (access.Ticket, access.Window, bool, error) {
	if err != nil {
		return access.Ticket{}, 0, false, down("metering a call", err)
	}
	if len(res) == 3 && res[0] == 0 && res[1] >= 0 && res[1] < int64(access.NumWindows) {
		return access.Ticket{}, access.Window(res[1]), false, nil
	}
	if len(res) != 1+2*int(access.NumWindows) || res[0] != 1 {
		return access.Ticket{}, 0, false, down("metering a call", fmt.Errorf("unexpected answer %v", res))
	}
	var wins [access.NumWindows]uint32
	var used [access.NumWindows]int64
	for w := range access.NumWindows {
		used[w], wins[w] = res[1+2*w], uint32(res[2+2*w])
	}
	return access.NewTicket(k, wins, used, s.rel), 0, true, nil
}

// release takes back a reservation of a call that was not served. A
// failure leaves the count one too high, never too low.
func (s *Store) release(k *access.Key, wins [access.NumWindows]uint32) {
	ctx, cancel := s.ctx()
	defer cancel()
	args := []string{strconv.FormatUint(uint64(wins[0]), 10), strconv.FormatUint(uint64(wins[1]), 10), strconv.FormatUint(uint64(wins[2]), 10)}
	if err := unmeter.Exec(ctx, s.c, []string{usageName(k.Hash)}, args).Error(); err != nil {
		s.opts.Log.Printf("redis release", "cannot take back the count of a call that was not served (the key's count stays one too high): %v", err)
	}
}

// Used returns the calls of k counted in the window w of Redis' clock.
func (s *Store) Used(k *access.Key, w access.Window, now time.Time) (int64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	n, err := counts.Exec(ctx, s.c, []string{usageName(k.Hash)}, []string{strconv.Itoa(int(w))}).AsInt64()
	if err != nil {
		return 0, down("reading a count", err)
	}
	return n, nil
}

// NetworkLimiter returns the per-minute windows of a scope's networks,
// shared by the fleet.
func (s *Store) NetworkLimiter(scope string, perMinute int64) access.NetworkCounter {
	return &networks{s: s, scope: scope, limit: perMinute, args: []string{strconv.FormatInt(perMinute, 10)}}
}

type networks struct {
	s     *Store
	scope string
	limit int64
	args  []string
}

// netMeter counts one call in the minute of the network KEYS[1], packed as
// the minute's number and count, unless that passes ARGV[1]: then {0, 0,
// seconds until the minute ends}, else {1, count, minute}. The string
// expires an hour after its minute ends.
var netMeter = rueidis.NewLuaScript(`
local now = ` + nowLua + `
local id = math.floor(now / 60)
local raw = redis.call('GET', KEYS[1])
local w, n = 0, 0
if raw then w, n = struct.unpack('<dd', raw) end
if w ~= id then n = 0 end
if n >= tonumber(ARGV[1]) then return {0, 0, (id + 1) * 60 - now} end
redis.call('SET', KEYS[1], struct.pack('<dd', id, n + 1), 'PXAT', ((id + 1) * 60 + 3600) * 1000)
return {1, n + 1, id}`)

// Allow counts one call of network in its minute, on Redis' clock.
func (n *networks) Allow(network string, now time.Time) (bool, time.Duration, error) {
	ctx, cancel := n.s.ctx()
	defer cancel()
	res, err := netMeter.Exec(ctx, n.s.c, []string{prefix + "net:" + n.scope + ":{" + network + "}"}, n.args).AsIntSlice()
	if err != nil {
		return false, 0, down("metering a network", err)
	}
	if len(res) == 3 && res[0] == 0 {
		return false, time.Duration(res[2]+1) * time.Second, nil
	}
	return true, 0, nil
}

func (n *networks) Limit() int64 { return n.limit }

var _ access.Backend = (*Store)(nil)

// FirstStart reports whether this is the first caller ever to ask (SET NX
// of a marker): of replicas starting together on an empty store, one
// creates the bootstrap keys.
func (s *Store) FirstStart() (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.c.Do(ctx, s.c.B().Set().Key(prefix+"bootstrapped").Value(s.opts.Now().UTC().Format(time.RFC3339)).Nx().Build()).Error()
	if rueidis.IsRedisNil(err) {
		return false, nil
	}
	if err != nil {
		return false, down("marking the first start", err)
	}
	return true, nil
}

// durable is the configuration without which a count can be lost: every
// write in the append-only file and synced before Redis answers, and no
// eviction of counters, keys or nonces when memory is full.
var durable = [][2]string{{"appendonly", "yes"}, {"appendfsync", "always"}, {"maxmemory-policy", "noeviction"}}

// CheckDurability returns an error naming each setting of the server that
// differs from durable (or that CONFIG GET cannot be used, as on some
// managed services); nil when all are as required.
func (s *Store) CheckDurability() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, d := range durable {
		m, err := s.c.Do(ctx, s.c.B().ConfigGet().Parameter(d[0]).Build()).AsStrMap()
		if err != nil {
			return fmt.Errorf("cannot check the durability settings (CONFIG GET %s: %v): make sure Redis runs with appendonly yes, appendfsync always, maxmemory-policy noeviction", d[0], err)
		}
		if m[d[0]] != d[1] {
			errs = append(errs, fmt.Errorf("%s is %q, want %q", d[0], m[d[0]], d[1]))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("this Redis can lose counts: %w (see docs/fleet.md)", errors.Join(errs...))
	}
	return nil
}
