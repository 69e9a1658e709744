package export

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/jsonenc"
)

// Options says what a customer bought. NewPlan puts it in its canonical
// form (Plan.Options), which is what manifests and change files record.
type Options struct {
	Modules   []string `json:"modules"`   // catalogue first, then the contract's order; may include images
	Languages []string `json:"languages"` // en first, then the published order
	Brands    []string `json:"brands"`    // brand slugs of a subset, in brand-id order; empty for the whole catalogue
}

// Meta identifies the snapshot an export was made from.
type Meta struct {
	Identity      string  `json:"identity"`
	FormatVersion uint32  `json:"format_version"`
	Seed          uint64  `json:"seed"`
	Scale         float64 `json:"scale"`
	SyncedAt      string  `json:"synced_at"`
	Generator     string  `json:"generator"`
	Variants      int     `json:"variants"` // variants in the whole snapshot, the denominator of a subset's share
}

// MetaOf returns the identity of the snapshot c was loaded from.
func MetaOf(c *engine.Catalogue) Meta {
	return Meta{
		Identity: c.Meta.Identity, FormatVersion: c.Meta.Version, Seed: c.Meta.Seed, Scale: c.Meta.Scale,
		SyncedAt: c.Meta.SyncedAt.UTC().Format(time.RFC3339), Generator: c.Meta.Generator, Variants: len(c.VarID),
	}
}

// Plan is an export of one catalogue with one set of options, ready to be
// written or compared: its tables produce rows on demand from the
// catalogue's columns.
type Plan struct {
	Meta    Meta
	Options Options
	Tables  []*Table
	// Share is the subset's share of the snapshot's variants (1 for the
	// whole catalogue): what the quote prices a subset by.
	Share float64

	c        *engine.Catalogue
	langs    []int // locale indexes of Options.Languages
	brands   []uint32
	models   []uint32
	gens     []uint32
	variants []uint32
}

// NewPlan checks opts against c and prepares the tables. lenient accepts
// brand slugs that c does not hold (the old side of a diff may lack a brand
// the new side has).
func NewPlan(c *engine.Catalogue, opts Options, lenient bool) (*Plan, error) {
	if err := CheckSpecModules(c); err != nil {
		return nil, err
	}
	var err error
	p := &Plan{c: c, Meta: MetaOf(c), Options: Options{Brands: []string{}}}
	if p.Options.Modules, err = ParseModules(strings.Join(opts.Modules, ",")); err != nil {
		return nil, err
	}
	if p.Options.Languages, err = ParseLanguages(strings.Join(opts.Languages, ","), c.Locales); err != nil {
		return nil, err
	}
	for _, l := range p.Options.Languages {
		li, _ := c.Locale(l)
		p.langs = append(p.langs, li)
	}
	if err := p.selectBrands(opts.Brands, lenient); err != nil {
		return nil, err
	}
	p.Share = 1
	if len(p.Options.Brands) > 0 && len(c.VarID) > 0 {
		p.Share = float64(len(p.variants)) / float64(len(c.VarID))
	}
	p.build()
	return p, nil
}

func (p *Plan) selectBrands(slugs []string, lenient bool) error {
	c := p.c
	var sel []bool
	if len(slugs) > 0 {
		sel = make([]bool, len(c.BrandID))
		var unknown []string
		for _, s := range slugs {
			s = strings.ToLower(strings.TrimSpace(s))
			if s == "" {
				continue
			}
			row, ok := c.BrandBySlug(s)
			if !ok {
				unknown = append(unknown, s)
				continue
			}
			sel[row] = true
		}
		if len(unknown) > 0 && !lenient {
			return fmt.Errorf("unknown brand slug(s): %s", strings.Join(unknown, ", "))
		}
		// Slugs in brand-id order; with lenient, the unknown ones are kept
		// so that both sides of a diff record the same options.
		for row := range c.BrandID {
			if sel[row] {
				p.Options.Brands = append(p.Options.Brands, c.BrandSlug.String(uint32(row)))
			}
		}
		p.Options.Brands = append(p.Options.Brands, unknown...)
		if len(p.Options.Brands) == 0 {
			return fmt.Errorf("the brand subset is empty")
		}
	}
	for row := range c.BrandID {
		if sel == nil || sel[row] {
			p.brands = append(p.brands, uint32(row))
		}
	}
	for row, b := range c.ModelBrand {
		if sel == nil || sel[b] {
			p.models = append(p.models, uint32(row))
		}
	}
	for row, m := range c.GenModel {
		if sel == nil || sel[c.ModelBrand[m]] {
			p.gens = append(p.gens, uint32(row))
		}
	}
	for row := range c.VarID {
		if sel == nil || sel[c.VariantBrand(uint32(row))] {
			p.variants = append(p.variants, uint32(row))
		}
	}
	return nil
}

