package vocab

// setUnits sets each spec's Units from units.tsv (see loadUnits).
func (v *Vocabulary) setUnits() error {
	units, err := loadUnits(v.Specs)
	if err != nil {
		return err
	}
	for i := range v.Specs {
		st := &v.Specs[i]
		for li := range st.Units {
			st.Units[li] = st.Unit
			if u, ok := units[st.Unit]; ok {
				st.Units[li] = u[li]
			}
		}
	}
	return nil
}

// loadUnits reads units.tsv: each unit's symbol per locale where the
// locale's car press writes it differently (PS, ch, CV, KM, LE, hk for hp;
// cm³ for cc; U/min for rpm; words for years and months). It returns the
// symbols by English unit; a unit that is not listed is written the same in
// every locale. A listed unit must be one of the dictionary's, and its
// English column must be the unit itself.
func loadUnits(specs []SpecType) (map[string]Labels, error) {
	used := map[string]bool{}
	for _, s := range specs {
		used[s.Unit] = true
	}
	units := map[string]Labels{}
	err := rows("units.tsv", 1+NumLocales, 1+NumLocales, func(rec *record) {
		f := rec.f
		u := f[0]
		if !used[u] || u == "" {
			rec.failf("unit %q is no spec's unit", u)
		}
		if _, dup := units[u]; dup {
			rec.failf("unit %q is listed twice", u)
		}
		var l Labels
		copy(l[:], f[1:])
		if l[En] != u {
			rec.failf("unit %q: the en column says %q", u, l[En])
		}
		for li, s := range l {
			if s == "" {
				rec.failf("unit %q has no symbol for %s", u, Locales[li])
			}
		}
		if rec.Err() == nil {
			units[u] = l
		}
	})
	return units, err
}
