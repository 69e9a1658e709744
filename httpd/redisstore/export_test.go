package redisstore

import (
	"context"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"github.com/vspec/catalogue/httpd/access"
)

var windowAt = rueidis.NewLuaScriptReadOnly(monthLua + `
local kind, now = tonumber(ARGV[1]), tonumber(ARGV[2])
if kind == 0 then return {math.floor(now / 60), (math.floor(now / 60) + 1) * 60} end
if kind == 1 then return {math.floor(now / 86400), (math.floor(now / 86400) + 1) * 86400} end
local id, _, e = month(now)
return {id, e}`)

// WindowAt runs the scripts' window arithmetic for the Unix second unix:
// the window's number and the second it ends.
func WindowAt(s *Store, w access.Window, unix int64) (id, end int64, err error) {
	r, err := windowAt.Exec(context.Background(), s.c, nil, []string{strconv.Itoa(int(w)), strconv.FormatInt(unix, 10)}).AsIntSlice()
	if err != nil {
		return 0, 0, err
	}
	return r[0], r[1], nil
}

// meterAt is the metering script with the clock read from ARGV[4].
var meterAt = rueidis.NewLuaScript(strings.Replace(meterLua, "NOW", "tonumber(ARGV[4])", 1))

// ReserveAt is Reserve at the Unix second unix instead of Redis' clock.
func ReserveAt(s *Store, k *access.Key, unix int64, limits *access.Limits) (access.Ticket, access.Window, bool, error) {
	args := append(append([]string(nil), s.limitArgs(limits)...), strconv.FormatInt(unix, 10))
	res, err := meterAt.Exec(context.Background(), s.c, []string{usageName(k.Hash)}, args).AsIntSlice()
	return s.ticket(k, res, err)
}

// UsageExpiry returns when the hash of k's windows expires (Unix ms; -1
// none, -2 no hash).
func UsageExpiry(s *Store, k *access.Key) (int64, error) {
	return s.c.Do(context.Background(), s.c.B().Pexpiretime().Key(usageName(k.Hash)).Build()).AsInt64()
}