func (p *Plan) bought(module string) bool { return slices.Contains(p.Options.Modules, module) }

// labelCols returns one column per exported language: prefix + code.
func (p *Plan) labelCols(prefix, label, desc string) []Column {
	out := make([]Column, len(p.Options.Languages))
	for i, l := range p.Options.Languages {
		out[i] = Column{Name: prefix + l, Type: TypeText, Desc: fmt.Sprintf(desc, l), Labels: []string{fmt.Sprintf(label, l)}}
	}
	return out
}

// col is a shorthand for a documented non-spec column.
func col(name string, t Type, label, desc string) Column {
	return Column{Name: name, Type: t, Desc: desc, Labels: []string{label}}
}

// keyCols are the first columns of the model, generation and variant
// tables: the row's own id (desc describes it), then the ids of its
// parents, nearest first; of and parents are singular table names.
func keyCols(of, desc string, parents ...string) []Column {
	cols := []Column{col(of+"_id", TypeInt, title(of)+" id", desc)}
	for _, p := range parents {
		cols = append(cols, col(p+"_id", TypeInt, title(p)+" id", fmt.Sprintf("%s of the %s (%ss.%s_id).", title(p), of, p, p)))
	}
	return cols
}

// nameCols are the name and slug columns of the model and generation
// tables; a slug is unique among the children of the row's parent.
func nameCols(of, parent string) []Column {
	return []Column{
		col("name", TypeText, "Name", "Name of the "+of+"."),
		col("slug", TypeText, "Slug", "URL slug of the "+of+", unique within its "+parent+"."),
	}
}

// title is word with its first letter in upper case.
func title(word string) string { return strings.ToUpper(word[:1]) + word[1:] }

// variantRef is the key column of the tables of a variant's values (the
// modules, images, confidence): the variant's id.
func variantRef() Column {
	return col("variant_id", TypeInt, "Variant id", "Variant (variants.variant_id).")
}

// modelKeys writes the key cells of model m: its id and its brand's.
func (p *Plan) modelKeys(r *Row, m uint32) {
	r.uint(p.c.ModelID[m])
	r.uint(p.c.BrandID[p.c.ModelBrand[m]])
}

// generationKeys writes the key cells of generation g: its id, its
// model's and its brand's.
func (p *Plan) generationKeys(r *Row, g uint32) {
	r.uint(p.c.GenID[g])
	p.modelKeys(r, p.c.GenModel[g])
}

// The Var columns that are authoritative over spec values of the same key:
// a variant with no spec rows still has its fuel, body, drive, transmission
// and list-price snapshot.
var overridden = []string{"fuel_type", "body_type", "drive_wheel", "transmission", "price_new_eur"}

func (p *Plan) override(key string) func(row uint32) (int32, bool) {
	c := p.c
	switch key {
	case "fuel_type":
		return func(row uint32) (int32, bool) { return int32(c.VarFuel[row]), true }
	case "body_type":
		return func(row uint32) (int32, bool) { return int32(c.VarBody[row]), true }
	case "drive_wheel":
		return func(row uint32) (int32, bool) { return int32(c.VarDrive[row]), true }
	case "transmission":
		return func(row uint32) (int32, bool) { return int32(c.VarTransmission[row]), true }
	case "price_new_eur":
		// Null when no snapshot exists and when the source carries 0
		// (unknown, not free), as the API serves it.
		return func(row uint32) (int32, bool) {
			return c.VarPriceEUR[row], c.VarHasPrice[row] && c.VarPriceEUR[row] != 0
		}
	}
	return nil
}

// specColumns returns the spec indexes of a module in dictionary order.
func (p *Plan) specColumns(module string) []int {
	var out []int
	for k, s := range p.c.Specs {
		if s.Module == module {
			out = append(out, k)
		}
	}
	return out
}

