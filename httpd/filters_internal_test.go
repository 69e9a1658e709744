package httpd

import (
	"testing"
)

// TestFilterQueries: the remembered query of filter parameters is the one
// they build, whichever parameters were asked before, and parameters that
// differ never share one (their values are packed with their lengths).
func TestFilterQueries(t *testing.T) {
	set := func(v int64) optInt { return optInt{v: v, set: true} }
	params := []Params{
		{Fuel: []byte("diesel"), PowerMin: set(150)},
		{Fuel: []byte("Diesel"), PowerMin: set(150)},
		{Fuel: []byte("diesel"), PowerMax: set(150)},
		{Fuel: []byte("diesel"), PowerMin: set(150), Body: []byte("suv")},
		{Fuel: []byte("dieselsuv")},
		{Fuel: []byte("diesel"), Body: []byte("suv")},
		{Body: []byte("diesel"), Drive: []byte("suv")},
		{Year: set(2020)},
		{PriceMax: set(2020)},
		{EV: true},
		{EV: true, Fuel: []byte("petrol")},
		{},
	}
	o := &operations{queries: new(filterQueries)}
	rq := &request{}
	packed := map[string]int{}
	for round := 0; round < 2; round++ {
		for i := range params {
			p := &params[i]
			got := o.filterQuery(rq, p)
			if want := newFilterQuery(p).AppendText(nil); string(got.canon) != string(want) || got.q.String() != string(want) {
				t.Errorf("params %d, round %d: query %s (text %s), want %s", i, round, got.q, got.canon, want)
			}
			k := string(appendFilterParams(nil, p))
			if j, ok := packed[k]; ok && j != i {
				t.Errorf("params %d and %d pack alike", i, j)
			}
			packed[k] = i
		}
	}
	// A slot holding other parameters is not taken for these.
	for i := range o.queries {
		o.queries[i].Store(&filterQuery{params: []byte("other"), canon: []byte("wrong")})
	}
	if got := o.filterQuery(rq, &params[0]); string(got.canon) != `(and fuel:"diesel" power_hp:[150,*])` {
		t.Errorf("with every slot taken by other parameters: %s", got.canon)
	}
}
