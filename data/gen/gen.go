package gen

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/vspec/catalogue/data/dataset"
	"github.com/vspec/catalogue/data/vocab"
)

// Sizes of the full catalogue (scale 1).
const (
	FullModels      = 1357
	FullGenerations = 3585
	FullVariants    = 103372
)

// Limits of the hierarchical id scheme (see dataset.ModelID).
const (
	maxModelsPerBrand    = dataset.MaxModelsPerBrand
	maxGenerationsPerMod = dataset.MaxGenerationsPerMod
	maxVariantsPerGen    = dataset.MaxVariantsPerGen
)

// Options configures a generation run. The zero value is usable after
// SetDefaults.
type Options struct {
	// Seed selects the catalogue; the same seed gives the same catalogue.
	// Default 1.
	Seed uint64
	// Scale multiplies the entity counts; 1 is the full catalogue. Small
	// scales (0.01 gives about 1,000 variants) are for tests. Default 1.
	Scale float64
	// CDNBase prefixes image URLs. Default "https://cdn.vspec.example/img".
	CDNBase string
	// SyncedAt is the catalogue's last sync time; variants were synced up to
	// 120 days before it. Default 2026-11-01T03:00:00Z.
	SyncedAt time.Time
	// Progress, when set, is called now and then with the number of
	// variants generated so far and the total.
	Progress func(done, total int)
}

// SetDefaults fills the zero fields of o.
func (o *Options) SetDefaults() {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.CDNBase == "" {
		o.CDNBase = "https://cdn.vspec.example/img"
	}
	o.CDNBase = strings.TrimRight(o.CDNBase, "/")
	if o.SyncedAt.IsZero() {
		o.SyncedAt = time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)
	}
}

// Targets returns the entity counts for a scale: exact sizes at scale 1, and
// at least enough for the demo set below it.
func Targets(scale float64) (models, generations, variants int) {
	if scale == 1 {
		return FullModels, FullGenerations, FullVariants
	}
	models = max(int(math.Round(FullModels*scale)), len(DemoModels))
	generations = max(int(math.Round(FullGenerations*scale)), 2*models)
	variants = max(int(math.Round(FullVariants*scale)), 2*generations)
	return models, generations, variants
}

// Generate builds a catalogue from v.
func Generate(v *vocab.Vocabulary, opts Options) (*dataset.Set, error) {
	opts.SetDefaults()
	if opts.Scale <= 0 || opts.Scale > 1 {
		return nil, fmt.Errorf("scale %v out of range (0, 1]", opts.Scale)
	}
	g := &generator{v: v, opts: opts, rng: newRNG()}
	g.init()
	nModels, nGens, nVariants := Targets(opts.Scale)
	if err := g.pickModels(nModels); err != nil {
		return nil, err
	}
	if err := g.allocateGenerations(nGens); err != nil {
		return nil, err
	}
	g.planLineups()
	if err := g.allocateVariants(nVariants); err != nil {
		return nil, err
	}
	g.set = &dataset.Set{
		Seed: opts.Seed, Scale: opts.Scale, SyncedAt: opts.SyncedAt.Unix(), CDNBase: opts.CDNBase, Vocab: v,
	}
	g.emitHierarchy()
	if err := g.emitVariants(); err != nil {
		return nil, err
	}
	return g.set, nil
}

type generator struct {
	v    *vocab.Vocabulary
	opts Options
	rng  *rng
	set  *dataset.Set

	brandRow  map[string]int // brand slug -> index in v.Brands
	models    []*modelPlan
	demoIndex map[string]int // "brand\tmodel" -> index in DemoModels

	spec      specIndexes
	texts     map[string]int32
	fuelOrder map[string]int // fuel slug -> its place in the fuel enum
}

