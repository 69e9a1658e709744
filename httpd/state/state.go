// Package state names the whole access state of the service as one
// interface, Store: the keys, metering and network windows and the demo
// key flow (access.Backend) and the payment nonces, receipts and payments
// of unknown outcome (x402.Ledger). It has two implementations: Embedded,
// the bbolt files under the state directory (one process, the default),
// and redisstore.Store (a fleet of replicas on one Redis). Package
// statetest holds the behaviours both must show.
//
// The package imports access and x402 only.
package state

import (
	"errors"
	"path/filepath"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/httpd/x402/eip3009"
)

// Store is the access state.
type Store interface {
	access.Backend
	x402.Ledger
}

// Embedded is the access state in the bbolt files of a state directory:
// access.db (keys, demo key flow; counters flushed by its meter) and
// payments.db.
type Embedded struct {
	*access.Store
	Payments *x402.Store
}

// PaymentsFile is the payment state's file within the state directory.
const PaymentsFile = "payments.db"

// OpenEmbedded opens (creating) both files of dir.
func OpenEmbedded(dir string) (*Embedded, error) {
	keys, err := access.Open(dir)
	if err != nil {
		return nil, err
	}
	pay, err := x402.OpenStore(filepath.Join(dir, PaymentsFile), nil)
	if err != nil {
		keys.Close()
		return nil, err
	}
	return &Embedded{Store: keys, Payments: pay}, nil
}

// The payment half, forwarded.

func (e *Embedded) Claim(from eip3009.Address, nonce [32]byte, validBefore uint64) (bool, error) {
	return e.Payments.Claim(from, nonce, validBefore)
}
func (e *Embedded) AddReceipt(from eip3009.Address, nonce [32]byte, r x402.Receipt) (bool, error) {
	return e.Payments.AddReceipt(from, nonce, r)
}
func (e *Embedded) Settled(from eip3009.Address, nonce [32]byte) (bool, error) {
	return e.Payments.Settled(from, nonce)
}
func (e *Embedded) Receipts() ([]x402.Receipt, error)              { return e.Payments.Receipts() }
func (e *Embedded) RecordUnknown(r x402.PaymentRecord) error       { return e.Payments.RecordUnknown(r) }
func (e *Embedded) Records(all bool) ([]x402.PaymentRecord, error) { return e.Payments.Records(all) }
func (e *Embedded) Record(ref string) (x402.PaymentRecord, error)  { return e.Payments.Record(ref) }
func (e *Embedded) Resolve(ref, state, transaction, by string) (x402.PaymentRecord, error) {
	return e.Payments.Resolve(ref, state, transaction, by)
}

// Close closes both files.
func (e *Embedded) Close() error { return errors.Join(e.Store.Close(), e.Payments.Close()) }

var _ Store = (*Embedded)(nil)
