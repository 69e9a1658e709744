package redistest

import (
	"testing"

	"github.com/vspec/catalogue/httpd/redisstore"
)

// Open connects a redisstore.Store to the Redis at url (redis:// or
// rediss://, see redisstore.ClientOption) with the options o, whose Client
// it sets; the test fails if either step does. The caller closes the store.
func Open(tb testing.TB, url string, o redisstore.Options) *redisstore.Store {
	tb.Helper()
	co, err := redisstore.ClientOption(url)
	if err != nil {
		tb.Fatal(err)
	}
	o.Client = co
	s, err := redisstore.Open(o)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
