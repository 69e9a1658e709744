package rollout

import "context"

// Pointer names the fleet's current catalogue by its content hash and
// tells the replicas when it changes. Redis implements it; the unit tests
// use a fake.
type Pointer interface {
	// Current returns the hash the fleet should serve, "" when none has
	// been published.
	Current(ctx context.Context) (string, error)
	// Point makes hash the fleet's current catalogue and notifies the
	// replicas, as one step. It returns the hash it replaces ("" when
	// none) and how many subscribers the notification reached.
	Point(ctx context.Context, hash string) (previous string, notified int64, err error)
	// Watch calls notify for every change notification until ctx ends or
	// the subscription is lost, and returns why it ended. Notifications
	// sent while no subscription is open are lost: callers poll Current
	// too.
	Watch(ctx context.Context, notify func()) error
}
