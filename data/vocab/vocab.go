package vocab

import (
	"embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed *.tsv labels/*.tsv lineups trims
var files embed.FS

// Locales lists the published locales in the order used by every per-locale
// table of the catalogue. The order is part of the snapshot format.
var Locales = [NumLocales]string{"ar", "bg", "cs", "da", "de", "el", "en", "es", "fr", "hr", "hu", "it", "no", "pl", "pt", "ro", "sk", "sr", "sv", "tr"}

// NumLocales is the number of published locales.
const NumLocales = 20

// En is the index of English in Locales: the fallback locale.
const En = 6

// LocaleIndex returns the index of locale in Locales.
func LocaleIndex(locale string) (int, bool) {
	for i, l := range Locales {
		if l == locale {
			return i, true
		}
	}
	return 0, false
}

// Kind is the value kind of a spec type.
type Kind uint8

// Value kinds. The numeric values are part of the snapshot format.
const (
	KindNumber Kind = 1 // decimal number stored as an integer scaled by 10^Scale
	KindInt    Kind = 2 // integer
	KindBool   Kind = 3 // boolean stored as 0 or 1
	KindEnum   Kind = 4 // index into the values of the spec's enum group
	KindText   Kind = 5 // index into the catalogue's text dictionary
)

var kindNames = [...]string{KindNumber: "num", KindInt: "int", KindBool: "bool", KindEnum: "enum", KindText: "text"}

// String returns the kind's short name as written in specs.tsv.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind parses a kind name of specs.tsv.
func ParseKind(s string) (Kind, bool) {
	for k, n := range kindNames {
		if n != "" && n == s {
			return Kind(k), true
		}
	}
	return 0, false
}

// Labels holds one display string per locale, indexed like Locales.
type Labels [NumLocales]string

// Group is a spec group such as "engine" or "safety".
type Group struct {
	Key    string
	Labels Labels
}

// SpecType is one entry of the spec dictionary.
type SpecType struct {
	Key     string
	Group   int    // index into Vocabulary.Groups
	Kind    Kind   // value kind
	Unit    string // unit symbol, "" when the value has none
	Scale   uint8  // decimals of a KindNumber value
	Enum    int    // index into Vocabulary.Enums for KindEnum, else -1
	Applies string // generator applicability conditions, comma-separated (see data/gen)
	Module  string // licensed-export module the spec belongs to
	Gen     string // generator hint: "fn" or "eq:base:gain:since[:must]"
	Labels  Labels
	// Units is the unit symbol in each locale (units.tsv): "PS" for hp in
	// de, "cm³" for cc; Unit where the locale writes it the same.
	Units Labels
}

// EnumGroup is an enumeration such as "fuel" with its values in display order.
type EnumGroup struct {
	Key    string
	Values []EnumValue
}

// EnumValue is one value of an enumeration.
type EnumValue struct {
	Slug   string // stable English slug, e.g. "plug_in_hybrid"
	Labels Labels
}

// Brand is a car brand with its public integer id.
type Brand struct {
	ID         uint32
	Slug       string
	Name       string
	Country    string
	Popularity int    // 1 is the most popular
	Style      string // naming style of variant names, see data/gen
	Wikidata   string // Wikidata item id such as "Q246", "" when not known for certain
	Names      Labels // localized display names; "" where the locale writes the Latin name
	// Aliases are the brand's local spellings in the locales that have
	// one (Фолксваген, Φολκσβάγκεν, فولكس فاجن): search takes them for
	// the brand even where the name is displayed in Latin.
	Aliases Labels
}

// localDisplay are the locales whose car press writes brand names in the
// local script; elsewhere (bg, el, sr: their press writes Volkswagen, not
// Фолксваген) the local spelling is only a search alias.
var localDisplay = map[string]bool{"ar": true}

// ModelSeed is a real model name the generator may use.
type ModelSeed struct {
	Brand      string // brand slug
	Name       string
	Body       string // slug of the "body" enum
	Segment    byte   // A..F, S (sports), V (commercial)
	YearStart  int
	YearEnd    int    // 0 when still in production
	Powertrain string // petrol, ice, mixed, hybrid, phev, ev, fcev
	// Rank is the nameplate's European sales rank from generations.tsv
	// (1 sells best), 0 when the nameplate is not listed there.
	Rank int
	// Marks are its real generations from generations.tsv, oldest first;
	// nil when not listed.
	Marks []Mark
}

// Vocabulary is the parsed content of the embedded files. It is immutable
// after Load returns.
type Vocabulary struct {
	Groups []Group
	Specs  []SpecType
	Enums  []EnumGroup
	Brands []Brand
	Models []ModelSeed
	// Aliases are the search aliases of aliases.tsv: what people type for
	// a brand ("vw", "merc", "chevy").
	Aliases []BrandAlias
	// Powertrains are the rows of powertrains.tsv: fuels, drives and power
	// per nameplate and model years.
	Powertrains []PowertrainRule
	// Engines are the engine families of engines.tsv.
	Engines []EngineFamily
	// Badges are the engine and hybrid badges of badges.tsv by name.
	Badges map[string]Badge
	// Gearboxes are the automatic gearbox names of gearboxes.tsv.
	Gearboxes map[string]Gearbox
	// Electrified are the full and plug-in hybrids of electrified.tsv.
	Electrified []ElectrifiedRow
	// HybridBoxes are the hybrids' gearboxes of hybridgearboxes.tsv
	// (HybridGearboxes looks them up).
	HybridBoxes []HybridGearbox
	// PowerCodes are the model-code numbers by power of powercodes.tsv
	// (PowerCode looks them up).
	PowerCodes []PowerCodes
	// GearboxTypes are the DCTs, CVTs and automated manuals each brand
	// fitted, of gearboxtypes.tsv (Fitted looks them up).
	GearboxTypes []GearboxType
	// EVs are the electric versions of evs.tsv (EVVersions looks them up).
	EVs []EVVersion

	// Offers are the engine offers of lineups/*.tsv, in file order (Lineup
	// looks a nameplate's up).
	Offers []*Offer
	// TrimLadders are the trims of trims/*.tsv (Trims looks them up).
	TrimLadders []*TrimLadder

	vanClass     map[string]string   // vanclasses.tsv by brand and model (VanClass looks them up)
	lineups      map[string][]*Offer // Offers by brand + "\t" + nameplate
	ladderBadges map[string]bool     // brand + "\t" + badge of the badges a trim ladder names

	specIndex map[string]int
	enumIndex map[string]int
	intl      map[labelRef]bool
}

type labelRef struct {
	locale    int
	kind, key string
}

// SpecIndex returns the index of the spec type with the given key.
func (v *Vocabulary) SpecIndex(key string) (int, bool) {
	i, ok := v.specIndex[key]
	return i, ok
}

// MustSpec returns the index of a spec type the caller knows exists.
func (v *Vocabulary) MustSpec(key string) int {
	i, ok := v.specIndex[key]
	if !ok {
		panic("BUG: unknown spec key " + key)
	}
	return i
}

// EnumIndex returns the index of the enum group with the given key.
func (v *Vocabulary) EnumIndex(key string) (int, bool) {
	i, ok := v.enumIndex[key]
	return i, ok
}

// EnumValueIndex returns the index of value slug within enum group key.
func (v *Vocabulary) EnumValueIndex(group, slug string) (int, bool) {
	g, ok := v.enumIndex[group]
	if !ok {
		return 0, false
	}
	for i, ev := range v.Enums[g].Values {
		if ev.Slug == slug {
			return i, true
		}
	}
	return 0, false
}

// MustEnumValue returns the index of a value the caller knows exists.
func (v *Vocabulary) MustEnumValue(group, slug string) int {
	i, ok := v.EnumValueIndex(group, slug)
	if !ok {
		panic("BUG: unknown enum value " + group + "." + slug)
	}
	return i
}

// DeclaredInternational reports whether the label file of locale marks the
// label of (kind, key) as deliberately identical to English ("intl").
func (v *Vocabulary) DeclaredInternational(locale int, kind, key string) bool {
	return v.intl[labelRef{locale, kind, key}]
}

var (
	loadOnce sync.Once
	loaded   *Vocabulary
	loadErr  error
)

// Default returns the embedded vocabulary, parsed once. It panics if the
// embedded files are inconsistent: the tests of this package make sure they
// are not.
func Default() *Vocabulary {
	loadOnce.Do(func() { loaded, loadErr = Load() })
	if loadErr != nil {
		panic("BUG: embedded vocabulary is invalid: " + loadErr.Error())
	}
	return loaded
}

// Load parses the embedded files.
func Load() (*Vocabulary, error) {
	v := &Vocabulary{specIndex: map[string]int{}, enumIndex: map[string]int{}, intl: map[labelRef]bool{}}
	// The dictionary first, then what names its values.
	for _, load := range []func() error{v.loadGroups, v.loadEnums, v.loadSpecs, v.loadAllLabels, v.setUnits, v.loadBrands, v.loadModels, v.loadAliases} {
		if err := load(); err != nil {
			return nil, err
		}
	}
	// The tables of real histories, each parsed from its bytes (the
	// parsers are fuzzed); generations.tsv runs after the models.
	for _, t := range []struct {
		name  string
		parse func([]byte) error
	}{
		{"generations.tsv", v.loadGenerationsFrom},
		{"powertrains.tsv", v.loadPowertrainsFrom},
		{"engines.tsv", v.loadEnginesFrom},
		{"badges.tsv", v.loadBadgesFrom},
		{"gearboxes.tsv", v.loadGearboxesFrom},
		{"electrified.tsv", v.loadElectrifiedFrom},
		{"hybridgearboxes.tsv", v.loadHybridGearboxesFrom},
		{"powercodes.tsv", v.loadPowerCodesFrom},
		{"gearboxtypes.tsv", v.loadGearboxTypesFrom},
		{"evs.tsv", v.loadEVsFrom},
		{"vanclasses.tsv", v.loadVanClassesFrom},
	} {
		b, err := files.ReadFile(t.name)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", t.name, err)
		}
		if err := t.parse(b); err != nil {
			return nil, err
		}
	}
	// The line-ups of the real generations, after generations.tsv.
	if err := v.loadLineups(); err != nil {
		return nil, err
	}
	return v, nil
}

