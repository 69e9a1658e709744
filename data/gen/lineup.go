package gen

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vspec/catalogue/data/vocab"
)

// A generation's variants come from its line-up (issue 29): the engine
// offers it was sold with, each with the gearboxes and drives it came with,
// crossed with the trims of its era. The nameplates data/vocab/lineups
// lists take their offers from those rows only; every other generation gets
// a rule-based line-up (ruleOffers) drawn from its brand's engines of the
// era, its segment and its powertrain rules, with the same shape: one badge
// at one power, a set of gearboxes and drives per engine.

// engineOffer is one engine offer of a catalogue generation.
type engineOffer struct {
	row      *vocab.Offer // the line-up row; nil for a rule-based offer
	badge    string       // the version's designation in names, without trim, gearbox or drive
	from, to int          // the model years it is sold within the generation
	proto    car          // the engine's figures, shared by every variant of the offer
	boxes    []vocab.Box
	drives   []string
	weight   float64 // how often it sold, relative to the generation's others
}

// combo is one candidate variant: an offer with one of its gearboxes and
// drives in one trim.
type combo struct {
	o      *engineOffer
	box    vocab.Box
	drive  string
	trim   int      // index into trims
	trims  []string // the ladder of the offer's year (nil: no trim)
	year   int
	score  float64
	primer bool // the offer's first combo: every offer gets one
}

// trimName is the combo's trim, "" when it has none.
func (cb *combo) trimName() string {
	if cb.trim < len(cb.trims) {
		return cb.trims[cb.trim]
	}
	return ""
}

// performanceBadge tells the performance versions, which carry no trim of
// the brand's ladder unless trims/*.tsv lists their badge: GTI, GTD, R, RS,
// AMG, M, ST, Type R, N, Cupra, Abarth, GR, Nismo, Polestar Engineered and
// the like.
func performanceBadge(brand, badge string) bool {
	for _, w := range strings.Fields(badge) {
		switch {
		case perfWords[w]:
			return true
		case len(w) >= 2 && (w[0] == 'S' || strings.HasPrefix(w, "RS") || strings.HasPrefix(w, "SQ")) && isDigits(strings.TrimLeft(w, "RSQ")):
			return brand == "audi" // S3, RS 6, SQ5
		case len(w) >= 2 && w[0] == 'M' && isDigits(strings.TrimRight(w[1:], "idex")) && brand == "bmw":
			return true // M3, M340i, M550d
		}
	}
	return strings.Contains(badge, "AMG") || strings.Contains(badge, "Cupra") && brand == "seat" || strings.HasPrefix(badge, "John Cooper Works")
}

