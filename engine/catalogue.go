package engine

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/vspec/catalogue/engine/jsonenc"
)

// Null marks a missing value in an int32 column.
const Null int32 = math.MinInt32

// Kind is the value kind of a spec type. The values match data/vocab.
type Kind uint8

// Value kinds.
const (
	KindNumber Kind = 1
	KindInt    Kind = 2
	KindBool   Kind = 3
	KindEnum   Kind = 4
	KindText   Kind = 5
)

// Image roles.
const (
	RoleCard uint8 = 0
	RoleHero uint8 = 1
)

// SpecType is one entry of the spec dictionary.
type SpecType struct {
	Key    string
	Group  uint16
	Kind   Kind
	Scale  uint8 // decimals of a KindNumber value
	Enum   int16 // enum group of a KindEnum value, else -1
	Unit   string
	Module string
}

// EnumGroup is an enumeration. Its values are numbered globally: value i
// of the group is global value First+i.
type EnumGroup struct {
	Key   string
	First uint32
	Slugs []string
}

// Meta describes the snapshot a catalogue was built from.
type Meta struct {
	Identity  string // hex digest of the snapshot payload: changes with any byte of content
	Version   uint32 // snapshot format version
	Seed      uint64
	Scale     float64
	SyncedAt  time.Time
	CDNBase   string
	Generator string
	// ContentHash is the SHA-256 of the whole snapshot file in lower-case
	// hex (what sha256sum prints): the name the file is published under in
	// a fleet's origin, and the X-Catalogue-Version of responses. Empty for
	// a catalogue not built from a file.
	ContentHash string
}

// Columns is everything a snapshot holds, decoded. The loader fills it and
// hands it to New, which takes ownership.
type Columns struct {
	Meta    Meta
	Locales []string

	Groups      []string // group keys
	GroupLabels []Text   // per locale, indexed by group
	Specs       []SpecType
	SpecLabels  []Text // per locale, indexed by spec
	SpecUnits   []Text // per locale, indexed by spec: the unit as the locale writes it
	Enums       []EnumGroup
	EnumLabels  []Text // per locale, indexed by global enum value

	BrandID         []uint32
	BrandSlug       Text
	BrandName       Text   // canonical (Latin) names
	BrandNames      []Text // per locale, "" where the locale uses the canonical name
	BrandAliases    []Text // per locale, the local spelling search takes for the brand, "" where none
	BrandPopularity []uint16
	BrandWikidata   Text
	BrandCountry    Text

	ModelID    []uint32
	ModelBrand []uint32
	ModelName  Text
	ModelSlug  Text

	GenID        []uint32
	GenModel     []uint32
	GenName      Text
	GenSlug      Text
	GenYearStart []uint16
	GenYearEnd   []uint16 // 0 while in production; years are in MinYear..MaxYear

	VarID           []uint32
	VarGen          []uint32
	VarName         Text
	VarFuel         []uint8
	VarBody         []uint8
	VarDrive        []uint8
	VarTransmission []uint8
	VarPowerHP      []int32
	VarTorqueNM     []int32
	VarTopSpeedKMH  []int32
	VarAccel100     []int32 // tenths of a second
	VarBatteryKWh   []int32 // tenths of a kWh
	VarHasPrice     []bool
	VarPriceEUR     []int32  // 0 = the source carries 0 (unknown)
	VarPriceAsOf    []int32  // days since 1970-01-01
	VarSyncedAt     []int64  // Unix seconds
	VarSpecOff      []uint32 // len = variants+1; values of row i are [VarSpecOff[i], VarSpecOff[i+1])
	VarImageOff     []uint32 // len = variants+1

	SpecKey  []uint8
	SpecVal  []int32
	SpecConf []uint8 // percent; 0 = certain

	Texts Text

	ImageKey  []uint32
	ImageRole []uint8

	Demo []uint32 // variant rows of the demo set

	// SearchAliases are what people type for a brand ("vw", "merc"). They
	// are not in the snapshot: the loader adds data/vocab's; an alias of a
	// brand the catalogue lacks is ignored.
	SearchAliases []SearchAlias
}

