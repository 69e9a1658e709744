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
	return rowsOf("gearboxes.tsv", b, 2, 4, func(rec *record) {
		key := name(rec, "gearbox", v.Gearboxes)
		var g Gearbox
		g.First, g.Last = rec.span(1, "first year", "last year", 1900)
		g.Brands = rec.optList(3, k.brand)
		if rec.Err() == nil {
			v.Gearboxes[key] = g
		}
	})
}
