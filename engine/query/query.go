// Package query is the pure query AST of catalogue filters: And, Or, Not,
// Term (an enumerated field equal to a value), Range (a numeric field in an
// inclusive range) and Const, each with String() for logs and tests, and
// Simplify. It knows nothing of indexes or of the catalogue; the engine
// plans and executes a simplified query.
//
// The package imports only the standard library.
package query

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Q is a query node.
type Q interface {
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

func join(op string, qs []Q) string {
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = q.String()
	}
	return "(" + op + " " + strings.Join(parts, " ") + ")"
}

func (q And) String() string   { return join("and", q.Children) }
func (q Or) String() string    { return join("or", q.Children) }
func (q Not) String() string   { return "(not " + q.Child.String() + ")" }
func (q Term) String() string  { return fmt.Sprintf("%s:%q", q.Field, q.Value) }
func (q Const) String() string { return fmt.Sprint(q.Value) }

func (q Range) String() string {
	lo, hi := "*", "*"
	if q.Lo != math.MinInt64 {
		lo = fmt.Sprint(q.Lo)
	}
	if q.Hi != math.MaxInt64 {
		hi = fmt.Sprint(q.Hi)
	}
	return fmt.Sprintf("%s:[%s,%s]", q.Field, lo, hi)
}

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
		var kids []Q
		ranges := map[Field]int{}
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
				if i, ok := ranges[c.Field]; ok {
					r := kids[i].(Range)
					r.Lo, r.Hi = max(r.Lo, c.Lo), min(r.Hi, c.Hi)
					if r.Lo > r.Hi {
						return Const{false}
					}
					kids[i] = r
					continue
				}
				ranges[c.Field] = len(kids)
			}
			kids = append(kids, c)
		}
		switch len(kids) {
		case 0:
			return Const{true}
		case 1:
			return kids[0]
		}
		sortByText(kids)
		return And{kids}
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
		switch len(kids) {
		case 0:
			return Const{false}
		case 1:
			return kids[0]
		}
		sortByText(kids)
		return Or{kids}
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

func sortByText(qs []Q) {
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].String() < qs[j].String() })
}