// SearchAlias is one search alias of a brand, by the brand's slug.
type SearchAlias struct {
	Alias, BrandSlug string
}

// The production years a catalogue may record.
const (
	MinYear = 1886 // the first motor car
	MaxYear = 2100
)

// Catalogue is the immutable, query-ready catalogue.
type Catalogue struct {
	Columns

	// Derived at New.
	brandModels []uint32 // span starts, len = brands+1
	modelGens   []uint32 // len = models+1
	genVariants []uint32 // len = generations+1
	varModel    []uint32 // model row of each variant (denormalised for filters)
	brandBySlug map[string]uint32
	localeIndex map[string]int
	enLocale    int
	fuelEnum    int
	bodyEnum    int
	driveEnum   int
	transEnum   int

	// Pre-escaped JSON strings (with quotes), per locale.
	jsonSpecLabel  []Text
	jsonGroupLabel []Text
	jsonEnumLabel  []Text
	jsonBrandName  []Text // fallback to the canonical name resolved
	jsonVarName    Text   // variant display names
	jsonTexts      Text   // text spec values

	orders    orders
	filters   filters
	search    search
	specIndex map[string]int
}

// ErrInvalid marks a catalogue whose columns contradict each other. The
// loader reports it as a corrupt snapshot.
var ErrInvalid = errors.New("invalid catalogue")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// New validates cols, then derives what serving needs from them: lookups,
// hierarchy spans, pre-escaped label tables, list orders, filter indexes
// and the typeahead. cols must not be modified afterwards.
func New(cols Columns) (*Catalogue, error) {
	c := &Catalogue{Columns: cols}
	if err := c.validate(); err != nil {
		return nil, err
	}
	// Each step reads the columns and what the steps before it derived.
	c.deriveLookups()
	c.deriveSpans()
	c.deriveLabels()
	// The trigram index is the slowest part: build it on the other core.
	// deriveSearch reads the spans; deriveOrders and deriveFilters read the
	// spans and the lookups; none reads what another of the three writes.
	done := make(chan struct{})
	go func() {
		c.deriveSearch()
		close(done)
	}()
	c.deriveOrders()
	c.deriveFilters()
	<-done
	return c, nil
}

// validate checks that the columns agree with each other: lengths, ranges,
// orders and every cross-reference. It returns the first contradiction it
// finds, as ErrInvalid, and sets nothing on c: the derive steps run only
// after it has passed, so they may index without checking.
func (c *Catalogue) validate() error {
	if err := c.validateVocabulary(); err != nil {
		return err
	}
	if err := c.validateHierarchy(); err != nil {
		return err
	}
	return c.validateValues()
}