func (p *Plan) specColumn(k int) Column {
	c := p.c
	s := &c.Specs[k]
	cl := Column{Name: s.Key, Module: s.Module, Unit: s.Unit}
	en := c.SpecLabels[c.English()].String(uint32(k))
	var sb strings.Builder
	sb.WriteString(en)
	switch s.Kind {
	case engine.KindNumber:
		cl.Type = TypeNumber
		fmt.Fprintf(&sb, ". Decimal number with up to %d decimals", s.Scale)
	case engine.KindInt:
		cl.Type = TypeInt
		sb.WriteString(". Integer")
	case engine.KindBool:
		cl.Type = TypeBool
		sb.WriteString(". true or false")
	case engine.KindEnum:
		cl.Type = TypeEnum
		cl.Enum = c.Enums[s.Enum].Key
		fmt.Fprintf(&sb, ". English slug of the %q enumeration; labels per language in value_labels", cl.Enum)
	case engine.KindText:
		cl.Type = TypeText
		sb.WriteString(". Text as published")
	}
	if s.Unit != "" {
		fmt.Fprintf(&sb, ", in %s", s.Unit)
	}
	sb.WriteString(".")
	cl.Desc = sb.String()
	cl.Labels = make([]string, len(p.langs))
	cl.Units = make([]string, len(p.langs))
	for i, li := range p.langs {
		cl.Labels[i] = c.SpecLabels[li].String(uint32(k))
		cl.Units[i] = c.SpecUnits[li].String(uint32(k))
	}
	return cl
}

// appendSpecValue appends value v of spec k in its export form.
func (p *Plan) appendSpecValue(dst []byte, k int, v int32) []byte {
	c := p.c
	s := &c.Specs[k]
	switch s.Kind {
	case engine.KindNumber:
		return jsonenc.AppendScaled(dst, int64(v), s.Scale)
	case engine.KindBool:
		if v != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case engine.KindEnum:
		return append(dst, c.Enums[s.Enum].Slugs[v]...)
	case engine.KindText:
		return append(dst, c.Texts.Bytes(uint32(v))...)
	}
	return jsonenc.AppendInt(dst, int64(v))
}

// specFiller renders the spec columns of one table for a variant row.
type specFiller struct {
	p         *Plan
	specs     []int
	colOf     [256]int16
	overrides []func(row uint32) (int32, bool)
}

func (p *Plan) newSpecFiller(specs []int) *specFiller {
	f := &specFiller{p: p, specs: specs, overrides: make([]func(uint32) (int32, bool), len(specs))}
	for i := range f.colOf {
		f.colOf[i] = -1
	}
	for i, k := range specs {
		f.colOf[k] = int16(i)
		if slices.Contains(overridden, p.c.Specs[k].Key) {
			f.overrides[i] = p.override(p.c.Specs[k].Key)
		}
	}
	return f
}

// fill appends the spec cells of variant row to r; vals is scratch space of
// len(specs).
func (f *specFiller) fill(row uint32, r *Row, vals []int32) {
	c := f.p.c
	for i := range vals {
		vals[i] = engine.Null
	}
	a, b := c.VariantSpecs(row)
	for j := a; j < b; j++ {
		if ci := f.colOf[c.SpecKey[j]]; ci >= 0 {
			vals[ci] = c.SpecVal[j]
		}
	}
	for i, o := range f.overrides {
		if o != nil {
			if v, ok := o(row); ok {
				vals[i] = v
			} else {
				vals[i] = engine.Null
			}
		}
	}
	for i, v := range vals {
		if v == engine.Null {
			r.null()
			continue
		}
		r.buf = f.p.appendSpecValue(r.buf, f.specs[i], v)
		r.end()
	}
}

func (p *Plan) build() {
	p.Tables = append(p.Tables, p.brandTable(), p.modelTable(), p.generationTable(), p.variantTable())
	for _, m := range p.Options.Modules {
		if m != Catalogue && m != Images {
			p.Tables = append(p.Tables, p.moduleTable(m))
		}
	}
	if p.bought(Images) {
		p.Tables = append(p.Tables, p.imageTable())
	}
	p.Tables = append(p.Tables, p.confidenceTable())
	p.Tables = append(p.Tables, p.dictionaryTable(), p.valueLabelTable())
}