var perfWords = map[string]bool{
	"GT": true, "GTI": true, "GTi": true, "GTD": true, "GTE": true, "R": true, "R32": true, "R36": true, "RS": true, "ST": true, "Type": true, "N": true,
	"Abarth": true, "GR": true, "GRMN": true, "Nismo": true, "Polestar": true, "Performance": true, "Plaid": true, "JCW": true,
	"Clubsport": true, "VZ": true, "Quadrifoglio": true, "SRT": true, "Trackhawk": true, "GTS": true, "Turbo": false,
	"M": true, "R.S.": true, "RS3": true, "RS4": true, "RS6": true, "Raptor": true, "GSi": true, "OPC": true, "VXR": true, "Cupra": true,
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// rowOffers are the offers of a line-up nameplate's catalogue generation:
// the rows naming the generation's mark whose years fall in it. A row
// whose years only touch the generation in the year of its facelift
// belongs to the phase on the other side. Two rows of one badge, power and
// fuel that both reach into the generation (an engine change at the same
// power) make one offer, the one with more years in it.
func (g *generator) rowOffers(m *modelPlan, gp *genPlan, platform car) []*engineOffer {
	rows := g.v.Lineup(m.brand.Slug, m.seed.Name)
	if rows == nil {
		return nil
	}
	var out []*engineOffer
	for _, row := range rows {
		lo, hi, ok := offerYears(row, m, gp)
		if !ok {
			continue
		}
		dup := -1
		for i, o := range out {
			if o.badge == row.Badge && o.proto.kw == float64(row.KW) && o.proto.fuel == row.Fuel {
				dup = i
			}
		}
		if dup >= 0 {
			if hi-lo <= out[dup].to-out[dup].from {
				continue
			}
			out = slices.Delete(out, dup, dup+1)
		}
		out = append(out, g.rowOffer(row, platform, lo, hi))
	}
	return out
}

// offerYears are the model years row is sold within the generation gp of
// m, and whether it belongs to gp at all.
func offerYears(row *vocab.Offer, m *modelPlan, gp *genPlan) (lo, hi int, ok bool) {
	if mi, listed := row.MarkOf(m.seed.Name); listed && m.seed.Marks[mi].YearStart != gp.markStart {
		return 0, 0, false
	}
	from, to := row.From, endYear(row.To)
	lo, hi = max(from, gp.from), min(to, gp.to)
	if lo > hi {
		return 0, 0, false
	}
	if lo == hi && from != to {
		// One year in common: the year a facelift splits the mark. The
		// row belongs to the side it has more years on.
		if lo == gp.to && to > gp.to && gp.yearEnd != 0 && gp.yearEnd == lo && gp.faceliftNext {
			return 0, 0, false
		}
		if lo == gp.from && from < gp.from && gp.faceliftOf {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

// rowOffer builds the offer of a line-up row: its engine as the row gives
// it, what the row leaves empty derived as for any car of its era.
func (g *generator) rowOffer(row *vocab.Offer, platform car, lo, hi int) *engineOffer {
	o := &engineOffer{row: row, badge: row.Badge, from: lo, to: hi, boxes: row.Boxes, drives: row.Drives, weight: 1}
	c := platform
	c.fuel = row.Fuel
	c.year = lo + (hi-lo)/2
	if row.PriceYear >= lo && row.PriceYear <= hi {
		c.year = row.PriceYear
	}
	c.kw = float64(row.KW)
	c.hp = float64(row.PS) // as the maker states it (130 PS is 96 kW)
	c.perf = performanceBadge(row.Brand, row.Badge)
	c.row = true
	c.eco = ecoBadge.MatchString(row.Badge)
	c.mildDiesel = c.fuel == "mild_hybrid" && dieselBadge.MatchString(row.Badge)
	c.offerNoise = 2*float64(mix(hashString(row.Source))%1000)/999 - 1
	c.drive = row.Drives[0]
	c.transmission, c.gears = row.Boxes[0].Transmission, row.Boxes[0].Gears
	c.dispCC, c.cylinders = row.CC, row.Cyl
	c.aspiration = row.Aspiration
	c.turbo = row.Aspiration != "" && row.Aspiration != "natural"
	c.torque = float64(row.NM)
	c.pub = published{top: float64(row.TopKMH), accel: row.Accel, kerb: float64(row.KerbKG), l100: row.L100, co2: float64(row.CO2), rng: float64(row.RangeKM), nedc: row.Cycle == "NEDC"}
	switch c.fuel {
	case "electric":
		c.motorKW = c.kw
		c.batteryKWh = row.BatteryKWh / 0.92
		if row.BatteryKWh == 0 {
			c.batteryKWh = evBattery(c.segment, c.year, c.kw)
			if m := kWhInBadge.FindStringSubmatch(row.Badge); m != nil {
				// The badge says its battery ("e-Expert 75 kWh").
				x, _ := strconv.ParseFloat(m[1], 64)
				c.batteryKWh = x / 0.92
			}
		}
	case "plug_in_hybrid":
		c.batteryKWh = row.BatteryKWh / 0.82
		if row.BatteryKWh == 0 {
			c.batteryKWh = roundTo(phevBattery(max(c.markYear, lo)), 0.1)
		}
		c.systemKW = c.kw
		c.motorKW = math.Round(c.kw * 0.4)
	case "hybrid":
		c.systemKW = c.kw
		c.motorKW = math.Round(c.kw * 0.5)
		c.hybBattery = 1.3
	case "mild_hybrid":
		c.motorKW = 12
		c.hybBattery = 0.5
	case "hydrogen":
		c.motorKW = c.kw
	}
	if c.hasICE() {
		if c.dispCC == 0 {
			c.dispCC = nearestDisplacement(c.kw / map[bool]float64{false: 55, true: 80}[c.turbo] * 1000)
		}
		if c.cylinders == 0 {
			c.cylinders = cylindersOf(c.dispCC)
		}
	}
	if c.torque == 0 {
		c.torque = math.Round(derivedTorque(&c)/5) * 5
	}
	c.batteryKWh = roundTo(c.batteryKWh, 0.1)
	o.proto = c
	return o
}

var (
	// ecoBadge tells the eco versions of an engine by their badge.
	ecoBadge = regexp.MustCompile(`(?i)\b(e-HDi|BlueMotion|ECOnetic|ecoFLEX|GreenLine|Efficient ?Dynamics|BlueEFFICIENCY|ecoMotive|DRIVe)\b`)
	// dieselBadge tells a diesel engine by its badge.
	dieselBadge = regexp.MustCompile(`\b(TDI|CDI|dCi|HDi|BlueHDi|CRDi|CDTI|TDCi|EcoBlue|MultiJet|D-4D|i-DTEC|Skyactiv-D|JTDM?|\d+d|[A-Z]+ \d+ d|D\d|B\d+d|xDrive\d+d|sDrive\d+d)\b`)
	// kWhInBadge finds a battery's size in a badge.
	kWhInBadge = regexp.MustCompile(`(\d+(?:\.\d)?) ?kWh`)
)

// derivedTorque is the torque (Nm) of an engine whose row gives none.
func derivedTorque(c *car) float64 {
	switch {
	case c.isEV() || c.isFCEV():
		return c.kw * 2.4
	case c.fuel == "diesel":
		return c.kw * 3.2
	case c.isPHEV() || c.fuel == "hybrid":
		return c.kw * 2.6
	case c.turbo:
		return c.kw * 2.3
	}
	return c.kw * 1.75
}

// cylindersOf is the usual cylinder count of a displacement.
func cylindersOf(cc int) int {
	switch {
	case cc < 1100:
		return 3
	case cc < 2600:
		return 4
	case cc < 3600:
		return 6
	case cc < 5300:
		return 8
	case cc < 6600:
		return 10
	}
	return 12
}

// evBattery is the gross pack of an electric car whose row gives none, by
// segment, year and power, without a draw: one powertrain, one pack.
func evBattery(seg byte, year int, kw float64) float64 {
	base := map[byte]float64{'A': 32, 'B': 50, 'C': 62, 'D': 75, 'E': 90, 'F': 105, 'S': 85, 'V': 60}[seg]
	switch {
	case year < 2017:
		base *= 0.5
	case year < 2019:
		base *= 0.8
	}
	return roundTo(base*(1+0.1*clamp((kw-150)/150, -1, 1)), 0.1)
}

// ruleDraws is how many cars a rule-based line-up draws its offers from.
const ruleDraws = 48

// maxRuleOffers caps a rule-based line-up by segment: a city car's few
// engines, a compact's many.
var maxRuleOffers = map[byte]int{'A': 5, 'B': 8, 'C': 10, 'D': 10, 'E': 9, 'F': 7, 'S': 5, 'V': 6}

// ruleOffers builds the line-up of a generation without line-up rows from
// its brand's engines of the era (engines.tsv), its fuels, drives and power
// by year (powertrains.tsv, electrified.tsv, evs.tsv) and the gearboxes its
// brand fitted: ruleDraws cars drawn as any variant was before, gathered by
// their badge. A badge keeps the power it was first drawn at (one badge,
// one power); each offer keeps at most two gearboxes and two drives, the
// combinations the rules allow.
func (g *generator) ruleOffers(m *modelPlan, gp *genPlan, platform car, seed uint64) []*engineOffer {
	r := g.rng
	trims := trimsFor(m.brand.Slug, m.brand.Style)
	var out []*engineOffer
	byBadge := map[string]*engineOffer{}
	for i := 0; i < ruleDraws; i++ {
		r.seed(seed, uint64(gp.id)<<8|uint64(i), 7)
		c := platform
		c.year = gp.from + r.intn(gp.to-gp.from+1)
		fuels, w := fuelShares(m.seed.Powertrain, c.brand, c.year)
		fuels, w = c.allowFuels(m.seed.Powertrain, fuels, w)
		c.fuel = fuels[r.weighted(w)]
		if f := gp.dedicatedFuel(); f != "" {
			c.fuel = f
		}
		c.trim = r.intn(len(trims))
		c.trimLevel = 1
		if len(trims) > 1 {
			c.trimLevel = float64(c.trim) / float64(len(trims)-1)
		}
		c.chooseDrive(r)
		c.chooseTransmission(r)
		c.settleGearbox()
		c.powertrain(r)
		c.automaticOnly()
		badge := engineDesignation(m.seed.Name, &c)
		key := c.fuel + "\t" + badge
		box := vocab.Box{Transmission: c.transmission, Gears: c.gears}
		if o := byBadge[key]; o != nil {
			if o.proto.kw != c.kw {
				continue
			}
			o.weight++
			o.from, o.to = min(o.from, c.year), max(o.to, c.year)
			if !slices.ContainsFunc(o.boxes, func(b vocab.Box) bool { return b.Transmission == box.Transmission }) && len(o.boxes) < 2 && compatibleBox(o, box) {
				o.boxes = append(o.boxes, box)
			}
			if !slices.Contains(o.drives, c.drive) && len(o.drives) < 2 && c.drive != "" && drivesAgree(o, c.drive) {
				o.drives = append(o.drives, c.drive)
			}
			continue
		}
		c.offerNoise = r.between(-1, 1)
		o := &engineOffer{badge: badge, from: c.year, to: c.year, proto: c, boxes: []vocab.Box{box}, drives: []string{c.drive}, weight: 1}
		byBadge[key] = o
		out = append(out, o)
	}
	// The most drawn offers, at most the segment's number (exotic makers
	// build a handful of versions).
	limit := maxRuleOffers[m.seed.Segment]
	if m.brand.Style == "exotic" {
		limit = 3
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].weight > out[j].weight })
	if len(out) > limit {
		out = out[:limit]
	}
	// Each offer is sold over the generation's years its engine covers:
	// an engine family's years, a hybrid's or an EV version's rows.
	for _, o := range out {
		o.from, o.to = gp.from, gp.to
		c := &o.proto
		if c.family != nil {
			o.from, o.to = max(o.from, c.family.First), min(o.to, endYear(c.family.Last))
		}
		if vocab.IsElectrifiedFuel(c.fuel) {
			first, last := o.to+1, o.from-1
			for y := o.from; y <= o.to; y++ {
				if _, _, ok := c.electrified.HP(c.fuel, y); ok {
					first, last = min(first, y), max(last, y)
				}
			}
			if first <= last {
				o.from, o.to = first, last
			}
		}
		if o.from > o.to {
			o.from, o.to = c.year, c.year
		}
		c.year = clampInt(c.year, o.from, o.to)
	}
	return out
}

func clampInt(x, lo, hi int) int { return max(lo, min(x, hi)) }

// compatibleBox reports whether an offer drawn with one gearbox may also
// have box: a hybrid keeps its brand's hybrid gearbox, an electric car its
// reduction gear.
func compatibleBox(o *engineOffer, box vocab.Box) bool {
	c := &o.proto
	return !(c.isEV() || c.isFCEV() || c.fuel == "hybrid" || c.isPHEV()) && box.Transmission != "single_speed"
}

// drivesAgree reports whether an offer may also come with drive: the
// offer's power on the front wheels stays within traction, a 4x4-only
// nameplate stays 4x4.
func drivesAgree(o *engineOffer, drive string) bool {
	c := &o.proto
	if drive == "front" && (c.hp > frontDriveMaxHP || c.segment == 'S') {
		return false
	}
	if c.isEV() {
		return false // an EV version's drive is its motors'
	}
	return !c.limits.FourByFourOnly() || drive == "all"
}

// automaticOnly makes the gearbox an automatic where no manual was sold:
// luxury saloons (F segment) from 1995, premium SUVs of the D segment and
// up from 2007, premium E-segment saloons and estates from 2017, the
// exotic and luxury makers from 2012, every plug-in and full hybrid.
func (c *car) automaticOnly() {
	if c.transmission != "manual" || !manualImpossible(c) {
		return
	}
	c.transmission, c.gears = "automatic", autoGears(c.year)
	if c.fitted("dct") && (c.style == "exotic" || c.brand == "porsche") {
		c.transmission, c.gears = "dct", 7
	}
	c.settleGearbox()
}

// manualImpossible is automaticOnly's rule.
func manualImpossible(c *car) bool {
	premium := premiumBrand[c.brand] >= 0.7
	switch {
	case c.fuel == "hybrid" || c.isPHEV() || c.isEV() || c.isFCEV():
		return true
	case c.segment == 'F' && c.year >= 1995:
		return true
	case premium && c.body == "suv" && c.segment >= 'D' && c.year >= 2007:
		return true
	case premium && c.segment == 'E' && c.year >= 2017:
		return true
	case premiumBrand[c.brand] >= 1.5 && c.year >= 2012 && c.brand != "porsche":
		return true
	}
	return false
}

// autoGears is the gear count of a torque-converter automatic of an era.
func autoGears(y int) int {
	switch {
	case y < 2000:
		return 4
	case y < 2007:
		return 5
	case y < 2014:
		return 6
	}
	return 8
}

// expand lists an offer's candidate variants: each gearbox and drive in
// each trim of the ladder of its year, the base trim of its first gearbox
// and drive first.
func (g *generator) expand(m *modelPlan, o *engineOffer, baseTrims []string) []combo {
	c := &o.proto
	year := c.year
	var trims []string
	if o.row != nil {
		trims = g.v.Trims(m.brand.Slug, m.seed.Name, o.badge, year, c.perf)
		if trims == nil && !c.perf {
			trims = g.eraTrims(m, o, baseTrims)
		}
		// A version's own ladder that names the version itself (the
		// Mégane R.S. 280 beside the R.S. Trophy, the EV6 GT) is the
		// list of the versions: the version has no trims of its own.
		if slices.Contains(trims, o.badge) || slices.ContainsFunc(trims, func(t string) bool {
			return o.badge != t && strings.HasPrefix(o.badge, t+" ") && len(trims) > 1 && t == trims[0]
		}) {
			trims = nil
		}
	} else {
		trims = g.eraTrims(m, o, baseTrims)
	}
	n := max(1, len(trims))
	var out []combo
	for bi, box := range o.boxes {
		for di, drive := range o.drives {
			for t := 0; t < n; t++ {
				score := o.weight / float64(1+bi) / float64(1+di) * (1 - 0.08*float64(t))
				out = append(out, combo{o: o, box: box, drive: drive, trim: t, trims: trims, year: year, score: score, primer: bi == 0 && di == 0 && t == 0})
			}
		}
	}
	return out
}

// eraTrims is the brand's trim ladder of the generation's era for an
// offer without one of its own in trims/*.tsv (generators' tables), each
// trim once.
func (g *generator) eraTrims(m *modelPlan, o *engineOffer, base []string) []string {
	var out []string
	for i := range base {
		t := trimName(m.brand.Slug, m.seed.Name, o.proto.genYear, i, len(base), base)
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) == 1 && out[0] == "" {
		return nil
	}
	return out
}

// popularityPerOffer is how many variants a generation shows per engine
// offer, by its nameplate's sales rank: the best-sellers' price lists in
// full, a niche car's main versions.
func popularityPerOffer(rank int) float64 {
	switch {
	case rank == 0:
		return 6
	case rank <= 25:
		return 12
	case rank <= 80:
		return 9
	case rank <= 200:
		return 7
	}
	return 6
}

// budget is how many variants a generation of a line-up nameplate shows:
// its offers times the nameplate's popularity, at least one per offer, at
// most every candidate and the id scheme's 63.
func budget(rank, offers, candidates int) int {
	b := int(math.Round(float64(offers) * popularityPerOffer(rank)))
	return min(max(b, offers), candidates, maxVariantsPerGen)
}

// ruleMaxVariants caps a generation with a rule-based line-up: its
// nameplate sold less than the ones with real line-ups.
const ruleMaxVariants = 48

// choose picks n of a generation's candidates: every offer's first (the
// line-up complete), then the best scored, in a stable order.
func choose(cands []combo, n int) []combo {
	idx := make([]int, len(cands))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ca, cb := &cands[idx[a]], &cands[idx[b]]
		if ca.primer != cb.primer {
			return ca.primer
		}
		return ca.score > cb.score
	})
	out := make([]combo, 0, n)
	for _, i := range idx[:min(n, len(idx))] {
		out = append(out, cands[i])
	}
	return out
}