// validateVocabulary checks the locales, groups, enumerations and the spec
// dictionary with their label tables.
func (c *Catalogue) validateVocabulary() error {
	if len(c.Locales) == 0 {
		return invalid("no locales")
	}
	seen := make(map[string]struct{}, len(c.Locales))
	for _, l := range c.Locales {
		if _, dup := seen[l]; dup {
			return invalid("duplicate locale %q", l)
		}
		seen[l] = struct{}{}
	}
	if _, ok := seen["en"]; !ok {
		return invalid("locale en missing")
	}
	if err := c.perLocale("group labels", c.GroupLabels, len(c.Groups)); err != nil {
		return err
	}
	if err := c.perLocale("spec labels", c.SpecLabels, len(c.Specs)); err != nil {
		return err
	}
	if err := c.perLocale("spec units", c.SpecUnits, len(c.Specs)); err != nil {
		return err
	}
	nEnum := uint32(0)
	for _, e := range c.Enums {
		if e.First != nEnum {
			return invalid("enum %q starts at %d, want %d", e.Key, e.First, nEnum)
		}
		if len(e.Slugs) == 0 || len(e.Slugs) > 255 {
			return invalid("enum %q has %d values", e.Key, len(e.Slugs))
		}
		nEnum += uint32(len(e.Slugs))
	}
	for i, g := range c.columnEnums() {
		if g < 0 {
			return invalid("enum %q missing", columnEnumKeys[i])
		}
	}
	if err := c.perLocale("enum labels", c.EnumLabels, int(nEnum)); err != nil {
		return err
	}
	if len(c.Specs) > 256 {
		return invalid("%d spec types, at most 256", len(c.Specs))
	}
	for _, s := range c.Specs {
		if int(s.Group) >= len(c.Groups) {
			return invalid("spec %q: group %d out of range", s.Key, s.Group)
		}
		switch s.Kind {
		case KindNumber, KindInt, KindBool, KindText:
			if s.Enum != -1 {
				return invalid("spec %q: enum on a non-enum spec", s.Key)
			}
		case KindEnum:
			if s.Enum < 0 || int(s.Enum) >= len(c.Enums) {
				return invalid("spec %q: enum %d out of range", s.Key, s.Enum)
			}
		default:
			return invalid("spec %q: unknown kind %d", s.Key, s.Kind)
		}
		if s.Scale > 4 || (s.Kind != KindNumber && s.Scale != 0) {
			return invalid("spec %q: scale %d", s.Key, s.Scale)
		}
	}
	return nil
}

// perLocale checks that ts holds one well-formed table of n UTF-8 entries
// per locale.
func (c *Catalogue) perLocale(name string, ts []Text, n int) error {
	if len(ts) != len(c.Locales) {
		return invalid("%s: %d locale tables, want %d", name, len(ts), len(c.Locales))
	}
	for i := range ts {
		if !ts[i].valid() || ts[i].Len() != n {
			return invalid("%s[%s]: %d entries, want %d", name, c.Locales[i], ts[i].Len(), n)
		}
		if !utf8.Valid(ts[i].Data) {
			return invalid("%s[%s]: invalid UTF-8", name, c.Locales[i])
		}
	}
	return nil
}

