package rollout

import (
	"context"
	"fmt"
	"io"

	"github.com/vspec/catalogue/loader"
)

// Published is what Publish and Repoint did.
type Published struct {
	Hash     string // the fleet's current catalogue now
	Previous string // the one it replaced, "" when none: what a rollback publishes
	Notified int64  // replicas subscribed when the change was announced
	Identity string // the snapshot's payload identity (Publish only)
	Variants int    // its variant count (Publish only)
}

// Publish points the fleet at the snapshot file at path: it checks that
// the file loads as a catalogue (the strict reader and every engine
// check, as a replica will), stores it in the origin under its content
// hash, and only then sets the pointer, so the fleet is never pointed at
// a file a replica cannot serve or fetch.
func Publish(ctx context.Context, p Pointer, o Origin, path string) (Published, error) {
	hash, err := FileHash(path)
	if err != nil {
		return Published{}, err
	}
	c, err := loader.Load(path)
	if err != nil {
		return Published{}, fmt.Errorf("refused, not a catalogue replicas can load: %w", err)
	}
	if c.Meta.ContentHash != hash {
		return Published{}, fmt.Errorf("%s changed while it was checked (SHA-256 %s, then %s): publish a file nothing is writing", path, hash, c.Meta.ContentHash)
	}
	_, _, _, variants := c.Counts()
	if err := o.Store(ctx, hash, path); err != nil {
		return Published{}, err
	}
	r, err := point(ctx, p, hash)
	r.Identity, r.Variants = c.Meta.Identity, variants
	return r, err
}

// Repoint points the fleet at a snapshot already in the origin, such as
// the one before the current (a rollback), after checking that the origin
// serves it intact.
func Repoint(ctx context.Context, p Pointer, o Origin, hash string) (Published, error) {
	hash, err := ParseHash(hash)
	if err != nil {
		return Published{}, err
	}
	if err := fetchVerified(ctx, o, hash, io.Discard); err != nil {
		return Published{}, fmt.Errorf("refused, the origin does not serve it intact: %w", err)
	}
	return point(ctx, p, hash)
}

func point(ctx context.Context, p Pointer, hash string) (Published, error) {
	previous, notified, err := p.Point(ctx, hash)
	if err != nil {
		return Published{}, err
	}
	return Published{Hash: hash, Previous: previous, Notified: notified}, nil
}