// nameParts are the words of a variant's name after the model name.
type nameParts struct {
	badge, box, drive, trim string
	extra                   []string // what tells it from a variant that would share its name
}

// compose writes a variant name in the brand's order: "Golf 1.5 TSI 150
// DSG Style", "3 Series 320d xDrive Steptronic M Sport", "A4 35 TDI
// quattro S tronic S line", "911 Carrera S PDK".
func compose(style, model string, p nameParts) string {
	parts := []string{model}
	add := func(s ...string) {
		for _, x := range s {
			if x != "" {
				parts = append(parts, x)
			}
		}
	}
	add(p.badge)
	switch style {
	case "bmw", "mercedes", "audi", "volvo", "jlr":
		add(p.drive, p.box, p.trim)
	case "porsche", "exotic":
		add(p.box, p.trim, p.drive)
	default:
		add(p.box, p.drive, p.trim)
	}
	add(p.extra...)
	return strings.Join(parts, " ")
}

// driveWord is the name's word for the driven wheels: the brand's
// four-wheel-drive name of the era when the badge does not carry it; none
// for two-wheel drive.
func driveWord(c *car, badge string) string {
	if c.drive != "all" || c.brand == "porsche" {
		return "" // a Porsche's badge names its drive (Carrera 4, Cayenne)
	}
	w := awdNameOf(c.brand, c.genYear, c.year)
	if w == "HYBRID4" && c.fuel != "hybrid" && c.fuel != "plug_in_hybrid" {
		w = "4x4"
	}
	if strings.Contains(badge, w) || strings.Contains(badge, "xDrive") || strings.Contains(badge, "4MATIC") || strings.Contains(badge, "quattro") ||
		strings.Contains(badge, "AWD") || strings.Contains(badge, "4x4") || strings.Contains(badge, "4MOTION") || strings.Contains(badge, "Dual Motor") {
		return ""
	}
	return w
}