// validateHierarchy checks brands, models, generations and variants: column
// lengths, ids ascending, parents in range and non-decreasing (children of
// one parent are contiguous), unique brand slugs, production years and the
// variants' enumerated codes. It relies on validateVocabulary having passed.
func (c *Catalogue) validateHierarchy() error {
	nb := len(c.BrandID)
	if err := sameLen("brand", nb, len(c.BrandPopularity), c.BrandSlug.Len(), c.BrandName.Len(), c.BrandWikidata.Len(), c.BrandCountry.Len()); err != nil {
		return err
	}
	if err := c.perLocale("brand names", c.BrandNames, nb); err != nil {
		return err
	}
	if err := c.perLocale("brand aliases", c.BrandAliases, nb); err != nil {
		return err
	}
	if err := ascending("brand", c.BrandID); err != nil {
		return err
	}
	slugs := make(map[string]struct{}, nb)
	for i := 0; i < nb; i++ {
		s := c.BrandSlug.String(uint32(i))
		if _, dup := slugs[s]; dup || s == "" {
			return invalid("brand slug %q empty or duplicate", s)
		}
		slugs[s] = struct{}{}
	}
	nm := len(c.ModelID)
	if err := sameLen("model", nm, len(c.ModelBrand), c.ModelName.Len(), c.ModelSlug.Len()); err != nil {
		return err
	}
	if err := ascending("model", c.ModelID); err != nil {
		return err
	}
	if err := parents("model", c.ModelBrand, nb); err != nil {
		return err
	}
	ng := len(c.GenID)
	if err := sameLen("generation", ng, len(c.GenModel), c.GenName.Len(), c.GenSlug.Len(), len(c.GenYearStart), len(c.GenYearEnd)); err != nil {
		return err
	}
	if err := ascending("generation", c.GenID); err != nil {
		return err
	}
	if err := parents("generation", c.GenModel, nm); err != nil {
		return err
	}
	for i := range c.GenYearStart {
		// Years outside the motor car's history are a corrupt file, and the
		// year index (one bitmap per year a generation covers) must not be
		// asked to span millennia.
		if ys := c.GenYearStart[i]; ys < MinYear || ys > MaxYear {
			return invalid("generation %d starts in %d, outside %d..%d", c.GenID[i], ys, MinYear, MaxYear)
		}
		if ye := c.GenYearEnd[i]; ye != 0 && (ye < c.GenYearStart[i] || ye > MaxYear) {
			return invalid("generation %d ends in %d, before it starts or after %d", c.GenID[i], ye, MaxYear)
		}
	}
	nv := len(c.VarID)
	if err := sameLen("variant", nv, len(c.VarGen), c.VarName.Len(), len(c.VarFuel), len(c.VarBody), len(c.VarDrive),
		len(c.VarTransmission), len(c.VarPowerHP), len(c.VarTorqueNM), len(c.VarTopSpeedKMH), len(c.VarAccel100),
		len(c.VarBatteryKWh), len(c.VarHasPrice), len(c.VarPriceEUR), len(c.VarPriceAsOf), len(c.VarSyncedAt),
		len(c.VarSpecOff)-1, len(c.VarImageOff)-1); err != nil {
		return err
	}
	if err := ascending("variant", c.VarID); err != nil {
		return err
	}
	if err := parents("variant", c.VarGen, ng); err != nil {
		return err
	}
	enums := c.columnEnums()
	for i, col := range [len(columnEnumKeys)][]uint8{c.VarFuel, c.VarBody, c.VarDrive, c.VarTransmission} {
		n := len(c.Enums[enums[i]].Slugs)
		for row, v := range col {
			if int(v) >= n {
				return invalid("variant %d: %s code %d out of range", c.VarID[row], columnEnumKeys[i], v)
			}
		}
	}
	return nil
}

// validateValues checks the spec values, texts, name tables, images and
// the demo set. It relies on validateVocabulary and validateHierarchy
// having passed.
func (c *Catalogue) validateValues() error {
	nv := len(c.VarID)
	if err := offsets("spec", c.VarSpecOff, len(c.SpecKey)); err != nil {
		return err
	}
	if err := offsets("image", c.VarImageOff, len(c.ImageKey)); err != nil {
		return err
	}
	if len(c.SpecVal) != len(c.SpecKey) || len(c.SpecConf) != len(c.SpecKey) || len(c.ImageRole) != len(c.ImageKey) {
		return invalid("value or image columns differ in length")
	}
	if !c.Texts.valid() || !utf8.Valid(c.Texts.Data) {
		return invalid("text dictionary malformed")
	}
	for _, t := range []*Text{&c.BrandSlug, &c.BrandName, &c.BrandWikidata, &c.BrandCountry, &c.ModelName, &c.ModelSlug, &c.GenName, &c.GenSlug, &c.VarName} {
		if !t.valid() || !utf8.Valid(t.Data) {
			return invalid("name table malformed")
		}
	}
	nTexts := int32(c.Texts.Len())
	for row := 0; row < nv; row++ {
		prev := -1
		for j := c.VarSpecOff[row]; j < c.VarSpecOff[row+1]; j++ {
			k := int(c.SpecKey[j])
			if k <= prev || k >= len(c.Specs) {
				return invalid("variant %d: spec keys not ascending or out of range", c.VarID[row])
			}
			prev = k
			v := c.SpecVal[j]
			switch st := &c.Specs[k]; st.Kind {
			case KindBool:
				if v != 0 && v != 1 {
					return invalid("variant %d: %s is not a boolean", c.VarID[row], st.Key)
				}
			case KindEnum:
				if v < 0 || int(v) >= len(c.Enums[st.Enum].Slugs) {
					return invalid("variant %d: %s enum value out of range", c.VarID[row], st.Key)
				}
			case KindText:
				if v < 0 || v >= nTexts {
					return invalid("variant %d: %s text out of range", c.VarID[row], st.Key)
				}
			}
			if conf := c.SpecConf[j]; conf > 99 {
				return invalid("variant %d: confidence %d%%", c.VarID[row], conf)
			}
		}
	}
	for i, r := range c.ImageRole {
		if r > RoleHero {
			return invalid("unknown image role %d", r)
		}
		if c.Meta.Version >= 2 && int(c.ImageKey[i]) >= len(ImageAngles) {
			return invalid("image %d: unknown angle %d", i, c.ImageKey[i])
		}
	}
	seen := map[uint32]bool{}
	for _, r := range c.Demo {
		if int(r) >= nv || seen[r] {
			return invalid("demo row %d out of range or repeated", r)
		}
		seen[r] = true
	}
	return nil
}