// BrandAlias is one search alias of a brand.
type BrandAlias struct {
	Alias, Brand string // the alias as written; the brand's slug
}

// loadAliases reads aliases.tsv; every alias must name a known brand, once.
func (v *Vocabulary) loadAliases() error {
	k := v.known()
	seen := map[string]bool{}
	return rows("aliases.tsv", 2, 2, func(rec *record) {
		f := rec.f
		if f[0] == "" || !k.brands[f[1]] {
			rec.failf("alias %q of unknown brand %q", f[0], f[1])
		}
		if seen[f[0]] {
			rec.failf("alias %q twice", f[0])
		}
		seen[f[0]] = true
		if rec.Err() == nil {
			v.Aliases = append(v.Aliases, BrandAlias{Alias: f[0], Brand: f[1]})
		}
	})
}

func (v *Vocabulary) loadGroups() error {
	return rows("groups.tsv", 2, 2, func(rec *record) {
		g := Group{Key: rec.f[0]}
		g.Labels[En] = rec.f[1]
		v.Groups = append(v.Groups, g)
	})
}

func (v *Vocabulary) loadEnums() error {
	return rows("enums.tsv", 3, 3, func(rec *record) {
		f := rec.f
		gi, ok := v.enumIndex[f[0]]
		if !ok {
			gi = len(v.Enums)
			v.enumIndex[f[0]] = gi
			v.Enums = append(v.Enums, EnumGroup{Key: f[0]})
		}
		for _, ev := range v.Enums[gi].Values {
			if ev.Slug == f[1] {
				rec.failf("duplicate enum value %s.%s", f[0], f[1])
			}
		}
		ev := EnumValue{Slug: f[1]}
		ev.Labels[En] = f[2]
		if rec.Err() == nil {
			v.Enums[gi].Values = append(v.Enums[gi].Values, ev)
		}
	})
}

