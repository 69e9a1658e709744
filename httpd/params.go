package httpd

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/valyala/fasthttp"
)

// Parameters. Each is declared once below, with its name, type, bounds,
// enumeration and description; an operation's table lists the ones it
// takes. The table drives the REST parser and its 400 details (parse), the
// OpenAPI parameters and the MCP tools' input schemas (schema).

// Params are the typed parameters of one call, filled by parse from the
// query string (REST) or the tool arguments (MCP). Byte slices point into
// the request and live as long as it does.
type Params struct {
	Locale   []byte // as sent; resolved against the catalogue's locales
	Limit    int    // page size, 1..maxLimit
	Cursor   []byte // links.next of the previous page, as sent
	Imperial bool   // units=imperial
	Path     []byte // the {id} or {slug} of the path
	Q        []byte // search text, trimmed

	IDs  [maxCompare][]byte // compare's ids, trimmed
	NIDs int                // how many ids were given

	Fuel, Body, Drive            []byte // filter values as sent
	PowerMin, PowerMax, PriceMax optInt
	Year                         optInt
	EV                           bool

	Token []byte // a demo key's activation token
}

// optInt is an integer parameter that may be absent.
type optInt struct {
	v   int64
	set bool
}

const (
	defaultLimit   = 50
	maxLimit       = 50
	maxCompare     = 4
	maxQueryLength = 200 // characters of q
)

// Param declares one parameter.
type Param struct {
	Name     string // as REST spells it
	Tool     string // as an MCP tool spells it, when that differs
	In       string // "query" or "path"
	Required bool
	// Type, Minimum, MinLength, MaxLength, Pattern, Enum and Default make
	// the JSON Schema of the value; vocab adds the catalogue's values of a
	// vocabulary (as an enumeration where strict, as examples otherwise).
	Type                 string
	Minimum              int64 // 0: none
	MinLength, MaxLength int   // 0: none
	Pattern              string
	Enum                 []string
	Default              any
	vocab                vocabulary
	// closed: a value outside the vocabulary is refused (400 listing the
	// allowed ones), compared without case.
	closed      bool
	Description string
	// toolSchema replaces the schema for MCP tools, whose JSON arguments
	// carry a richer type (compare's ids as an array, ev as a boolean).
	toolSchema map[string]any
	// missing is the detail of a required parameter that is absent or
	// blank.
	missing string
	// set stores a value in p, or says what is wrong with it: the end of
	// a sentence that starts with the parameter's name.
	set func(p *Params, v []byte) string
}

// toolName is the name an MCP tool gives the parameter.
func (p *Param) toolName() string {
	if p.Tool != "" {
		return p.Tool
	}
	return p.Name
}

// vocabulary names a list of values the catalogue defines.
type vocabulary uint8

const (
	noVocabulary vocabulary = iota
	locales
	fuels
	bodies
	drives
	bodyLabels // the English labels of bodies, which body also takes
)