// columnEnumKeys are the keys of the enumerations behind the variant
// columns VarFuel, VarBody, VarDrive and VarTransmission, in that order.
var columnEnumKeys = [...]string{"fuel", "body", "drive", "transmission"}

// columnEnums returns the index in Enums of each columnEnumKeys group, -1
// where no group has the key. When several groups share a key, the last
// one counts.
func (c *Catalogue) columnEnums() [len(columnEnumKeys)]int {
	idx := [len(columnEnumKeys)]int{-1, -1, -1, -1}
	for i, e := range c.Enums {
		for j, k := range columnEnumKeys {
			if e.Key == k {
				idx[j] = i
			}
		}
	}
	return idx
}

func sameLen(kind string, n int, others ...int) error {
	for _, o := range others {
		if o != n {
			return invalid("%s columns differ in length (%d and %d)", kind, n, o)
		}
	}
	return nil
}

// MaxStableID is the largest stable id of any kind: ids are packed into 24
// bits (see data/dataset), which the public token codec relies on.
const MaxStableID = 1<<24 - 1

func ascending(kind string, ids []uint32) error {
	if n := len(ids); n > 0 && ids[n-1] > MaxStableID {
		return invalid("%s id %d does not fit in 24 bits", kind, ids[n-1])
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			return invalid("%s ids not strictly ascending at row %d", kind, i)
		}
	}
	if len(ids) > 0 && ids[0] == 0 {
		return invalid("%s id 0", kind)
	}
	return nil
}

func parents(kind string, parent []uint32, n int) error {
	for i, p := range parent {
		if int(p) >= n || (i > 0 && p < parent[i-1]) {
			return invalid("%s row %d: parent %d out of order or range", kind, i, p)
		}
	}
	return nil
}

func offsets(kind string, off []uint32, n int) error {
	if len(off) == 0 || off[0] != 0 || int(off[len(off)-1]) != n {
		return invalid("%s offsets do not cover the values", kind)
	}
	for i := 1; i < len(off); i++ {
		if off[i] < off[i-1] {
			return invalid("%s offsets decrease at row %d", kind, i)
		}
	}
	return nil
}

// deriveLookups builds the lookup tables: locale codes, the enumerations
// behind the variant columns, brand slugs and spec keys.
func (c *Catalogue) deriveLookups() {
	c.localeIndex = make(map[string]int, len(c.Locales))
	for i, l := range c.Locales {
		c.localeIndex[l] = i
	}
	c.enLocale = c.localeIndex["en"]
	e := c.columnEnums()
	c.fuelEnum, c.bodyEnum, c.driveEnum, c.transEnum = e[0], e[1], e[2], e[3]
	c.brandBySlug = make(map[string]uint32, len(c.BrandID))
	for i := range c.BrandID {
		c.brandBySlug[c.BrandSlug.String(uint32(i))] = uint32(i)
	}
	c.specIndex = make(map[string]int, len(c.Specs))
	for i, s := range c.Specs {
		c.specIndex[s.Key] = i
	}
}

