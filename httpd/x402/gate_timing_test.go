package x402_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vspec/catalogue/httpd/x402"
)

// BenchmarkPayment is the cost a paid call adds with the built-in
// facilitator: decoding the header, the offline checks (one secp256k1
// recovery), recording the nonce and the receipt (two bbolt writes, each
// synced to disk, batched across concurrent calls). Payments are signed
// before the timer starts.
func BenchmarkPayment(b *testing.B) {
	for _, mode := range []string{"serial", "parallel"} {
		b.Run(mode, func(b *testing.B) {
			fx := newFixture(b, nil)
			fx.now = time.Now()
			headers := make([][]byte, b.N)
			for i := range headers {
				p, err := fx.payer.Pay(fx.offer(), fx.now)
				if err != nil {
					b.Fatal(err)
				}
				h, _ := x402.EncodeHeader(p)
				headers[i] = []byte(h)
			}
			ctx := context.Background()
			pay := func(h []byte) {
				p, err := x402.DecodePayment(h)
				if err != nil {
					b.Fatal(err)
				}
				v, err := fx.gate.Verify(ctx, p, price)
				if err != nil {
					b.Fatal(err)
				}
				if s := fx.gate.Settle(ctx, v, time.Time{}, x402.Sale{}); s.Outcome != x402.Settled {
					b.Fatal(s.Response.ErrorReason, s.Err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			if mode == "serial" {
				for i := 0; i < b.N; i++ {
					pay(headers[i])
				}
				return
			}
			var next atomic.Int64
			b.SetParallelism(16) // calls waiting on the disk, not the CPU
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					pay(headers[next.Add(1)-1])
				}
			})
		})
	}
}
