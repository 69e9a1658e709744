package httpd

import (
	"encoding/binary"
	"sort"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/jsonenc"
	"github.com/vspec/catalogue/httpd/publicid"
)

// The demo tier answers demo keys (and keyless MCP callers) from the
// frozen 40-car set only: the browse chain restricted to the set, variant
// detail without specs, specs, images, compare and search inside the set,
// and GET /v1/demo. Every other route, every car outside the set and every
// token that does not decode is a 403 (never a 404) whose detail gives the
// upgrade path.
//
// Its operations (demo_ops.go) answer from a demoView alone: everything
// they send is rendered when a catalogue is installed, by the catalogue's
// own serializers (so the shapes cannot drift apart), and the view holds
// no reference to the catalogue, so no code path of the demo tier can
// reach a car outside the set.

// demoView is the demo set of one installed catalogue, pre-rendered.
type demoView struct {
	codec      *publicid.Codec
	upgradeURL string
	set        string // the set in words
	langs      [][]byte
	locales    map[string]int // locale code -> index into langs
	english    int
	synced     []byte // the catalogue's meta.last_synced_at

	cars       map[uint32]int       // variant stable id -> index of the car, in demo order
	brandList  demoList             // the brands of the set
	brandItem  map[string][][]byte  // brand slug -> [locale] Brand object
	modelLists map[string]*demoList // brand slug -> its models in the set
	genLists   map[uint32]*demoList // model stable id -> its generations in the set
	varLists   map[uint32]*demoList // generation stable id -> its variants in the set

	carSynced   []int64         // [car] the car's meta.last_synced_at, Unix s
	setBody     []rendered      // [locale] GET /v1/demo
	detailBody  [][]rendered    // [locale][car] GET /v1/variants/{id}
	specsBody   [2][][]rendered // [imperial][locale][car] GET /v1/variants/{id}/specs
	specsObject [2][][][]byte   // [imperial][locale][car] the VariantSpecs object alone, for compare
	imagesBody  [][]rendered    // [locale][car] GET /v1/variants/{id}/images
	searchText  [][]string      // [locale][car] folded "brand (as displayed, its local spelling, Latin) model generation display-name"
	searchItem  [][][]byte      // [locale][car] its SearchResult, score null

	// listNote and searchNote are the meta.note of the demo tier's lists
	// and searches (JSON strings): an empty search or a short list must
	// not read as the catalogue's answer.
	listNote, searchNote []byte
}

// demoList is one list of the demo set: its cursor binding's route and
// parameter, and its items rendered in each locale, in the catalogue's
// list order.
type demoList struct {
	route string
	param []byte
	items [][][]byte // [locale][i]
}

// demoSize is the size of a complete demo set.
const demoSize = 40

