package httpd

import (
	"context"
	"encoding/json"
	"net"
	"net/netip"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/keyflow"
	"github.com/vspec/catalogue/httpd/observe"
)

// keyRequest answers POST /v1/keys/demo and its alias POST /v1/keys: 202
// once the request is recorded and the activation link mailed. The body
// must be application/json (415 otherwise, with Accept-Post); every
// X-Forwarded-For line counts when the peer is a trusted proxy.
func (s *Service) keyRequest(ctx *fasthttp.RequestCtx) {
	if s.opts.KeyFlow == nil {
		s.problem(ctx, unavailable(0, "Demo keys cannot be requested on this server."))
		return
	}
	if ctx.QueryArgs().Len() > 0 {
		s.problem(ctx, badRequest("This endpoint takes no query parameters: send the request as a JSON body.").kind("invalid-request"))
		return
	}
	network := keyflow.Network(peer(ctx), ctx.Request.Header.PeekAll("X-Forwarded-For"), s.opts.TrustedProxies)
	res, p := s.opts.KeyFlow.Request(context.Background(), string(ctx.Request.Header.ContentType()), ctx.PostBody(), network)
	s.sendFlow(ctx, "request", fasthttp.StatusAccepted, res, p)
}

// keyVerify answers the activation link, /v1/keys/demo/verify?t=. GET
// and HEAD show the request it activates and how to confirm it, never the
// key, since mail scanners open links before people do (a browser gets a
// page with the confirming button); POST is the confirmation (the page's
// button, or an API client's one step) and answers the key, shown once.
func (s *Service) keyVerify(ctx *fasthttp.RequestCtx) {
	token, e := activationToken(s.opts.KeyFlow, ctx)
	if e != nil {
		s.problem(ctx, e)
		return
	}
	var (
		step    = "link_opened"
		data    any // the JSON answer
		page    keyPageData
		problem *keyflow.Problem
	)
	if ctx.IsPost() {
		covers := "the 40 cars of the demo set"
		if d := s.view.Load().demo; d != nil {
			covers = d.set
		}
		res, p := s.opts.KeyFlow.Redeem(token, covers)
		step, data, page, problem = "activation", res, keyPageData{Key: &res}, p
	} else {
		res, p := s.opts.KeyFlow.Pending(token)
		data, page, problem = res, keyPageData{Pending: &res, Token: token}, p
	}
	if wantsHTML(ctx) {
		countFlow(s.obs, step, fasthttp.StatusOK, problem)
		sendKeyPage(ctx, page, problem)
		return
	}
	s.sendFlow(ctx, step, fasthttp.StatusOK, data, problem)
}

// activationToken reads the t of an activation link's request, or returns
// the problem to answer.
func activationToken(flow *keyflow.Flow, ctx *fasthttp.RequestCtx) (string, *Error) {
	switch {
	case flow == nil:
		return "", unavailable(0, "Demo keys cannot be issued on this server.")
	case len(ctx.Request.Body()) > 0:
		return "", errorf(fasthttp.StatusRequestEntityTooLarge, "This request takes no body: the token is the link's t parameter.")
	}
	var p Params
	if e := parse(verifyParams, &p, ctx.QueryArgs(), false, nil); e != nil {
		return "", e
	}
	return string(p.Token), nil
}

// sendFlow sends a key flow's answer with status, or its problem, and
// counts the step's outcome.
func (s *Service) sendFlow(ctx *fasthttp.RequestCtx, step string, status int, data any, p *keyflow.Problem) {
	countFlow(s.obs, step, status, p)
	if p == nil {
		s.sendJSON(ctx, status, data)
		return
	}
	s.problem(ctx, flowError(p))
}

// countFlow counts a key-flow step's outcome: its status, or its problem's.
func countFlow(obs *observe.Observer, step string, status int, p *keyflow.Problem) {
	if p != nil {
		status = p.Status
	}
	obs.Counter(`catalogue_key_flow_total{step="` + step + `",status="` + strconv.Itoa(status) + `"}`).Inc()
}

// flowError is a key-flow problem as an API error.
func flowError(p *keyflow.Problem) *Error {
	e := &Error{Status: p.Status, Detail: p.Detail, RetryAfter: int64(p.RetryAfter)}
	switch p.Status {
	case fasthttp.StatusBadRequest:
		e.Kind = "invalid-request"
	case fasthttp.StatusTooManyRequests:
		e.Kind = "network-rate-limited"
	}
	if p.Status == fasthttp.StatusUnsupportedMediaType {
		e.with("Accept-Post", keyflow.MediaType) // W3C LDP 1.0, section 7.1
	}
	return e
}

// sendJSON sends {data, meta} for the cold key routes, never cached.
func (s *Service) sendJSON(ctx *fasthttp.RequestCtx, status int, data any) {
	rq := getRequest()
	defer putRequest(rq)
	v := s.view.Load()
	rq.lang, rq.syncedText = v.localeBytes[v.cat.English()], v.synced
	d, err := json.Marshal(data)
	if err != nil {
		s.panicked(ctx, err)
		return
	}
	b := append(append(rq.buf[:0], `{"data":`...), d...)
	b = append(b, ',')
	b = rq.appendMeta(b)
	b = append(b, '}')
	ctx.SetStatusCode(status)
	ctx.Response.Header.SetContentTypeBytes(contentTypeJSON)
	ctx.Response.Header.SetCanonical(headerCacheControl, noStore)
	ctx.SetBody(b)
}

// peer returns the address of the connection's other end: the one the
// connection guard read at accept when the connection is its own (no PROXY
// protocol reader above it, whose RemoteAddr is the client's), else from
// RemoteAddr.
func peer(ctx *fasthttp.RequestCtx) netip.Addr {
	if c, ok := ctx.Conn().(interface{ Peer() netip.Addr }); ok {
		if a := c.Peer(); a.IsValid() {
			return a
		}
	}
	if a, ok := ctx.RemoteAddr().(*net.TCPAddr); ok {
		if ip, ok := netip.AddrFromSlice(a.IP); ok {
			return ip
		}
	}
	return netip.IPv4Unspecified()
}