// awdNameOf is the brand's four-wheel-drive name for a car of a
// generation launched in genYear, of model year y: VW's syncro became
// 4MOTION in 1998; BMW's saloons and estates carried an "x" in their code
// (325ix, 330xd) until the generations of 2008 called it xDrive.
func awdNameOf(brand string, genYear, y int) string {
	switch {
	case brand == "volkswagen" && y < 1998:
		return "syncro"
	case brand == "volkswagen":
		return "4MOTION"
	case brand == "bmw" && genYear < 2008:
		return "x"
	case brand == "bmw":
		return "xDrive"
	}
	return awdName(brand)
}

// boxWord is the name's word for a combo's gearbox: the brand's name of
// an automatic, none for a manual or an electric car's reduction gear.
func boxWord(c *car) string { return gearboxWord(c) }

// disambiguate makes the names of a generation's variants unique through
// real words: first the gearbox's gears, then the drive, the seats and the
// power in PS; it reports the names, "" for a variant that stays a
// duplicate (the caller leaves it out).
func disambiguate(parts []nameParts, cars []*car, style, model string) []string {
	names := make([]string, len(parts))
	steps := []func(i int) string{
		func(i int) string {
			c := cars[i]
			switch c.transmission {
			case "manual":
				return strconv.Itoa(c.gears) + "-speed manual"
			case "automatic", "dct", "amt":
				return strconv.Itoa(c.gears) + "-speed"
			}
			return ""
		},
		func(i int) string {
			switch cars[i].drive {
			case "front":
				return "FWD"
			case "rear":
				return "RWD"
			}
			return "AWD"
		},
		func(i int) string { return strconv.Itoa(cars[i].seats) + " seats" },
		func(i int) string { return fuelWord[cars[i].fuel] },
		func(i int) string { return strconv.Itoa(int(math.Round(cars[i].kw*1.35962))) + " PS" },
	}
	for step := 0; step <= len(steps); step++ {
		groups := map[string][]int{}
		var order []string
		for i := range parts {
			names[i] = compose(style, model, parts[i])
			if groups[names[i]] == nil {
				order = append(order, names[i])
			}
			groups[names[i]] = append(groups[names[i]], i)
		}
		dup := false
		for _, name := range order {
			members := groups[name]
			if len(members) < 2 {
				continue
			}
			dup = true
			if step == len(steps) {
				for _, i := range members[1:] {
					names[i] = ""
				}
				continue
			}
			// A word every member would share tells nothing.
			words := map[string]bool{}
			for _, i := range members {
				words[steps[step](i)] = true
			}
			if len(words) < 2 {
				continue
			}
			for _, i := range members {
				if w := steps[step](i); w != "" {
					parts[i].extra = append(parts[i].extra, w)
				}
			}
		}
		if !dup {
			break
		}
	}
	return names
}

