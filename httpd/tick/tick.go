// Package tick runs background loops: a function called every interval
// until a channel closes (the access meter's flush, the batched log's
// flush, the Redis probe, bench's reloads). It imports only the standard
// library.
package tick

import "time"

// Every calls f every interval until stop is closed, then returns.
func Every(interval time.Duration, stop <-chan struct{}, f func()) {
	While(interval, stop, func() bool { f(); return true })
}

// While calls f every interval until stop is closed or f returns false,
// then returns.
func While(interval time.Duration, stop <-chan struct{}, f func() bool) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if !f() {
				return
			}
		}
	}
}
