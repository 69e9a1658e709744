package vocab

// Gearbox is one row of gearboxes.tsv: an automatic gearbox name, the model
// years it was sold and the brands that sold it under that name.
type Gearbox struct {
	First, Last int      // Last 0: still sold
	Brands      []string // nil: any brand
}

// loadGearboxesFrom parses the content of gearboxes.tsv.
func (v *Vocabulary) loadGearboxesFrom(b []byte) error {
	v.Gearboxes = map[string]Gearbox{}
	k := v.known()
	return rowsOf("gearboxes.tsv", b, 2, 4, func(rec *record) error {
		f := rec.f
		key, err := name(rec, "gearbox", v.Gearboxes)
		if err != nil {
			return err
		}
		var g Gearbox
		if g.First, g.Last, err = rec.span(1, "first year", "last year", 1900); err != nil {
			return err
		}
		if f[3] != "" {
			if g.Brands, err = rec.list(3, k.brand); err != nil {
				return err
			}
		}
		v.Gearboxes[key] = g
		return nil
	})
}
