package bench

import (
	"runtime"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd/publicid"
)

// Mix is the fixed route mix of a load run over catalogue c; token turns a
// stable id into the public token the server under test uses.
func Mix(c *engine.Catalogue, token func(publicid.Kind, uint32) string) []Route {
	v := c.Demo[0]
	vt := token(publicid.Variant, c.VarID[v])
	gen := c.VarGen[v]
	return []Route{
		{"variant detail", "/v1/variants/" + vt},
		{"specs en", "/v1/variants/" + vt + "/specs"},
		{"specs de", "/v1/variants/" + vt + "/specs?locale=de"},
		{"specs ar imperial", "/v1/variants/" + vt + "/specs?locale=ar&units=imperial"},
		{"brands", "/v1/brands"},
		{"models", "/v1/brands/volkswagen/models"},
		{"generation variants", "/v1/generations/" + token(publicid.Generation, c.GenID[gen]) + "/variants"},
	}
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