// deriveSpans builds the hierarchy spans and each variant's model row.
func (c *Catalogue) deriveSpans() {
	c.brandModels = spans(c.ModelBrand, len(c.BrandID))
	c.modelGens = spans(c.GenModel, len(c.ModelID))
	c.genVariants = spans(c.VarGen, len(c.GenID))
	c.varModel = make([]uint32, len(c.VarID))
	for i, g := range c.VarGen {
		c.varModel[i] = c.GenModel[g]
	}
}

// spans turns a non-decreasing parent column into span starts per parent.
func spans(parent []uint32, nParents int) []uint32 {
	s := make([]uint32, nParents+1)
	for _, p := range parent {
		s[p+1]++
	}
	for i := 1; i <= nParents; i++ {
		s[i] += s[i-1]
	}
	return s
}

// deriveLabels builds the pre-escaped JSON tables (quoted strings) of the
// labels, brand names, variant names and text values.
func (c *Catalogue) deriveLabels() {
	c.jsonSpecLabel = escapeJSON(c.SpecLabels)
	c.jsonGroupLabel = escapeJSON(c.GroupLabels)
	c.jsonEnumLabel = escapeJSON(c.EnumLabels)
	names := make([]Text, len(c.Locales))
	for li := range c.Locales {
		b := NewTextBuilder(len(c.BrandID), 12)
		var buf []byte
		for i := range c.BrandID {
			n := c.BrandNames[li].String(uint32(i))
			if n == "" {
				n = c.BrandName.String(uint32(i))
			}
			buf = jsonenc.AppendString(buf[:0], n)
			b.AddBytes(buf)
		}
		names[li] = b.Text()
	}
	c.jsonBrandName = names
	c.jsonVarName = escapeJSON([]Text{c.VarName})[0]
	c.jsonTexts = escapeJSON([]Text{c.Texts})[0]
}

// escapeJSON returns each table with its entries as quoted, escaped JSON
// strings.
func escapeJSON(src []Text) []Text {
	out := make([]Text, len(src))
	for li := range src {
		b := NewTextBuilder(src[li].Len(), 24)
		var buf []byte
		for i := 0; i < src[li].Len(); i++ {
			buf = jsonenc.AppendString(buf[:0], src[li].String(uint32(i)))
			b.AddBytes(buf)
		}
		out[li] = b.Text()
	}
	return out
}

// SpecIndex returns the dictionary index of a spec key.
func (c *Catalogue) SpecIndex(key string) (int, bool) {
	i, ok := c.specIndex[key]
	return i, ok
}

// Counts returns the number of brands, models, generations and variants.
func (c *Catalogue) Counts() (brands, models, generations, variants int) {
	return len(c.BrandID), len(c.ModelID), len(c.GenID), len(c.VarID)
}

// Locale returns the index of a published locale.
func (c *Catalogue) Locale(code string) (int, bool) {
	i, ok := c.localeIndex[code]
	return i, ok
}

// LocaleOrEnglish returns the index of code, or of English when code is not
// published (the contract's silent fallback).
func (c *Catalogue) LocaleOrEnglish(code string) int {
	if code == "" { // no locale asked: most requests, no map lookup
		return c.enLocale
	}
	if i, ok := c.localeIndex[code]; ok {
		return i
	}
	return c.enLocale
}

func find(ids []uint32, id uint32) (uint32, bool) {
	i := sort.Search(len(ids), func(i int) bool { return ids[i] >= id })
	if i < len(ids) && ids[i] == id {
		return uint32(i), true
	}
	return 0, false
}

// BrandRow returns the row of the brand with stable id.
func (c *Catalogue) BrandRow(id uint32) (uint32, bool) { return find(c.BrandID, id) }

// BrandBySlug returns the row of the brand with a slug.
func (c *Catalogue) BrandBySlug(slug string) (uint32, bool) {
	r, ok := c.brandBySlug[slug]
	return r, ok
}

// ModelRow returns the row of the model with stable id.
func (c *Catalogue) ModelRow(id uint32) (uint32, bool) { return find(c.ModelID, id) }

