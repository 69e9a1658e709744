package vocab

// Badge is one row of badges.tsv: the model years an engine or hybrid
// badge was on sale and the badges names carry outside them.
type Badge struct {
	First, Last int    // model years; First 0: only a fallback, no era; Last 0: still in use
	Before      string // the brand's earlier badge for the same technology, "" for none
	After       string // the successor once the era is over, "" for none
}

// loadBadgesFrom parses the content of badges.tsv.
func (v *Vocabulary) loadBadgesFrom(b []byte) error {
	v.Badges = map[string]Badge{}
	return rowsOf("badges.tsv", b, 2, 5, func(rec *record) {
		key := name(rec, "badge", v.Badges)
		bd := Badge{
			First:  rec.year(1, "year", 1900, true),
			Last:   rec.year(2, "year", 1900, true),
			Before: rec.f[3],
			After:  rec.f[4],
		}
		if bd.Last != 0 && bd.Last < bd.First {
			rec.failf("last %d before first %d", bd.Last, bd.First)
		}
		if rec.Err() == nil {
			v.Badges[key] = bd
		}
	})
}
