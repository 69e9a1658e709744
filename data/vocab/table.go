package vocab

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// LastYear is the catalogue's last model year: no table's year lies after
// it.
const LastYear = 2026

// rows reads the embedded table name (see rowsOf).
func rows(name string, min, max int, fn func(r *record)) error {
	b, err := files.ReadFile(name)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", name, err)
	}
	return rowsOf(name, b, min, max, fn)
}

// rowsOf is the one reader of the vocabulary's tab-separated tables: it
// reads the content b of the table name, skipping comments and blank
// lines, checks that every row has between min and max fields and calls fn
// with the row, its fields trimmed and padded to max. The first error, the
// row's (see record) or its own, ends the reading; it names the file and
// line ("engines.tsv:12: ...").
func rowsOf(name string, b []byte, min, max int, fn func(r *record)) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < min || len(f) > max {
			return fmt.Errorf("%s:%d: %d fields, want %d to %d", name, n, len(f), min, max)
		}
		for len(f) < max {
			f = append(f, "")
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		r := &record{f: f}
		fn(r)
		if r.err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, r.err)
		}
	}
	return sc.Err()
}

// record is one row of a table. Its parsers read the common kinds of field
// and word their errors alike; a loader checks what is particular to its
// table itself, with failf.
//
// A record's error is sticky: the first parser or check that fails sets it,
// and from then on every parser returns its zero value and every check is
// a no-op. A loader reads its fields in order as a plain list and looks at
// Err once, at the end of the row, before it keeps the row: the error is
// that of the first field that failed, as if each had returned at once.
type record struct {
	f []string // the fields, trimmed, padded with "" to the table's most
	// who is what the row is about ("RAV4", "TSI") once the loader knows
	// it: errors after that name it first; "" names nothing.
	who  string
	err  error // the first error, nil while the row is good
	line int   // the row's line in its file (rowsAll sets it; 0 otherwise)
}

// Err returns the row's first error, nil when it has none.
func (r *record) Err() error { return r.err }

// failed reports whether the row already has an error: a parser reads
// nothing after it.
func (r *record) failed() bool { return r.err != nil }

// fail makes err, as it is, the row's error unless err is nil or the row
// already has one.
func (r *record) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// failf makes an error about the row, prefixed with who, the row's error
// unless it already has one.
func (r *record) failf(format string, args ...any) {
	if r.err != nil {
		return
	}
	err := fmt.Errorf(format, args...)
	if r.who != "" {
		err = fmt.Errorf("%s: %w", r.who, err)
	}
	r.err = err
}

// name reads field 0 as the row's name, what it is about: not empty and
// not yet in seen; what names the kind of row in the error ("badge").
func name[T any](r *record, what string, seen map[string]T) string {
	s := r.f[0]
	switch _, dup := seen[s]; {
	case s == "":
		r.failf("empty %s name", what)
	case dup:
		r.failf("%s %q twice", what, s)
	}
	if r.failed() {
		return ""
	}
	r.who = s
	return s
}

// text reads field i as it is, passed to check; check's error is the
// row's.
func (r *record) text(i int, check func(string) error) string {
	if r.failed() {
		return ""
	}
	if err := check(r.f[i]); err != nil {
		r.failf("%w", err)
		return ""
	}
	return r.f[i]
}

// year reads field i, a model year from earliest to LastYear. An empty
// field is 0 when optional and an error otherwise; what names the field in
// the error ("bad first year ...").
func (r *record) year(i int, what string, earliest int, optional bool) int {
	s := r.f[i]
	if r.failed() || (s == "" && optional) {
		return 0
	}
	y, err := strconv.Atoi(s)
	if err != nil || y < earliest || y > LastYear {
		r.failf("bad %s %q", what, s)
		return 0
	}
	return y
}

// span reads fields i and i+1 as a span of model years: the first from
// earliest, required; the last optional (0: open) and not before the first.
// firstWhat and lastWhat name the fields in errors.
func (r *record) span(i int, firstWhat, lastWhat string, earliest int) (first, last int) {
	first = r.year(i, firstWhat, earliest, false)
	last = r.year(i+1, lastWhat, first, true)
	return first, last
}

// int reads field i, an integer from lo to hi; what names it in the error.
func (r *record) int(i int, what string, lo, hi int) int {
	return r.intOf(r.f[i], what, lo, hi)
}

