package httpd

import (
	"context"
	"encoding/json"
	"net"
	"net/netip"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/keyflow"
)

// keyRequest answers POST /v1/keys/demo and its alias POST /v1/keys: 202
// once the request is recorded and the activation link mailed. The body
// must be application/json (415 otherwise, with Accept-Post); every
// X-Forwarded-For line counts when the peer is a trusted proxy.
func (s *Service) keyRequest(ctx *fasthttp.RequestCtx) {
	if s.opts.KeyFlow == nil {
		writeProblem(ctx, errorf(fasthttp.StatusServiceUnavailable, "Demo keys cannot be requested on this server."))
		return
	}
	if ctx.QueryArgs().Len() > 0 {
		writeProblem(ctx, errorf(fasthttp.StatusBadRequest, "This endpoint takes no query parameters: send the request as a JSON body."))
		return
	}
	network := keyflow.Network(peer(ctx), ctx.Request.Header.PeekAll("X-Forwarded-For"), s.opts.TrustedProxies)
	res, p := s.opts.KeyFlow.Request(context.Background(), string(ctx.Request.Header.ContentType()), ctx.PostBody(), network)
	if p != nil {
		flowProblem(ctx, p)
		return
	}
	s.sendJSON(ctx, fasthttp.StatusAccepted, res)
}

// keyVerify answers GET /v1/keys/demo/verify?t=: the key, shown once.
func (s *Service) keyVerify(ctx *fasthttp.RequestCtx) {
	if s.opts.KeyFlow == nil {
		writeProblem(ctx, errorf(fasthttp.StatusServiceUnavailable, "Demo keys cannot be issued on this server."))
		return
	}
	args := ctx.QueryArgs()
	for k := range args.All() {
		if string(k) != "t" {
			writeProblem(ctx, errorf(fasthttp.StatusBadRequest, "The query parameter "+strconv.Quote(truncate(string(k), 64))+" is not a parameter of this endpoint; it takes t."))
			return
		}
	}
	if len(args.PeekMulti("t")) > 1 {
		writeProblem(ctx, errorf(fasthttp.StatusBadRequest, `The query parameter "t" is given more than once.`))
		return
	}
	covers := "the 40 cars of the demo set"
	if d := s.view.Load().demo; d != nil {
		covers = d.set
	}
	res, p := s.opts.KeyFlow.Verify(string(args.Peek("t")), covers)
	if p != nil {
		flowProblem(ctx, p)
		return
	}
	s.sendJSON(ctx, fasthttp.StatusOK, res)
}

func flowProblem(ctx *fasthttp.RequestCtx, p *keyflow.Problem) {
	if p.RetryAfter > 0 {
		ctx.Response.Header.SetBytesKV(headerRetryAfter, strconv.AppendInt(nil, int64(p.RetryAfter), 10))
	}
	if p.Status == fasthttp.StatusUnsupportedMediaType {
		ctx.Response.Header.Set("Accept-Post", keyflow.MediaType) // W3C LDP 1.0, section 7.1
	}
	writeProblem(ctx, errorf(p.Status, p.Detail))
}

// sendJSON sends {data, meta} for the cold key routes, never cached.
func (s *Service) sendJSON(ctx *fasthttp.RequestCtx, status int, data any) {
	rq := getRequest()
	defer putRequest(rq)
	v := s.view.Load()
	rq.lang, rq.syncedText = v.localeBytes[v.cat.English()], v.synced
	d, err := json.Marshal(data)
	if err != nil {
		writeProblem(ctx, errorf(fasthttp.StatusInternalServerError, ""))
		return
	}
	b := append(append(rq.buf[:0], `{"data":`...), d...)
	b = append(b, ',')
	b = rq.appendMeta(b)
	b = append(b, '}')
	ctx.SetStatusCode(status)
	ctx.Response.Header.SetContentTypeBytes(contentTypeJSON)
	ctx.Response.Header.SetBytesKV(headerCacheControl, noStore)
	ctx.SetBody(b)
}

// peer returns the address of the connection's other end.
func peer(ctx *fasthttp.RequestCtx) netip.Addr {
	if a, ok := ctx.RemoteAddr().(*net.TCPAddr); ok {
		if ip, ok := netip.AddrFromSlice(a.IP); ok {
			return ip
		}
	}
	return netip.IPv4Unspecified()
}
