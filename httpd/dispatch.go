package httpd

import (
	"bytes"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"
)

// dispatch finds the handler of a GET or HEAD of a keyed operation without
// the router: fasthttp/router stores every {param} as a user value, three
// allocations and a radix walk per request (see BenchmarkRouting), and no
// keyed handler reads them (the path parameter is segment 2 of the path,
// see run). Requests it does not match go to the router, which answers
// every other route, 404, 405 and OPTIONS; a match here is a path the
// router would have given the same handler: like the router, it matches
// the path as sent (URI.PathOriginal, neither decoded nor normalized),
// each literal segment exactly and each {param} as one non-empty segment.
type dispatch struct {
	routes []keyedRoute
}

type keyedRoute struct {
	segs   [maxSegments][]byte // literal segments; nil where the template has a {param}
	n      int                 // segments
	params int                 // of them {param}s
	h      fasthttp.RequestHandler
}

// maxSegments bounds the templates' segments ("/v1/variants/{id}/specs"
// has four).
const maxSegments = 5

// add registers h under a path template such as "/v1/brands/{slug}/models".
func (d *dispatch) add(template string, h fasthttp.RequestHandler) {
	parts := strings.Split(strings.TrimPrefix(template, "/"), "/")
	if len(parts) > maxSegments {
		panic("BUG: route template " + template + " has more segments than dispatch matches")
	}
	r := keyedRoute{n: len(parts), h: h}
	params := 0
	for i, p := range parts {
		if strings.HasPrefix(p, "{") {
			params++
		} else {
			r.segs[i] = []byte(p)
		}
	}
	// As in the router, a literal segment wins over a {param}: templates
	// with fewer parameters are tried first.
	at := len(d.routes)
	for at > 0 && d.routes[at-1].params > params {
		at--
	}
	r.params = params
	d.routes = slices.Insert(d.routes, at, r)
}

// match returns the handler of path, or nil.
func (d *dispatch) match(path []byte) fasthttp.RequestHandler {
	var segs [maxSegments][]byte
	n := splitPath(path, &segs)
	if n == 0 {
		return nil
	}
next:
	for i := range d.routes {
		r := &d.routes[i]
		if r.n != n {
			continue
		}
		// Last segment first: "/v1" is every route's, the last literal
		// tells most routes apart, often by its length alone.
		for j := n - 1; j >= 0; j-- {
			if lit := r.segs[j]; lit != nil && !bytes.Equal(lit, segs[j]) {
				continue next
			}
		}
		return r.h
	}
	return nil
}

// splitPath splits an absolute path into its segments and returns how
// many; 0 when it is not absolute, has an empty segment (a trailing or
// double slash) or more than maxSegments.
func splitPath(path []byte, segs *[maxSegments][]byte) int {
	if len(path) < 2 || path[0] != '/' {
		return 0
	}
	path = path[1:]
	for n := 0; n < maxSegments; n++ {
		i := bytes.IndexByte(path, '/')
		if i < 0 {
			if len(path) == 0 {
				return 0
			}
			segs[n] = path
			return n + 1
		}
		if i == 0 {
			return 0
		}
		segs[n], path = path[:i], path[i+1:]
	}
	return 0
}
