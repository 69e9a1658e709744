package httpd

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/openapi"
	"github.com/vspec/catalogue/httpd/publicid"
)

// described is the OpenAPI document and docs page of one installed
// catalogue (their examples come from it).
type described struct {
	doc               map[string]any
	json, html        []byte
	jsonETag, htmlTag []byte
}

// describe builds the description of v, with examples rendered by the
// real handlers for cars of the demo set.
func (s *Service) describe(v *view) *described {
	c := v.cat
	ex := map[string]json.RawMessage{}
	// run renders an example with the operation itself, as an apify-less
	// paid plan sees it.
	run := func(name string, op *operation, path, query string) {
		var args fasthttp.Args
		args.Parse(query)
		rq := &request{p: Params{Path: []byte(path)}}
		if s.ops.answer(rq, v, op, tierFull, &args, false) == nil {
			ex[name] = append(json.RawMessage(nil), rq.body...)
		}
	}
	tok := func(kind publicid.Kind, id uint32) string { return s.opts.Codec.Token(kind, id) }
	car, other := uint32(0), uint32(1)
	if len(c.Demo) >= 2 {
		car, other = c.Demo[0], c.Demo[1]
	}
	gen := c.VarGen[car]
	model := c.GenModel[gen]
	slug := c.BrandSlug.String(c.ModelBrand[model])
	vt := tok(publicid.Variant, c.VarID[car])
	ex[openapi.ExHealth] = healthBody(v)
	run(openapi.ExBrands, opBrands, "", "limit=2")
	run(openapi.ExBrand, opBrand, slug, "")
	run(openapi.ExModels, opModels, slug, "limit=2")
	run(openapi.ExGenerations, opGenerations, tok(publicid.Model, c.ModelID[model]), "limit=2")
	run(openapi.ExVariants, opGenVariants, tok(publicid.Generation, c.GenID[gen]), "limit=2")
	run(openapi.ExVariantDetail, opVariant, vt, "")
	run(openapi.ExVariantSpecs, opSpecs, vt, "locale=de")
	run(openapi.ExImages, opImages, vt, "")
	run(openapi.ExPrices, opPrices, vt, "")
	run(openapi.ExSpecCatalog, opSpecCatalog, "", "limit=3")
	run(openapi.ExSearch, opSearch, "", "q="+url.QueryEscape(c.ModelName.String(model))+"&limit=2")
	run(openapi.ExCompare, opCompare, "", "ids="+vt+","+tok(publicid.Variant, c.VarID[other]))
	if v.demo != nil {
		ex[openapi.ExDemoSet] = v.demo.setBody[c.English()].body
	}
	meta := `"meta":{"last_synced_at":"` + string(v.synced) + `","locale":"en","units":"metric"}`
	ex[openapi.ExUsage] = json.RawMessage(`{"data":{"plan":"apify","quota":100000,"used":1284,"resets_at":"2026-12-01T00:00:00Z"},` + meta + `}`)
	ex[openapi.ExVerification] = json.RawMessage(`{"data":{"status":"verification_sent","note":"An activation link was mailed to ada@garage-lindqvist.se. It works once and expires in 3 days. No key exists until it is opened."},` + meta + `}`)
	ex[openapi.ExIssuedKey] = json.RawMessage(`{"data":{"api_key":"vsc_demo_` + strings.Repeat("0", 48) + `","plan":"demo","covers":"40 cars: …","full_catalogue":"` + s.opts.UpgradeURL + `","start_here":"https://api.example.org/v1/demo","note":"This key is shown once and only its hash is stored."},` + meta + `}`)
	ex[openapi.ExDemoKeyRequest] = json.RawMessage(`{"email":"ada@garage-lindqvist.se","name":"Ada Lindqvist","company":"Garage Lindqvist AB","website":"https://garage-lindqvist.se","role":"Developer","use_case":"Spec sheets on our used-car listings, in Swedish and English.","accept_tos":true}`)

	in := openapi.Inputs{Locales: c.Locales, Variants: len(c.VarID), SpecTypes: len(c.Specs), UpgradeURL: s.opts.UpgradeURL,
		LicensingURL: s.opts.LicensingURL, SearchThreshold: s.opts.SearchThreshold, Examples: ex}
	in.AgentURL = s.opts.AgentURL
	if g := s.opts.Payments; g != nil {
		o := g.Offer(0)
		in.Payments = &openapi.Payments{Network: o.Network, Asset: o.Asset, AssetName: o.Extra.Name, PayTo: o.PayTo, MaxTimeoutSeconds: o.MaxTimeoutSeconds,
			PerMinute: s.opts.PaidLimiter.Limit(), Settles: g.Settles(), Prices: map[string]int64{
				"getVariantSpecs": OpSpecs.Price(), "search": OpSearch.Price(), "filterVariants": OpFilter.Price(), "compare": OpCompare.Price()}}
	}
	in.Fuels, in.BodySlugs, in.Drives, in.Bodies = v.vocab[fuels], v.vocab[bodies], v.vocab[drives], v.vocab[bodyLabels]
	in.Parameters = map[string][]map[string]any{}
	for _, op := range keyedOperations {
		in.Parameters[op.id] = openAPIParameters(op.params, v.vocab)
	}
	in.Parameters["verifyDemoKey"] = openAPIParameters(verifyParams, v.vocab)
	for _, k := range ProblemKinds {
		in.ProblemTypes = append(in.ProblemTypes, openapi.ProblemType{URI: ProblemTypeBase + k.Kind, Status: k.Status, Means: k.Means})
	}
	d := &described{doc: openapi.Build(in)}
	d.json, _ = json.Marshal(d.doc)
	d.html, _ = openapi.RenderDocs(d.doc)
	d.jsonETag = []byte(`"` + strconv.FormatUint(xxhash.Sum64(d.json), 16) + `"`)
	d.htmlTag = []byte(`"` + strconv.FormatUint(xxhash.Sum64(d.html), 16) + `"`)
	return d
}

var publicCache = []byte("public, max-age=3600")

// openAPI answers GET /v1/openapi.json: keyless, CORS-open, cacheable.
func (s *Service) openAPI(ctx *fasthttp.RequestCtx) {
	d := s.view.Load().described
	s.sendPublic(ctx, d.json, d.jsonETag, "application/json; charset=utf-8")
	ctx.Response.Header.Set("Access-Control-Allow-Origin", "*")
}

// docs answers GET /v1/docs: the description as one self-contained page.
func (s *Service) docs(ctx *fasthttp.RequestCtx) {
	d := s.view.Load().described
	s.sendPublic(ctx, d.html, d.htmlTag, "text/html; charset=utf-8")
}

func (s *Service) sendPublic(ctx *fasthttp.RequestCtx, body, etag []byte, ctype string) {
	h := &ctx.Response.Header
	h.SetContentType(ctype)
	h.SetBytesKV(headerCacheControl, publicCache)
	h.SetBytesKV(headerETag, etag)
	if inm := ctx.Request.Header.PeekBytes(headerIfNoneMatch); len(inm) > 0 && etagMatches(inm, etag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	ctx.Response.SetBodyRaw(body)
}

// Description returns the OpenAPI document being served.
func (s *Service) Description() map[string]any { return s.view.Load().described.doc }

// Routes lists the method and path of every route the server answers
// (OPTIONS aside), as registered.
func (s *Service) Routes() []openapi.Operation { return s.registered }
