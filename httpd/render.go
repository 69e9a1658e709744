package httpd

import (
	"strconv"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/jsonenc"
	"github.com/vspec/catalogue/httpd/publicid"
)

// Pre-rendered fragments of the spec dictionary, per installed catalogue,
// so that rendering a value is a handful of appends.
type specFragments struct {
	head      [][][]byte // [locale][spec] `"length_mm":{"label":"Länge","v":`
	rawHead   [][]byte   // [spec] `"length_mm":{"v":`
	rawTail   [][]byte   // [spec] `,"u":"cc","confidence":`, the dictionary's unit
	tail      [][][]byte // [locale][spec] `,"u":"cm³","confidence":`, the unit as the locale writes it
	impTail   [][]byte   // [spec] `,"u":"in","confidence":` when converted
	imperial  []conversion
	unit      [][][]byte // [locale][spec] `"cm³"` or `null`
	keyString [][]byte   // `"length_mm"`
}

func newSpecFragments(c *engine.Catalogue) specFragments {
	n := len(c.Specs)
	L := len(c.Locales)
	f := specFragments{head: make([][][]byte, L), rawHead: make([][]byte, n), rawTail: make([][]byte, n), tail: make([][][]byte, L),
		impTail: make([][]byte, n), imperial: make([]conversion, n), unit: make([][][]byte, L), keyString: make([][]byte, n)}
	tail := func(unit string) []byte {
		b := []byte(`,"u":null,"confidence":`)
		if unit != "" {
			b = append(jsonenc.AppendString([]byte(`,"u":`), unit), `,"confidence":`...)
		}
		return b
	}
	for li := range c.Locales {
		f.tail[li], f.unit[li] = make([][]byte, n), make([][]byte, n)
		for i := range c.Specs {
			u := c.SpecUnits[li].String(uint32(i))
			f.tail[li][i] = tail(u)
			f.unit[li][i] = []byte("null")
			if u != "" {
				f.unit[li][i] = jsonenc.AppendString(nil, u)
			}
		}
	}
	for i := range c.Specs {
		st := &c.Specs[i]
		f.keyString[i] = jsonenc.AppendString(nil, st.Key)
		f.rawHead[i] = append(append([]byte(nil), f.keyString[i]...), `:{"v":`...)
		f.rawTail[i] = tail(st.Unit)
		f.imperial[i] = conversionFor(st)
		if f.imperial[i].unit != "" {
			f.impTail[i] = append(jsonenc.AppendString([]byte(`,"u":`), f.imperial[i].unit), `,"confidence":`...)
		}
	}
	for li := range c.Locales {
		f.head[li] = make([][]byte, n)
		for i := range c.Specs {
			h := append(append([]byte(nil), f.keyString[i]...), `:{"label":`...)
			h = c.AppendSpecLabelJSON(h, li, uint8(i))
			f.head[li][i] = append(h, `,"v":`...)
		}
	}
	return f
}

// Ids.

func (rq *request) appendVariantID(dst []byte, row uint32) []byte {
	return rq.appendID(dst, publicid.Variant, rq.v.cat.VarID[row], rq.v.varTok[row])
}

func (rq *request) appendGenerationID(dst []byte, row uint32) []byte {
	return rq.appendID(dst, publicid.Generation, rq.v.cat.GenID[row], rq.v.genTok[row])
}

func (rq *request) appendModelID(dst []byte, row uint32) []byte {
	return rq.appendID(dst, publicid.Model, rq.v.cat.ModelID[row], rq.v.modelTok[row])
}

// appendID appends an id as the request's id view shows it: the stable
// number when raw ids were asked for, else the quoted opaque token.
func (rq *request) appendID(dst []byte, kind publicid.Kind, stable, token uint32) []byte {
	if rq.raw {
		return strconv.AppendUint(dst, uint64(stable), 10)
	}
	dst = append(dst, '"')
	dst = publicid.AppendTokenValue(dst, kind, token)
	return append(dst, '"')
}

// Values.

func appendNullableInt(dst []byte, v int32) []byte {
	if v == engine.Null {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, int64(v), 10)
}

func appendNullableTenths(dst []byte, v int32) []byte {
	if v == engine.Null {
		return append(dst, "null"...)
	}
	return jsonenc.AppendScaled(dst, int64(v), 1)
}

func appendYear(dst []byte, y uint16) []byte {
	if y == 0 {
		return append(dst, "null"...)
	}
	return strconv.AppendUint(dst, uint64(y), 10)
}

// appendPriceNew appends price_new_eur: null without a snapshot and when the
// source carries 0 (unknown, not free).
func appendPriceNew(dst []byte, c *engine.Catalogue, row uint32) []byte {
	if !c.VarHasPrice[row] || c.VarPriceEUR[row] == 0 {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, int64(c.VarPriceEUR[row]), 10)
}