func (p *Plan) brandTable() *Table {
	c := p.c
	cols := []Column{
		col("brand_id", TypeInt, "Brand id", "Public brand id (stable; the API's brand id)."),
		col("slug", TypeText, "Slug", "Stable URL slug of the brand (the API's brand slug)."),
		col("name", TypeText, "Name", "Canonical (Latin) name of the brand."),
		col("country", TypeText, "Country", "ISO 3166-1 alpha-2 code of the brand's home country."),
		col("popularity_rank", TypeInt, "Popularity rank", "Rank of the brand by popularity; 1 is the most popular."),
		col("wikidata_id", TypeText, "Wikidata id", "Wikidata item id (https://www.wikidata.org/wiki/<id>) where verified; empty otherwise."),
	}
	cols = append(cols, p.labelCols("name_", "Name (%s)", "Display name of the brand in language %s: the canonical name where the language writes it so.")...)
	return rowTable("brands", Catalogue, "one row per brand", cols, len(p.brands), func(i int, r *Row) {
		b := p.brands[i]
		r.uint(c.BrandID[b])
		r.bytes(c.BrandSlug.Bytes(b))
		r.bytes(c.BrandName.Bytes(b))
		r.bytes(c.BrandCountry.Bytes(b))
		r.int(int64(c.BrandPopularity[b]))
		r.bytes(c.BrandWikidata.Bytes(b))
		for _, li := range p.langs {
			r.str(c.BrandDisplayName(li, b))
		}
	})
}

func (p *Plan) modelTable() *Table {
	c := p.c
	cols := append(keyCols("model", "Stable id of the model.", "brand"), nameCols("model", "brand")...)
	return rowTable("models", Catalogue, "one row per model", cols, len(p.models), func(i int, r *Row) {
		m := p.models[i]
		p.modelKeys(r, m)
		r.bytes(c.ModelName.Bytes(m))
		r.bytes(c.ModelSlug.Bytes(m))
	})
}

func (p *Plan) generationTable() *Table {
	c := p.c
	cols := slices.Concat(keyCols("generation", "Stable id of the generation.", "model", "brand"), nameCols("generation", "model"), []Column{
		col("year_start", TypeInt, "First year", "First production year."),
		col("year_end", TypeInt, "Last year", "Last production year; empty while the generation is in production."),
	})
	return rowTable("generations", Catalogue, "one row per generation", cols, len(p.gens), func(i int, r *Row) {
		g := p.gens[i]
		p.generationKeys(r, g)
		r.bytes(c.GenName.Bytes(g))
		r.bytes(c.GenSlug.Bytes(g))
		r.int(int64(c.GenYearStart[g]))
		if ye := c.GenYearEnd[g]; ye != 0 {
			r.int(int64(ye))
		} else {
			r.null()
		}
	})
}

func (p *Plan) variantTable() *Table {
	c := p.c
	cols := append(keyCols("variant", "Stable id of the variant: the key of every variant-level table.", "generation", "model", "brand"),
		col("name", TypeText, "Name", "Display name of the variant."))
	specs := p.specColumns(Catalogue)
	for _, k := range specs {
		cols = append(cols, p.specColumn(k))
	}
	cols = append(cols, col("last_synced_at", TypeDateTime, "Last synced", "When the variant's data was last synchronised with its sources (UTC)."))
	f := p.newSpecFiller(specs)
	return rowTableOpen("variants", Catalogue, "one row per variant", cols, len(p.variants), func() func(int, *Row) {
		vals := make([]int32, len(specs)) // per open: writers may run at once
		return func(i int, r *Row) {
			v := p.variants[i]
			r.uint(c.VarID[v])
			p.generationKeys(r, c.VarGen[v])
			r.bytes(c.VarName.Bytes(v))
			f.fill(v, r, vals)
			r.buf = time.Unix(c.VarSyncedAt[v], 0).UTC().AppendFormat(r.buf, time.RFC3339)
			r.end()
		}
	})
}

func (p *Plan) moduleTable(module string) *Table {
	c := p.c
	mod, _ := ModuleByName(module)
	cols := []Column{variantRef()}
	specs := p.specColumns(module)
	for _, k := range specs {
		cols = append(cols, p.specColumn(k))
	}
	prices := module == ListPrices
	if prices {
		cols = append(cols, col("price_as_of", TypeDate, "Price date",
			"Date of the Dutch list-price snapshot; empty when none is recorded. A date with an empty price_new_eur means the source carried no price (unknown, not free)."))
	}
	f := p.newSpecFiller(specs)
	return rowTableOpen(module, module, "one row per variant: "+mod.Title, cols, len(p.variants), func() func(int, *Row) {
		vals := make([]int32, len(specs)) // per open: writers may run at once
		return func(i int, r *Row) {
			v := p.variants[i]
			r.uint(c.VarID[v])
			f.fill(v, r, vals)
			if prices {
				if c.VarHasPrice[v] {
					r.buf = time.Unix(int64(c.VarPriceAsOf[v])*86400, 0).UTC().AppendFormat(r.buf, time.DateOnly)
					r.end()
				} else {
					r.null()
				}
			}
		}
	})
}