type modelPlan struct {
	seed    vocab.ModelSeed
	brand   *vocab.Brand
	id      uint32
	ordinal int // position within the brand in the vocabulary, 1-based
	demo    int // index in DemoModels, -1 when not a demo model
	gens    []*genPlan
	real    []genPhase   // its real generations from generations.tsv, nil when not listed
	limits  vocab.Limits // its fuels, drives and power by year from powertrains.tsv
}

type genPlan struct {
	model      *modelPlan
	id         uint32
	name, slug string
	yearStart  int
	yearEnd    int // 0 while in production
	markStart  int // its mark's launch year (the facelift's predecessor's)
	markEnd    int // its mark's last year, 0 while on sale
	from, to   int // the model years its variants take: its years within the nameplate's
	variants   int
	demoCars   []*DemoCar // the hand-picked cars of a demo generation, its first variants
	// faceliftNext: the mark's facelifted phase follows this one;
	// faceliftOf: this one is a mark's facelifted phase.
	faceliftNext, faceliftOf bool

	platform car            // the generation's platform: size, body, seats
	offers   []*engineOffer // its line-up
	cands    []combo        // its candidate variants, offer by offer
	room     int            // how many candidates can be variants (capacity)
	real     bool           // its line-up is the rows of data/vocab/lineups
	fixed    int            // at scale 1, its variant count (line-up generations); 0 to adjust
}

func (g *generator) seedFor(demo bool) uint64 {
	if demo {
		return DemoSeed
	}
	return g.opts.Seed
}

func (g *generator) init() {
	g.brandRow = map[string]int{}
	for i, b := range g.v.Brands {
		g.brandRow[b.Slug] = i
	}
	g.demoIndex = map[string]int{}
	for i, d := range DemoModels {
		g.demoIndex[d.Brand+"\t"+d.Model] = i
	}
	g.spec = resolveSpecs(g.v)
	g.texts = map[string]int32{}
	g.fuelOrder = map[string]int{}
	for i, f := range g.v.Enums[g.mustEnum("fuel")].Values {
		g.fuelOrder[f.Slug] = i
	}
}

// pickModels selects n models: the demo models always, then the nameplates
// of generations.tsv by sales rank (so no best-seller is dropped), then the
// others round-robin over brands by popularity (every brand's first model,
// then every brand's second, ...).
func (g *generator) pickModels(n int) error {
	type cand struct {
		plan  *modelPlan
		round int
		pop   int
	}
	var cands []cand
	ordinal := map[string]int{}
	for _, ms := range g.v.Models {
		ordinal[ms.Brand]++
		b := &g.v.Brands[g.brandRow[ms.Brand]]
		o := ordinal[ms.Brand]
		if o > maxModelsPerBrand {
			return fmt.Errorf("brand %s has more than %d models", b.Slug, maxModelsPerBrand)
		}
		demo := -1
		if d, ok := g.demoIndex[ms.Brand+"\t"+ms.Name]; ok {
			demo = d
		}
		p := &modelPlan{seed: ms, brand: b, ordinal: o, demo: demo, id: dataset.ModelID(b.ID, o), limits: g.v.PowertrainLimits(ms.Brand, ms.Name)}
		cands = append(cands, cand{p, o, b.Popularity})
	}
	if len(cands) < n {
		return fmt.Errorf("the vocabulary lists %d models, %d are needed", len(cands), n)
	}
	found := 0
	for _, c := range cands {
		if c.plan.demo >= 0 {
			found++
		}
	}
	if found != len(DemoModels) {
		return fmt.Errorf("the vocabulary lists %d of the %d demo models", found, len(DemoModels))
	}
	sort.SliceStable(cands, func(i, j int) bool {
		ci, cj := cands[i], cands[j]
		if (ci.plan.demo >= 0) != (cj.plan.demo >= 0) {
			return ci.plan.demo >= 0
		}
		// Ranked nameplates by sales rank, then the rest round-robin.
		ri, rj := ci.plan.seed.Rank, cj.plan.seed.Rank
		if (ri > 0) != (rj > 0) {
			return ri > 0
		}
		if ri != rj {
			return ri < rj
		}
		if ci.round != cj.round {
			return ci.round < cj.round
		}
		return ci.pop < cj.pop
	})
	for _, c := range cands[:n] {
		g.models = append(g.models, c.plan)
	}
	sort.Slice(g.models, func(i, j int) bool { return g.models[i].id < g.models[j].id })
	return nil
}

