package httpd_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/httpd/httpdtest"
	"github.com/vspec/catalogue/httpd/openapi"
)

// TestCatalogueVersionHeader: every response, answered or refused, keyed
// or not, names the snapshot file it was answered from by its SHA-256, and
// the name follows an Install.
func TestCatalogueVersionHeader(t *testing.T) {
	e := newEnv(t)
	sum := sha256.Sum256(httpdtest.Snapshot())
	want := hex.EncodeToString(sum[:])
	check := func(want string) {
		t.Helper()
		for _, c := range []struct{ path, key string }{
			{"/v1/brands?limit=1", e.free},  // answered
			{"/v1/brands?limit=1", ""},      // 401 problem
			{"/v1/brands?limit=0x", e.free}, // 400 problem
			{"/v1/variants/v_zzzz", e.free}, // the fast path, 404
			{"/v1/nothing-here", ""},        // unrouted
			{"/v1/health", ""},              // keyless
			{"/readyz", ""},                 // probe
			{variantURI("")(e), e.free},     // the fast path, answered
		} {
			r := e.get(c.path, c.key)
			if got := r.header["X-Catalogue-Version"]; got != want {
				t.Errorf("GET %s (%d): X-Catalogue-Version %q, want %q", c.path, r.status, got, want)
			}
		}
	}
	check(want)
	other := httpdtest.CatalogueOf(t, gen.Options{Scale: 0.01, Seed: 5})
	if other.Meta.ContentHash == want || len(other.Meta.ContentHash) != 64 {
		t.Fatalf("the second catalogue's content hash %q", other.Meta.ContentHash)
	}
	e.svc.Install(other)
	check(other.Meta.ContentHash)
}

// TestCatalogueVersionDocumented: the description documents the header on
// every response of every operation (inline or shared).
func TestCatalogueVersionDocumented(t *testing.T) {
	e := newEnv(t)
	doc := e.svc.Description()
	shared := doc["components"].(map[string]any)["responses"].(map[string]any)
	n := 0
	for path, item := range openapi.PathItems(doc) {
		for method, op := range item.(map[string]any) {
			if method == "parameters" {
				continue
			}
			for code, r := range op.(map[string]any)["responses"].(map[string]any) {
				r := r.(map[string]any)
				if ref, ok := r["$ref"].(string); ok {
					r = shared[ref[len("#/components/responses/"):]].(map[string]any)
				}
				h, _ := r["headers"].(map[string]any)
				if _, ok := h["X-Catalogue-Version"]; !ok {
					t.Errorf("%s %s %s: no X-Catalogue-Version documented", method, path, code)
				}
				n++
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d responses seen", n)
	}
}