// buildDemo derives and pre-renders the demo set of v, or returns nil when
// the catalogue carries no complete one.
func buildDemo(v *view, codec *publicid.Codec, upgradeURL string) *demoView {
	c := v.cat
	if len(c.Demo) != demoSize {
		return nil
	}
	L := len(c.Locales)
	d := &demoView{codec: codec, upgradeURL: upgradeURL, langs: v.localeBytes, locales: map[string]int{}, english: c.English(), synced: v.synced,
		cars: map[uint32]int{}, brandItem: map[string][][]byte{}, modelLists: map[string]*demoList{}, genLists: map[uint32]*demoList{}, varLists: map[uint32]*demoList{}}
	for i, l := range c.Locales {
		d.locales[l] = i
	}
	inSet := map[uint32]bool{} // variant, generation, model and brand rows, by kind below
	genIn, modelIn, brandIn := map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{}
	for i, r := range c.Demo {
		g := c.VarGen[r]
		m := c.GenModel[g]
		inSet[r], genIn[g], modelIn[m], brandIn[c.ModelBrand[m]] = true, true, true, true
		d.cars[c.VarID[r]] = i
		d.carSynced = append(d.carSynced, c.VarSyncedAt[r])
	}
	d.set = demoSetWords(c)
	full := "The full catalogue has " + thousands(len(c.VarID)) + " variants: see " + upgradeURL + "."
	d.listNote = jsonenc.AppendString(nil, "A demo key lists only the 40 cars of the demo set (GET /v1/demo names them). "+full)
	d.searchNote = jsonenc.AppendString(nil, "A demo key searches only the 40 cars of the demo set (GET /v1/demo names them), by substring. "+full)

	rq := &request{v: v}
	perLocale := func(render func(li int) []byte) [][]byte {
		out := make([][]byte, L)
		for li := range out {
			rq.locale, rq.lang, rq.imperial, rq.synced, rq.syncedText = li, v.localeBytes[li], false, 0, v.synced
			out[li] = render(li)
		}
		return out
	}
	list := func(route string, param []byte, rows []uint32, keep map[uint32]bool, item func([]byte, uint32) []byte) *demoList {
		l := &demoList{route: route, param: param, items: make([][][]byte, L)}
		for _, r := range rows {
			if keep[r] {
				for li, b := range perLocale(func(int) []byte { return item(nil, r) }) {
					l.items[li] = append(l.items[li], b)
				}
			}
		}
		return l
	}
	d.brandList = *list(routeBrands, nil, c.BrandsAfter(nil), brandIn, rq.appendBrand)
	for b := range brandIn {
		slug := c.BrandSlug.String(b)
		d.brandItem[slug] = perLocale(func(int) []byte { return rq.appendBrand(nil, b) })
		d.modelLists[slug] = list(routeModels, []byte(slug), c.ModelsAfter(b, nil), modelIn, rq.appendModel)
	}
	for m := range modelIn {
		d.genLists[c.ModelID[m]] = list(routeGenerations, binary.LittleEndian.AppendUint32(nil, c.ModelID[m]), c.GenerationsAfter(m, nil), genIn, rq.appendGeneration)
	}
	for g := range genIn {
		first, end := c.VariantsAfter(g, 0)
		rows := make([]uint32, 0, end-first)
		for r := first; r < end; r++ {
			rows = append(rows, r)
		}
		d.varLists[c.GenID[g]] = list(routeVariants, binary.LittleEndian.AppendUint32(nil, c.GenID[g]), rows, inSet, rq.appendVariant)
	}

	fixed := func(b []byte) rendered { return rendered{body: b, sum: xxhash.Sum64(b)} }
	d.setBody = make([]rendered, L)
	for li, b := range perLocale(func(int) []byte { return renderDemoSet(rq, d, upgradeURL) }) {
		d.setBody[li] = fixed(b)
	}
	d.detailBody = make([][]rendered, L)
	d.imagesBody = make([][]rendered, L)
	d.searchText = make([][]string, L)
	d.searchItem = make([][][]byte, L)
	for k := range d.specsBody {
		d.specsBody[k] = make([][]rendered, L)
		d.specsObject[k] = make([][][]byte, L)
	}
	for li := 0; li < L; li++ {
		for _, r := range c.Demo {
			rq.locale, rq.lang, rq.syncedText = li, v.localeBytes[li], v.synced
			rq.imperial, rq.synced = false, c.VarSyncedAt[r]
			b := rq.appendVariantFields(append([]byte(nil), `{"data":{`...), r)
			b = rq.appendMeta(append(b, "},"...))
			d.detailBody[li] = append(d.detailBody[li], fixed(append(b, '}')))
			images, _ := rq.appendDataBody(nil, r, rq.appendImages)
			d.imagesBody[li] = append(d.imagesBody[li], fixed(images))
			for k := range d.specsBody {
				rq.imperial = k == 1
				obj := rq.appendVariantSpecs(nil, r)
				d.specsObject[k][li] = append(d.specsObject[k][li], obj)
				b := append(append([]byte(`{"data":`), obj...), ',')
				d.specsBody[k][li] = append(d.specsBody[k][li], fixed(append(rq.appendMeta(b), '}')))
			}
			g := c.VarGen[r]
			m := c.GenModel[g]
			brand := c.ModelBrand[m]
			d.searchText[li] = append(d.searchText[li], engine.Fold(c.BrandDisplayName(li, brand)+" "+c.BrandAliases[li].String(brand)+" "+c.BrandName.String(brand)+" "+
				c.ModelName.String(m)+" "+c.GenName.String(g)+" "+c.VarName.String(r)))
			d.searchItem[li] = append(d.searchItem[li], append(rq.appendSearchResult(nil, r), `,"score":null}`...))
		}
	}
	return d
}

