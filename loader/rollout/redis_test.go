//go:build redis

package rollout

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/vspec/catalogue/httpd/redisstore/redistest"
)

// TestRedisPointer: against a real redis-server, Point sets the key and
// returns what it replaced, and the notification reaches a subscriber.
func TestRedisPointer(t *testing.T) {
	opt := rueidis.ClientOption{InitAddress: []string{redistest.Start(t).Addr}, SelectDB: 2}
	p := NewRedis(opt, 0)
	defer p.Close()
	ctx := context.Background()
	if h, err := p.Current(ctx); err != nil || h != "" {
		t.Fatalf("Current before any publication: %q %v", h, err)
	}
	notified := make(chan struct{}, 4)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go p.Watch(wctx, func() { notified <- struct{}{} })
	a, b := strings.Repeat("a", 64), strings.Repeat("b", 64)
	// The subscription opens asynchronously: point until it is counted.
	var n int64
	var err error
	for i := 0; i < 200 && n == 0; i++ {
		if _, n, err = p.Point(ctx, a); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n != 1 {
		t.Fatalf("Point reached %d subscribers, want 1", n)
	}
	select {
	case <-notified:
	case <-time.After(5 * time.Second):
		t.Fatal("no notification within 5 s")
	}
	previous, _, err := p.Point(ctx, b)
	if err != nil || previous != a {
		t.Errorf("Point(b): previous %q, %v; want %q", previous, err, a)
	}
	if h, err := p.Current(ctx); err != nil || h != b {
		t.Errorf("Current: %q %v, want %q", h, err, b)
	}
	// Another database holds another fleet.
	opt.SelectDB = 3
	other := NewRedis(opt, 0)
	defer other.Close()
	if h, err := other.Current(ctx); err != nil || h != "" {
		t.Errorf("Current in another database: %q %v", h, err)
	}
}

// TestRedisDown: while the server is down calls fail (within their
// deadline), and the pointer works once it is back: a replica started
// before Redis keeps trying rather than exiting.
func TestRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	srv.Stop()
	opt := rueidis.ClientOption{InitAddress: []string{srv.Addr}}
	p := NewRedis(opt, 500*time.Millisecond)
	defer p.Close()
	ctx := context.Background()
	if _, err := p.Current(ctx); err == nil {
		t.Fatal("Current with no server answered")
	}
	if _, _, err := p.Point(ctx, strings.Repeat("c", 64)); err == nil {
		t.Fatal("Point with no server answered")
	}
	srv.Restart()
	if _, _, err := p.Point(ctx, strings.Repeat("c", 64)); err != nil {
		t.Fatalf("Point after the restart: %v", err)
	}
	if h, err := p.Current(ctx); err != nil || h != strings.Repeat("c", 64) {
		t.Errorf("Current after the restart: %q %v", h, err)
	}
}
