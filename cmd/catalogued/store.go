package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/publicid"
	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/httpd/state"
	"github.com/vspec/catalogue/httpd/x402"
)

// accessState is the access state the server runs on: the embedded bbolt
// files under -state (one process), or the shared Redis of -store.
type accessState struct {
	keys  access.Backend
	meter *access.Meter     // the embedded store's usage flusher; nil on Redis, which counts as it admits
	redis *redisstore.Store // nil when embedded
	close []func()
}

// openAccessState opens the store -store names, or the embedded one.
func openAccessState(cfg *config) (*accessState, error) {
	t := time.Now()
	if cfg.store != nil {
		rs, err := redisstore.Open(redisstore.Options{Client: cfg.store.Client, Timeout: *storeTimeout})
		if err != nil {
			return nil, fmt.Errorf("-store %s: %w", redisstore.RedactedURL(cfg.store.URL), err)
		}
		if err := rs.CheckDurability(); err != nil {
			log.Printf("warning: -store %s: %v", redisstore.RedactedURL(cfg.store.URL), err)
		}
		keys, err := rs.List()
		if err != nil {
			rs.Close()
			return nil, err
		}
		log.Printf("access state in Redis at %s: %d keys (connected in %s; every store call has a %s deadline)", redisstore.RedactedURL(cfg.store.URL), len(keys), time.Since(t).Round(time.Millisecond), *storeTimeout)
		return &accessState{keys: rs, redis: rs, close: []func(){func() { rs.Close() }}}, nil
	}
	if err := lostKeyStore(*stateDir); err != nil {
		return nil, err
	}
	keys, err := access.Open(*stateDir)
	if err != nil {
		return nil, err
	}
	st := &accessState{keys: keys, close: []func(){func() { keys.Close() }}}
	list, _ := keys.List()
	log.Printf("opened key store %s with %d keys in %s", filepath.Join(*stateDir, access.FileName), len(list), time.Since(t).Round(time.Millisecond))
	meter, err := keys.StartMeter(*meterFlush, *meterMaxLag)
	if err != nil {
		st.Close()
		return nil, err
	}
	st.meter = meter
	st.close = append(st.close, meter.Close)
	return st, nil
}

// lostKeyStore tells a new state directory from one whose key store was
// lost. A new one has no access.db: the first start creates it, then the
// token secret and payments.db, which only the embedded store makes (a
// replica on -store keeps only admin.token and the outbox). A directory
// holding either of those but no access.db has served before: its keys
// were lost, and a new empty store would mint bootstrap keys over them.
// (An access.db that is empty or corrupt is access.Open's to refuse.)
func lostKeyStore(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, access.FileName)); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	for _, name := range []string{"token.secret", state.PaymentsFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("cannot open the key store: %s is missing, but %s is there: this state directory has served before, so its keys were lost, not never made. "+
				"Restore %s from a backup; or, to go on without the old keys, create an empty store first with: catalogue keys list -state %s",
				filepath.Join(dir, access.FileName), filepath.Join(dir, name), access.FileName, dir)
		}
	}
	return nil
}

// reachable returns the shared store's Reachable (a PING every second in
// the background), for /readyz and the metering metric; nil when embedded.
func (st *accessState) reachable() func() error {
	if st.redis == nil {
		return nil
	}
	return st.redis.Reachable
}

// Close closes what was opened, last first.
func (st *accessState) Close() {
	for i := len(st.close) - 1; i >= 0; i-- {
		st.close[i]()
	}
}

// tokenSecret returns the secret of public tokens: -ids.secret, read by
// parseConfig, or the fleet's in -store (created once with SET NX, so that
// a token or cursor of one replica works on every other), or the one kept
// in the state directory.
func (st *accessState) tokenSecret(cfg *config) ([]byte, error) {
	switch {
	case cfg.secret != nil:
		return cfg.secret, nil
	case st.redis != nil:
		return st.redis.SharedSecret(publicid.SecretSize)
	}
	return publicid.LoadOrCreateSecret(*stateDir)
}

// bootstrap reports whether the first keys are to be created: the store
// is empty and, on Redis, this is the first replica to ask.
func (st *accessState) bootstrap() (bool, error) {
	list, err := st.keys.List()
	if err != nil || len(list) > 0 {
		return false, err
	}
	if st.redis != nil {
		return st.redis.FirstStart()
	}
	return true, nil
}

// payments returns the payment ledger and what closes it: the Redis store
// itself, or <state>/payments.db.
func (st *accessState) payments() (x402.Ledger, string, func(), error) {
	if st.redis != nil {
		return st.redis, "Redis", func() {}, nil
	}
	path := filepath.Join(*stateDir, state.PaymentsFile)
	store, err := x402.OpenStore(path, nil)
	if err != nil {
		return nil, "", nil, err
	}
	return store, path, func() { store.Close() }, nil
}