var (
	paramLocale = &Param{Name: "locale", In: "query", Type: "string", Default: "en", vocab: locales,
		Description: "The language of labels and enumerated values. Default en; any other value silently falls back to en (meta.locale and Content-Language tell).",
		set:         func(p *Params, v []byte) string { p.Locale = v; return "" }}
	paramLimit = &Param{Name: "limit", In: "query", Type: "integer", Minimum: 1, Default: defaultLimit,
		Description: "Page size, 1 to 50, default 50. Above 50 is clamped to 50; below 1 or not an integer is refused.",
		set: func(p *Params, v []byte) string {
			n, err := strconv.Atoi(string(v))
			if err != nil {
				return "must be an integer from 1 to 50 (values above 50 are clamped to 50)"
			}
			if n < 1 {
				return "must be at least 1 (values above 50 are clamped to 50)"
			}
			p.Limit = min(n, maxLimit)
			return ""
		}}
	paramCursor = &Param{Name: "cursor", In: "query", Type: "string",
		Description: "links.next of the previous page, to get the next page; omit it for the first page. A cursor that cannot be read, or belongs to another list or other parameters, restarts at the first page. The page size may change between pages.",
		set:         func(p *Params, v []byte) string { p.Cursor = v; return "" }}
	paramUnits = &Param{Name: "units", In: "query", Type: "string", Enum: []string{"metric", "imperial"}, Default: "metric",
		Description: "metric (default) or imperial (UK units: in, ft, mi, mph, lb, lb-ft, mpg, mi/kWh, g/mi, cu ft, gal).",
		set: func(p *Params, v []byte) string {
			switch string(v) {
			case "metric":
				p.Imperial = false
			case "imperial":
				p.Imperial = true
			default:
				return "must be metric or imperial"
			}
			return ""
		}}
	paramSlug    = pathParam("slug", "A brand slug.")
	paramModel   = pathParam("id", "A model token (`m_` + 8 hex), or a raw integer id for the apify plan. Undecodable, wrong-kind and unknown ids get the same 404 (403 for a demo key).")
	paramGen     = pathParam("id", "A generation token (`g_` + 8 hex), or a raw integer id for the apify plan.")
	paramVariant = variantID()
	paramSearchQ = &Param{Name: "q", Tool: "query", In: "query", Required: true, Type: "string", MinLength: 1, MaxLength: maxQueryLength,
		Description: "What to look for: a brand, a model or a variant name, or words of them (typos are tolerated), e.g. \"golf gti\" or \"tesla model 3\"; 1 to 200 characters.",
		missing:     "is required: the text to search for, at least one character",
		set: func(p *Params, v []byte) string {
			p.Q = bytes.TrimSpace(v)
			if n := utf8.RuneCount(p.Q); n > maxQueryLength {
				return "is " + strconv.Itoa(n) + " characters long; at most 200 are searched"
			}
			return ""
		}}
	paramIDs = &Param{Name: "ids", In: "query", Required: true, Type: "string",
		Description: "2 to 4 variant ids, in the order to compare them (repeating an id is allowed). In the query: separated by commas, spaces after commas allowed.",
		toolSchema: map[string]any{"type": "array", "minItems": 2, "maxItems": maxCompare,
			"items": map[string]any{"anyOf": []any{map[string]any{"type": "string", "minLength": 1}, map[string]any{"type": "integer", "minimum": 1}}}},
		missing: "is required: 2 to 4 variant ids separated by commas",
		set: func(p *Params, v []byte) string {
			p.NIDs = 0
			for part := range bytes.SplitSeq(v, []byte(",")) {
				if p.NIDs == maxCompare {
					return "must hold 2 to 4 variant ids separated by commas; it holds more than 4"
				}
				p.IDs[p.NIDs] = bytes.TrimSpace(part)
				p.NIDs++
			}
			if len(bytes.TrimSpace(v)) == 0 {
				p.NIDs = 0 // blank: reported as missing
			} else if p.NIDs < 2 {
				return "must hold 2 to 4 variant ids separated by commas; it holds " + strconv.Itoa(p.NIDs)
			}
			return ""
		}}

	paramFuel  = filterTerm("fuel", fuels, "Fuel type: its slug, in any case; an empty value counts as absent, any other value is refused.", func(p *Params) *[]byte { return &p.Fuel })
	paramBody  = filterTerm("body", bodies, "Body type: its slug or its English label, in any case; an empty value counts as absent, any other value is refused.", func(p *Params) *[]byte { return &p.Body })
	paramDrive = filterTerm("drive", drives, "Drivetrain: its slug, in any case; an empty value counts as absent, any other value is refused.", func(p *Params) *[]byte { return &p.Drive })
	paramPMin  = filterInt("power_min", "Least power, in hp.", func(p *Params) *optInt { return &p.PowerMin })
	paramPMax  = filterInt("power_max", "Most power, in hp.", func(p *Params) *optInt { return &p.PowerMax })
	paramPrice = filterInt("price_max", "Highest Dutch new-car list price, in EUR; variants without a known price never match.", func(p *Params) *optInt { return &p.PriceMax })
	paramYear  = filterInt("year", "A production year the variant's generation covers, e.g. 2021; an ongoing generation covers the years up to the catalogue's sync.", func(p *Params) *optInt { return &p.Year })
	paramEV    = &Param{Name: "ev", In: "query", Type: "string", Enum: nil, toolSchema: map[string]any{"type": "boolean"},
		Description: "true keeps battery-electric variants only; any other value is ignored.",
		set:         func(p *Params, v []byte) string { p.EV = string(v) == "true"; return "" }}
)

