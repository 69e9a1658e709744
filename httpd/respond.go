package httpd

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// encoding is a content coding the server can produce.
type encoding uint8

const (
	encIdentity encoding = iota
	encBrotli
	encZstd
	encGzip
)

var (
	encNames    = [...][]byte{nil, []byte("br"), []byte("zstd"), []byte("gzip")}
	encSuffix   = [...]string{"", "-br", "-zst", "-gz"}
	encSalt     = [...]uint64{0, 0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9}
	minCompress = 1024 // smaller bodies are sent as they are
)

var (
	headerETag            = canonical("ETag")
	headerIfNoneMatch     = []byte("If-None-Match")
	headerCacheControl    = canonical("Cache-Control")
	noStore               = []byte("no-store") // the one Cache-Control value of answers no cache may keep
	headerVary            = canonical("Vary")
	headerContentLanguage = canonical("Content-Language")
	headerContentEncoding = canonical("Content-Encoding")
	headerAcceptEncoding  = []byte("Accept-Encoding")
	varyKeyed             = []byte("Accept-Encoding, X-Api-Key, Authorization")
	contentTypeJSON       = []byte("application/json; charset=utf-8")
)

// canonical returns a response header's name as fasthttp writes it, so
// that the hot path can set it with SetCanonical and skip normalizing it
// on every request.
func canonical(name string) []byte { return fasthttp.AppendNormalizedHeaderKey(nil, name) }

// send sends the answer of rq as the 200 body of a keyed catalogue
// response, with a strong ETag, Cache-Control and Vary, answering
// If-None-Match with 304 and compressing when the client accepts it. The
// body is sent without copying: an immutable one as it is, a rendered one
// (rq.buf) swapped with the response's body buffer.
//
// The ETag is the answer's content hash (the xxHash of its bytes, or of
// its parts' hashes: doneParts), so it changes exactly when the
// representation does (another snapshot, locale, units, id view, page)
// and differs per content coding, as a strong validator must.
func (s *Service) send(ctx *fasthttp.RequestCtx, rq *request) {
	body, sum, immutable := rq.body, rq.sum, rq.fixed
	enc := encIdentity
	if len(body) >= minCompress {
		enc = negotiate(ctx.Request.Header.PeekBytes(headerAcceptEncoding))
	}
	h := &ctx.Response.Header
	h.SetContentTypeBytes(contentTypeJSON)
	if rq.noStore {
		h.SetCanonical(headerCacheControl, noStore)
	} else {
		h.SetCanonical(headerCacheControl, s.maxAge)
	}
	h.SetCanonical(headerVary, varyKeyed)
	h.SetCanonical(headerContentLanguage, rq.lang)
	tag := appendETag(rq.tmp[:0], sum, enc)
	rq.tmp = tag
	h.SetCanonical(headerETag, tag)
	if inm := ctx.Request.Header.PeekBytes(headerIfNoneMatch); len(inm) > 0 && etagMatches(inm, tag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		ctx.Response.ResetBody()
		return
	}
	ctx.SetStatusCode(fasthttp.StatusOK)
	if enc == encIdentity {
		if immutable {
			ctx.Response.SetBodyRaw(body)
		} else {
			// The rendered body is rq.buf: the response takes it and rq
			// renders the next answer into the response's former buffer.
			rq.buf, rq.body = ctx.Response.SwapBody(body)[:0], nil
		}
		return
	}
	h.SetCanonical(headerContentEncoding, encNames[enc])
	key := sum ^ encSalt[enc]
	if s.cache != nil {
		if b, ok := s.cache.Get(key); ok {
			s.compressedHit()
			ctx.Response.SetBodyRaw(b) // cached bodies are never modified
			return
		}
		s.compressedMiss()
	}
	out := appendCompressed(rq.enc[:0], body, enc)
	rq.enc = out
	if s.cache != nil {
		stored := append([]byte(nil), out...)
		s.cache.Set(key, stored, int64(len(stored)))
		ctx.Response.SetBodyRaw(stored)
		return
	}
	ctx.Response.SetBody(out)
}

