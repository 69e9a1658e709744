package vocab

import (
	"errors"
	"fmt"
	"strconv"
)

// Mark is one real generation of a nameplate as listed in generations.tsv.
// A mark with a facelift becomes two catalogue generations: the mark up to
// the facelift year and the facelifted mark from it.
type Mark struct {
	Code      string // "VII", "E90", "Mk4"; "" when the nameplate is known by its name alone
	YearStart int    // launch year; may precede 1990, the catalogue's first model year
	YearEnd   int    // last production year, 0 while in production
	Facelift  int    // year of the mid-cycle facelift, 0 when none
	// FaceliftCode is what the press calls the facelifted mark ("E90 LCI",
	// "6N2", "Highland"); "" means Code + " Facelift".
	FaceliftCode string
}

// Phase is one catalogue generation: a mark before or after its facelift.
type Phase struct {
	Name      string // display name after the model name; "" for a nameplate known by its name alone
	YearStart int
	YearEnd   int // 0 while in production
}

// Phases splits the mark at its facelift. The pre-facelift phase ends in the
// facelift year and the facelifted one starts in it, as the model years
// overlap in the press's listings.
func (mk Mark) Phases() []Phase {
	if mk.Facelift == 0 {
		return []Phase{{mk.Code, mk.YearStart, mk.YearEnd}}
	}
	fl := mk.FaceliftCode
	if fl == "" {
		fl = "Facelift"
		if mk.Code != "" {
			fl = mk.Code + " Facelift"
		}
	}
	return []Phase{{mk.Code, mk.YearStart, mk.Facelift}, {fl, mk.Facelift, mk.YearEnd}}
}

// loadGenerationsFrom parses the content of generations.tsv.
func (v *Vocabulary) loadGenerationsFrom(b []byte) error {
	index := map[string]int{}
	for i, m := range v.Models {
		index[m.Brand+"\t"+m.Name] = i
	}
	rank := 0
	last := ""
	names := map[string]bool{}
	err := rowsOf("generations.tsv", b, 4, 7, func(rec *record) {
		f := rec.f
		key := f[0] + "\t" + f[1]
		mi, ok := index[key]
		if !ok {
			rec.failf("unknown nameplate %s %q (not in models_*.tsv)", f[0], f[1])
			return // no nameplate to check the row against
		}
		m := &v.Models[mi]
		if key != last {
			if m.Rank != 0 {
				rec.failf("nameplate %s %q: its rows are not together", f[0], f[1])
			}
			rank++
			m.Rank = rank
			last = key
		}
		rec.who = f[1]
		mk := Mark{Code: f[2], FaceliftCode: f[6]}
		mk.YearStart, mk.YearEnd = rec.span(3, "year_start", "year_end", 1930)
		if f[5] != "" {
			var err error
			mk.Facelift, err = strconv.Atoi(f[5])
			if err != nil || mk.Facelift <= mk.YearStart || (mk.YearEnd != 0 && mk.Facelift > mk.YearEnd) || mk.Facelift > LastYear {
				rec.failf("bad facelift year %q", f[5])
			}
		} else if mk.FaceliftCode != "" {
			rec.failf("facelift_name %q without a facelift year", mk.FaceliftCode)
		}
		if n := len(m.Marks); n > 0 && m.Marks[n-1].YearStart > mk.YearStart {
			rec.failf("marks out of order (%d after %d)", mk.YearStart, m.Marks[n-1].YearStart)
		}
		// Every mark must overlap the nameplate's years in models_*.tsv:
		// those are the outer bounds the catalogue covers.
		if mk.YearStart > endOr(m.YearEnd, LastYear) || endOr(mk.YearEnd, LastYear) < m.YearStart {
			rec.fail(fmt.Errorf("%s %s (%d-%d) lies outside the nameplate's years %d-%d", f[1], mk.Code, mk.YearStart, mk.YearEnd, m.YearStart, m.YearEnd))
		}
		for _, p := range mk.Phases() {
			if names[key+"\t"+p.Name] {
				rec.failf("generation name %q twice", p.Name)
			}
			names[key+"\t"+p.Name] = true
		}
		if rec.Err() == nil {
			m.Marks = append(m.Marks, mk)
		}
	})
	if err != nil {
		return err
	}
	// Report every disagreement with models_*.tsv at once: a data editor
	// fixes them in one pass.
	var errs []error
	for _, m := range v.Models {
		if len(m.Marks) == 0 {
			continue
		}
		// The last mark ends when the nameplate does; the first is on sale
		// in the nameplate's first year (it may have started earlier,
		// outside Europe or before 1990).
		if end := m.Marks[len(m.Marks)-1].YearEnd; end != m.YearEnd {
			errs = append(errs, fmt.Errorf("generations.tsv: %s %s: last mark ends %d, models_*.tsv says %d", m.Brand, m.Name, end, m.YearEnd))
		}
		if m.Marks[0].YearStart > m.YearStart {
			errs = append(errs, fmt.Errorf("generations.tsv: %s %s: first mark starts %d, models_*.tsv says %d", m.Brand, m.Name, m.Marks[0].YearStart, m.YearStart))
		}
	}
	return errors.Join(errs...)
}

func endOr(y, open int) int {
	if y == 0 {
		return open
	}
	return y
}
