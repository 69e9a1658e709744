package engine

// ForceFilterPlan makes Filter use one plan (1 walk, 2 intersect, 0 the
// cost model) until the returned function restores the default.
func ForceFilterPlan(p int) (restore func()) {
	forcePlan = p
	return func() { forcePlan = 0 }
}

// AliasPrefixes returns every prefix of three runes or more of the brands'
// local spellings, and aliasFor's answer for each next to the one a scan of
// the spellings in popularity order gives.
func AliasPrefixes(c *Catalogue) (prefixes, got, want []string) {
	for _, a := range c.search.aliases {
		r := []rune(a.localized)
		for n := 3; n <= len(r); n++ {
			p := string(r[:n])
			g, _ := c.aliasFor(p)
			w := ""
			for _, b := range c.search.aliases {
				if len(b.localized) >= len(p) && b.localized[:len(p)] == p {
					w = b.canonical
					break
				}
			}
			prefixes, got, want = append(prefixes, p), append(got, g), append(want, w)
		}
	}
	return prefixes, got, want
}