func endYear(y int) int {
	if y == 0 {
		return 2026
	}
	return y
}

// allocateGenerations gives every model its generations. A nameplate listed
// in generations.tsv has its real ones: all of them in the full catalogue,
// the latest ones below scale 1. Every other nameplate gets 6-8-year cycles
// with a mid-cycle facelift (planCycles); its number of generations is what
// moves to make the total exact.
func (g *generator) allocateGenerations(total int) error {
	counts := make([]int, len(g.models))
	lo := make([]int, len(g.models))
	hi := make([]int, len(g.models))
	var adjustable []int
	sum := 0
	for i, m := range g.models {
		// The demo models are listed too: TestDemoGenerationsAreReal holds
		// demo/generations.tsv to what generations.tsv gives them.
		if len(m.seed.Marks) > 0 {
			m.real = realPhases(m.seed)
			if len(m.real) > maxGenerationsPerMod {
				return fmt.Errorf("%s %s has %d generations, the id scheme allows %d", m.brand.Slug, m.seed.Name, len(m.real), maxGenerationsPerMod)
			}
			counts[i], lo[i], hi[i] = len(m.real), len(m.real), len(m.real)
		} else {
			counts[i], lo[i], hi[i] = cycleCounts(m.seed)
		}
		if m.demo >= 0 && hi[i] < 2 {
			return fmt.Errorf("demo model %s %s has %d generation, it needs 2", m.brand.Slug, m.seed.Name, hi[i])
		}
		switch {
		case m.demo >= 0 && g.opts.Scale < 1:
			// A scaled-down catalogue keeps only the two demo
			// generations of a demo model, with their full-catalogue ids.
			counts[i], lo[i], hi[i] = 2, 2, 2
		case g.opts.Scale < 1:
			// and at least the latest generation of every other model.
			lo[i] = 1
		}
		if lo[i] < hi[i] && m.demo < 0 {
			adjustable = append(adjustable, i)
		}
		sum += counts[i]
	}
	// Below scale 1 the target is a floor: what every model must keep.
	if g.opts.Scale < 1 {
		floor := 0
		for i := range g.models {
			floor += lo[i]
		}
		total = max(total, floor)
	}
	// Add to the models with the most years per generation, remove from
	// those with the fewest.
	ratio := func(i int) float64 {
		m := g.models[i]
		return float64(endYear(m.seed.YearEnd)-m.seed.YearStart+1) / float64(counts[i])
	}
	if err := adjustWithin(counts, adjustable, total-sum, lo, hi, ratio); err != nil {
		return fmt.Errorf("cannot allocate %d generations over %d models: %w", total, len(g.models), err)
	}
	for i, m := range g.models {
		g.planGenerations(m, counts[i])
	}
	return nil
}

// genPhase is one catalogue generation before it gets its id: a real one from
// generations.tsv or one of a planned cycle.
type genPhase struct {
	name                     string // after the model name; "" for the model name alone
	yearStart                int
	yearEnd                  int // 0 while in production
	markStart                int // its mark's launch year: a facelift keeps the mark's platform
	faceliftNext, faceliftOf bool
	markEnd                  int // its mark's last year, 0 while on sale
}