// demoSetWords says what the demo set holds, for GET /v1/demo and the
// activation answer.
func demoSetWords(c *engine.Catalogue) string {
	fuels := map[string]bool{}
	var brandOrder []uint32
	modelsOf := map[uint32][]string{}
	seenModel := map[uint32]bool{}
	for _, r := range c.Demo {
		m := c.GenModel[c.VarGen[r]]
		b := c.ModelBrand[m]
		if len(modelsOf[b]) == 0 {
			brandOrder = append(brandOrder, b)
		}
		if !seenModel[m] {
			seenModel[m] = true
			modelsOf[b] = append(modelsOf[b], c.ModelName.String(m))
		}
		fuels[c.FuelSlug(c.VarFuel[r])] = true
	}
	var parts []string
	for _, b := range brandOrder {
		parts = append(parts, c.BrandName.String(b)+" "+strings.Join(modelsOf[b], " and "))
	}
	return strconv.Itoa(demoSize) + " cars: " + strings.Join(parts, ", ") + "; two generations of each model and two variants of each generation, covering " +
		strconv.Itoa(len(fuels)) + " fuel types."
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// demoFuels are the fuel slugs the demo set represents, sorted.
func demoFuels(c *engine.Catalogue) []string {
	seen := map[string]bool{}
	var fuels []string
	for _, r := range c.Demo {
		if f := c.FuelSlug(c.VarFuel[r]); !seen[f] {
			seen[f] = true
			fuels = append(fuels, f)
		}
	}
	sort.Strings(fuels)
	return fuels
}

// renderDemoSet renders GET /v1/demo in rq's locale.
func renderDemoSet(rq *request, d *demoView, upgradeURL string) []byte {
	c := rq.v.cat
	b := append([]byte(nil), `{"data":{"variant_count":`...)
	b = strconv.AppendInt(b, demoSize, 10)
	b = append(b, `,"set":`...)
	b = jsonenc.AppendString(b, d.set)
	b = append(b, `,"fuels":[`...)
	for i, f := range demoFuels(c) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, f)
	}
	b = append(b, `],"upgrade":`...)
	b = jsonenc.AppendString(b, "The demo covers these 40 cars only. For the full catalogue of "+strconv.Itoa(len(c.VarID))+" variants, see "+upgradeURL+".")
	b = append(b, `,"variants":[`...)
	for i, r := range c.Demo {
		if i > 0 {
			b = append(b, ',')
		}
		g := c.VarGen[r]
		m := c.GenModel[g]
		b = append(b, `{"variant_id":`...)
		b = rq.appendVariantID(b, r)
		b = append(b, `,"generation_id":`...)
		b = rq.appendGenerationID(b, g)
		b = append(b, `,"model_id":`...)
		b = rq.appendModelID(b, m)
		b = append(b, `,"brand":`...)
		b = c.AppendBrandNameJSON(b, rq.locale, c.ModelBrand[m])
		b = append(b, `,"model":`...)
		b = jsonenc.AppendString(b, c.ModelName.String(m))
		b = append(b, `,"generation":`...)
		b = jsonenc.AppendString(b, c.GenName.String(g))
		b = append(b, `,"display_name":`...)
		b = c.AppendVariantNameJSON(b, r)
		b = append(b, `,"fuel":"`...)
		b = append(b, c.FuelSlug(c.VarFuel[r])...)
		b = append(b, `","body_type":`...)
		b = jsonenc.AppendString(b, c.BodyLabel(c.English(), c.VarBody[r]))
		b = append(b, `,"years":"`...)
		b = strconv.AppendUint(b, uint64(c.GenYearStart[g]), 10)
		b = append(b, "–"...)
		if y := c.GenYearEnd[g]; y != 0 {
			b = strconv.AppendUint(b, uint64(y), 10)
		}
		b = append(b, `","power_hp":`...)
		b = appendNullableInt(b, c.VarPowerHP[r])
		b = append(b, `,"price_new_eur":`...)
		b = appendPriceNew(b, c, r)
		b = append(b, `,"battery_kwh":`...)
		b = appendNullableTenths(b, c.VarBatteryKWh[r])
		b = append(b, '}')
	}
	b = append(b, "]},"...)
	b = rq.appendMeta(b)
	return append(b, '}')
}
