package query

import "testing"

func TestSimplify(t *testing.T) {
	f := func(q Q, want string) {
		t.Helper()
		if got := Simplify(q).String(); got != want {
			t.Errorf("Simplify(%s) = %s, want %s", q, got, want)
		}
	}
	f(And{[]Q{Term{Fuel, "diesel"}, AtLeast(Power, 100), AtMost(Power, 200)}}, `(and fuel:"diesel" power_hp:[100,200])`)
	f(And{[]Q{AtLeast(Power, 300), AtMost(Power, 200)}}, "false")
	f(And{[]Q{Term{Fuel, "diesel"}, Const{false}}}, "false")
	f(And{[]Q{Term{Fuel, "diesel"}, Const{true}}}, `fuel:"diesel"`)
	f(And{}, "true")
	f(And{[]Q{And{[]Q{Term{Body, "suv"}, Term{Drive, "all"}}}, AtMost(Price, 40000)}}, `(and body:"suv" drive:"all" price_eur:[*,40000])`)
	f(Or{[]Q{Const{false}, Term{Fuel, "lpg"}}}, `fuel:"lpg"`)
	f(Or{[]Q{Term{Fuel, "lpg"}, Const{true}}}, "true")
	f(Not{Not{Term{Fuel, "cng"}}}, `fuel:"cng"`)
	f(Not{Const{true}}, "false")
	f(Range{Year, 2020, 2010}, "false")
	// The order of conditions does not change the text.
	a := Simplify(And{[]Q{Range{Year, 2015, 2015}, AtMost(Power, 120)}}).String()
	b := Simplify(And{[]Q{AtMost(Power, 120), Range{Year, 2015, 2015}}}).String()
	if a != b {
		t.Errorf("%s != %s", a, b)
	}
}

// TestText pins the canonical text that cursors are bound to: a change here
// invalidates every filter cursor in circulation.
func TestText(t *testing.T) {
	q := Or{[]Q{Not{Term{Body, `sp"ort\x`}}, Range{Year, -5, 2020}, AtLeast(Power, 90), Const{true}}}
	want := `(or (not body:"sp\"ort\\x") year:[-5,2020] power_hp:[90,*] true)`
	if got := q.String(); got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	if got := string(q.AppendText([]byte("prefix "))); got != "prefix "+want {
		t.Errorf("AppendText after a prefix = %s", got)
	}
	if got := Field(42).String(); got != "field(42)" {
		t.Errorf("unknown field prints %s", got)
	}
}
