package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vspec/catalogue/bench"
	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/index/trigram"
)

func TestWriteVariants(t *testing.T) {
	set, err := gen.Generate(vocab.Default(), gen.Options{Scale: 0.01, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteVariants(&buf, set); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(set.Variants) {
		t.Fatalf("%d lines for %d variants", len(lines), len(set.Variants))
	}
	fuels := map[string]bool{}
	nulls := 0
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 9 {
			t.Fatalf("%d fields in %q", len(f), l)
		}
		if f[1] != strings.ToLower(f[1]) || strings.ContainsAny(f[1], "ŠšëéÉ") {
			t.Errorf("search text not folded: %q", f[1])
		}
		fuels[f[2]] = true
		if f[8] == `\N` {
			nulls++
		}
	}
	if !fuels["diesel"] || !fuels["petrol"] || !fuels["electric"] || fuels[`\N`] {
		t.Errorf("fuel slugs %v", fuels)
	}
	if nulls == 0 || nulls == len(lines) {
		t.Errorf("%d of %d generations in production", nulls, len(lines))
	}
	// The first line is the first variant, brand name first.
	v := set.Variants[0]
	b := set.Brands[set.Models[set.Generations[v.Generation].Model].Brand]
	if want := fmt.Sprintf("%d\t%s ", v.ID, trigram.Fold(b.Name)); !strings.HasPrefix(lines[0], want) {
		t.Errorf("first line %q, brand %s", lines[0], b.Name)
	}
	if got := string(appendCopyText(nil, "a\\b\tc\nd")); got != `a\\b\tc\nd` {
		t.Errorf("appendCopyText: %q", got)
	}
}

func TestScripts(t *testing.T) {
	dir := t.TempDir()
	if err := WriteScripts(dir); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(dir, "scripts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]bool{}
	for _, rt := range bench.Mix(bench.MixIDs{VariantID: "v_1", Compare: []string{"v_1", "v_2"}}) {
		routes[rt.Name] = true
	}
	for _, l := range strings.Split(strings.TrimSpace(string(index)), "\n") {
		file, route, _ := strings.Cut(l, "\t")
		if !routes[route] {
			t.Errorf("script %s stands beside %q, which is no route of the mix", file, route)
		}
		sql, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(sql), `\set i random(1, `) || !strings.Contains(string(sql), "[:i]") {
			t.Errorf("%s:\n%s", file, sql)
		}
	}
	s := Scripts()
	if !strings.Contains(s[0].SQL, "'skoda oct'") || !strings.Contains(s[0].SQL, `<% text ORDER BY word_similarity(`) || !strings.Contains(s[0].SQL, "LIMIT 50;") {
		t.Errorf("search script:\n%s", s[0].SQL)
	}
	if !strings.Contains(s[3].SQL, "AND body = (ARRAY['suv',") || !strings.Contains(s[3].SQL, "power_hp >= (ARRAY[150,200,") || !strings.Contains(s[3].SQL, "ORDER BY id LIMIT 51;") {
		t.Errorf("filter script:\n%s", s[3].SQL)
	}
	if got := sqlTextArray([]string{"it's"}); got != `(ARRAY['it''s']::text[])` {
		t.Errorf("sqlTextArray: %s", got)
	}
}