// GenerationRow returns the row of the generation with stable id.
func (c *Catalogue) GenerationRow(id uint32) (uint32, bool) { return find(c.GenID, id) }

// VariantRow returns the row of the variant with stable id.
func (c *Catalogue) VariantRow(id uint32) (uint32, bool) { return find(c.VarID, id) }

// BrandModels returns the span of model rows of a brand.
func (c *Catalogue) BrandModels(brand uint32) (first, end uint32) {
	return c.brandModels[brand], c.brandModels[brand+1]
}

// ModelGenerations returns the span of generation rows of a model.
func (c *Catalogue) ModelGenerations(model uint32) (first, end uint32) {
	return c.modelGens[model], c.modelGens[model+1]
}

// GenerationVariants returns the span of variant rows of a generation.
func (c *Catalogue) GenerationVariants(gen uint32) (first, end uint32) {
	return c.genVariants[gen], c.genVariants[gen+1]
}

// VariantModel returns the model row of a variant.
func (c *Catalogue) VariantModel(v uint32) uint32 { return c.varModel[v] }

// VariantBrand returns the brand row of a variant.
func (c *Catalogue) VariantBrand(v uint32) uint32 { return c.ModelBrand[c.varModel[v]] }

// VariantSpecs returns the span of a variant's spec values.
func (c *Catalogue) VariantSpecs(v uint32) (first, end uint32) {
	return c.VarSpecOff[v], c.VarSpecOff[v+1]
}

// VariantImages returns the span of a variant's images.
func (c *Catalogue) VariantImages(v uint32) (first, end uint32) {
	return c.VarImageOff[v], c.VarImageOff[v+1]
}

// FuelSlug returns the slug of a fuel code.
func (c *Catalogue) FuelSlug(code uint8) string { return c.Enums[c.fuelEnum].Slugs[code] }

// Fuels, Bodies and Drives return how many codes the fuel, body and drive
// enumerations have (codes are 0 to n-1).
func (c *Catalogue) Fuels() int  { return len(c.Enums[c.fuelEnum].Slugs) }
func (c *Catalogue) Bodies() int { return len(c.Enums[c.bodyEnum].Slugs) }
func (c *Catalogue) Drives() int { return len(c.Enums[c.driveEnum].Slugs) }

// BodySlug returns the slug of a body code.
func (c *Catalogue) BodySlug(code uint8) string { return c.Enums[c.bodyEnum].Slugs[code] }

// DriveSlug returns the slug of a drive code.
func (c *Catalogue) DriveSlug(code uint8) string { return c.Enums[c.driveEnum].Slugs[code] }

// EnumLabel returns the label of value v of enum group g in locale li.
func (c *Catalogue) EnumLabel(li int, g int, v uint8) string {
	return c.EnumLabels[li].String(c.Enums[g].First + uint32(v))
}

// BodyLabel returns the label of a body code in locale li
// (BodyLabel(en, code) is the contract's body_type_en).
func (c *Catalogue) BodyLabel(li int, code uint8) string { return c.EnumLabel(li, c.bodyEnum, code) }

// English is the index of the English locale.
func (c *Catalogue) English() int { return c.enLocale }

// AppendSpecLabelJSON appends the quoted, escaped label of spec k in locale li.
func (c *Catalogue) AppendSpecLabelJSON(dst []byte, li int, k uint8) []byte {
	return append(dst, c.jsonSpecLabel[li].Bytes(uint32(k))...)
}

// AppendGroupLabelJSON appends the quoted, escaped label of group g.
func (c *Catalogue) AppendGroupLabelJSON(dst []byte, li int, g uint16) []byte {
	return append(dst, c.jsonGroupLabel[li].Bytes(uint32(g))...)
}

// AppendEnumLabelJSON appends the quoted, escaped label of an enum value.
func (c *Catalogue) AppendEnumLabelJSON(dst []byte, li int, g int16, v int32) []byte {
	return append(dst, c.jsonEnumLabel[li].Bytes(c.Enums[g].First+uint32(v))...)
}

