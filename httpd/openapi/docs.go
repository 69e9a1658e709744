package openapi

import (
	"bytes"
	"encoding/json"
	"html/template"
	"regexp"
	"sort"
	"strings"
)

// RenderDocs renders the document as one self-contained HTML page: no
// script, no font, no stylesheet from elsewhere, so it works offline and
// on a phone. Every operation is an element with the id of its operationId.
func RenderDocs(doc obj) ([]byte, error) {
	type param struct{ Name, In, Required, Schema, Desc string }
	type response struct{ Status, Desc string }
	type op struct {
		ID, Method, Path, Summary string
		Desc                      template.HTML
		Params                    []param
		Responses                 []response
		Example                   string
	}
	type group struct {
		Name, Desc string
		Ops        []op
	}
	info := doc["info"].(obj)
	var groups []*group
	byTag := map[string]*group{}
	for _, t := range doc["tags"].([]obj) {
		g := &group{Name: t["name"].(string), Desc: t["description"].(string)}
		groups = append(groups, g)
		byTag[g.Name] = g
	}
	comps := doc["components"].(obj)
	resolveParam := func(p obj) obj {
		if r, ok := p["$ref"].(string); ok {
			return comps["parameters"].(obj)[strings.TrimPrefix(r, "#/components/parameters/")].(obj)
		}
		return p
	}
	resolveResp := func(r obj) obj {
		if ref, ok := r["$ref"].(string); ok {
			return comps["responses"].(obj)[strings.TrimPrefix(ref, "#/components/responses/")].(obj)
		}
		return r
	}
	paths := doc["paths"].(obj)
	var keys []string
	for k := range paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, path := range keys {
		for _, method := range []string{"get", "post"} {
			o, ok := paths[path].(obj)[method].(obj)
			if !ok {
				continue
			}
			x := op{ID: o["operationId"].(string), Method: strings.ToUpper(method), Path: "/v1" + path, Summary: o["summary"].(string), Desc: inline(str(o["description"]))}
			if ps, ok := o["parameters"].([]obj); ok {
				for _, p := range ps {
					p = resolveParam(p)
					sch, _ := json.Marshal(p["schema"])
					req := ""
					if r, _ := p["required"].(bool); r {
						req = "required"
					}
					x.Params = append(x.Params, param{str(p["name"]), str(p["in"]), req, string(sch), str(p["description"])})
				}
			}
			if rb, ok := o["requestBody"].(obj); ok {
				if c, ok := rb["content"].(obj)["application/json"].(obj); ok {
					if ex, ok := c["example"]; ok && ex != nil {
						b, _ := json.MarshalIndent(ex, "", "  ")
						x.Params = append(x.Params, param{"body", "body", "required", "DemoKeyRequest", string(b)})
					}
				}
			}
			var codes []string
			for code := range o["responses"].(obj) {
				codes = append(codes, code)
			}
			sort.Strings(codes)
			for _, code := range codes {
				r := resolveResp(o["responses"].(obj)[code].(obj))
				x.Responses = append(x.Responses, response{code, str(r["description"])})
				if (code == "200" || code == "202") && x.Example == "" {
					if c, ok := r["content"].(obj); ok {
						for _, media := range c {
							if ex, ok := media.(obj)["example"]; ok && ex != nil {
								b, _ := json.MarshalIndent(ex, "", "  ")
								if len(b) > 6000 { // a variant's 190 specs: show the start
									b = append(b[:6000], []byte("\n  …")...)
								}
								x.Example = string(b)
							}
						}
					}
				}
			}
			tag := o["tags"].([]string)[0]
			byTag[tag].Ops = append(byTag[tag].Ops, x)
		}
	}
	var buf bytes.Buffer
	err := page.Execute(&buf, struct {
		Title, Version string
		Intro          template.HTML
		Groups         []*group
	}{str(info["title"]), str(info["version"]), markdown(str(info["description"])), groups})
	return buf.Bytes(), err
}

func str(v any) string { s, _ := v.(string); return s }

var codeSpan = regexp.MustCompile("`([^`]+)`")