func (p *Plan) imageTable() *Table {
	c := p.c
	cols := []Column{
		variantRef(),
		col("position", TypeInt, "Position", "Position of the image among the variant's images, from 1."),
		col("role", TypeText, "Role", "card (a thumbnail for lists) or hero (a large picture for a detail page)."),
		col("url", TypeURL, "URL", "Absolute URL of the image (WebP) on the CDN."),
	}
	for i := range cols {
		cols[i].Module = Images
	}
	n := 0
	for _, v := range p.variants {
		a, b := c.VariantImages(v)
		n += int(b - a)
	}
	return &Table{
		Schema: Schema{Name: "images", Role: RoleData, Module: Images, Title: "one row per image of a variant", Keys: 2, Cols: cols},
		Size:   n,
		Open: func() (rowIter, error) {
			return &imageIter{p: p}, nil
		},
	}
}

type imageIter struct {
	p    *Plan
	vi   int    // index into p.variants
	j, b uint32 // current image and end of the variant's span
	pos  int
}

func (it *imageIter) next(r *Row) (bool, error) {
	c := it.p.c
	for it.j >= it.b {
		if it.vi >= len(it.p.variants) {
			return false, nil
		}
		it.j, it.b = c.VariantImages(it.p.variants[it.vi])
		it.vi++
		it.pos = 0
	}
	v := it.p.variants[it.vi-1]
	it.pos++
	r.reset()
	r.uint(c.VarID[v])
	r.int(int64(it.pos))
	if c.ImageRole[it.j] == engine.RoleHero {
		r.str("hero")
	} else {
		r.str("card")
	}
	r.buf = c.AppendImageURL(r.buf, c.Meta.CDNBase, it.j)
	r.end()
	it.j++
	return true, nil
}

// confidenceTable lists, for the exported fields, every value whose
// confidence is below 1, keyed on (variant_id, field) with fields in
// bytewise order.
func (p *Plan) confidenceTable() *Table {
	c := p.c
	var exported [256]bool
	for k, s := range c.Specs {
		exported[k] = p.bought(s.Module)
	}
	rank := make([]int, len(c.Specs))
	byName := make([]int, len(c.Specs))
	for k := range byName {
		byName[k] = k
	}
	sort.Slice(byName, func(i, j int) bool { return c.Specs[byName[i]].Key < c.Specs[byName[j]].Key })
	for r, k := range byName {
		rank[k] = r
	}
	n := 0
	for _, v := range p.variants {
		a, b := c.VariantSpecs(v)
		for j := a; j < b; j++ {
			if c.SpecConf[j] != 0 && exported[c.SpecKey[j]] {
				n++
			}
		}
	}
	cols := []Column{
		variantRef(),
		col("field", TypeText, "Field", "Name of the field (a column of one of the module tables; see dictionary)."),
		col("confidence", TypeNumber, "Confidence", "Confidence of the value, from 0.5 to 0.95; a value absent from this table is certain (1)."),
	}
	return &Table{
		Schema: Schema{Name: "confidence", Role: RoleConfidence, Title: "one row per value whose confidence is below 1", Keys: 2, Cols: cols},
		Size:   n,
		Open: func() (rowIter, error) {
			return &confIter{p: p, exported: &exported, rank: rank}, nil
		},
	}
}

type confIter struct {
	p        *Plan
	exported *[256]bool
	rank     []int
	vi       int
	pending  []uint32 // value indexes of the current variant, in field order
	pos      int      // next of pending
}

func (it *confIter) next(r *Row) (bool, error) {
	c := it.p.c
	for it.pos == len(it.pending) {
		if it.vi >= len(it.p.variants) {
			return false, nil
		}
		a, b := c.VariantSpecs(it.p.variants[it.vi])
		it.vi++
		it.pending, it.pos = it.pending[:0], 0
		for j := a; j < b; j++ {
			if c.SpecConf[j] != 0 && it.exported[c.SpecKey[j]] {
				it.pending = append(it.pending, j)
			}
		}
		slices.SortFunc(it.pending, func(x, y uint32) int {
			return it.rank[c.SpecKey[x]] - it.rank[c.SpecKey[y]]
		})
	}
	j := it.pending[it.pos]
	it.pos++
	r.reset()
	r.uint(c.VarID[it.p.variants[it.vi-1]])
	r.str(c.Specs[c.SpecKey[j]].Key)
	r.buf = jsonenc.AppendScaled(r.buf, int64(c.SpecConf[j]), 2)
	r.end()
	return true, nil
}

