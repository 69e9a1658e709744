package export

import (
	"bytes"
	"fmt"
	"strconv"
)

// Type is the value type of a column. It decides how a cell is written in
// JSON Lines (quoted or not) and how keys are ordered.
type Type uint8

// Column types.
const (
	TypeInt      Type = iota + 1 // integer, written as a JSON number
	TypeNumber                   // decimal number with a dot, written as a JSON number
	TypeBool                     // true or false
	TypeText                     // UTF-8 text
	TypeEnum                     // English slug of an enumeration; labels in value_labels
	TypeDate                     // YYYY-MM-DD
	TypeDateTime                 // RFC 3339 UTC, e.g. 2026-11-01T03:00:00Z
	TypeURL                      // absolute URL
)

var typeNames = [...]string{TypeInt: "integer", TypeNumber: "number", TypeBool: "boolean", TypeText: "text",
	TypeEnum: "enum", TypeDate: "date", TypeDateTime: "datetime", TypeURL: "url"}

// String returns the type's name as the field dictionary writes it.
func (t Type) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return "type(" + strconv.Itoa(int(t)) + ")"
}

// ParseType parses a type name written by String.
func ParseType(s string) (Type, bool) {
	for t, n := range typeNames {
		if n != "" && n == s {
			return Type(t), true
		}
	}
	return 0, false
}

// MarshalText implements encoding.TextMarshaler.
func (t Type) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *Type) UnmarshalText(b []byte) error {
	v, ok := ParseType(string(b))
	if !ok {
		return fmt.Errorf("unknown column type %q", b)
	}
	*t = v
	return nil
}

// quoted reports whether a JSON value of the type is a string.
func (t Type) quoted() bool { return t != TypeInt && t != TypeNumber && t != TypeBool }

// Table roles.
const (
	RoleData       = "data"       // rows keyed on stable ids, one module's fields
	RoleConfidence = "confidence" // confidences below 1 of the data tables' values
	RoleReference  = "reference"  // field dictionary and value labels
)

// Column is one column of a table. Only Name, Type and Module travel in a
// change file's schema; the rest feeds the field dictionary.
type Column struct {
	Name   string `json:"name"`
	Type   Type   `json:"type"`
	Module string `json:"module,omitempty"` // the module whose price covers the field; "" for key columns

	Unit   string   `json:"-"`
	Enum   string   `json:"-"` // enumeration of a TypeEnum column
	Desc   string   `json:"-"` // English description
	Labels []string `json:"-"` // display name per exported language ("" when none)
	Units  []string `json:"-"` // the unit as each exported language writes it (PS for hp in de)
}

// Schema is a table's shape: what a change file carries so that applying it
// can rebuild the export without the snapshot.
type Schema struct {
	Name   string   `json:"name"`
	Role   string   `json:"role"`
	Module string   `json:"module,omitempty"`
	Title  string   `json:"title"`
	Keys   int      `json:"keys"` // the first Keys columns form the row key
	Cols   []Column `json:"columns"`
}

// Table is a schema with a source of rows in ascending key order.
type Table struct {
	Schema
	Size int                     // expected rows, for progress; 0 when unknown
	Open func() (rowIter, error) // a fresh iterator over the rows
}

// rowIter iterates the rows of a table in ascending key order.
type rowIter interface {
	// next fills r with the next row and reports whether there was one.
	next(r *Row) (bool, error)
}

// Row is one row being built or read: its cells are views into buf, in
// column order. An empty cell is null.
type Row struct {
	buf  []byte
	ends []int
}

func (r *Row) reset() {
	r.buf = r.buf[:0]
	r.ends = r.ends[:0]
}

// Len returns the number of cells.
func (r *Row) Len() int { return len(r.ends) }

// Cell returns cell i as a view valid until the row is reset.
func (r *Row) Cell(i int) []byte {
	start := 0
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.buf[start:r.ends[i]]
}

func (r *Row) end()           { r.ends = append(r.ends, len(r.buf)) }
func (r *Row) null()          { r.end() }
func (r *Row) str(s string)   { r.buf = append(r.buf, s...); r.end() }
func (r *Row) bytes(b []byte) { r.buf = append(r.buf, b...); r.end() }
func (r *Row) int(v int64)    { r.buf = strconv.AppendInt(r.buf, v, 10); r.end() }
func (r *Row) uint(v uint32)  { r.buf = strconv.AppendUint(r.buf, uint64(v), 10); r.end() }
func (r *Row) copyFrom(o *Row) {
	r.buf = append(r.buf[:0], o.buf...)
	r.ends = append(r.ends[:0], o.ends...)
}

// compareKeys orders two rows of a table by their key columns: integers by
// value, everything else bytewise.
func compareKeys(s *Schema, a, b *Row) int {
	for i := 0; i < s.Keys; i++ {
		x, y := a.Cell(i), b.Cell(i)
		if s.Cols[i].Type == TypeInt {
			xv, yv := atoi(x), atoi(y)
			switch {
			case xv < yv:
				return -1
			case xv > yv:
				return 1
			}
			continue
		}
		if c := bytes.Compare(x, y); c != 0 {
			return c
		}
	}
	return 0
}

// atoi parses a decimal integer without allocating; anything else is 0,
// and the writer's order check then reports the table.
func atoi(b []byte) int64 {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		return -v
	}
	return v
}

// sliceIter iterates rows held in memory.
type sliceIter struct {
	rows []Row
	i    int
}

func (it *sliceIter) next(r *Row) (bool, error) {
	if it.i >= len(it.rows) {
		return false, nil
	}
	r.copyFrom(&it.rows[it.i])
	it.i++
	return true, nil
}

// funcIter adapts a function that fills row i of n.
type funcIter struct {
	n, i int
	fill func(i int, r *Row)
}

func (it *funcIter) next(r *Row) (bool, error) {
	if it.i >= it.n {
		return false, nil
	}
	r.reset()
	it.fill(it.i, r)
	it.i++
	return true, nil
}