// AppendBrandNameJSON appends the quoted, escaped localized name of a brand.
func (c *Catalogue) AppendBrandNameJSON(dst []byte, li int, brand uint32) []byte {
	return append(dst, c.jsonBrandName[li].Bytes(brand)...)
}

// AppendVariantNameJSON appends the quoted, escaped display name of a variant.
func (c *Catalogue) AppendVariantNameJSON(dst []byte, v uint32) []byte {
	return append(dst, c.jsonVarName.Bytes(v)...)
}

// AppendTextJSON appends the quoted, escaped text value i.
func (c *Catalogue) AppendTextJSON(dst []byte, i int32) []byte {
	return append(dst, c.jsonTexts.Bytes(uint32(i))...)
}

// BrandDisplayName returns the brand's name in locale li.
func (c *Catalogue) BrandDisplayName(li int, brand uint32) string {
	if n := c.BrandNames[li].String(brand); n != "" {
		return n
	}
	return c.BrandName.String(brand)
}

// ImageAngles are the photographs a generation's body style may have; an
// image's key (snapshot version 2) is an index into it.
var ImageAngles = [...]string{"front-three-quarter", "side", "rear-three-quarter", "front", "rear", "interior", "dashboard", "rear-seats", "boot"}

// imageSizes are the pixel sizes of each role's file: a card for lists, a
// hero for a page's head.
var imageSizes = [...]string{RoleCard: "640x360", RoleHero: "1600x900"}

// AppendImageURL appends the CDN URL of image i (an index into ImageKey):
// base/brand/model/generation/body/angle-WxH.webp, a photograph shared by
// every variant of the generation with that body. cdnBase has no trailing
// slash. Snapshots of version 1 name images by a random key instead:
// base/brand/model/card|hero/8-hex-key.webp.
func (c *Catalogue) AppendImageURL(dst []byte, cdnBase string, i uint32) []byte {
	const hexDigits = "0123456789abcdef"
	row := c.imageVariant(i)
	gen := c.VarGen[row]
	model := c.GenModel[gen]
	if c.Meta.Version >= 2 {
		dst = append(dst, cdnBase...)
		dst = append(dst, '/')
		dst = append(dst, c.BrandSlug.Bytes(c.ModelBrand[model])...)
		dst = append(dst, '/')
		dst = append(dst, c.ModelSlug.Bytes(model)...)
		dst = append(dst, '/')
		dst = append(dst, c.GenSlug.Bytes(gen)...)
		dst = append(dst, '/')
		dst = append(dst, c.BodySlug(c.VarBody[row])...)
		dst = append(dst, '/')
		dst = append(dst, ImageAngles[c.ImageKey[i]]...)
		dst = append(dst, '-')
		dst = append(dst, imageSizes[c.ImageRole[i]]...)
		return append(dst, ".webp"...)
	}
	dst = append(dst, cdnBase...)
	dst = append(dst, '/')
	dst = append(dst, c.BrandSlug.Bytes(c.ModelBrand[model])...)
	dst = append(dst, '/')
	dst = append(dst, c.ModelSlug.Bytes(model)...)
	if c.ImageRole[i] == RoleHero {
		dst = append(dst, "/hero/"...)
	} else {
		dst = append(dst, "/card/"...)
	}
	k := c.ImageKey[i]
	for sh := 28; sh >= 0; sh -= 4 {
		dst = append(dst, hexDigits[k>>uint(sh)&0xf])
	}
	return append(dst, ".webp"...)
}

// imageVariant returns the variant row an image belongs to.
func (c *Catalogue) imageVariant(i uint32) uint32 {
	off := c.VarImageOff
	lo, hi := 0, len(off)-1 // off[lo] <= i < off[hi]
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if off[mid] <= i {
			lo = mid
		} else {
			hi = mid
		}
	}
	return uint32(lo)
}
