package bench

import (
	"testing"
	"time"
)

func TestDriveAgainstStatic(t *testing.T) {
	s, err := StartStatic()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Serve("application/json", []byte(`{"data":[]}`))
	cfg := Config{Addr: s.Addr, Concurrency: 4, Duration: 300 * time.Millisecond}
	r, err := Drive(cfg, Route{Name: "static", Path: "/anything"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests < 100 || r.Errors != 0 || r.RPS <= 0 || r.BytesPerResp != len(`{"data":[]}`) {
		t.Errorf("result %+v", r)
	}
	if !(r.P50 <= r.P99 && r.P99 <= r.P999 && r.P50 > 0) {
		t.Errorf("percentiles out of order: %v %v %v", r.P50, r.P99, r.P999)
	}
	half, conns, err := AtHalfPeak(cfg, Route{Name: "static", Path: "/x"}, r.RPS)
	if err != nil || conns < 1 || half.RPS < r.RPS/2*0.5 {
		t.Errorf("AtHalfPeak: %+v at %d conns, %v", half, conns, err)
	}
	// A paced run stays near its rate.
	paced := cfg
	paced.Rate = 500
	p, err := Drive(paced, Route{Name: "static", Path: "/x"})
	if err != nil || p.RPS > 700 || p.RPS < 300 {
		t.Errorf("paced at 500/s: %.0f req/s, %v", p.RPS, err)
	}
}