// The parameter tables of the operations.
var (
	verifyParams = []*Param{{Name: "t", In: "query", Required: true, Type: "string", Pattern: "^[0-9a-f]{48}$",
		Description: "The activation token: 48 lowercase hexadecimal characters.",
		set:         func(p *Params, v []byte) string { p.Token = v; return "" }}}
	localeOnly  = []*Param{paramLocale}
	listParams  = []*Param{paramLocale, paramLimit, paramCursor}
	specsParams = []*Param{paramVariant, paramLocale, paramUnits}
)

// variantID declares the {id} of a variant, which an MCP tool takes as a
// string or, for the apify plan, a number.
func variantID() *Param {
	p := pathParam("id", "The variant's id: a variant token (`v_` + 8 hex) as search and filter results give it (variant_id), or a raw integer id for the apify plan.")
	p.toolSchema = map[string]any{"anyOf": []any{map[string]any{"type": "string", "minLength": 1}, map[string]any{"type": "integer", "minimum": 1}}}
	return p
}

func pathParam(name, description string) *Param {
	return &Param{Name: name, In: "path", Required: true, Type: "string", MinLength: 1, Description: description,
		set: func(p *Params, v []byte) string { p.Path = v; return "" }}
}

// filterTerm declares a filter on a vocabulary; an empty value is no
// filter.
func filterTerm(name string, v vocabulary, description string, field func(*Params) *[]byte) *Param {
	return &Param{Name: name, In: "query", Type: "string", vocab: v, closed: true, Description: description,
		set: func(p *Params, v []byte) string { *field(p) = v; return "" }}
}

// filterInt declares an integer filter; an empty value is no filter.
func filterInt(name, description string, field func(*Params) *optInt) *Param {
	return &Param{Name: name, In: "query", Type: "integer", Description: description,
		set: func(p *Params, v []byte) string {
			if len(v) == 0 {
				return ""
			}
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return "must be an integer"
			}
			*field(p) = optInt{n, true}
			return ""
		}}
}

// parse fills p from args, the parameters as named by REST (tool false)
// or an MCP tool (tool true), and refuses, naming it, a parameter the
// table does not hold, one given twice, a value its declaration refuses
// (a closed one outside vocab) and a required one absent or blank. Path parameters are set by the REST
// adapter from the path before.
func parse(table []*Param, p *Params, args *fasthttp.Args, tool bool, vocab *vocabularies) *Error {
	p.Limit = defaultLimit
	var seen uint32 // bit i: table[i] was given
	for k, v := range args.All() {
		i := paramIndex(table, k, tool)
		if i < 0 {
			return badParam(k, tool, "is not a parameter of this endpoint"+accepted(table, tool))
		}
		if seen&(1<<i) != 0 {
			return badParam(k, tool, "is given more than once")
		}
		seen |= 1 << i
		if !vocab.allows(table[i], v) {
			return badParam(k, tool, "is "+quoted(v)+", which it does not take; it takes "+strings.Join(vocab[table[i].vocab], ", ")+" (in any case)")
		}
		if what := table[i].set(p, v); what != "" {
			return badParam(k, tool, what)
		}
	}
	for i, d := range table {
		if !d.Required || d.missing == "" {
			continue
		}
		if seen&(1<<i) == 0 || d.blank(p) {
			return badParam([]byte(d.nameIn(tool)), tool, d.missing)
		}
	}
	return nil
}

