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
	GenerationID string   // the brand's Golf's latest generation, or the first model's
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
		cfg := Config{Addr: addr, Key: key}
		req, res := cfg.newRequest(path), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(res)
		if err := fasthttp.DoTimeout(req, res, 10*time.Second); err != nil {
			return fmt.Errorf("cannot discover ids: GET %s: %w", path, err)
		}
		if res.StatusCode() != fasthttp.StatusOK {
			return fmt.Errorf("cannot discover ids: GET %s: status %d: %.200s", path, res.StatusCode(), res.Body())
		}
		if err := json.Unmarshal(res.Body(), dst); err != nil {
			return fmt.Errorf("cannot discover ids: GET %s: %w", path, err)
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
