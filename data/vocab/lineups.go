package vocab

import (
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Box is one gearbox an engine offer came with: a transmission of the
// "transmission" enum and its gears (1 for a CVT or a single-speed
// reduction gear).
type Box struct {
	Transmission string
	Gears        int
}

// String writes the box as lineups/*.tsv does ("manual:6", "cvt").
func (b Box) String() string {
	if b.Transmission == "cvt" || b.Transmission == "single_speed" {
		return b.Transmission
	}
	return b.Transmission + ":" + strconv.Itoa(b.Gears)
}

// Offer is one row of lineups/<brand>.tsv: an engine at one power as the
// maker's price lists of one generation showed it, with the model years it
// was offered and the gearboxes and drives it came with. Figures a row
// leaves empty are 0 (unknown): the generator derives them.
type Offer struct {
	Brand  string
	Models []string // the nameplates that shared the offer, the first naming the mark
	// Mark is the generation column as written: a mark's code in
	// generations.tsv of Models[0], or the name of its facelifted phase.
	Mark string
	// Marks are the mark of each nameplate of Models, index by index: the
	// one named for the first, the one whose years overlap the offer's
	// most for the others; -1 where the nameplate lists no marks.
	Marks      []int
	Badge      string
	Fuel       string
	From, To   int // model years; To 0: still on sale
	CC, Cyl    int
	Aspiration string // "" for electric cars
	KW, PS, NM int
	Boxes      []Box
	Drives     []string
	BatteryKWh float64 // usable
	RangeKM    int
	TopKMH     int
	Accel      float64
	L100       float64
	CO2        int
	KerbKG     int
	PriceEUR   int    // the cheapest trim's list price in euros of the day
	PriceSrc   string // market of the price ("NL", "DE", ...)
	PriceYear  int    // model year of the price
	Cycle      string // "NEDC" or "WLTP": the cycle of RangeKM, L100 and CO2
	Note       string
	// Source is where the row was read ("lineups/volkswagen.tsv:12").
	Source string
}

// Covers reports whether the offer was sold in model year y.
func (o *Offer) Covers(y int) bool { return y >= o.From && (o.To == 0 || y <= o.To) }

// Overlaps reports whether the offer was sold in some model year from
// from to to (to 0: open).
func (o *Offer) Overlaps(from, to int) bool {
	return (to == 0 || o.From <= to) && (o.To == 0 || o.To >= from)
}

// MarkOf returns the index in the nameplate's Marks of the generation the
// offer belongs to for model (one of Models); false when the nameplate
// lists no marks or is not one of Models.
func (o *Offer) MarkOf(model string) (int, bool) {
	i := slices.Index(o.Models, model)
	if i < 0 || o.Marks[i] < 0 {
		return 0, false
	}
	return o.Marks[i], true
}

// TrimLadder is one row of trims/<brand>.tsv: the trims of nameplates (or
// of every nameplate of the brand without a row of its own) in a span of
// model years, cheapest first, and the badges it is limited to (nil: every
// badge but the performance versions).
type TrimLadder struct {
	Brand    string
	Models   []string // nil: "*", the brand's other nameplates
	From, To int
	Trims    []string
	Badges   []string
	Note     string
	Source   string
}

// Covers reports whether the ladder was sold in model year y.
func (t *TrimLadder) Covers(y int) bool { return y >= t.From && (t.To == 0 || y <= t.To) }

// Lineup returns the engine offers of a nameplate (rows naming it among
// their nameplates), in file order; nil when none does.
func (v *Vocabulary) Lineup(brand, model string) []*Offer {
	return v.lineups[brand+"\t"+model]
}

// LineupBrands returns the brands with a lineups file, sorted.
func (v *Vocabulary) LineupBrands() []string {
	seen := map[string]bool{}
	for _, o := range v.Offers {
		seen[o.Brand] = true
	}
	out := make([]string, 0, len(seen))
	for b := range seen {
		out = append(out, b)
	}
	sort.Strings(out)
	return out
}

// Trims returns the trim ladder of a nameplate's badge in model year y:
// a row naming the nameplate (or "*" when none of the brand's rows names
// it) whose years cover y and whose badges list the badge, else one
// without badges when the badge is not a performance version's
// (performance reports whether it is); nil when no row applies.
func (v *Vocabulary) Trims(brand, model, badge string, y int, performance bool) []string {
	var own, all []*TrimLadder
	named := false
	for _, t := range v.TrimLadders {
		if t.Brand != brand {
			continue
		}
		switch {
		case t.Models == nil:
			all = append(all, t)
		case slices.Contains(t.Models, model):
			named = true
			own = append(own, t)
		}
	}
	rows := own
	if !named {
		rows = all
	}
	var general []string
	for _, t := range rows {
		if !t.Covers(y) {
			continue
		}
		if t.Badges != nil {
			if slices.Contains(t.Badges, badge) {
				return t.Trims
			}
			continue
		}
		if general == nil {
			general = t.Trims
		}
	}
	if performance || v.ladderBadges[brand+"\t"+badge] {
		return nil
	}
	return general
}

// lineupFields is the column count of lineups/*.tsv (the note may be
// missing at the end of a row).
const lineupFields = 24

// loadLineups reads every lineups/<brand>.tsv and trims/<brand>.tsv of
// the embedded files, reporting every bad row of every file at once.
func (v *Vocabulary) loadLineups() error {
	var errs []error
	for _, dir := range []string{"lineups", "trims"} {
		des, err := files.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("cannot read %s: %w", dir, err)
		}
		for _, de := range des {
			if !strings.HasSuffix(de.Name(), ".tsv") {
				continue
			}
			name := dir + "/" + de.Name()
			b, err := files.ReadFile(name)
			if err != nil {
				return fmt.Errorf("cannot read %s: %w", name, err)
			}
			if dir == "lineups" {
				err = v.loadLineupFrom(name, b)
			} else {
				err = v.loadTrimsFrom(name, b)
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// brandOfFile is the brand slug a lineups or trims file is named after.
func brandOfFile(name string) string {
	return strings.TrimSuffix(path.Base(name), ".tsv")
}

// loadLineupFrom parses the content of one lineups/<brand>.tsv. It runs
// after generations.tsv, whose marks the rows name.
func (v *Vocabulary) loadLineupFrom(name string, b []byte) error {
	brand := brandOfFile(name)
	k := v.known()
	if err := k.brand(brand); err != nil {
		return fmt.Errorf("%s: %w (the file is named after a brand slug of brands.tsv)", name, err)
	}
	if v.lineups == nil {
		v.lineups = map[string][]*Offer{}
	}
	models := map[string]*ModelSeed{}
	for i := range v.Models {
		if v.Models[i].Brand == brand {
			models[v.Models[i].Name] = &v.Models[i]
		}
	}
	type key struct {
		model, mark, badge string
		kw                 int
	}
	seen := map[key]*Offer{}
	return rowsAll(name, b, lineupFields-1, lineupFields, func(rec *record) {
		f := rec.f
		o := &Offer{Brand: brand, Mark: f[1], Badge: f[2], Note: f[23], Source: fmt.Sprintf("%s:%d", name, rec.line)}
		o.Models = rec.list(0, func(m string) error {
			if models[m] == nil {
				return fmt.Errorf("unknown nameplate %s %q (not in models_*.tsv)", brand, m)
			}
			return nil
		})
		if len(o.Models) > 0 {
			rec.who = o.Models[0] + " " + o.Mark + " " + o.Badge
		}
		if o.Badge == "" {
			rec.failf("empty badge")
		}
		for i, m := range o.Models {
			if slices.Contains(o.Models[:i], m) {
				rec.failf("nameplate %q twice", m)
			}
		}
		o.Fuel = rec.text(3, k.enum("fuel"))
		o.From, o.To = rec.yearSpan(4)
		electric := o.Fuel == "electric" || o.Fuel == "hydrogen"
		o.CC = rec.optInt(5, "cc", 50, 9000)
		o.Cyl = rec.optInt(6, "cylinders", 1, 16)
		if f[7] != "" {
			o.Aspiration = rec.text(7, k.enum("aspiration"))
		}
		if electric && (o.CC != 0 || o.Cyl != 0 || o.Aspiration != "") {
			rec.failf("an %s car has no displacement, cylinders or aspiration", o.Fuel)
		}
		o.KW = rec.optInt(8, "kW", 1, 1500)
		o.PS = rec.optInt(9, "PS", 1, 2100)
		switch {
		case rec.failed():
		case o.KW == 0 && o.PS == 0:
			rec.failf("no power: kW or PS is required")
		case o.KW == 0:
			o.KW = int(math.Round(float64(o.PS) / 1.35962))
		case o.PS == 0:
			o.PS = int(math.Round(float64(o.KW) * 1.35962))
		case math.Abs(float64(o.PS)-float64(o.KW)*1.35962) > 1.5:
			rec.failf("%d kW is %.0f PS, not %d", o.KW, float64(o.KW)*1.35962, o.PS)
		}
		o.NM = rec.optInt(10, "torque", 10, 3000)
		o.Boxes = rec.boxes(11)
		o.Drives = rec.list(12, k.enum("drive"))
		o.BatteryKWh = rec.optFloat(13, "battery", 1, 250)
		if o.BatteryKWh != 0 && o.Fuel != "electric" && o.Fuel != "plug_in_hybrid" {
			rec.failf("a battery on a %s car", o.Fuel)
		}
		o.RangeKM = rec.optInt(14, "range", 5, 1200)
		o.TopKMH = rec.optInt(15, "top speed", 40, 500)
		o.Accel = rec.optFloat(16, "0-100 km/h", 1.5, 40)
		o.L100 = rec.optFloat(17, "consumption", 0.1, 30)
		o.CO2 = rec.optInt(18, "CO2", 0, 700)
		o.KerbKG = rec.optInt(19, "kerb weight", 300, 4500)
		o.PriceEUR = rec.optInt(20, "price", 1000, 10000000)
		o.PriceSrc, o.PriceYear = rec.priceSource(21)
		if (o.PriceEUR != 0) != (o.PriceSrc != "") {
			rec.failf("a price needs its source (price_src %q) and a source its price", f[21])
		}
		o.Cycle = f[22]
		switch {
		case o.Cycle == "NEDC" || o.Cycle == "WLTP":
		case o.Cycle != "":
			rec.failf("cycle %q: NEDC or WLTP", o.Cycle)
		case o.RangeKM != 0 || o.L100 != 0 || o.CO2 != 0:
			rec.failf("range, consumption or CO2 without their cycle (NEDC or WLTP)")
		}
		if electric && (o.L100 != 0 || o.CO2 > 0) {
			rec.failf("an %s car burns no fuel", o.Fuel)
		}
		if o.Fuel == "electric" && slices.ContainsFunc(o.Boxes, func(b Box) bool { return b.Transmission == "manual" }) {
			rec.failf("a manual gearbox on an electric car")
		}
		v.resolveMarks(rec, o, models)
		if rec.failed() {
			return
		}
		kk := key{o.Models[0], o.Mark, o.Badge, o.KW}
		// The same badge at the same power may follow itself with another
		// engine, the two sharing the year of the change (BMW's 325i of
		// 2005 and 2007); beyond that year it is one offer written twice.
		if prev := seen[kk]; prev != nil && prev.Fuel == o.Fuel && commonYears(prev, o) > 1 {
			rec.failf("the same offer as %s (badge, power and more than a year in common)", prev.Source)
			return
		}
		seen[kk] = o
		v.Offers = append(v.Offers, o)
		for _, m := range o.Models {
			v.lineups[brand+"\t"+m] = append(v.lineups[brand+"\t"+m], o)
		}
	})
}

// commonYears is how many model years two offers share.
func commonYears(a, b *Offer) int {
	return min(endOr(a.To, LastYear), endOr(b.To, LastYear)) - max(a.From, b.From) + 1
}

// resolveMarks finds the mark of each nameplate of the offer and checks
// that the offer's years lie inside the first one's.
func (v *Vocabulary) resolveMarks(rec *record, o *Offer, models map[string]*ModelSeed) {
	if rec.failed() {
		return
	}
	o.Marks = make([]int, len(o.Models))
	for i, name := range o.Models {
		m := models[name]
		o.Marks[i] = -1
		if i == 0 {
			mi, ok := markNamed(m.Marks, o.Mark)
			if !ok {
				var codes []string
				for _, mk := range m.Marks {
					codes = append(codes, strconv.Quote(mk.Code))
				}
				if len(codes) == 0 {
					if o.Mark == "" {
						// A nameplate generations.tsv does not list: its
						// rows go by their years.
						continue
					}
					rec.failf("%s lists no generations in generations.tsv: its rows leave the generation empty", name)
				} else {
					rec.failf("no generation %q of %s in generations.tsv (it lists %s)", o.Mark, name, strings.Join(codes, ", "))
				}
				return
			}
			mk := m.Marks[mi]
			from, to := markYears(mk, o.Mark)
			if o.From < from || (to != 0 && (o.To == 0 || o.To > to)) {
				rec.failf("years %d-%s outside %s %s (%d-%s in generations.tsv)", o.From, yearOrOpen(o.To), name, o.Mark, from, yearOrOpen(to))
				return
			}
			o.Marks[i] = mi
			continue
		}
		best, bestN := -1, 0
		for j, mk := range m.Marks {
			lo, hi := max(o.From, mk.YearStart), min(endOr(o.To, LastYear), endOr(mk.YearEnd, LastYear))
			if n := hi - lo + 1; n > bestN || (n == bestN && n > 0 && mk.Code == o.Mark) {
				best, bestN = j, n
			}
		}
		if len(m.Marks) > 0 && best < 0 {
			rec.failf("%s had no generation in %d-%s (generations.tsv)", name, o.From, yearOrOpen(o.To))
			return
		}
		o.Marks[i] = best
	}
}

// markNamed finds the mark a lineup row names: by its code, or by the name
// of its facelifted phase ("E90 LCI", "Highland", "VIII Facelift").
func markNamed(marks []Mark, name string) (int, bool) {
	for i, mk := range marks {
		if mk.Code == name {
			return i, true
		}
	}
	for i, mk := range marks {
		if ps := mk.Phases(); len(ps) == 2 && ps[1].Name == name {
			return i, true
		}
	}
	return 0, false
}

// markYears are the years of the mark, or of its facelifted phase when the
// row names that.
func markYears(mk Mark, name string) (from, to int) {
	if ps := mk.Phases(); len(ps) == 2 && ps[1].Name == name && mk.Code != name {
		return ps[1].YearStart, ps[1].YearEnd
	}
	return mk.YearStart, mk.YearEnd
}

func yearOrOpen(y int) string {
	if y == 0 {
		return ""
	}
	return strconv.Itoa(y)
}

// yearSpan reads field i as "YYYY-YYYY", "YYYY-" (open) or "YYYY".
func (r *record) yearSpan(i int) (from, to int) {
	if r.failed() {
		return 0, 0
	}
	s := r.f[i]
	a, b, dash := strings.Cut(s, "-")
	from = r.intOf(a, "first year", 1950, LastYear)
	switch {
	case !dash:
		to = from
	case b == "":
		to = 0
	default:
		to = r.intOf(b, "last year", from, LastYear)
	}
	if r.failed() {
		r.err = nil
		r.failf("bad years %q (YYYY-YYYY, YYYY- or YYYY)", s)
	}
	return from, to
}

// optInt reads field i, empty or an integer from lo to hi.
func (r *record) optInt(i int, what string, lo, hi int) int {
	if r.f[i] == "" {
		return 0
	}
	return r.int(i, what, lo, hi)
}

// optFloat reads field i, empty or a number from lo to hi.
func (r *record) optFloat(i int, what string, lo, hi float64) float64 {
	if r.f[i] == "" {
		return 0
	}
	return r.float(i, what, lo, hi)
}

// boxes reads field i, the gearboxes of an offer: "manual:6,dct:7,cvt".
func (r *record) boxes(i int) []Box {
	var out []Box
	items := r.list(i, func(s string) error {
		if s == "" {
			return fmt.Errorf("no gearbox")
		}
		return nil
	})
	for _, s := range items {
		t, n, hasN := strings.Cut(s, ":")
		b := Box{Transmission: t, Gears: 1}
		switch t {
		case "cvt", "single_speed":
			if hasN {
				r.failf("gearbox %q: a %s has no gear count", s, t)
			}
		case "manual", "automatic", "dct", "amt":
			if !hasN {
				r.failf("gearbox %q: %s:N with its gears", s, t)
				break
			}
			b.Gears = r.intOf(n, "gears of "+t, 2, 10)
		default:
			r.failf("gearbox %q: manual:N, automatic:N, dct:N, amt:N, cvt or single_speed", s)
		}
		if slices.Contains(out, b) {
			r.failf("gearbox %q twice", s)
		}
		out = append(out, b)
	}
	if r.failed() {
		return nil
	}
	return out
}

// priceSource reads field i, the market and model year of a price ("NL
// 2021"), or nothing.
func (r *record) priceSource(i int) (market string, year int) {
	s := r.f[i]
	if s == "" || r.failed() {
		return "", 0
	}
	m, y, ok := strings.Cut(s, " ")
	if !ok || len(m) != 2 || strings.ToUpper(m) != m {
		r.failf("bad price_src %q (a market and a year: NL 2021)", s)
		return "", 0
	}
	return m, r.intOf(y, "price year", 1985, LastYear)
}

// loadTrimsFrom parses the content of one trims/<brand>.tsv. It runs after
// the lineups, whose badges its rows may name.
func (v *Vocabulary) loadTrimsFrom(name string, b []byte) error {
	brand := brandOfFile(name)
	k := v.known()
	if err := k.brand(brand); err != nil {
		return fmt.Errorf("%s: %w (the file is named after a brand slug of brands.tsv)", name, err)
	}
	if v.ladderBadges == nil {
		v.ladderBadges = map[string]bool{}
	}
	badges := map[string]bool{}
	for _, o := range v.Offers {
		if o.Brand == brand {
			badges[o.Badge] = true
		}
	}
	return rowsAll(name, b, 3, 5, func(rec *record) {
		f := rec.f
		t := &TrimLadder{Brand: brand, Note: f[4], Source: fmt.Sprintf("%s:%d", name, rec.line)}
		if f[0] != "*" {
			t.Models = rec.list(0, func(m string) error { return k.nameplate(brand, m) })
		}
		rec.who = f[0]
		t.From, t.To = rec.yearSpan(1)
		t.Trims = rec.list(2, func(s string) error {
			if s == "" {
				return fmt.Errorf("empty trim name")
			}
			return nil
		})
		for i, s := range t.Trims {
			if slices.Contains(t.Trims[:i], s) {
				rec.failf("trim %q twice", s)
			}
		}
		t.Badges = rec.optList(3, func(s string) error {
			if !badges[s] {
				return fmt.Errorf("badge %q is in no row of lineups/%s.tsv", s, brand)
			}
			return nil
		})
		if rec.failed() {
			return
		}
		for _, s := range t.Badges {
			v.ladderBadges[brand+"\t"+s] = true
		}
		v.TrimLadders = append(v.TrimLadders, t)
	})
}