// realPhases lists the catalogue generations of a nameplate listed in
// generations.tsv: every mark, split at its facelift, that is on sale in
// the nameplate's years.
func realPhases(ms vocab.ModelSeed) []genPhase {
	var out []genPhase
	for _, mk := range ms.Marks {
		ps := mk.Phases()
		for i, p := range ps {
			if endYear(p.YearEnd) < ms.YearStart {
				continue
			}
			out = append(out, genPhase{p.Name, p.YearStart, p.YearEnd, mk.YearStart, i+1 < len(ps), i > 0, mk.YearEnd})
		}
	}
	return out
}

// cycleMarks is how many marks of 6-8 years a nameplate's span holds, at
// the fewest and the most (one for spans under six years).
func cycleMarks(ms vocab.ModelSeed) (kmin, kmax int) {
	span := float64(endYear(ms.YearEnd) - ms.YearStart)
	kmin = max(1, int(math.Round(span/8)))
	kmax = max(kmin, int(math.Round(span/6)))
	return kmin, kmax
}

// cycleCounts is the usual, the fewest and the most catalogue generations of
// a nameplate planned in cycles: 7-year marks each with a facelift, longest
// marks without facelifts, shortest marks each with one. A mark shorter than
// four years gets no facelift.
func cycleCounts(ms vocab.ModelSeed) (usual, lo, hi int) {
	span := endYear(ms.YearEnd) - ms.YearStart
	kmin, kmax := cycleMarks(ms)
	faceliftable := func(k int) int {
		if span/k >= 4 {
			return k
		}
		return 0
	}
	k := min(max(int(math.Round(float64(span)/7)), kmin), kmax)
	return k + faceliftable(k), kmin, kmax + faceliftable(kmax)
}

// planCycles splits a nameplate's years into n catalogue generations: marks
// of equal length between 6 and 8 years where the span allows, the
// facelifts spread over them at mid-cycle. Marks are numbered from I when
// the nameplate starts inside the catalogue's years; one already on sale in
// 1990 (whose earlier marks the data does not list) names later marks by
// their launch year, as the press does.
func planCycles(ms vocab.ModelSeed, n int) []genPhase {
	kmin, kmax := cycleMarks(ms)
	k := min(max((n+1)/2, kmin), kmax)
	k = min(k, n)
	f := n - k
	start, end := ms.YearStart, endYear(ms.YearEnd)
	span := float64(end - start)
	var out []genPhase
	for i := 0; i < k; i++ {
		ys := start + int(math.Round(span*float64(i)/float64(k)))
		ye := start + int(math.Round(span*float64(i+1)/float64(k)))
		if i == k-1 {
			ye = ms.YearEnd
		}
		name := roman[min(i+1, len(roman)-1)]
		if ms.YearStart <= 1990 {
			name = ""
			if i > 0 {
				name = fmt.Sprintf("(%d)", ys)
			}
		}
		// Spread f facelifts over k marks.
		if (i+1)*f/k > i*f/k {
			fl := ys + (endYear(ye)-ys+1)/2
			out = append(out, genPhase{name, ys, fl, ys, true, false, ye})
			fname := "Facelift"
			if name != "" {
				fname = name + " Facelift"
			}
			out = append(out, genPhase{fname, fl, ye, ys, false, true, ye})
			continue
		}
		out = append(out, genPhase{name, ys, ye, ys, false, false, ye})
	}
	return out
}

// adjustWithin adds (diff > 0) or removes (diff < 0) one unit at a time,
// keeping counts[i] within [lo[i], hi[i]], choosing the candidate with the
// highest score when adding and the lowest when removing.
func adjustWithin(counts, cands []int, diff int, lo, hi []int, score func(i int) float64) error {
	for diff != 0 {
		best, bestScore := -1, 0.0
		for _, i := range cands {
			if (diff > 0 && counts[i] >= hi[i]) || (diff < 0 && counts[i] <= lo[i]) {
				continue
			}
			s := score(i)
			if diff < 0 {
				s = -s
			}
			if best < 0 || s > bestScore {
				best, bestScore = i, s
			}
		}
		if best < 0 {
			return fmt.Errorf("%d units left over", diff)
		}
		step := 1
		if diff < 0 {
			step = -1
		}
		counts[best] += step
		diff -= step
	}
	return nil
}