func (v *Vocabulary) loadSpecs() error {
	groupIndex := map[string]int{}
	for i, g := range v.Groups {
		groupIndex[g.Key] = i
	}
	return rows("specs.tsv", 10, 10, func(rec *record) {
		f := rec.f
		st := SpecType{Key: f[0], Unit: f[3], Applies: f[6], Module: f[7], Gen: f[8], Enum: -1}
		st.Labels[En] = f[9]
		if _, dup := v.specIndex[st.Key]; dup {
			rec.failf("duplicate spec key %q", st.Key)
		}
		rec.who = fmt.Sprintf("spec %q", st.Key)
		g, ok := groupIndex[f[1]]
		if !ok {
			rec.failf("unknown group %q", f[1])
		}
		st.Group = g
		k, ok := ParseKind(f[2])
		if !ok {
			rec.failf("unknown kind %q", f[2])
		}
		st.Kind = k
		if f[4] != "" {
			s, err := strconv.ParseUint(f[4], 10, 8)
			if err != nil || s > 4 {
				rec.failf("bad scale %q", f[4])
			}
			st.Scale = uint8(s)
		}
		if (k == KindNumber) != (f[4] != "") {
			rec.failf("a scale is required for numbers and only for them")
		}
		if k == KindEnum {
			e, ok := v.enumIndex[f[5]]
			if !ok {
				rec.failf("unknown enum group %q", f[5])
			}
			st.Enum = e
		} else if f[5] != "" {
			rec.failf("enum group on a %s spec", k)
		}
		if rec.Err() == nil {
			v.specIndex[st.Key] = len(v.Specs)
			v.Specs = append(v.Specs, st)
		}
	})
}

