package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/httpdtest"
	"github.com/vspec/catalogue/loader"
	"github.com/vspec/catalogue/loader/loadertest"
)

// smallServer serves a 1 % catalogue with unlimited limits and returns its
// address, a free key, an apify key, the service and the snapshot bytes.
func smallServer(t *testing.T) (addr, freeKey, apifyKey string, svc *httpd.Service, file []byte) {
	t.Helper()
	file, err := loadertest.Snapshot(gen.Options{Scale: 0.01, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := loader.FromBytes(file)
	if err != nil {
		t.Fatal(err)
	}
	opts := serviceOptions(t)
	freeKey = newKey(t, opts.Keys, access.PlanFree, "test")
	apifyKey = newKey(t, opts.Keys, access.PlanApify, "test")
	if svc, err = httpd.New(cat, opts); err != nil {
		t.Fatal(err)
	}
	return httpdtest.Serve(t, svc), freeKey, apifyKey, svc, file
}

// discoverIDs discovers the ids of the mix at addr with key.
func discoverIDs(t *testing.T, addr, key string) MixIDs {
	t.Helper()
	ids, err := DiscoverIDs(addr, key)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkRoutes calls each of routes once at addr with key and fails t on a
// route whose Path is not its first path, on a failed call (but those
// expected says are expected: nil expects none) and on a name of want that
// no route has; mix names the routes in the messages.
func checkRoutes(t *testing.T, mix, addr, key string, routes []Route, want []string, expected func(Route, error) bool) {
	t.Helper()
	names := map[string]bool{}
	for _, rt := range routes {
		names[rt.Name] = true
		if rt.Path == "" || rt.Path != rt.paths()[0] {
			t.Errorf("%s: path %q, paths %q", rt.Name, rt.Path, rt.Paths)
		}
		cfg := Config{Addr: addr, Key: key, Concurrency: 1}
		if _, err := check(cfg, cfg.client(), rt); err != nil && (expected == nil || !expected(rt, err)) {
			t.Errorf("%v", err)
		}
	}
	for _, w := range want {
		if !names[w] {
			t.Errorf("%s lacks %q", mix, w)
		}
	}
}

// TestMixAgainstServer discovers the ids through the API of a real server
// (small catalogue) with a token key and with a raw-id key, and checks
// that every route of the mix answers 200, except search while the server
// has no /v1/search (404, skipped by the runs).
func TestMixAgainstServer(t *testing.T) {
	addr, freeKey, apifyKey, svc, file := smallServer(t)
	for _, key := range []string{freeKey, apifyKey} {
		ids := discoverIDs(t, addr, key)
		if ids.BrandSlug != "volkswagen" || ids.VariantID == "" || ids.GenerationID == "" || len(ids.Compare) != 4 {
			t.Fatalf("ids %+v", ids)
		}
		raw := key == apifyKey
		if strings.HasPrefix(ids.VariantID, "v_") == raw || strings.HasPrefix(ids.Compare[3], "v_") == raw {
			t.Errorf("ids %+v for an apify key: %v", ids, raw)
		}
		checkRoutes(t, "the mix", addr, key, Mix(ids), []string{"variant detail", "specs en", "specs de", "specs ar imperial", "brands", "models",
			"generation variants", RouteFilter2, RouteFilter3, "compare 4", RouteSearchPrefixes, RouteSearchTypos},
			func(rt Route, err error) bool { return strings.HasPrefix(rt.Name, "search") && IsNotFound(err) })
	}
	// A short reload run on the real server: no request fails across swaps.
	ids, _ := DiscoverIDs(addr, freeKey)
	var routes []Route
	for _, rt := range Mix(ids) {
		if rt.Name == "variant detail" || rt.Name == "specs de" || rt.Name == RouteFilter2 || rt.Name == RouteSearchTypos {
			routes = append(routes, rt)
		}
	}
	decode := func() (*engine.Catalogue, error) { return loader.FromBytes(file) }
	plan := ReloadPlan{Every: 150 * time.Millisecond, Window: 150 * time.Millisecond}
	r, err := RunUnderReload(Config{Addr: addr, Key: freeKey, Concurrency: 4, Duration: 1500 * time.Millisecond}, routes, plan, decode, svc.Install)
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors != 0 || len(r.Swaps) == 0 || r.Requests < 100 {
		t.Errorf("reload run: %d requests, %d failed, %d swaps: %v", r.Requests, r.Errors, len(r.Swaps), r.FirstErrors)
	}
}

func TestHostPort(t *testing.T) {
	f := checkFunc(t, "HostPort", HostPort)
	f("127.0.0.1:8080", "127.0.0.1:8080")
	f("http://127.0.0.1:8080", "127.0.0.1:8080")
	f("http://api.example:80/v1", "api.example:80")
	f("", "")
}

func TestFilterCaseQuery(t *testing.T) {
	if got := Filters2[0].Query(); got != "fuel=diesel&power_min=150" {
		t.Errorf("Filters2[0] = %q", got)
	}
	if got := Filters3[0].Query(); got != "fuel=diesel&power_min=150&body=suv" {
		t.Errorf("Filters3[0] = %q", got)
	}
	rts := Mix(MixIDs{BrandSlug: "b", GenerationID: "g_1", VariantID: "v_1", Compare: []string{"v_1", "v_2", "v_3", "v_4"}})
	byName := map[string]Route{}
	for _, rt := range rts {
		byName[rt.Name] = rt
	}
	if p := byName["compare 4"].Path; p != "/v1/compare?ids=v_1,v_2,v_3,v_4" {
		t.Errorf("compare path %q", p)
	}
	if p := byName[RouteSearchPrefixes].Paths; len(p) != len(SearchPrefixes) || p[2] != "/v1/search?q=bmw+3" {
		t.Errorf("search paths %q", p)
	}
	if p := byName[RouteFilter3].Path; p != "/v1/variants?fuel=diesel&power_min=150&body=suv" {
		t.Errorf("filter path %q", p)
	}
}

// TestPinnedMixAgainstServer checks that every route of the pinned wrk run
// (PinnedMix, with phrases from DiscoverQueries) answers 200 on a real
// server, with a token key and with a raw-id key.
func TestPinnedMixAgainstServer(t *testing.T) {
	addr, freeKey, apifyKey, _, _ := smallServer(t)
	for _, key := range []string{freeKey, apifyKey} {
		ids := discoverIDs(t, addr, key)
		if ids.ModelID == "" {
			t.Fatalf("ids %+v: no model", ids)
		}
		qs, err := DiscoverQueries(addr, key, 40)
		if err != nil {
			t.Fatal(err)
		}
		// The 1 % catalogue has 7 brands and 14 models of them.
		if len(qs) < 10 || len(qs) > 40 || qs[0] != "Volkswagen" || qs[len(qs)-1] == "Volkswagen" {
			t.Errorf("queries %q", qs)
		}
		if few, err := DiscoverQueries(addr, key, 5); err != nil || len(few) != 5 {
			t.Errorf("5 queries: %q, %v", few, err)
		}
		seen := map[string]bool{}
		for _, q := range qs {
			if seen[q] {
				t.Errorf("query %q twice", q)
			}
			seen[q] = true
		}
		checkRoutes(t, "the pinned mix", addr, key, PinnedMix(ids, qs), []string{"variant detail", "specs de", "brands", "models", "generations", "generation variants",
			"images", "prices", "spec catalogue", RouteFilter2, "compare 4", RouteSearchCached, RouteSearchUncached}, nil)
		for _, rt := range PinnedMix(ids, nil) {
			if rt.Name == RouteSearchUncached {
				t.Errorf("%s without queries", rt.Name)
			}
		}
	}
}