// appendYearRange appends the year_from and year_to members of a variant
// of generation gen, each preceded by a comma.
func appendYearRange(dst []byte, c *engine.Catalogue, gen uint32) []byte {
	dst = append(dst, `,"year_from":`...)
	dst = appendYear(dst, c.GenYearStart[gen])
	dst = append(dst, `,"year_to":`...)
	return appendYear(dst, c.GenYearEnd[gen])
}

// Resources.

// appendBrand appends a Brand object.
func (rq *request) appendBrand(dst []byte, row uint32) []byte {
	c := rq.v.cat
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendUint(dst, uint64(c.BrandID[row]), 10)
	dst = append(dst, `,"name":`...)
	dst = c.AppendBrandNameJSON(dst, rq.locale, row)
	dst = append(dst, `,"slug":`...)
	dst = jsonenc.AppendString(dst, c.BrandSlug.String(row))
	dst = append(dst, `,"sameAs":[`...)
	if q := c.BrandWikidata.String(row); q != "" {
		dst = append(dst, `"https://www.wikidata.org/wiki/`...)
		dst = append(dst, q...)
		dst = append(dst, '"')
	}
	return append(dst, "]}"...)
}

// appendModel appends a Model object.
func (rq *request) appendModel(dst []byte, row uint32) []byte {
	c := rq.v.cat
	dst = append(dst, `{"model_id":`...)
	dst = rq.appendModelID(dst, row)
	dst = append(dst, `,"brand_id":`...)
	dst = strconv.AppendUint(dst, uint64(c.BrandID[c.ModelBrand[row]]), 10)
	dst = append(dst, `,"name":`...)
	dst = jsonenc.AppendString(dst, c.ModelName.String(row))
	dst = append(dst, `,"slug":`...)
	dst = jsonenc.AppendString(dst, c.ModelSlug.String(row))
	return append(dst, '}')
}

// appendGeneration appends a Generation object.
func (rq *request) appendGeneration(dst []byte, row uint32) []byte {
	c := rq.v.cat
	dst = append(dst, `{"generation_id":`...)
	dst = rq.appendGenerationID(dst, row)
	dst = append(dst, `,"model_id":`...)
	dst = rq.appendModelID(dst, c.GenModel[row])
	dst = append(dst, `,"name":`...)
	dst = jsonenc.AppendString(dst, c.GenName.String(row))
	dst = append(dst, `,"slug":`...)
	dst = jsonenc.AppendString(dst, c.GenSlug.String(row))
	dst = append(dst, `,"year_start":`...)
	dst = appendYear(dst, c.GenYearStart[row])
	dst = append(dst, `,"year_end":`...)
	dst = appendYear(dst, c.GenYearEnd[row])
	return append(dst, '}')
}

// appendVariant appends a Variant object: the summary of every list,
// pre-rendered for token ids (view.summaries).
func (rq *request) appendVariant(dst []byte, row uint32) []byte {
	if rq.raw {
		return rq.renderVariant(dst, row)
	}
	return append(dst, rq.v.summaries.row(row)...)
}

// renderVariant renders a Variant object.
func (rq *request) renderVariant(dst []byte, row uint32) []byte {
	return append(rq.appendVariantFields(append(dst, '{'), row), '}')
}

// appendVariantFields appends the summary fields of a variant, without
// braces: the Variant projection of every list.
func (rq *request) appendVariantFields(dst []byte, row uint32) []byte {
	c := rq.v.cat
	dst = append(dst, `"variant_id":`...)
	dst = rq.appendVariantID(dst, row)
	dst = append(dst, `,"generation_id":`...)
	dst = rq.appendGenerationID(dst, c.VarGen[row])
	dst = append(dst, `,"display_name":`...)
	dst = c.AppendVariantNameJSON(dst, row)
	dst = append(dst, `,"fuel_slug":"`...)
	dst = append(dst, c.FuelSlug(c.VarFuel[row])...)
	dst = append(dst, `","body_type_en":`...)
	dst = jsonenc.AppendString(dst, c.BodyLabel(c.English(), c.VarBody[row]))
	dst = rq.appendFigures(dst, row)
	return dst
}

// appendFigures appends the headline figures shared by Variant and
// VariantSpecs, each preceded by a comma.
func (rq *request) appendFigures(dst []byte, row uint32) []byte {
	c := rq.v.cat
	dst = append(dst, `,"power_hp":`...)
	dst = appendNullableInt(dst, c.VarPowerHP[row])
	dst = append(dst, `,"torque_nm":`...)
	dst = appendNullableInt(dst, c.VarTorqueNM[row])
	dst = append(dst, `,"top_speed_kmh":`...)
	dst = appendNullableInt(dst, c.VarTopSpeedKMH[row])
	dst = append(dst, `,"accel_0_100_s":`...)
	dst = appendNullableTenths(dst, c.VarAccel100[row])
	dst = append(dst, `,"battery_kwh":`...)
	dst = appendNullableTenths(dst, c.VarBatteryKWh[row])
	dst = append(dst, `,"price_new_eur":`...)
	return appendPriceNew(dst, c, row)
}

