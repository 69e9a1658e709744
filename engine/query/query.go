// Package query is the pure query AST of catalogue filters: And, Or, Not,
// Term (an enumerated field equal to a value), Range (a numeric field in an
// inclusive range) and Const, each with a canonical text (AppendText, and
// String for logs and tests), and Simplify. It knows nothing of indexes or of the catalogue; the engine
// plans and executes a simplified query.
//
// The package imports only the standard library.
package query

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Q is a query node.
type Q interface {
	// AppendText appends the node's canonical text, which String returns.
	// Cursors are bound to it, so equal queries must print equally.
	AppendText(dst []byte) []byte
	String() string
	isQ()
}

// Field names a filterable column.
type Field uint8

// Fields.
const (
	Fuel  Field = iota + 1 // fuel slug
	Body                   // body type (English label or slug)
	Drive                  // drivetrain slug
	Power                  // power in hp
	Price                  // list price in EUR; unknown prices never match
	Year                   // a production year the generation covers
)

var fieldNames = [...]string{Fuel: "fuel", Body: "body", Drive: "drive", Power: "power_hp", Price: "price_eur", Year: "year"}

// String returns the field's name.
func (f Field) String() string {
	if int(f) < len(fieldNames) && fieldNames[f] != "" {
		return fieldNames[f]
	}
	return fmt.Sprintf("field(%d)", f)
}

// And matches rows every child matches.
type And struct{ Children []Q }

// Or matches rows any child matches.
type Or struct{ Children []Q }

// Not matches rows its child does not match.
type Not struct{ Child Q }

// Term matches rows whose enumerated field equals Value (compared
// case-insensitively).
type Term struct {
	Field Field
	Value string
}

// Range matches rows whose numeric field is within [Lo, Hi].
type Range struct {
	Field  Field
	Lo, Hi int64
}

// Const matches every row (true) or none (false).
type Const struct{ Value bool }

func (And) isQ()   {}
func (Or) isQ()    {}
func (Not) isQ()   {}
func (Term) isQ()  {}
func (Range) isQ() {}
func (Const) isQ() {}

func appendJoin(dst []byte, op string, qs []Q) []byte {
	dst = append(append(append(dst, '('), op...), ' ')
	for i, q := range qs {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = q.AppendText(dst)
	}
	return append(dst, ')')
}

func (q And) AppendText(dst []byte) []byte { return appendJoin(dst, "and", q.Children) }
func (q Or) AppendText(dst []byte) []byte  { return appendJoin(dst, "or", q.Children) }
func (q Not) AppendText(dst []byte) []byte {
	return append(q.Child.AppendText(append(dst, "(not "...)), ')')
}
func (q Term) AppendText(dst []byte) []byte {
	return strconv.AppendQuote(append(append(dst, q.Field.String()...), ':'), q.Value)
}
func (q Const) AppendText(dst []byte) []byte { return strconv.AppendBool(dst, q.Value) }

func (q Range) AppendText(dst []byte) []byte {
	dst = append(append(dst, q.Field.String()...), ":["...)
	if q.Lo != math.MinInt64 {
		dst = strconv.AppendInt(dst, q.Lo, 10)
	} else {
		dst = append(dst, '*')
	}
	dst = append(dst, ',')
	if q.Hi != math.MaxInt64 {
		dst = strconv.AppendInt(dst, q.Hi, 10)
	} else {
		dst = append(dst, '*')
	}
	return append(dst, ']')
}

func (q And) String() string   { return string(q.AppendText(nil)) }
func (q Or) String() string    { return string(q.AppendText(nil)) }
func (q Not) String() string   { return string(q.AppendText(nil)) }
func (q Term) String() string  { return string(q.AppendText(nil)) }
func (q Const) String() string { return string(q.AppendText(nil)) }
func (q Range) String() string { return string(q.AppendText(nil)) }

// AtLeast and AtMost build one-sided ranges.
func AtLeast(f Field, lo int64) Range { return Range{f, lo, math.MaxInt64} }

// AtMost builds a range with no lower bound.
func AtMost(f Field, hi int64) Range { return Range{f, math.MinInt64, hi} }

// Simplify flattens nested Ands and Ors, merges ranges on the same field
// inside an And (power_min and power_max become one range), folds constants
// and empty ranges, removes double negation, and sorts the children of And
// and Or by their text, so that equal queries print equally whatever order
// their conditions were given in (cursors are bound to that text). The
// result matches the same rows.
func Simplify(q Q) Q {
	switch q := q.(type) {
	case And:
		kids := make([]Q, 0, len(q.Children))
		var ranges [len(fieldNames)]int // position of a field's range in kids, plus one
		for _, c := range q.Children {
			c = Simplify(c)
			switch c := c.(type) {
			case Const:
				if !c.Value {
					return Const{false}
				}
				continue
			case And:
				kids = append(kids, c.Children...)
				continue
			case Range:
				if int(c.Field) < len(ranges) && ranges[c.Field] > 0 {
					i := ranges[c.Field] - 1
					r := kids[i].(Range)
					r.Lo, r.Hi = max(r.Lo, c.Lo), min(r.Hi, c.Hi)
					if r.Lo > r.Hi {
						return Const{false}
					}
					kids[i] = r
					continue
				}
				if int(c.Field) < len(ranges) {
					ranges[c.Field] = len(kids) + 1
				}
			}
			kids = append(kids, c)
		}
		return join[And](kids, true)
	case Or:
		var kids []Q
		for _, c := range q.Children {
			c = Simplify(c)
			switch c := c.(type) {
			case Const:
				if c.Value {
					return Const{true}
				}
				continue
			case Or:
				kids = append(kids, c.Children...)
				continue
			}
			kids = append(kids, c)
		}
		return join[Or](kids, false)
	case Not:
		switch c := Simplify(q.Child).(type) {
		case Not:
			return c.Child
		case Const:
			return Const{!c.Value}
		default:
			return Not{c}
		}
	case Range:
		if q.Lo > q.Hi {
			return Const{false}
		}
	}
	return q
}

// junction is And or Or.
type junction interface {
	And | Or
	Q
}

// join ends the simplification of an And or an Or (T) whose simplified
// children are kids: no child left is the operator's identity, a single
// child stands for itself, and more are sorted by their text.
func join[T junction](kids []Q, identity bool) Q {
	switch len(kids) {
	case 0:
		return Const{identity}
	case 1:
		return kids[0]
	}
	sortByText(kids)
	return T{kids}
}

// sortByText sorts qs by their canonical text, each text printed once.
func sortByText(qs []Q) {
	type keyed struct {
		q        Q
		from, to int
	}
	ks := make([]keyed, len(qs))
	text := make([]byte, 0, 48*len(qs)) // one allocation for the usual texts
	for i, q := range qs {
		from := len(text)
		text = q.AppendText(text)
		ks[i] = keyed{q, from, len(text)}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		return bytes.Compare(text[a.from:a.to], text[b.from:b.to])
	})
	for i, k := range ks {
		qs[i] = k.q
	}
}