// fuelWord tells apart two versions of one badge and power that differ
// in their fuel (BMW's 20d before and after its 48 V system of 2020).
var fuelWord = map[string]string{"mild_hybrid": "48V", "hybrid": "Hybrid", "plug_in_hybrid": "Plug-in Hybrid", "cng": "CNG", "lpg": "LPG", "ethanol": "E85"}

// sortOffers orders a line-up by fuel and power, a stable order for the
// draws that follow.
func sortOffers(os []*engineOffer, fuelOrder map[string]int) {
	slices.SortStableFunc(os, func(a, b *engineOffer) int {
		if c := cmp.Compare(fuelOrder[a.proto.fuel], fuelOrder[b.proto.fuel]); c != 0 {
			return c
		}
		return cmp.Compare(a.proto.kw, b.proto.kw)
	})
}

// planLineups gives every generation its platform, its line-up and its
// candidate variants, before the variants are counted.
func (g *generator) planLineups() {
	for _, m := range g.models {
		seed := g.seedFor(m.demo >= 0)
		baseTrims := trimsFor(m.brand.Slug, m.brand.Style)
		for _, gp := range m.gens {
			g.rng.seed(seed, uint64(gp.id), 4)
			platform := car{
				brand: m.brand.Slug, model: m.seed.Name, style: m.brand.Style, premium: premiumBrand[m.brand.Slug],
				segment: m.seed.Segment, body: m.seed.Body, year: gp.from, genYear: gp.yearStart, markYear: gp.markStart,
				markEnd: gp.markEnd, trims: len(baseTrims), limits: m.limits, families: g.v.EngineFamiliesFor(m.brand.Slug, m.seed.Name),
				electrified: g.v.ElectrifiedFor(m.brand.Slug, m.seed.Name), vocab: g.v,
			}
			platform.shape(g.rng)
			if len(gp.demoCars) > 0 {
				gp.demoCars[0].shapePlatform(&platform)
			}
			gp.platform = platform
			offers := g.rowOffers(m, gp, platform)
			gp.real = len(offers) > 0
			if !gp.real {
				offers = g.ruleOffers(m, gp, platform, seed)
			}
			sortOffers(offers, g.fuelOrder)
			demoFigures(gp, offers)
			gp.offers = offers
			for _, o := range offers {
				gp.cands = append(gp.cands, g.expand(m, o, baseTrims)...)
			}
			gp.room = g.capacity(m, gp)
			gp.fixed = budget(m.seed.Rank, len(offers), gp.room)
		}
	}
	g.anchorPrices()
}

