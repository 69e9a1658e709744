// Command pgtsv writes what bench/pg/run.sh loads into PostgreSQL: the
// catalogue's variant rows as a COPY text file and the pgbench scripts of
// the queries the load mix sends to our server (bench.SearchPrefixes,
// bench.SearchTypos, bench.Filters2, bench.Filters3), so that the database
// peer runs the same queries over the same rows.
//
//	go run ./bench/cmd/pgtsv -o DIR
//
// DIR/variants.tsv has one row per variant, tab-separated, \N for null:
//
//	id           the stable id (the server's order for filters)
//	text         the folded search text, "brand display_name" lower-cased
//	             without diacritics (index/trigram.Fold), what the server's
//	             typeahead indexes
//	fuel         fuel slug (diesel, petrol, ...)
//	body         body-type slug (suv, estate, ...)
//	drive        drivetrain slug (front, rear, all)
//	power_hp     or \N
//	price_eur    the list price, \N when none is recorded or the source carries 0
//	year_start   the generation's first production year
//	year_end     its last, \N while in production
//
// DIR/scripts.tsv maps each pgbench script (search_prefixes.sql, ...) to the
// route of the mix that sends the same queries.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vspec/catalogue/bench"
	"github.com/vspec/catalogue/data/dataset"
	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/index/trigram"
)

var (
	outDir = flag.String("o", "", "directory to write variants.tsv, the pgbench scripts and scripts.tsv to; created when missing")
	scale  = flag.Float64("scale", 1, "scale of the generated catalogue (1 is the full catalogue the load run serves); smaller for trials")
	seed   = flag.Uint64("seed", 1, "seed of the generated catalogue (1 is the default catalogue)")
)

func main() {
	flag.Parse()
	if *outDir == "" {
		log.Fatal("pgtsv: -o DIR is required")
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		log.Fatalf("pgtsv: %v", err)
	}
	t0 := time.Now()
	set, err := gen.Generate(vocab.Default(), gen.Options{Scale: *scale, Seed: *seed})
	if err != nil {
		log.Fatalf("pgtsv: cannot generate the catalogue: %v", err)
	}
	if err := writeFile(filepath.Join(*outDir, "variants.tsv"), func(w io.Writer) error { return WriteVariants(w, set) }); err != nil {
		log.Fatalf("pgtsv: %v", err)
	}
	if err := WriteScripts(*outDir); err != nil {
		log.Fatalf("pgtsv: %v", err)
	}
	fmt.Printf("pgtsv: %d variants and %d scripts in %s (%.1f s)\n", len(set.Variants), len(Scripts()), *outDir, time.Since(t0).Seconds())
}

func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fn(w); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f.Close()
}

// WriteVariants writes the variant rows of set in COPY text format.
func WriteVariants(w io.Writer, set *dataset.Set) error {
	slugs := func(group string) []string {
		gi, ok := set.Vocab.EnumIndex(group)
		if !ok {
			return nil
		}
		var s []string
		for _, v := range set.Vocab.Enums[gi].Values {
			s = append(s, v.Slug)
		}
		return s
	}
	fuel, body, drive := slugs("fuel"), slugs("body"), slugs("drive")
	enum := func(names []string, i uint8) string {
		if int(i) < len(names) {
			return names[i]
		}
		return `\N`
	}
	num := func(v int32, ok bool) string {
		if !ok {
			return `\N`
		}
		return strconv.FormatInt(int64(v), 10)
	}
	var line []byte
	for i := range set.Variants {
		v := &set.Variants[i]
		g := &set.Generations[v.Generation]
		b := &set.Brands[set.Models[g.Model].Brand]
		line = strconv.AppendUint(line[:0], uint64(v.ID), 10)
		line = append(line, '\t')
		line = appendCopyText(line, trigram.Fold(b.Name+" "+v.Name))
		for _, f := range []string{
			enum(fuel, v.Fuel), enum(body, v.Body), enum(drive, v.Drive),
			num(v.PowerHP, v.PowerHP != dataset.Null),
			num(v.PriceEUR, v.HasPrice && v.PriceEUR > 0),
			num(int32(g.YearStart), true),
			num(int32(g.YearEnd), g.YearEnd != 0),
		} {
			line = append(line, '\t')
			line = append(line, f...)
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// appendCopyText appends s escaped for COPY's text format.
func appendCopyText(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			dst = append(dst, `\\`...)
		case '\t':
			dst = append(dst, `\t`...)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// Script is one pgbench script and the route of the mix it stands beside.
type Script struct {
	File, Route, SQL string
}

// Scripts returns the pgbench scripts of the mix's queries. Each draws one
// case of the route's fixed list per transaction (\set i random(1, n)) and
// picks it out of array literals; pgbench's simple protocol substitutes i
// as text, so the planner sees constants and uses the indexes as it would
// for the literal query.
func Scripts() []Script {
	search := func(qs []string) string {
		folded := make([]string, len(qs))
		for i, q := range qs {
			folded[i] = trigram.Fold(q)
		}
		arr := sqlTextArray(folded)
		return fmt.Sprintf("\\set i random(1, %d)\n"+
			"SELECT id FROM variants WHERE %s[:i] <%% text ORDER BY word_similarity(%s[:i], text) DESC, text COLLATE \"C\", id LIMIT 50;\n",
			len(qs), arr, arr)
	}
	filter := func(fs []bench.FilterCase) string {
		var fuel, body []string
		var power []string
		for _, f := range fs {
			fuel, body, power = append(fuel, f.Fuel), append(body, f.Body), append(power, strconv.Itoa(f.PowerMin))
		}
		where := fmt.Sprintf("fuel = %s[:i] AND power_hp >= (ARRAY[%s])[:i]", sqlTextArray(fuel), strings.Join(power, ","))
		if fs[0].Body != "" {
			where += fmt.Sprintf(" AND body = %s[:i]", sqlTextArray(body))
		}
		// 51 rows: a page of 50 and whether a next one exists, as the
		// server fetches.
		return fmt.Sprintf("\\set i random(1, %d)\nSELECT id FROM variants WHERE %s ORDER BY id LIMIT 51;\n", len(fs), where)
	}
	return []Script{
		{"search_prefixes.sql", bench.RouteSearchPrefixes, search(bench.SearchPrefixes)},
		{"search_typos.sql", bench.RouteSearchTypos, search(bench.SearchTypos)},
		{"filter2.sql", bench.RouteFilter2, filter(bench.Filters2)},
		{"filter3.sql", bench.RouteFilter3, filter(bench.Filters3)},
	}
}

// sqlTextArray returns ss as a parenthesized SQL text array literal.
func sqlTextArray(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return "(ARRAY[" + strings.Join(q, ",") + "]::text[])"
}

// WriteScripts writes the scripts and scripts.tsv into dir.
func WriteScripts(dir string) error {
	var index strings.Builder
	for _, s := range Scripts() {
		if err := os.WriteFile(filepath.Join(dir, s.File), []byte(s.SQL), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&index, "%s\t%s\n", s.File, s.Route)
	}
	return os.WriteFile(filepath.Join(dir, "scripts.tsv"), []byte(index.String()), 0o644)
}