// loadAllLabels fills the labels of every locale.
func (v *Vocabulary) loadAllLabels() error {
	for li := range Locales {
		if err := v.loadLabels(li); err != nil {
			return err
		}
	}
	return nil
}

// loadLabels fills the labels of locale li. English comes from the
// dictionary files; labels/en.tsv must agree with them, and every other
// locale must label exactly the same rows.
func (v *Vocabulary) loadLabels(li int) error {
	name := "labels/" + Locales[li] + ".tsv"
	seen := map[string]bool{}
	err := rows(name, 3, 4, func(rec *record) {
		f := rec.f
		kind, key, label, note := f[0], f[1], f[2], f[3]
		if label == "" {
			rec.failf("empty label for %s %s", kind, key)
		}
		ref := kind + "\t" + key
		if seen[ref] {
			rec.failf("duplicate label for %s %s", kind, key)
		}
		seen[ref] = true
		if note == "intl" {
			v.intl[labelRef{li, kind, key}] = true
		} else if note != "" {
			rec.failf("unknown note %q", note)
		}
		dst, err := v.labelSlot(kind, key)
		rec.fail(err)
		switch {
		case rec.Err() != nil:
		case li == En && dst[En] != label:
			rec.failf("the English label of %s %s is %q in the dictionary and %q here", kind, key, dst[En], label)
		case li != En:
			dst[li] = label
		}
	})
	if err != nil {
		return err
	}
	if want := len(v.Groups) + len(v.Specs) + v.enumValueCount(); len(seen) != want {
		return fmt.Errorf("%s: %d labels, want %d (every group, spec and enum value)", name, len(seen), want)
	}
	return nil
}

func (v *Vocabulary) enumValueCount() int {
	n := 0
	for _, g := range v.Enums {
		n += len(g.Values)
	}
	return n
}

func (v *Vocabulary) labelSlot(kind, key string) (*Labels, error) {
	switch kind {
	case "group":
		for i := range v.Groups {
			if v.Groups[i].Key == key {
				return &v.Groups[i].Labels, nil
			}
		}
	case "spec":
		if i, ok := v.specIndex[key]; ok {
			return &v.Specs[i].Labels, nil
		}
	case "enum":
		g, val, ok := strings.Cut(key, ".")
		if ok {
			if gi, ok := v.enumIndex[g]; ok {
				for i := range v.Enums[gi].Values {
					if v.Enums[gi].Values[i].Slug == val {
						return &v.Enums[gi].Values[i].Labels, nil
					}
				}
			}
		}
	default:
		return nil, fmt.Errorf("unknown label kind %q", kind)
	}
	return nil, fmt.Errorf("label for unknown %s %q", kind, key)
}

