package openapi

import (
	"bytes"
	"html/template"

	"github.com/vspec/catalogue/httpd/openapi/reference"
)

// DocsCSP is the Content-Security-Policy of the docs page: scripts from
// this server only (Redoc's bundle, no inline script), the description
// fetched from this server, inline styles (Redoc styles itself with
// styled-components), images and fonts from this server or data: URLs, and
// the search index's worker, which Redoc starts from a blob: URL. Nothing
// is loaded from elsewhere.
const DocsCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
	"connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// DocsPage returns the HTML of /v1/docs: a shell that loads Redoc's
// bundle from this server (reference.Path) and renders /v1/openapi.json
// with it. The options are attributes of the <redoc> element, which the
// bundle reads when it loads, so the page needs no inline script. Without
// JavaScript the page links to the description.
func DocsPage(title, version string) []byte {
	var buf bytes.Buffer
	if err := shell.Execute(&buf, struct{ Title, Version, Script, Theme string }{title, version, "." + reference.Path, docsTheme}); err != nil {
		panic(err) // the template and its data are constants
	}
	return buf.Bytes()
}

// docsTheme sets Redoc's fonts to the system's (the page loads none) and
// its colours to the ones the key pages use.
const docsTheme = `{"colors":{"primary":{"main":"#0969da"}},` +
	`"typography":{"fontSize":"15px","lineHeight":"1.55em","fontFamily":"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",` +
	`"headings":{"fontFamily":"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif","fontWeight":"600"},` +
	`"code":{"fontFamily":"ui-monospace, SFMono-Regular, Menlo, Consolas, monospace","fontSize":"13px","wrap":true}},` +
	`"sidebar":{"width":"270px"},"rightPanel":{"width":"40%"}}`

var shell = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} {{.Version}}</title>
<style>body{margin:0}</style>
</head><body>
<noscript><p style="font:16px/1.5 system-ui,sans-serif;margin:1rem">This reference is rendered by JavaScript (Redoc, served by this server).
The description it renders is <a href="openapi.json">/v1/openapi.json</a>.</p></noscript>
<redoc spec-url="openapi.json" theme="{{.Theme}}" expand-responses="200,202" required-props-first show-object-schema-examples native-scrollbars
 json-sample-expand-level="2" hide-schema-titles="false"></redoc>
<script src="{{.Script}}"></script>
</body></html>
`))
