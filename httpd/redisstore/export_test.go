package redisstore

import (
	"context"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/vspec/catalogue/httpd/access"
)

var windowAt = rueidis.NewLuaScriptReadOnly(windowLua + `
return {window(tonumber(ARGV[1]), tonumber(ARGV[2]))}`)

// WindowAt runs the scripts' window arithmetic for the Unix second unix.
func WindowAt(s *Store, w access.Window, unix int64) (id, end int64, err error) {
	r, err := windowAt.Exec(context.Background(), s.c, nil, []string{strconv.Itoa(int(w)), strconv.FormatInt(unix, 10)}).AsIntSlice()
	if err != nil {
		return 0, 0, err
	}
	return r[0], r[1], nil
}