// appendSpecValue appends one value in its JSON form: number, boolean,
// enum label (localized, or the English slug when raw) or text.
func (rq *request) appendSpecValue(dst []byte, st *engine.SpecType, v int32, localized bool) []byte {
	c := rq.v.cat
	switch st.Kind {
	case engine.KindBool:
		if v != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case engine.KindEnum:
		if localized {
			return c.AppendEnumLabelJSON(dst, rq.locale, st.Enum, v)
		}
		return jsonenc.AppendString(dst, c.Enums[st.Enum].Slugs[v])
	case engine.KindText:
		return c.AppendTextJSON(dst, v)
	case engine.KindNumber:
		return jsonenc.AppendScaled(dst, int64(v), st.Scale)
	}
	return strconv.AppendInt(dst, int64(v), 10)
}

func appendConfidence(dst []byte, conf uint8) []byte {
	if conf == 0 {
		return append(dst, "null"...)
	}
	return jsonenc.AppendScaled(dst, int64(conf), 2)
}

// appendSpecsLocalized appends the specs object of VariantSpecs: spec_key ->
// {label, v, u, confidence}, labels and enum values in the request's locale,
// values and units converted when units=imperial.
func (rq *request) appendSpecsLocalized(dst []byte, row uint32) []byte {
	return rq.appendSpecs(dst, row, rq.v.specs.head[rq.locale], rq.v.specs.tail[rq.locale], rq.imperial)
}

// appendSpecsRaw appends the language-neutral spec document of
// VariantDetail: spec_key -> {v, u, confidence}, enum values as English
// slugs, metric units.
func (rq *request) appendSpecsRaw(dst []byte, row uint32) []byte {
	return rq.appendSpecs(dst, row, nil, rq.v.specs.rawTail, false)
}

// appendSpecs appends a spec object: each spec's head from heads
// (localized, with its label), or the raw head without a label when heads
// is nil, and its unit from tails.
func (rq *request) appendSpecs(dst []byte, row uint32, heads, tails [][]byte, imperial bool) []byte {
	c := rq.v.cat
	f := &rq.v.specs
	localized := heads != nil
	first, end := c.VariantSpecs(row)
	dst = append(dst, '{')
	for j := first; j < end; j++ {
		k := c.SpecKey[j]
		if j > first {
			dst = append(dst, ',')
		}
		if localized {
			dst = append(dst, heads[k]...)
		} else {
			dst = append(dst, f.rawHead[k]...)
		}
		if imperial && f.impTail[k] != nil {
			dst = appendImperial(dst, f.imperial[k], c.SpecVal[j], c.Specs[k].Scale)
			dst = append(dst, f.impTail[k]...)
		} else {
			dst = rq.appendSpecValue(dst, &c.Specs[k], c.SpecVal[j], localized)
			dst = append(dst, tails[k]...)
		}
		dst = appendConfidence(dst, c.SpecConf[j])
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendVariantSpecs appends a VariantSpecs object.
func (rq *request) appendVariantSpecs(dst []byte, row uint32) []byte {
	c := rq.v.cat
	gen := c.VarGen[row]
	dst = append(dst, `{"variant_id":`...)
	dst = rq.appendVariantID(dst, row)
	dst = rq.appendSlugsAndName(dst, row, c.GenModel[gen])
	dst = append(dst, `,"locale":`...)
	dst = jsonenc.AppendString(dst, c.Locales[rq.locale])
	dst = appendYearRange(dst, c, gen)
	dst = rq.appendFigures(dst, row)
	dst = append(dst, `,"specs":`...)
	dst = rq.appendSpecsLocalized(dst, row)
	return append(dst, '}')
}

// appendSlugsAndName appends the brand_slug, model_slug and display_name
// members of a variant of model, each preceded by a comma: shared by
// SearchResult and VariantSpecs.
func (rq *request) appendSlugsAndName(dst []byte, row, model uint32) []byte {
	c := rq.v.cat
	dst = append(dst, `,"brand_slug":`...)
	dst = jsonenc.AppendString(dst, c.BrandSlug.String(c.ModelBrand[model]))
	dst = append(dst, `,"model_slug":`...)
	dst = jsonenc.AppendString(dst, c.ModelSlug.String(model))
	dst = append(dst, `,"display_name":`...)
	return c.AppendVariantNameJSON(dst, row)
}