// anchorPrices scales the price model to the published prices of the
// line-up rows: an offer with a price takes the factor that makes its base
// version (first gearbox and drive, base trim) list at that price in its
// market and year; an offer without one takes the median factor of its
// generation's priced offers, else of its nameplate's, else of its
// brand's; a rule-based offer its brand's.
func (g *generator) anchorPrices() {
	byGen := map[*genPlan][]float64{}
	byModel := map[*modelPlan][]float64{}
	byBrand := map[string][]float64{}
	for _, m := range g.models {
		for _, gp := range m.gens {
			for _, o := range gp.offers {
				if o.row == nil || o.row.PriceEUR == 0 {
					continue
				}
				f := g.priceFactorOf(m, gp, o)
				o.proto.priceFactor = f
				byGen[gp] = append(byGen[gp], f)
				byModel[m] = append(byModel[m], f)
				byBrand[m.brand.Slug] = append(byBrand[m.brand.Slug], f)
			}
		}
	}
	for _, m := range g.models {
		for _, gp := range m.gens {
			fallback := 1.0
			switch {
			case len(byGen[gp]) > 0 && gp.real:
				fallback = medianOf(byGen[gp])
			case len(byModel[m]) > 0 && gp.real:
				fallback = medianOf(byModel[m])
			case len(byBrand[m.brand.Slug]) > 0:
				fallback = medianOf(byBrand[m.brand.Slug])
			}
			for _, o := range gp.offers {
				if o.proto.priceFactor == 0 {
					o.proto.priceFactor = fallback
				}
			}
		}
	}
}