// intOf reads s, a part of a field, as int does.
func (r *record) intOf(s, what string, lo, hi int) int {
	if r.failed() {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		r.failf("bad %s %q (want %d-%d)", what, s, lo, hi)
		return 0
	}
	return n
}

// intRange reads fields i and i+1 as a range of integers lo <= min <= max
// <= hi; what names the range in the error.
func (r *record) intRange(i int, what string, lo, hi int) (min, max int) {
	if r.failed() {
		return 0, 0
	}
	min, err := strconv.Atoi(r.f[i])
	if err == nil {
		max, err = strconv.Atoi(r.f[i+1])
	}
	if err != nil || min < lo || max < min || max > hi {
		r.failf("bad %s %q-%q", what, r.f[i], r.f[i+1])
		return 0, 0
	}
	return min, max
}

// float reads field i, a number from lo to hi (not NaN); what names it in
// the error.
func (r *record) float(i int, what string, lo, hi float64) float64 {
	if r.failed() {
		return 0
	}
	x, err := strconv.ParseFloat(r.f[i], 64)
	if err != nil || !(x >= lo && x <= hi) {
		r.failf("bad %s %q", what, r.f[i])
		return 0
	}
	return x
}

// list reads field i as a comma-separated list, each item trimmed and
// passed to check; an empty field is one empty item (see optList). check's
// error is the row's.
func (r *record) list(i int, check func(string) error) []string {
	if r.failed() {
		return nil
	}
	out := strings.Split(r.f[i], ",")
	for j, s := range out {
		out[j] = strings.TrimSpace(s)
		if err := check(out[j]); err != nil {
			r.failf("%w", err)
			return nil
		}
	}
	return out
}

// optList reads an optional list: nil when field i is empty, else as list
// does.
func (r *record) optList(i int, check func(string) error) []string {
	if r.f[i] == "" {
		return nil
	}
	return r.list(i, check)
}

// known are the brands and nameplates a table's rows may name.
type known struct {
	v          *Vocabulary
	brands     map[string]bool
	nameplates map[string]bool // brand + "\t" + model name
}

// known returns the brands and nameplates loaded so far.
func (v *Vocabulary) known() *known {
	k := &known{v: v, brands: map[string]bool{}, nameplates: map[string]bool{}}
	for _, b := range v.Brands {
		k.brands[b.Slug] = true
	}
	for _, m := range v.Models {
		k.nameplates[m.Brand+"\t"+m.Name] = true
	}
	return k
}

// brand checks a brand slug.
func (k *known) brand(s string) error {
	if !k.brands[s] {
		return fmt.Errorf("unknown brand %q", s)
	}
	return nil
}

// nameplate checks a nameplate of a brand.
func (k *known) nameplate(brand, model string) error {
	if !k.nameplates[brand+"\t"+model] {
		return fmt.Errorf("unknown nameplate %s %q", brand, model)
	}
	return nil
}

// nameplateOf returns a check of a nameplate of any of brands.
func (k *known) nameplateOf(brands []string) func(string) error {
	return func(m string) error {
		for _, b := range brands {
			if k.nameplates[b+"\t"+m] {
				return nil
			}
		}
		return fmt.Errorf("unknown nameplate %q of %v", m, brands)
	}
}

// enum returns a check of a value of the enum group.
func (k *known) enum(group string) func(string) error {
	return func(s string) error {
		if _, ok := k.v.EnumValueIndex(group, s); !ok {
			return fmt.Errorf("unknown %s %q", group, s)
		}
		return nil
	}
}

// maxReported is how many errors rowsAll reports of one table before it
// stops: a data editor fixes them in one pass, and a broken file does not
// flood the log.
const maxReported = 40

// rowsAll reads the content b of the table name as rowsOf does, but goes on
// after a bad row: it returns every row's error (up to maxReported), each
// naming the file and line, joined. A table written by several editors at
// once is fixed in one pass.
func rowsAll(name string, b []byte, min, max int, fn func(r *record)) error {
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() && len(errs) < maxReported {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < min || len(f) > max {
			errs = append(errs, fmt.Errorf("%s:%d: %d fields, want %d to %d", name, n, len(f), min, max))
			continue
		}
		for len(f) < max {
			f = append(f, "")
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		r := &record{f: f, line: n}
		fn(r)
		if r.err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, n, r.err))
		}
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	return errors.Join(errs...)
}