// dictionaryTable describes every column of the data and confidence tables.
func (p *Plan) dictionaryTable() *Table {
	cols := []Column{
		{Name: "table", Type: TypeText},
		{Name: "field", Type: TypeText},
		{Name: "module", Type: TypeText},
		{Name: "type", Type: TypeText},
		{Name: "unit", Type: TypeText},
		{Name: "enum", Type: TypeText},
		{Name: "description", Type: TypeText},
	}
	cols = append(cols, p.labelCols("label_", "Label (%s)", "Display name of the field in language %s; empty where none is published.")...)
	cols = append(cols, p.labelCols("unit_", "Unit (%s)", "The unit as language %s writes it (PS for hp in de, cm³ for cc); empty without a unit.")...)
	var rows []Row
	for _, t := range p.Tables {
		if t.Role != RoleData && t.Role != RoleConfidence {
			continue
		}
		for _, cl := range t.Cols {
			var r Row
			r.str(t.Name)
			r.str(cl.Name)
			r.str(cl.Module)
			r.str(cl.Type.String())
			r.str(cl.Unit)
			r.str(cl.Enum)
			r.str(cl.Desc)
			for _, texts := range [][]string{cl.Labels, cl.Units} {
				for i := range p.langs {
					if i < len(texts) {
						r.str(texts[i])
					} else {
						r.null()
					}
				}
			}
			rows = append(rows, r)
		}
	}
	return p.memTable(Schema{Name: "dictionary", Role: RoleReference, Title: "one row per field of every table: module, type, unit, description and labels", Keys: 2, Cols: cols}, rows)
}

// valueLabelTable gives the label of every value of every exported enum
// field in the exported languages.
func (p *Plan) valueLabelTable() *Table {
	c := p.c
	cols := []Column{{Name: "field", Type: TypeText}, {Name: "value", Type: TypeText}}
	cols = append(cols, p.labelCols("label_", "Label (%s)", "Label of the value in language %s.")...)
	var rows []Row
	seen := map[string]bool{}
	for _, t := range p.Tables {
		if t.Role != RoleData {
			continue
		}
		for _, cl := range t.Cols {
			if cl.Type != TypeEnum || seen[cl.Name] {
				continue
			}
			seen[cl.Name] = true
			k, _ := c.SpecIndex(cl.Name)
			g := int(c.Specs[k].Enum)
			for v, slug := range c.Enums[g].Slugs {
				var r Row
				r.str(cl.Name)
				r.str(slug)
				for _, li := range p.langs {
					r.str(c.EnumLabel(li, g, uint8(v)))
				}
				rows = append(rows, r)
			}
		}
	}
	return p.memTable(Schema{Name: "value_labels", Role: RoleReference, Title: "one row per value of an enum field: its label in each exported language", Keys: 2, Cols: cols}, rows)
}

// memTable sorts rows by key and serves them from memory.
// rowTable is a data table of a module with n rows, each written by fill:
// one row per brand, model or generation of the export.
func rowTable(name, module, title string, cols []Column, n int, fill func(i int, r *Row)) *Table {
	return rowTableOpen(name, module, title, cols, n, func() func(int, *Row) { return fill })
}

// rowTableOpen is rowTable whose writer is made anew for each pass over
// the rows (open), for writers with scratch of their own.
func rowTableOpen(name, module, title string, cols []Column, n int, open func() func(i int, r *Row)) *Table {
	for i := range cols {
		cols[i].Module = module
	}
	return &Table{
		Schema: Schema{Name: name, Role: RoleData, Module: module, Title: title, Keys: 1, Cols: cols},
		Size:   n,
		Open:   func() (rowIter, error) { return &funcIter{n: n, fill: open()}, nil },
	}
}

func (p *Plan) memTable(s Schema, rows []Row) *Table {
	t := &Table{Schema: s, Size: len(rows)}
	sort.SliceStable(rows, func(i, j int) bool { return compareKeys(&t.Schema, &rows[i], &rows[j]) < 0 })
	t.Open = func() (rowIter, error) { return &sliceIter{rows: rows}, nil }
	return t
}
