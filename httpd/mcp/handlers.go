package mcp

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vspec/catalogue/httpd"
)

// The tool handlers turn typed arguments into the query of the REST twin;
// run (call.go) answers it.

// tools holds the tool handlers.
type tools struct {
	svc *httpd.Service
}

func (t *tools) search(ctx context.Context, req *sdk.CallToolRequest, in SearchInput) (*sdk.CallToolResult, any, error) {
	q := url.Values{"q": {in.Query}}
	page(q, in.Locale, in.Limit, in.Cursor)
	return t.run(ctx, req, ToolSearch, httpd.Call{Op: httpd.OpSearch, Query: q})
}

func (t *tools) filter(ctx context.Context, req *sdk.CallToolRequest, in FilterInput) (*sdk.CallToolResult, any, error) {
	q := url.Values{}
	set := func(name, v string) {
		if v != "" {
			q.Set(name, v)
		}
	}
	num := func(name string, v *int64) {
		if v != nil {
			q.Set(name, strconv.FormatInt(*v, 10))
		}
	}
	set("fuel", in.Fuel)
	set("body", in.Body)
	set("drive", in.Drive)
	num("power_min", in.PowerMin)
	num("power_max", in.PowerMax)
	num("price_max", in.PriceMax)
	num("year", in.Year)
	if in.EV {
		q.Set("ev", "true")
	}
	page(q, in.Locale, in.Limit, in.Cursor)
	return t.run(ctx, req, ToolFilter, httpd.Call{Op: httpd.OpFilter, Query: q})
}

func (t *tools) specs(ctx context.Context, req *sdk.CallToolRequest, in SpecsInput) (*sdk.CallToolResult, any, error) {
	q := url.Values{}
	page(q, in.Locale, 0, "")
	if in.Units != "" {
		q.Set("units", in.Units)
	}
	return t.run(ctx, req, ToolSpecs, httpd.Call{Op: httpd.OpSpecs, ID: string(in.ID), Query: q})
}

func (t *tools) compare(ctx context.Context, req *sdk.CallToolRequest, in CompareInput) (*sdk.CallToolResult, any, error) {
	ids := make([]string, len(in.IDs))
	for i, id := range in.IDs {
		if strings.ContainsRune(string(id), ',') {
			return nil, nil, fmt.Errorf("ids[%d] is %s, which holds a comma: give each id as its own array element", i, quote(string(id)))
		}
		ids[i] = string(id)
	}
	q := url.Values{"ids": {strings.Join(ids, ",")}}
	page(q, in.Locale, 0, "")
	if in.Units != "" {
		q.Set("units", in.Units)
	}
	return t.run(ctx, req, ToolCompare, httpd.Call{Op: httpd.OpCompare, Query: q})
}

// page sets the common query parameters that were given.
func page(q url.Values, locale string, limit int, cursor string) {
	if locale != "" {
		q.Set("locale", locale)
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
}