func appendHex64(dst []byte, v uint64) []byte {
	for sh := 60; sh >= 0; sh -= 4 {
		dst = append(dst, hexDigits[v>>uint(sh)&0xf])
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// etagMatches applies the weak comparison RFC 9110 prescribes for
// If-None-Match: "*" matches, and W/ prefixes are ignored.
func etagMatches(header, tag []byte) bool {
	for len(header) > 0 {
		header = bytes.TrimLeft(header, " \t,")
		if len(header) == 0 {
			return false
		}
		if header[0] == '*' {
			return true
		}
		header = bytes.TrimPrefix(header, []byte("W/"))
		if len(header) == 0 || header[0] != '"' {
			return false
		}
		end := bytes.IndexByte(header[1:], '"')
		if end < 0 {
			return false
		}
		if bytes.Equal(header[:end+2], tag) {
			return true
		}
		header = header[end+2:]
	}
	return false
}

// negotiate picks the content coding from Accept-Encoding: the acceptable
// coding with the highest quality, preferring br, then zstd, then gzip on
// ties; identity when none is acceptable.
func negotiate(accept []byte) encoding {
	if len(accept) == 0 {
		return encIdentity
	}
	var q [4]int // quality in thousandths, -1 = not mentioned
	q[encBrotli], q[encZstd], q[encGzip] = -1, -1, -1
	star := -1
	for len(accept) > 0 {
		var item []byte
		if i := bytes.IndexByte(accept, ','); i >= 0 {
			item, accept = accept[:i], accept[i+1:]
		} else {
			item, accept = accept, nil
		}
		name, params, _ := bytes.Cut(item, []byte(";"))
		name = bytes.TrimSpace(name)
		quality := 1000
		if qv, ok := bytes.CutPrefix(bytes.TrimSpace(params), []byte("q=")); ok {
			quality = parseQuality(qv)
		}
		switch {
		case bytes.EqualFold(name, encNames[encBrotli]):
			q[encBrotli] = quality
		case bytes.EqualFold(name, encNames[encZstd]):
			q[encZstd] = quality
		case bytes.EqualFold(name, encNames[encGzip]), bytes.EqualFold(name, []byte("x-gzip")):
			q[encGzip] = quality
		case len(name) == 1 && name[0] == '*':
			star = quality
		}
	}
	best, bestQ := encIdentity, 0
	for _, e := range []encoding{encBrotli, encZstd, encGzip} {
		qe := q[e]
		if qe < 0 {
			qe = star
		}
		if qe > bestQ {
			best, bestQ = e, qe
		}
	}
	return best
}

// parseQuality parses a qvalue ("1", "0.5", "0.001") into thousandths;
// anything malformed counts as 0 (not acceptable).
func parseQuality(b []byte) int {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || (b[0] != '0' && b[0] != '1') {
		return 0
	}
	v := int(b[0]-'0') * 1000
	if len(b) == 1 {
		return v
	}
	if b[1] != '.' || len(b) > 5 {
		return 0
	}
	scale := 100
	for _, c := range b[2:] {
		if c < '0' || c > '9' {
			return 0
		}
		v += int(c-'0') * scale
		scale /= 10
	}
	if v > 1000 {
		return 0
	}
	return v
}

// appendETag appends the strong ETag of a body whose xxHash is sum, sent in
// content coding enc: each coding has its own validator.
func appendETag(dst []byte, sum uint64, enc encoding) []byte {
	dst = append(dst, '"')
	dst = appendHex64(dst, sum)
	dst = append(dst, encSuffix[enc]...)
	return append(dst, '"')
}

// appendCompressed appends body compressed in coding enc (br, zstd or
// gzip) at the levels every answer uses.
func appendCompressed(dst, body []byte, enc encoding) []byte {
	switch enc {
	case encBrotli:
		return fasthttp.AppendBrotliBytesLevel(dst, body, fasthttp.CompressBrotliDefaultCompression)
	case encZstd:
		return fasthttp.AppendZstdBytesLevel(dst, body, fasthttp.CompressZstdDefault)
	default:
		return fasthttp.AppendGzipBytesLevel(dst, body, fasthttp.CompressDefaultCompression)
	}
}