// blank reports that a required query parameter holds nothing.
func (d *Param) blank(p *Params) bool {
	switch d {
	case paramSearchQ:
		return len(p.Q) == 0
	case paramIDs:
		return p.NIDs == 0
	}
	return false
}

func (d *Param) nameIn(tool bool) string {
	if tool {
		return d.toolName()
	}
	return d.Name
}

func paramIndex(table []*Param, name []byte, tool bool) int {
	for i, d := range table {
		if (tool || d.In == "query") && d.nameIn(tool) == string(name) {
			return i
		}
	}
	return -1
}

// accepted lists the parameters of a table for a detail.
func accepted(table []*Param, tool bool) string {
	var names []string
	for _, d := range table {
		if tool || d.In == "query" {
			names = append(names, d.nameIn(tool))
		}
	}
	if len(names) == 0 {
		return "; it takes no query parameters"
	}
	return "; it accepts " + strings.Join(names, ", ")
}

// badParam is the 400 of a parameter.
func badParam(name []byte, tool bool, what string) *Error {
	kind := "query parameter"
	if tool {
		kind = "argument"
	}
	return badRequest("The " + kind + " " + quoted(name) + " " + what + ".")
}

// schema is the JSON Schema of a parameter's value, with the catalogue's
// vocabularies; for an MCP tool, its richer form where it has one.
func (d *Param) schema(v vocabularies, tool bool) map[string]any {
	if tool && d.toolSchema != nil {
		s := map[string]any{"description": d.Description}
		for k, x := range d.toolSchema {
			s[k] = x
		}
		return s
	}
	s := map[string]any{"type": d.Type}
	if d.Minimum != 0 {
		s["minimum"] = d.Minimum
	}
	if d.MinLength != 0 {
		s["minLength"] = d.MinLength
	}
	if d.MaxLength != 0 {
		s["maxLength"] = d.MaxLength
	}
	if d.Pattern != "" {
		s["pattern"] = d.Pattern
	}
	if d.Enum != nil {
		s["enum"] = d.Enum
	}
	if d.Default != nil {
		s["default"] = d.Default
	}
	desc := d.Description
	if values := v[d.vocab]; len(values) > 0 {
		if d.closed {
			s["enum"] = values
		} else {
			s["examples"] = values
		}
		desc += " One of: " + strings.Join(values, ", ") + "."
	}
	if tool {
		s["description"] = desc
	}
	return s
}

// vocabularies are the values of each vocabulary in a catalogue.
type vocabularies [bodyLabels + 1][]string

// allows reports whether a closed parameter takes v: a value of its
// vocabulary, or for body an English body label, in any case.
func (v *vocabularies) allows(d *Param, value []byte) bool {
	if !d.closed || len(value) == 0 || v == nil {
		return true
	}
	return anyEqualFold(v[d.vocab], value) || (d.vocab == bodies && anyEqualFold(v[bodyLabels], value))
}

// anyEqualFold reports whether list holds value, compared as EqualFold does.
func anyEqualFold(list []string, value []byte) bool {
	for _, s := range list {
		if strings.EqualFold(s, string(value)) {
			return true
		}
	}
	return false
}

// openAPIParameters renders a table as OpenAPI parameter objects.
func openAPIParameters(table []*Param, v vocabularies) []map[string]any {
	var out []map[string]any
	for _, d := range table {
		desc := d.Description
		if values := v[d.vocab]; len(values) > 0 {
			desc += " One of: " + strings.Join(values, ", ") + "."
		}
		o := map[string]any{"name": d.Name, "in": d.In, "description": desc, "schema": d.schema(v, false)}
		if d.Required {
			o["required"] = true
		}
		out = append(out, o)
	}
	return out
}

// toolInputSchema renders a table as the input schema of an MCP tool.
func toolInputSchema(table []*Param, v vocabularies) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, d := range table {
		props[d.toolName()] = d.schema(v, true)
		if d.Required {
			required = append(required, d.toolName())
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}
