package bench

import (
	"fmt"
	"html"
	"io"
	"math"
)

// WriteChart writes an SVG bar chart of rows: for each route its
// throughput, the static ceiling's for the same bytes and, where the
// database peer ran the same query, PostgreSQL's. It is written by hand so
// the harness needs no plotting dependency.
func WriteChart(w io.Writer, title string, rows []Row) error {
	const (
		width   = 960
		left    = 190 // route labels
		right   = 70  // value labels past the longest bar
		top     = 64
		barH    = 11
		gap     = 14 // between routes
		bottom  = 40
		axisPad = 4
	)
	var max float64
	for _, r := range rows {
		max = math.Max(max, math.Max(r.RPS, r.Ceiling))
		if r.PG != nil {
			max = math.Max(max, r.PG.TPS)
		}
	}
	if max == 0 {
		max = 1
	}
	max = niceCeil(max)
	plotW := float64(width - left - right)
	x := func(v float64) float64 { return plotW * v / max }
	rowH := func(r Row) int {
		if r.PG != nil {
			return 3*barH + gap
		}
		return 2*barH + gap
	}
	height := top + bottom
	for _, r := range rows {
		height += rowH(r)
	}
	ew := &errWriter{w: w}
	ew.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	ew.printf(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	ew.printf(`<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", 10, html.EscapeString(title))
	legend := []struct{ color, label string }{
		{colorRoute, "catalogue route (req/s, % of ceiling)"}, {colorCeiling, "static handler, same bytes (ceiling)"},
	}
	for _, r := range rows {
		if r.PG != nil {
			legend = append(legend, struct{ color, label string }{colorPG, "PostgreSQL, the query alone (pgbench tps)"})
			break
		}
	}
	lx := 10
	for _, l := range legend {
		ew.printf(`<rect x="%d" y="34" width="12" height="12" fill="%s"/><text x="%d" y="44">%s</text>`+"\n", lx, l.color, lx+16, html.EscapeString(l.label))
		lx += 22 + 7*len(l.label)
	}
	// Grid lines at fifths of the scale.
	plotBottom := height - bottom
	for i := 0; i <= 5; i++ {
		v := max * float64(i) / 5
		gx := float64(left) + x(v)
		ew.printf(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", gx, top-axisPad, gx, plotBottom)
		ew.printf(`<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", gx, plotBottom+16, kilo(v))
	}
	ew.printf(`<text x="%d" y="%d" text-anchor="middle" fill="#555">requests per second</text>`+"\n", left+int(plotW/2), plotBottom+32)
	y := top
	for _, r := range rows {
		bars := []struct {
			v     float64
			color string
			label string
		}{
			{r.RPS, colorRoute, routeLabel(r)},
			{r.Ceiling, colorCeiling, kilo(r.Ceiling)},
		}
		if r.PG != nil {
			bars = append(bars, struct {
				v     float64
				color string
				label string
			}{r.PG.TPS, colorPG, kilo(r.PG.TPS)})
		}
		ew.printf(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+barH+4, html.EscapeString(r.Route))
		for i, b := range bars {
			by := y + i*barH
			ew.printf(`<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %.0f</title></rect>`+"\n", left, by, x(b.v), barH-1, b.color, html.EscapeString(r.Route), b.v)
			ew.printf(`<text x="%.1f" y="%d" font-size="10" fill="#333">%s</text>`+"\n", float64(left)+x(b.v)+4, by+barH-2, b.label)
		}
		y += rowH(r)
	}
	ew.printf("</svg>\n")
	return ew.err
}

// routeLabel is the label of a route's bar: its rate, its share of the
// ceiling and, with a database peer, how many times PostgreSQL's rate.
func routeLabel(r Row) string {
	l := fmt.Sprintf("%s (%.0f%%", kilo(r.RPS), 100*r.Ratio)
	if r.PG != nil && r.PG.TPS > 0 {
		l += fmt.Sprintf(", %.0f× PostgreSQL", r.RPS/r.PG.TPS)
	}
	return l + ")"
}

const (
	colorRoute   = "#2b6cb0"
	colorCeiling = "#b8c2cc"
	colorPG      = "#dd6b20"
)

// niceCeil rounds v up to 1, 2, 2.5 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// kilo formats a rate as 950, 12.5k or 40k.
func kilo(v float64) string {
	switch {
	case v < 1000:
		return fmt.Sprintf("%.0f", v)
	case v < 10000:
		return fmt.Sprintf("%.1fk", v/1000)
	}
	return fmt.Sprintf("%.0fk", v/1000)
}

// errWriter keeps the first write error so the chart's many writes need
// one check.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
