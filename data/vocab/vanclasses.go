package vocab

import "slices"

// VanClasses are the size classes of vanclasses.tsv.
var VanClasses = []string{"micro", "small", "medium", "large"}

// VanClass returns the size class of a van or light commercial nameplate
// (vanclasses.tsv), "medium" when it is not listed.
func (v *Vocabulary) VanClass(brand, model string) string {
	if c, ok := v.vanClass[brand+"\t"+model]; ok {
		return c
	}
	return "medium"
}

// loadVanClassesFrom parses the content of vanclasses.tsv.
func (v *Vocabulary) loadVanClassesFrom(b []byte) error {
	k := v.known()
	v.vanClass = map[string]string{}
	return rowsOf("vanclasses.tsv", b, 3, 3, func(rec *record) {
		f := rec.f
		rec.fail(k.nameplate(f[0], f[1]))
		if !slices.Contains(VanClasses, f[2]) {
			rec.failf("%s: class %q: micro, small, medium or large", f[1], f[2])
		}
		key := f[0] + "\t" + f[1]
		if _, dup := v.vanClass[key]; dup {
			rec.failf("%s %q listed twice", f[0], f[1])
		}
		if rec.Err() == nil {
			v.vanClass[key] = f[2]
		}
	})
}
