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
	s, err := Dial(url, o)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Dial is Open that returns the error of either step instead of failing
// the test, for tests of what is refused.
func Dial(url string, o redisstore.Options) (*redisstore.Store, error) {
	co, err := redisstore.ClientOption(url)
	if err != nil {
		return nil, err
	}
	o.Client = co
	return redisstore.Open(o)
}