var roman = []string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV", "XVI", "XVII", "XVIII", "XIX", "XX"}

// planGenerations gives the model n generations: the latest n of its real
// ones, or n planned in cycles. Ids follow the generation's position among
// all of the model's real ones, so a scaled-down catalogue keeps the ids of
// the full one for listed nameplates.
func (g *generator) planGenerations(m *modelPlan, n int) {
	phases := m.real
	if phases == nil {
		phases = planCycles(m.seed, n)
	}
	first := len(phases) - n
	for i := first; i < len(phases); i++ {
		p := phases[i]
		name := m.seed.Name
		if p.name != "" {
			name += " " + p.name
		}
		gp := &genPlan{
			model: m, id: dataset.GenerationID(m.id, i+1), name: name, slug: slugify(name),
			yearStart: p.yearStart, yearEnd: p.yearEnd, markStart: p.markStart, markEnd: p.markEnd, faceliftNext: p.faceliftNext, faceliftOf: p.faceliftOf,
			// Model years: the generation's years within the nameplate's
			// (a mark launched in 1983 has 1990 models at the earliest).
			from: max(p.yearStart, m.seed.YearStart), to: min(endYear(p.yearEnd), endYear(m.seed.YearEnd)),
		}
		m.gens = append(m.gens, gp)
	}
	if m.demo >= 0 {
		// The hand-picked cars are the first variants of the last two.
		d, last := &DemoModels[m.demo], len(m.gens)-1
		m.gens[last-1].demoCars = d.Cars[0][:]
		m.gens[last].demoCars = d.Cars[1][:]
	}
}

// variantWeight is how many variants a generation of this segment and
// powertrain typically has, relative to the average.
func variantWeight(seg byte, pt string, years int) float64 {
	w := map[byte]float64{'A': 0.6, 'B': 1.0, 'C': 1.4, 'D': 1.3, 'E': 1.1, 'F': 0.7, 'S': 0.45, 'V': 0.9}[seg]
	switch pt {
	case "ev", "fcev", "phev":
		w *= 0.45
	case "hybrid":
		w *= 0.7
	case "mixed":
		w *= 1.25
	}
	return w * (0.6 + 0.2*math.Min(float64(years), 4))
}

