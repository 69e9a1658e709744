package vocab

import (
	"fmt"
	"strconv"
	"strings"
)

// Gearbox is one row of gearboxes.tsv: an automatic gearbox name, the model
// years it was sold and the brands that sold it under that name.
type Gearbox struct {
	First, Last int      // Last 0: still sold
	Brands      []string // nil: any brand
}

// loadGearboxesFrom parses the content of gearboxes.tsv.
func (v *Vocabulary) loadGearboxesFrom(b []byte) error {
	v.Gearboxes = map[string]Gearbox{}
	brands := map[string]bool{}
	for _, br := range v.Brands {
		brands[br.Slug] = true
	}
	return rowsOf("gearboxes.tsv", b, 2, 4, func(_ int, f []string) error {
		if f[0] == "" {
			return fmt.Errorf("empty gearbox name")
		}
		if _, dup := v.Gearboxes[f[0]]; dup {
			return fmt.Errorf("gearbox %q twice", f[0])
		}
		var g Gearbox
		var err error
		if g.First, err = strconv.Atoi(f[1]); err != nil || g.First < 1900 || g.First > 2026 {
			return fmt.Errorf("%s: bad first year %q", f[0], f[1])
		}
		if f[2] != "" {
			if g.Last, err = strconv.Atoi(f[2]); err != nil || g.Last < g.First || g.Last > 2026 {
				return fmt.Errorf("%s: bad last year %q", f[0], f[2])
			}
		}
		if f[3] != "" {
			for _, br := range strings.Split(f[3], ",") {
				if !brands[br] {
					return fmt.Errorf("%s: unknown brand %q", f[0], br)
				}
				g.Brands = append(g.Brands, br)
			}
		}
		v.Gearboxes[f[0]] = g
		return nil
	})
}