func (v *Vocabulary) loadBrands() error {
	localized := []int{mustLocale("bg"), mustLocale("sr"), mustLocale("el"), mustLocale("ar")}
	seenID, seenSlug := map[uint32]bool{}, map[string]bool{}
	err := rows("brands.tsv", 6, 11, func(rec *record) {
		f := rec.f
		id, err := strconv.ParseUint(f[0], 10, 8)
		if err != nil || id == 0 {
			rec.failf("bad brand id %q (1 to 255: stable ids pack it in 8 bits)", f[0])
		}
		pop, err := strconv.Atoi(f[4])
		if err != nil || pop < 1 {
			rec.failf("bad popularity %q", f[4])
		}
		b := Brand{ID: uint32(id), Slug: f[1], Name: f[2], Country: f[3], Popularity: pop, Style: f[5], Wikidata: f[6]}
		if seenID[b.ID] || seenSlug[b.Slug] {
			rec.failf("duplicate brand %d %q", b.ID, b.Slug)
		}
		seenID[b.ID], seenSlug[b.Slug] = true, true
		if b.Wikidata != "" && !isQID(b.Wikidata) {
			rec.failf("brand %q: bad Wikidata id %q", b.Slug, b.Wikidata)
		}
		for i, li := range localized {
			b.Aliases[li] = f[7+i]
			if localDisplay[Locales[li]] {
				b.Names[li] = f[7+i]
			}
		}
		if rec.Err() == nil {
			v.Brands = append(v.Brands, b)
		}
	})
	if err != nil {
		return err
	}
	sort.SliceStable(v.Brands, func(i, j int) bool { return v.Brands[i].ID < v.Brands[j].ID })
	return nil
}

func isQID(s string) bool {
	if len(s) < 2 || s[0] != 'Q' || s[1] == '0' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func mustLocale(l string) int {
	i, ok := LocaleIndex(l)
	if !ok {
		panic("BUG: unknown locale " + l)
	}
	return i
}

func (v *Vocabulary) loadModels() error {
	k := v.known()
	seen := map[string]bool{}
	names, _ := files.ReadDir(".")
	for _, de := range names {
		if !strings.HasPrefix(de.Name(), "models_") || !strings.HasSuffix(de.Name(), ".tsv") {
			continue
		}
		err := rows(de.Name(), 6, 7, func(rec *record) {
			f := rec.f
			m := ModelSeed{Brand: rec.text(0, k.brand), Name: f[1], Powertrain: f[6]}
			if m.Name == "" {
				rec.failf("empty model name")
			}
			if seen[m.Brand+"\t"+m.Name] {
				rec.failf("duplicate model %s %q", m.Brand, m.Name)
			}
			seen[m.Brand+"\t"+m.Name] = true
			rec.who = fmt.Sprintf("model %q", m.Name)
			m.Body = rec.text(2, k.enum("body"))
			if len(f[3]) != 1 || !strings.Contains("ABCDEFSV", f[3]) {
				rec.failf("unknown segment %q", f[3])
			} else {
				m.Segment = f[3][0]
			}
			m.YearStart, m.YearEnd = rec.span(4, "year_start", "year_end", 1990)
			switch m.Powertrain {
			case "petrol", "ice", "mixed", "hybrid", "phev", "ev", "fcev":
			default:
				rec.failf("unknown powertrain %q", m.Powertrain)
			}
			if rec.Err() == nil {
				v.Models = append(v.Models, m)
			}
		})
		if err != nil {
			return err
		}
	}
	// Keep the file order within a brand, brands in id order: the position of
	// a model within its brand is part of its stable id.
	order := map[string]int{}
	for i, b := range v.Brands {
		order[b.Slug] = i
	}
	sort.SliceStable(v.Models, func(i, j int) bool { return order[v.Models[i].Brand] < order[v.Models[j].Brand] })
	return nil
}