// medianOf is the median of xs (not empty), without changing xs.
func medianOf(xs []float64) float64 {
	y := slices.Clone(xs)
	slices.Sort(y)
	if len(y)%2 == 1 {
		return y[len(y)/2]
	}
	return (y[len(y)/2-1] + y[len(y)/2]) / 2
}

// priceFactorOf is the factor that makes the base version of a priced
// offer list at its row's price, within 0.6 to 1.8 of the model.
func (g *generator) priceFactorOf(m *modelPlan, gp *genPlan, o *engineOffer) float64 {
	row := o.row
	cb := combo{o: o, box: o.boxes[0], drive: o.drives[0], year: o.proto.year}
	c := g.comboCar(m, gp, &cb)
	c.year = row.PriceYear
	c.priceFactor = 1
	model := c.netAt()
	var net float64
	if row.PriceSrc == "NL" {
		// Solve price = net x VAT + BPM(net) for the net price.
		p := float64(row.PriceEUR)
		net = p / vatNLOf(c.year) / 1.3
		for i := 0; i < 20; i++ {
			net = (p - bpmOf(c.year, net, c.bpmCO2(), c.fuel, c.isEV() || c.isFCEV())) / vatNLOf(c.year)
		}
	} else {
		net = float64(row.PriceEUR) / vatOf(row.PriceSrc, c.year)
	}
	if model <= 0 || net <= 0 {
		return 1
	}
	return clamp(net/model, 0.6, 1.8)
}

