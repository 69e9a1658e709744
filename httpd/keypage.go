package httpd

import (
	"bytes"
	"html/template"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/keyflow"
)

// A person opens the activation link in a browser: the answer is then a
// page, not JSON (API clients, which do not ask for text/html, still get
// the JSON body). The page is self-contained, as the docs page is.

// wantsHTML reports whether the request asks for a page: a browser's
// Accept names text/html.
func wantsHTML(ctx *fasthttp.RequestCtx) bool {
	return bytes.Contains(ctx.Request.Header.Peek("Accept"), []byte("text/html"))
}

// sendKeyPage answers the activation link in a browser: the key, or what
// went wrong, with the status the JSON answer would have.
func sendKeyPage(ctx *fasthttp.RequestCtx, status int, key *keyflow.IssuedKey, problem *Error) {
	var b bytes.Buffer
	data := struct {
		Key     *keyflow.IssuedKey
		Problem *Error
	}{key, problem}
	if err := keyPage.Execute(&b, data); err != nil {
		b.Reset()
		b.WriteString("<!doctype html><title>Error</title><p>The page could not be rendered.</p>")
		status = fasthttp.StatusInternalServerError
	}
	ctx.SetStatusCode(status)
	ctx.SetContentType("text/html; charset=utf-8")
	ctx.Response.Header.SetCanonical(headerCacheControl, noStore)
	ctx.SetBody(b.Bytes())
}

var keyPage = template.Must(template.New("key").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Key}}Your demo key{{else}}{{.Problem.Title}}{{end}}</title>
<style>
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;background:#f6f8fa}
main{max-width:40rem;margin:3rem auto;padding:1.5rem;background:#fff;border:1px solid #d0d7de;border-radius:8px}
h1{font-size:1.4rem;margin-top:0}code,pre{font:14px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{background:#f6f8fa;padding:.75rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.key{font-size:1.05rem;font-weight:600}.muted{color:#57606a}
</style></head><body><main>
{{if .Key}}<h1>Your demo key</h1>
<p>Copy it now: it is shown once, and only its hash is kept. A copy was mailed to you.</p>
<pre class=key>{{.Key.APIKey}}</pre>
<p>It reaches {{.Key.Covers}}</p>
<p>Try it:</p>
<pre>curl -H 'X-Api-Key: {{.Key.APIKey}}' '{{.Key.StartHere}}'</pre>
<p class=muted>Send it as the <code>X-Api-Key</code> header or as <code>Authorization: Bearer</code>. For the full catalogue, see <a href="{{.Key.FullCatalogue}}">{{.Key.FullCatalogue}}</a>.</p>
{{else}}<h1>{{.Problem.Title}}</h1>
<p>{{.Problem.Detail}}</p>
{{end}}</main></body></html>
`))
