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

// keyPageData is what the activation page shows: the pending request
// with its confirming button (Token is the link's), or the key issued.
type keyPageData struct {
	Pending *keyflow.PendingKey
	Token   string
	Key     *keyflow.IssuedKey
	Problem *Error
}

// sendKeyPage answers the activation link in a browser: d, or the
// problem, with the status the JSON answer would have.
func sendKeyPage(ctx *fasthttp.RequestCtx, d keyPageData, p *keyflow.Problem) {
	status := fasthttp.StatusOK
	if p != nil {
		d = keyPageData{Problem: flowError(p)}
		status = p.Status
	}
	var b bytes.Buffer
	if err := keyPage.Execute(&b, d); err != nil {
		b.Reset()
		b.WriteString("<!doctype html><title>Error</title><p>The page could not be rendered.</p>")
		status = fasthttp.StatusInternalServerError
	}
	ctx.SetStatusCode(status)
	ctx.SetContentType("text/html; charset=utf-8")
	ctx.Response.Header.SetCanonical(headerCacheControl, noStore)
	ctx.SetBody(b.Bytes())
}

// The confirming button posts to the link itself (a relative action keeps
// whatever host and path the browser reached it by); the POST carries no
// body. Nothing on the page runs script.
var keyPage = template.Must(template.New("key").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Key}}Your demo key{{else if .Pending}}Activate your demo key{{else}}{{.Problem.Title}}{{end}}</title>
<style>
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;background:#f6f8fa}
main{max-width:40rem;margin:3rem auto;padding:1.5rem;background:#fff;border:1px solid #d0d7de;border-radius:8px}
h1{font-size:1.4rem;margin-top:0}code,pre{font:14px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{background:#f6f8fa;padding:.75rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
button{font:inherit;font-weight:600;padding:.5rem 1.25rem;border:0;border-radius:6px;background:#1f6feb;color:#fff;cursor:pointer}
.key{font-size:1.05rem;font-weight:600}.muted{color:#57606a}
</style></head><body><main>
{{if .Key}}<h1>Your demo key</h1>
<p>Copy it now: it is shown once, and only its hash is kept. A copy was mailed to you.</p>
<pre class=key>{{.Key.APIKey}}</pre>
<p>It reaches {{.Key.Covers}}</p>
<p>Try it:</p>
<pre>curl -H 'X-Api-Key: {{.Key.APIKey}}' '{{.Key.StartHere}}'</pre>
<p class=muted>Send it as the <code>X-Api-Key</code> header or as <code>Authorization: Bearer</code>. For the full catalogue, see <a href="{{.Key.FullCatalogue}}">{{.Key.FullCatalogue}}</a>.</p>
{{else if .Pending}}<h1>Activate your demo key</h1>
<p>A demo key was requested for <strong>{{.Pending.Email}}</strong> on {{.Pending.RequestedAt.Format "2 January 2006, 15:04 MST"}}. This link works until {{.Pending.ExpiresAt.Format "2 January 2006, 15:04 MST"}}.</p>
<form method="post" action="?t={{.Token}}"><button type="submit">Activate my demo key</button></form>
<p class=muted>Opening this page issued nothing: the key is issued when you press the button, shown here once and mailed to you. If you did not ask for a key, close this page.</p>
{{else}}<h1>{{.Problem.Title}}</h1>
<p>{{.Problem.Detail}}</p>
{{end}}</main></body></html>
`))