// vatOf is the VAT factor of a market's list prices in model year y: the
// German 15 % until 1997, 16 % until 2006, 19 % since; France's 18.6 %
// until 1995, 20.6 % until 2000, 19.6 % until 2013, 20 % since; 20 %
// elsewhere (21 % in Belgium).
func vatOf(market string, y int) float64 {
	switch market {
	case "NL":
		return vatNLOf(y)
	case "DE":
		switch {
		case y < 1998:
			return 1.15
		case y < 2007:
			return 1.16
		}
		return 1.19
	case "FR":
		switch {
		case y < 1996:
			return 1.186
		case y < 2001:
			return 1.206
		case y < 2014:
			return 1.196
		}
		return 1.2
	case "BE":
		return 1.21
	case "UK", "GB":
		if y < 2011 {
			return 1.175
		}
		return 1.2
	}
	return 1.2
}

// demoFigures gives the offers of a demo generation that share a demo
// car's powertrain (fuel and power) that car's published top speed,
// acceleration and kerb weight: one powertrain, one set of figures.
func demoFigures(gp *genPlan, offers []*engineOffer) {
	for _, d := range gp.demoCars {
		for _, o := range offers {
			c := &o.proto
			if c.fuel == d.Fuel && math.Abs(c.kw-d.KW) < 1 && o.row == nil {
				c.pub.top, c.pub.accel, c.pub.kerb = d.TopSpeed, d.Accel, d.KerbKG
			}
		}
	}
}
