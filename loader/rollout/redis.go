package rollout

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/rueidis"
)

// The names the fleet shares in Redis.
const (
	// DefaultKey holds the fleet's current content hash.
	DefaultKey = "catalog:current"
	// DefaultChannel carries the new hash each time the key is set.
	DefaultChannel = "catalog:rollout"
)

// Redis is the fleet's pointer in a Redis server. Its client is made on
// first use and again after a failed attempt, so a replica that starts
// while Redis is down keeps trying instead of exiting.
type Redis struct {
	opt     rueidis.ClientOption
	key     string
	channel string
	timeout time.Duration // of each command

	mu     sync.Mutex
	client rueidis.Client
}

// NewRedis returns the pointer in the Redis server of opt (see
// rueidis.ParseURL), under DefaultKey and DefaultChannel; each command
// waits at most timeout (2 s when 0).
func NewRedis(opt rueidis.ClientOption, timeout time.Duration) *Redis {
	// The pointer is read a few times a minute: no client-side cache, and
	// no RESP3 tracking asked of the server for it.
	opt.DisableCache = true
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	return &Redis{opt: opt, key: DefaultKey, channel: DefaultChannel, timeout: timeout}
}

// String names the server in messages, without credentials.
func (r *Redis) String() string {
	if len(r.opt.InitAddress) == 0 {
		return "redis"
	}
	return fmt.Sprintf("redis://%s/%d", r.opt.InitAddress[0], r.opt.SelectDB)
}

func (r *Redis) conn() (rueidis.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.client == nil {
		c, err := rueidis.NewClient(r.opt)
		if err != nil {
			return nil, fmt.Errorf("cannot connect to %s: %w", r, err)
		}
		r.client = c
	}
	return r.client, nil
}

// Close closes the connections.
func (r *Redis) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.client != nil {
		r.client.Close()
		r.client = nil
	}
}

// Current GETs the key.
func (r *Redis) Current(ctx context.Context) (string, error) {
	c, err := r.conn()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	v, err := c.Do(ctx, c.B().Get().Key(r.key).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("cannot read %s from %s: %w", r.key, r, err)
	}
	return v, nil
}

// pointScript sets the key and publishes the new hash in one step, so no
// replica can see the notification before the value, and returns the
// value it replaced.
var pointScript = rueidis.NewLuaScript(`
local previous = redis.call('SET', KEYS[1], ARGV[1], 'GET')
local notified = redis.call('PUBLISH', ARGV[2], ARGV[1])
return {previous or '', notified}`)

// Point sets the key to hash and publishes it on the channel.
func (r *Redis) Point(ctx context.Context, hash string) (string, int64, error) {
	c, err := r.conn()
	if err != nil {
		return "", 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	res, err := pointScript.Exec(ctx, c, []string{r.key}, []string{hash, r.channel}).ToArray()
	if err == nil && len(res) != 2 {
		err = fmt.Errorf("the script answered %d values, want 2", len(res))
	}
	if err != nil {
		return "", 0, fmt.Errorf("cannot set %s in %s: %w", r.key, r, err)
	}
	previous, err := res[0].ToString()
	if err != nil {
		return "", 0, fmt.Errorf("cannot read the previous value of %s: %w", r.key, err)
	}
	notified, err := res[1].AsInt64()
	if err != nil {
		return "", 0, fmt.Errorf("cannot read the count of subscribers notified: %w", err)
	}
	return previous, notified, nil
}

// Watch subscribes to the channel; any message is a change notification.
func (r *Redis) Watch(ctx context.Context, notify func()) error {
	c, err := r.conn()
	if err != nil {
		return err
	}
	err = c.Receive(ctx, c.B().Subscribe().Channel(r.channel).Build(), func(rueidis.PubSubMessage) { notify() })
	if err != nil {
		return fmt.Errorf("subscription to %s on %s ended: %w", r.channel, r, err)
	}
	return fmt.Errorf("subscription to %s on %s ended", r.channel, r)
}