// inline escapes text and turns `code` into <code>.
func inline(s string) template.HTML {
	e := template.HTMLEscapeString(s)
	return template.HTML(codeSpan.ReplaceAllString(e, "<code>$1</code>"))
}

// markdown renders the small subset the description uses: ## headings,
// tables, paragraphs, `code`.
func markdown(s string) template.HTML {
	var out strings.Builder
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		switch {
		case l == "":
		case strings.HasPrefix(l, "## "):
			out.WriteString("<h2>" + string(inline(l[3:])) + "</h2>\n")
		case strings.HasPrefix(l, "|"):
			out.WriteString("<div class=scroll><table>")
			first := true
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
				row := strings.Trim(strings.TrimSpace(lines[i]), "|")
				if strings.Trim(row, "-| ") == "" {
					continue
				}
				cell := "td"
				if first {
					cell, first = "th", false
				}
				out.WriteString("<tr>")
				for _, c := range strings.Split(row, "|") {
					out.WriteString("<" + cell + ">" + string(inline(strings.TrimSpace(c))) + "</" + cell + ">")
				}
				out.WriteString("</tr>")
			}
			i--
			out.WriteString("</table></div>\n")
		default:
			out.WriteString("<p>" + string(inline(l)) + "</p>\n")
		}
	}
	return template.HTML(out.String())
}

var page = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} {{.Version}}</title>
<style>
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--code:#f6f8fa;--get:#0969da;--post:#1a7f37}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:60rem;margin:0 auto;padding:1rem}h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.3rem;margin-top:2rem;border-bottom:1px solid var(--line)}
h3{font-size:1.05rem;margin:0}code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--code);border-radius:4px}
code{padding:.1em .3em}pre{padding:.75rem;overflow-x:auto;max-height:28rem}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.92rem}th,td{border:1px solid var(--line);padding:.3rem .45rem;text-align:left;vertical-align:top}
section.op{border:1px solid var(--line);border-radius:6px;padding:.75rem;margin:1rem 0}
.m{display:inline-block;min-width:3.2rem;text-align:center;color:#fff;border-radius:4px;padding:0 .4rem;margin-right:.4rem;font-weight:600;font-size:.85rem}
.GET{background:var(--get)}.POST{background:var(--post)}.path{word-break:break-all}.muted{color:var(--muted)}
nav ul{padding-left:1.2rem}details summary{cursor:pointer;color:var(--muted)}
</style></head><body><main>
<h1>{{.Title}}</h1><p class=muted>Version {{.Version}} · the machine-readable description is at <a href="openapi.json"><code>/v1/openapi.json</code></a></p>
{{.Intro}}
<nav><h2>Operations</h2><ul>{{range .Groups}}{{range .Ops}}<li><a href="#{{.ID}}"><span class="m {{.Method}}">{{.Method}}</span><span class=path>{{.Path}}</span></a></li>{{end}}{{end}}</ul></nav>
{{range .Groups}}<h2>{{.Name}}</h2><p class=muted>{{.Desc}}</p>
{{range .Ops}}<section class=op id="{{.ID}}"><h3><span class="m {{.Method}}">{{.Method}}</span><span class=path>{{.Path}}</span></h3>
<p><strong>{{.Summary}}</strong> <span class=muted>({{.ID}})</span></p><p>{{.Desc}}</p>
{{if .Params}}<div class=scroll><table><tr><th>Parameter</th><th>In</th><th>Schema</th><th>Description</th></tr>
{{range .Params}}<tr><td><code>{{.Name}}</code> {{.Required}}</td><td>{{.In}}</td><td><code>{{.Schema}}</code></td><td>{{.Desc}}</td></tr>{{end}}</table></div>{{end}}
<div class=scroll><table><tr><th>Status</th><th>Meaning</th></tr>{{range .Responses}}<tr><td>{{.Status}}</td><td>{{.Desc}}</td></tr>{{end}}</table></div>
{{if .Example}}<details><summary>Example response</summary><pre>{{.Example}}</pre></details>{{end}}
</section>{{end}}{{end}}
</main></body></html>
`))
