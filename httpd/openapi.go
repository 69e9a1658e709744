package httpd

import (
	"encoding/json"
	"net/url"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/openapi"
	"github.com/vspec/catalogue/httpd/openapi/reference"
	"github.com/vspec/catalogue/httpd/publicid"
)

// described is the OpenAPI document and docs page of one installed
// catalogue (their examples come from it).
type described struct {
	doc        map[string]any
	json, html *publicBody
}

// describe builds the description of v, with examples rendered by the
// real handlers for cars of the demo set.
func (s *Service) describe(v *view) *described {
	c := v.cat
	ex := map[string]json.RawMessage{}
	// run renders an example with the operation itself, as an apify-less
	// paid plan sees it.
	// samples are the path and query of each operation's curl sample.
	samples := map[string]string{}
	sample := func(op *operation, path, query string) {
		u := strings.TrimPrefix(op.path, "/v1")
		if i := strings.IndexByte(u, '{'); i >= 0 {
			u = u[:i] + path + u[strings.IndexByte(u, '}')+1:]
		}
		if query != "" {
			u += "?" + query
		}
		samples[op.id] = u
	}
	run := func(name string, op *operation, path, query string) {
		sample(op, path, query)
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
	sample(opFilter, "", "fuel=electric&power_min=150&limit=2")
	sample(opUsage, "", "")
	sample(opExport, "", "")
	sample(opDemo, "", "")
	samples["verifyDemoKey"] = "/keys/demo/verify?t=$TOKEN"
	samples["confirmDemoKey"] = "/keys/demo/verify?t=$TOKEN"
	if v.demo != nil {
		ex[openapi.ExDemoSet] = v.demo.setBody[c.English()].body
	}
	meta := `"meta":{"last_synced_at":"` + string(v.synced) + `","locale":"en","units":"metric"}`
	ex[openapi.ExUsage] = json.RawMessage(`{"data":{"plan":"apify","quota":100000,"used":1284,"resets_at":"2026-12-01T00:00:00Z"},` + meta + `}`)
	ex[openapi.ExVerification] = json.RawMessage(`{"data":{"status":"verification_sent","note":"An activation link was mailed to ada@garage-lindqvist.se. It expires in 3 days; the key is issued when the link is confirmed (opening it shows a button; POST to the link confirms it at once), once. No key exists until then."},` + meta + `}`)
	ex[openapi.ExPendingKey] = json.RawMessage(`{"data":{"status":"pending","email":"ada@garage-lindqvist.se","requested_at":"2026-11-20T09:00:00Z","expires_at":"2026-11-23T09:00:00Z","confirm":{"method":"POST","href":"https://api.example.org/v1/keys/demo/verify?t=` + strings.Repeat("0", 48) + `"},"note":"Opening this link issues nothing. POST to confirm.href (the page's Activate button does) to issue the demo key of ada@garage-lindqvist.se: it is shown once, in that answer, and mailed."},` + meta + `}`)
	ex[openapi.ExIssuedKey] = json.RawMessage(`{"data":{"api_key":"vsc_demo_` + strings.Repeat("0", 48) + `","plan":"demo","covers":"40 cars: …","full_catalogue":"` + s.opts.UpgradeURL + `","start_here":"https://api.example.org/v1/demo","note":"This key is shown once and only its hash is stored."},` + meta + `}`)
	ex[openapi.ExDemoKeyRequest] = json.RawMessage(`{"email":"ada@garage-lindqvist.se","name":"Ada Lindqvist","company":"Garage Lindqvist AB","website":"https://garage-lindqvist.se","role":"Developer","use_case":"Spec sheets on our used-car listings, in Swedish and English.","accept_tos":true}`)

	in := openapi.Inputs{Locales: c.Locales, Variants: len(c.VarID), SpecTypes: len(c.Specs), UpgradeURL: s.opts.UpgradeURL,
		LicensingURL: s.opts.LicensingURL, SearchThreshold: s.opts.SearchThreshold, Examples: ex}
	in.AgentURL = s.opts.AgentURL
	in.Samples = samples
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
	body, _ := json.Marshal(d.doc)
	d.json = newPublicBody(body, "application/json; charset=utf-8", publicCache)
	info := d.doc["info"].(map[string]any)
	d.html = newPublicBody(openapi.DocsPage(info["title"].(string), info["version"].(string)), "text/html; charset=utf-8", publicCache)
	return d
}

var (
	publicCache    = []byte("public, max-age=3600")
	immutableCache = []byte("public, max-age=31536000, immutable")
	headerCSP      = []byte("Content-Security-Policy")
	docsCSP        = []byte(openapi.DocsCSP)
	headerNoSniff  = []byte("X-Content-Type-Options")
	noSniff        = []byte("nosniff")
	headerReferrer = []byte("Referrer-Policy")
	noReferrer     = []byte("no-referrer")
)

// docsScript is Redoc's bundle, which the docs page loads: the same for
// every catalogue, and for good under its versioned path.
var docsScript = newPublicBody(reference.Script(), "text/javascript; charset=utf-8", immutableCache)

// openAPI answers GET /v1/openapi.json: keyless, CORS-open, cacheable.
func (s *Service) openAPI(ctx *fasthttp.RequestCtx) {
	s.view.Load().described.json.send(ctx)
	ctx.Response.Header.Set("Access-Control-Allow-Origin", "*")
}

// docs answers GET /v1/docs: the page that renders the description with
// the embedded Redoc, under a policy that lets it load nothing from
// elsewhere.
func (s *Service) docs(ctx *fasthttp.RequestCtx) {
	s.view.Load().described.html.send(ctx)
	h := &ctx.Response.Header
	h.SetBytesKV(headerCSP, docsCSP)
	h.SetBytesKV(headerReferrer, noReferrer)
}

// docsScriptHandler answers GET /v1/docs/redoc-VERSION.js.
func (s *Service) docsScriptHandler(ctx *fasthttp.RequestCtx) { docsScript.send(ctx) }

// A publicBody is a keyless, cacheable answer: its bytes, a strong ETag
// and, made on first demand, its compressed codings.
type publicBody struct {
	body         []byte
	sum          uint64
	ctype, cache []byte
	enc          [encGzip + 1]struct {
		once sync.Once
		body []byte
	}
}

func newPublicBody(body []byte, ctype string, cache []byte) *publicBody {
	return &publicBody{body: body, sum: xxhash.Sum64(body), ctype: []byte(ctype), cache: cache}
}

// send answers with the body, 304 on a matching If-None-Match, compressed
// as the client accepts when it is large enough; the ETag differs per
// coding, as a strong validator must.
func (p *publicBody) send(ctx *fasthttp.RequestCtx) {
	h := &ctx.Response.Header
	h.SetContentTypeBytes(p.ctype)
	h.SetCanonical(headerCacheControl, p.cache)
	h.SetBytesKV(headerNoSniff, noSniff)
	enc := encIdentity
	if len(p.body) >= minCompress {
		h.SetCanonical(headerVary, headerAcceptEncoding)
		enc = negotiate(ctx.Request.Header.PeekBytes(headerAcceptEncoding))
	}
	tag := appendETag(make([]byte, 0, 24), p.sum, enc)
	h.SetCanonical(headerETag, tag)
	if inm := ctx.Request.Header.PeekBytes(headerIfNoneMatch); len(inm) > 0 && etagMatches(inm, tag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	if enc == encIdentity {
		ctx.Response.SetBodyRaw(p.body)
		return
	}
	e := &p.enc[enc]
	e.once.Do(func() { e.body = appendCompressed(nil, p.body, enc) })
	h.SetCanonical(headerContentEncoding, encNames[enc])
	ctx.Response.SetBodyRaw(e.body)
}

// Description returns the OpenAPI document being served.
func (s *Service) Description() map[string]any { return s.view.Load().described.doc }

// Routes lists the method and path of every route the server answers
// (OPTIONS aside), as registered.
func (s *Service) Routes() []openapi.Operation { return s.registered }
