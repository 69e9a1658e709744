package httpd

import (
	"bytes"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/query"
	"github.com/vspec/catalogue/httpd/publicid"
)

const routeFilter = "variants-filter"

// Filter parameters of GET /v1/variants, besides locale, limit and cursor.
var filterParams = []string{"fuel", "body", "drive", "power_min", "power_max", "price_max", "year", "ev"}

// variantsFilter answers GET /v1/variants: the variants meeting every
// filter given, in stable-id order, paged by a keyset cursor.
//
// Values that cannot be parsed (power_min=abc) are a 400 naming the
// parameter; an empty value is the same as no value; an unknown fuel, body
// or drive matches nothing; ev=true keeps battery-electric variants only
// and any other ev value is ignored, as the contract says.
func (s *Service) variantsFilter(ctx *fasthttp.RequestCtx, rq *request) {
	args := ctx.QueryArgs()
	conds := make([]query.Q, 0, 8)
	for k, v := range args.All() {
		name := string(k)
		switch name {
		case "locale", "limit", "cursor":
			continue
		}
		known := false
		for _, p := range filterParams {
			if p == name {
				known = true
			}
		}
		if !known {
			badParam(ctx, rq, k, "is not a parameter of this endpoint; it accepts locale, limit, cursor, fuel, body, drive, power_min, power_max, price_max, year, ev")
			return
		}
		if timesGiven(args, k) > 1 {
			badParam(ctx, rq, k, "is given more than once")
			return
		}
		if len(v) == 0 {
			continue
		}
		switch name {
		case "fuel":
			conds = append(conds, query.Term{Field: query.Fuel, Value: string(v)})
		case "body":
			conds = append(conds, query.Term{Field: query.Body, Value: string(v)})
		case "drive":
			conds = append(conds, query.Term{Field: query.Drive, Value: string(v)})
		case "ev":
			if string(v) == "true" {
				conds = append(conds, query.Term{Field: query.Fuel, Value: "electric"})
			}
		default:
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				badParam(ctx, rq, k, "must be an integer")
				return
			}
			switch name {
			case "power_min":
				conds = append(conds, query.AtLeast(query.Power, n))
			case "power_max":
				conds = append(conds, query.AtMost(query.Power, n))
			case "price_max":
				conds = append(conds, query.AtMost(query.Price, n))
			case "year":
				conds = append(conds, query.Range{Field: query.Year, Lo: n, Hi: n})
			}
		}
	}
	if !s.parseQueryExcept(ctx, rq, pLocale|pLimit|pCursor, filterParams) {
		return
	}
	q := query.Simplify(query.And{Children: conds})
	canon := q.AppendText(make([]byte, 0, 128)) // the canonical filter text, bound into the cursor
	bind := s.binding(rq, nil, routeFilter, canon)
	after, _ := engine.ParseIDPosition(s.openCursor(rq, bind))
	c := rq.v.cat
	fs := engine.GetFilterScratch()
	defer engine.PutFilterScratch(fs)
	rows, err := c.Filter(rq.rows[:0], q, after, rq.limit, fs)
	if err != nil {
		problem(ctx, fasthttp.StatusBadRequest, "Bad Request", "The filters cannot be combined: "+err.Error())
		return
	}
	s.variantPage(ctx, rq, rows, bind)
}

// timesGiven counts the query arguments named key, without the allocation
// of Args.PeekMulti.
func timesGiven(args *fasthttp.Args, key []byte) int {
	n := 0
	for k := range args.All() {
		if bytes.Equal(k, key) {
			n++
		}
	}
	return n
}

// compare answers GET /v1/compare?ids=: 2 to 4 variants side by side, in
// the order asked, each a VariantSpecs in the requested locale and units.
// Every id is decoded strictly: one that cannot be read fails the whole
// call with a 400 naming it; a well-formed id of no variant is a 404.
func (s *Service) compare(ctx *fasthttp.RequestCtx, rq *request) { s.compareIn(ctx, rq, nil) }

// compareIn compares in the catalogue, or in the demo set when d is set.
func (s *Service) compareIn(ctx *fasthttp.RequestCtx, rq *request, d *demoView) {
	if !s.parseQueryExcept(ctx, rq, pLocale|pUnits, []string{"ids"}) {
		return
	}
	args := ctx.QueryArgs()
	if len(args.PeekMulti("ids")) > 1 {
		badParam(ctx, rq, []byte("ids"), "is given more than once; list the ids in one parameter, separated by commas")
		return
	}
	raw := args.Peek("ids")
	if len(bytes.TrimSpace(raw)) == 0 {
		problem(ctx, fasthttp.StatusBadRequest, "Bad Request", `The query parameter "ids" is required: 2 to 4 variant ids separated by commas.`)
		return
	}
	var ids [4][]byte
	n := 0
	for part := range bytes.SplitSeq(raw, []byte(",")) {
		if n == len(ids) {
			n++
			break
		}
		ids[n] = bytes.TrimSpace(part)
		n++
	}
	if n < 2 || n > 4 {
		what := strconv.Itoa(n)
		if n > 4 {
			what = "more than 4"
		}
		problem(ctx, fasthttp.StatusBadRequest, "Bad Request", `The query parameter "ids" must hold 2 to 4 variant ids separated by commas; it holds `+what+".")
		return
	}
	c := rq.v.cat
	var rows [4]uint32
	var missing []byte
	for i := 0; i < n; i++ {
		var id uint32
		var ok bool
		if rq.raw {
			id, ok = parseRawID(ids[i])
		} else {
			id, ok = s.opts.Codec.Parse(publicid.Variant, ids[i])
		}
		if !ok {
			if d != nil { // the demo tier answers 403 for anything outside the set
				s.demoOutsideCar(ctx, rq)
				return
			}
			problem(ctx, fasthttp.StatusBadRequest, "Bad Request", "The query parameter \"ids\" holds "+strconv.Quote(truncate(string(ids[i]), 64))+", which is not a variant id; nothing was compared.")
			return
		}
		row, found := c.VariantRow(id)
		if d != nil && (!found || !d.variants[row]) {
			s.demoOutsideCar(ctx, rq)
			return
		}
		if !found && missing == nil {
			missing = ids[i]
		}
		rows[i] = row
	}
	if missing != nil {
		problem(ctx, fasthttp.StatusNotFound, "Not Found", "No variant with id "+strconv.Quote(truncate(string(missing), 64))+"; nothing was compared.")
		return
	}
	b := append(rq.buf[:0], `{"data":[`...)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		if d != nil { // pre-rendered
			b = append(b, d.specsObject[boolIndex(rq.imperial)][rq.locale][d.index[rows[i]]]...)
		} else {
			b = rq.appendVariantSpecs(b, rows[i])
		}
		rq.synced = max(rq.synced, c.VarSyncedAt[rows[i]])
	}
	b = append(b, "],"...)
	b = s.appendMeta(b, rq)
	rq.buf = append(b, '}')
	s.respond(ctx, rq)
}