// allocateVariants gives every generation its variant count. A generation
// with a real line-up (and a demo generation) shows what its line-up and
// its nameplate's popularity give (budget), whatever the scale would ask;
// below scale 1 the others are scaled. The generations with a rule-based
// line-up share the rest of the total by segment and years, each within
// its candidates and the id scheme's 63, so the total is exact unless
// their line-ups together hold fewer variants (then the total is what
// they hold: no variant is invented to reach it).
func (g *generator) allocateVariants(total int) error {
	var gens []*genPlan
	for _, m := range g.models {
		gens = append(gens, m.gens...)
	}
	counts := make([]int, len(gens))
	lo := make([]int, len(gens))
	hi := make([]int, len(gens))
	weights := make([]float64, len(gens))
	var adjustable []int
	sum, capacity := 0, 0
	for i, gp := range gens {
		demo := gp.model.demo >= 0
		c := min(gp.room+len(gp.demoCars), maxVariantsPerGen)
		g.rng.seed(g.seedFor(demo), uint64(gp.id), 3)
		weights[i] = variantWeight(gp.model.seed.Segment, gp.model.seed.Powertrain, gp.to-gp.from+1) * g.rng.between(0.6, 1.4)
		switch {
		case demo || (gp.real && g.opts.Scale == 1):
			counts[i] = min(gp.fixed+len(gp.demoCars), maxVariantsPerGen)
			lo[i], hi[i] = counts[i], counts[i]
		default:
			counts[i] = 1
			lo[i], hi[i] = 1, max(1, c)
			if !gp.real {
				hi[i] = max(1, min(c, ruleMaxVariants))
				// A rule-based line-up shows a share of what it holds:
				// the generations' counts follow their line-ups.
				weights[i] = float64(hi[i]) * g.rng.between(0.75, 1.25)
			}
			adjustable = append(adjustable, i)
			capacity += hi[i]
		}
		sum += counts[i]
	}
	fixed := sum - len(adjustable)
	total = max(total, fixed+len(adjustable))
	if total > fixed+capacity {
		total = fixed + capacity
	}
	// Share the rest by weight (water-filling: a generation at its bound
	// leaves its share to the others), then settle the rounding.
	rest := total - fixed
	for iter := 0; iter < 8 && len(adjustable) > 0; iter++ {
		wsum, held := 0.0, 0
		for _, i := range adjustable {
			if counts[i] == hi[i] && iter > 0 {
				held += hi[i]
				continue
			}
			wsum += weights[i]
		}
		if wsum == 0 {
			break
		}
		per := float64(rest-held) / wsum
		for _, i := range adjustable {
			if counts[i] == hi[i] && iter > 0 {
				continue
			}
			counts[i] = clampInt(int(math.Round(per*weights[i])), lo[i], hi[i])
		}
	}
	sum = fixed
	for _, i := range adjustable {
		sum += counts[i]
	}
	score := func(i int) float64 { return weights[i] / float64(counts[i]) }
	if err := adjustWithin(counts, adjustable, total-sum, lo, hi, score); err != nil {
		return fmt.Errorf("cannot allocate %d variants over %d generations: %w", total, len(gens), err)
	}
	for i, gp := range gens {
		gp.variants = counts[i]
	}
	return nil
}

// emitHierarchy writes brand, model and generation rows.
func (g *generator) emitHierarchy() {
	s := g.set
	brandRow := map[uint32]uint32{}
	for _, m := range g.models {
		if _, ok := brandRow[m.brand.ID]; !ok {
			b := m.brand
			brandRow[b.ID] = uint32(len(s.Brands))
			s.Brands = append(s.Brands, dataset.Brand{
				ID: b.ID, Slug: b.Slug, Name: b.Name, Names: b.Names, Aliases: b.Aliases,
				Popularity: uint16(b.Popularity), Wikidata: b.Wikidata, Country: b.Country,
			})
		}
		s.Models = append(s.Models, dataset.Model{
			ID: m.id, Brand: brandRow[m.brand.ID], Name: m.seed.Name, Slug: slugify(m.seed.Name),
		})
		for _, gp := range m.gens {
			s.Generations = append(s.Generations, dataset.Generation{
				ID: gp.id, Model: uint32(len(s.Models) - 1), Name: gp.name, Slug: gp.slug,
				YearStart: uint16(gp.yearStart), YearEnd: uint16(gp.yearEnd),
			})
		}
	}
}

// slugify lower-cases s, folds common Latin diacritics and joins words with
// hyphens: "Mégane E-Tech" -> "megane-e-tech", "3 Series" -> "3-series".
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if f, ok := foldLatin[r]; ok {
			b.WriteString(f)
			dash = false
			continue
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
			continue
		}
		if r == '+' {
			b.WriteString("-plus")
			dash = false
			continue
		}
		if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}

var foldLatin = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'æ': "ae", 'ç': "c", 'č': "c", 'ć': "c",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ě': "e", 'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ñ': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ù': "u", 'ú': "u", 'û': "u", 'ü': "u",
	'ý': "y", 'ÿ': "y", 'š': "s", 'ś': "s", 'ž': "z", 'ź': "z", 'ż': "z", 'ł': "l", 'ř': "r", 'ß': "ss",
	'đ': "d", 'ő': "o", 'ű': "u", 'ę': "e", 'ą': "a", 'ń': "n", 'ş': "s", 'ğ': "g", 'ı': "i",
}
