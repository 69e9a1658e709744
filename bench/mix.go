package bench

import (
	"encoding/json"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// MixIDs are the ids the mix's paths name. They are discovered through the
// API (DiscoverIDs), because tokens differ from one server to another (each
// has its own secret) and an apify key sees raw integer ids instead.
type MixIDs struct {
	BrandSlug    string   // volkswagen when the server has it
	ModelID      string   // the brand's Golf, or its first model
	GenerationID string   // that model's latest generation
	VariantID    string   // that generation's first variant
	Compare      []string // 4 variants of the latest generations of that model
}

// SearchPrefixes are typeahead phrases as a user types them: prefixes of a
// brand, a model, a brand and a model, in any case and with diacritics.
var SearchPrefixes = []string{
	"vo", "golf", "bmw 3", "volksw", "mercedes c", "toyota cor", "peuge", "Škoda Oct", "audi a4 av",
	"tesla model", "renault cl", "ford fo",
}

// SearchTypos are phrases with a typo: a transposition, a dropped, doubled
// or substituted letter, in the brand or in the model.
var SearchTypos = []string{
	"volkswagn golf", "peugoet 308", "mercedez c 220", "bwm 320d", "toyta corolla", "skdoa octavia",
	"renualt clio", "fiat pnada", "opel asrta", "citroen c3 aircros", "hyundia tucson", "volov xc60",
}

// FilterCase is one request of a filter route: conditions on fuel, power
// and (when set) body type.
type FilterCase struct {
	Fuel     string
	PowerMin int
	Body     string // "" for the two-condition route
}

// Query returns the case as the query string of GET /v1/variants.
func (f FilterCase) Query() string {
	q := fmt.Sprintf("fuel=%s&power_min=%d", f.Fuel, f.PowerMin)
	if f.Body != "" {
		q += "&body=" + f.Body
	}
	return q
}

// Filters2 and Filters3 are the cases of the filter routes with two and
// three conditions; the first of each is the route's headline request.
var (
	Filters2 = []FilterCase{
		{"diesel", 150, ""}, {"petrol", 200, ""}, {"electric", 150, ""}, {"hybrid", 120, ""},
		{"diesel", 100, ""}, {"petrol", 300, ""},
	}
	Filters3 = []FilterCase{
		{"diesel", 150, "suv"}, {"petrol", 200, "estate"}, {"electric", 150, "suv"}, {"hybrid", 120, "hatchback"},
		{"diesel", 100, "sedan"}, {"petrol", 300, "coupe"},
	}
)

// Names of the routes that have a database peer (cmd/pgtsv writes one
// pgbench script for each, bench/pg/run.sh runs them).
const (
	RouteFilter2        = "filter fuel+power"
	RouteFilter3        = "filter fuel+power+body"
	RouteSearchPrefixes = "search prefixes"
	RouteSearchTypos    = "search typos"
)

// Mix is the fixed route mix of a load run: variant detail, specs in
// three locales, the brand and model lists, a generation's variants, the
// filter with two and three conditions, compare of 4 and typeahead with
// prefixes and with typos. The search routes answer 404 on a server that
// does not have /v1/search yet; a run skips them.
func Mix(ids MixIDs) []Route {
	v := ids.VariantID
	search := func(qs []string) []string {
		ps := make([]string, len(qs))
		for i, q := range qs {
			ps[i] = "/v1/search?q=" + url.QueryEscape(q)
		}
		return ps
	}
	filters := func(fs []FilterCase) []string {
		ps := make([]string, len(fs))
		for i, f := range fs {
			ps[i] = "/v1/variants?" + f.Query()
		}
		return ps
	}
	routes := []Route{
		{Name: "variant detail", Path: "/v1/variants/" + v},
		{Name: "specs en", Path: "/v1/variants/" + v + "/specs"},
		{Name: "specs de", Path: "/v1/variants/" + v + "/specs?locale=de"},
		{Name: "specs ar imperial", Path: "/v1/variants/" + v + "/specs?locale=ar&units=imperial"},
		{Name: "brands", Path: "/v1/brands"},
		{Name: "models", Path: "/v1/brands/" + ids.BrandSlug + "/models"},
		{Name: "generation variants", Path: "/v1/generations/" + ids.GenerationID + "/variants"},
		{Name: RouteFilter2, Paths: filters(Filters2)},
		{Name: RouteFilter3, Paths: filters(Filters3)},
	}
	if len(ids.Compare) >= 2 {
		routes = append(routes, Route{Name: fmt.Sprintf("compare %d", len(ids.Compare)), Path: "/v1/compare?ids=" + strings.Join(ids.Compare, ",")})
	}
	routes = append(routes,
		Route{Name: RouteSearchPrefixes, Paths: search(SearchPrefixes)},
		Route{Name: RouteSearchTypos, Paths: search(SearchTypos)},
	)
	for i := range routes {
		if routes[i].Path == "" {
			routes[i].Path = routes[i].Paths[0]
		}
	}
	return routes
}

// DiscoverIDs finds the mix's ids by walking the API of the server at addr
// as a client would: GET /v1/brands, /v1/brands/{slug}/models,
// /v1/models/{id}/generations and /v1/generations/{id}/variants. It prefers
// Volkswagen and its Golf, and takes the first brand and model otherwise.
func DiscoverIDs(addr, key string) (MixIDs, error) {
	var ids MixIDs
	get := func(path string, dst any) error {
		if err := getJSON(addr, key, path, dst); err != nil {
			return fmt.Errorf("cannot discover ids: %w", err)
		}
		return nil
	}
	// listIDs gets a list page and returns the field key of each row as
	// path text.
	listIDs := func(path, key string) ([]string, error) {
		var page struct {
			Data []map[string]json.RawMessage `json:"data"`
		}
		if err := get(path, &page); err != nil {
			return nil, err
		}
		out := make([]string, len(page.Data))
		for i, row := range page.Data {
			out[i] = idText(row[key])
		}
		return out, nil
	}
	var brands struct {
		Data []struct{ Slug string } `json:"data"`
	}
	if err := get("/v1/brands?limit=50", &brands); err != nil {
		return ids, err
	}
	if len(brands.Data) == 0 {
		return ids, fmt.Errorf("cannot discover ids: GET /v1/brands: no brand")
	}
	ids.BrandSlug = brands.Data[0].Slug
	for _, b := range brands.Data {
		if b.Slug == "volkswagen" {
			ids.BrandSlug = b.Slug
		}
	}
	var models struct {
		Data []struct {
			ModelID json.RawMessage `json:"model_id"`
			Slug    string          `json:"slug"`
		} `json:"data"`
	}
	if err := get("/v1/brands/"+url.PathEscape(ids.BrandSlug)+"/models?limit=50", &models); err != nil {
		return ids, err
	}
	if len(models.Data) == 0 {
		return ids, fmt.Errorf("cannot discover ids: brand %s has no model", ids.BrandSlug)
	}
	model := idText(models.Data[0].ModelID)
	for _, m := range models.Data {
		if m.Slug == "golf" {
			model = idText(m.ModelID)
		}
	}
	ids.ModelID = model
	gens, err := listIDs("/v1/models/"+model+"/generations?limit=50", "generation_id")
	if err != nil {
		return ids, err
	}
	// Generations come by first production year: the latest is last.
	for i := len(gens) - 1; i >= 0 && len(ids.Compare) < 4; i-- {
		g := gens[i]
		vars, err := listIDs("/v1/generations/"+g+"/variants?limit=50", "variant_id")
		if err != nil {
			return ids, err
		}
		if len(vars) == 0 {
			continue
		}
		if ids.GenerationID == "" {
			ids.GenerationID, ids.VariantID = g, vars[0]
		}
		// Spread the compared cars over the generation's list.
		step := max(1, len(vars)/4)
		for j := 0; j < len(vars) && len(ids.Compare) < 4; j += step {
			ids.Compare = append(ids.Compare, vars[j])
		}
	}
	if ids.VariantID == "" {
		return ids, fmt.Errorf("cannot discover ids: model %s has no variant", model)
	}
	return ids, nil
}

// HostPort returns the host:port of a target given as host:port or as an
// http URL ("http://127.0.0.1:8080/v1" gives "127.0.0.1:8080").
func HostPort(target string) string {
	t := strings.TrimPrefix(target, "http://")
	if i := strings.IndexByte(t, '/'); i >= 0 {
		t = t[:i]
	}
	return t
}

// idText returns a JSON id as path text: a token string unquoted, a raw
// integer id (apify keys) as it is.
func idText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// Names of the routes only the pinned wrk run has (PinnedMix).
const (
	RouteSearchCached   = "search cached"
	RouteSearchUncached = "search uncached"
)

// PinnedMix is the route set of the pinned wrk run (bench/wrk.sh, issue
// 20): the whole Mix, then the routes it leaves out (a model's generations,
// a variant's images and prices, the spec catalogue), "search cached" (the
// first page of "golf" again and again: after the first request every one
// is a hit of the search cache, a popular query) and, when queries is
// not empty, "search uncached", which sends queries in turn and is meant
// for a server started with the search cache off.
func PinnedMix(ids MixIDs, queries []string) []Route {
	routes := Mix(ids)
	v := ids.VariantID
	more := []Route{
		{Name: "images", Path: "/v1/variants/" + v + "/images"},
		{Name: "prices", Path: "/v1/variants/" + v + "/prices"},
		{Name: "spec catalogue", Path: "/v1/specs/catalog"},
	}
	if ids.ModelID != "" {
		more = append([]Route{{Name: "generations", Path: "/v1/models/" + ids.ModelID + "/generations"}}, more...)
	}
	routes = append(routes, more...)
	routes = append(routes, Route{Name: RouteSearchCached, Path: "/v1/search?q=golf"})
	if len(queries) > 0 {
		ps := make([]string, len(queries))
		for i, q := range queries {
			ps[i] = "/v1/search?q=" + url.QueryEscape(q)
		}
		routes = append(routes, Route{Name: RouteSearchUncached, Path: ps[0], Paths: ps})
	}
	return routes
}

// DiscoverQueries returns up to n search phrases made from the catalogue
// of the server at addr, walked through its API: each brand's name, then
// "brand model" for each of its models, brand after brand (GET /v1/brands,
// every page, and /v1/brands/{slug}/models, the first page of 50). None is
// in SearchPrefixes or SearchTypos, so a run of them after the mix still
// misses a search cache; the uncached route runs them against a server
// with the cache off anyway.
func DiscoverQueries(addr, key string, n int) ([]string, error) {
	type brand struct{ Name, Slug string }
	var brands []brand
	cursor := ""
	for {
		var page struct {
			Data  []brand `json:"data"`
			Links struct {
				Next string `json:"next"`
			} `json:"links"`
		}
		path := "/v1/brands?limit=50"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		if err := getJSON(addr, key, path, &page); err != nil {
			return nil, fmt.Errorf("cannot discover queries: %w", err)
		}
		brands = append(brands, page.Data...)
		if page.Links.Next == "" || len(page.Data) == 0 {
			break
		}
		cursor = page.Links.Next
	}
	seen := map[string]bool{}
	for _, q := range SearchPrefixes {
		seen[strings.ToLower(q)] = true
	}
	for _, q := range SearchTypos {
		seen[strings.ToLower(q)] = true
	}
	var qs []string
	add := func(q string) {
		if k := strings.ToLower(q); len(qs) < n && !seen[k] {
			seen[k] = true
			qs = append(qs, q)
		}
	}
	for _, b := range brands {
		add(b.Name)
	}
	for _, b := range brands {
		if len(qs) >= n {
			break
		}
		var models struct {
			Data []struct{ Name string } `json:"data"`
		}
		if err := getJSON(addr, key, "/v1/brands/"+url.PathEscape(b.Slug)+"/models?limit=50", &models); err != nil {
			return nil, fmt.Errorf("cannot discover queries: %w", err)
		}
		for _, m := range models.Data {
			add(b.Name + " " + m.Name)
		}
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("cannot discover queries: no brand")
	}
	return qs, nil
}

// getJSON gets path from the server at addr with key and decodes the
// body, which must come with status 200, into dst.
func getJSON(addr, key, path string, dst any) error {
	cfg := Config{Addr: addr, Key: key}
	req, res := cfg.newRequest(path), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	if err := fasthttp.DoTimeout(req, res, 10*time.Second); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if res.StatusCode() != fasthttp.StatusOK {
		return fmt.Errorf("GET %s: status %d: %.200s", path, res.StatusCode(), res.Body())
	}
	if err := json.Unmarshal(res.Body(), dst); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}
