package export

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/engine"
)

var everything = Options{Modules: []string{"everything"}, Languages: []string{"all"}}

// TestSpecModules proves that every spec type belongs to exactly one
// module: its module is one of the nine data modules of the price table,
// and an export of everything puts each spec key in exactly one table,
// the table of its module.
func TestSpecModules(t *testing.T) {
	v := vocab.Default()
	known := DataModules()
	perModule := map[string]int{}
	for _, s := range v.Specs {
		if !slices.Contains(known, s.Module) {
			t.Errorf("spec %s: module %q is not a data module of the price table", s.Key, s.Module)
		}
		perModule[s.Module]++
	}
	for _, m := range known {
		if perModule[m] == 0 {
			t.Errorf("module %s has no spec type", m)
		}
	}
	c, _, _ := quarterPair(t)
	p, err := NewPlan(c, everything, false)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, tb := range p.Tables {
		if tb.Role != RoleData {
			continue
		}
		for _, cl := range tb.Cols {
			if _, ok := c.SpecIndex(cl.Name); !ok {
				continue
			}
			if prev, dup := seen[cl.Name]; dup {
				t.Errorf("spec %s in tables %s and %s", cl.Name, prev, tb.Name)
			}
			seen[cl.Name] = tb.Name
			k, _ := c.SpecIndex(cl.Name)
			if tb.Module != c.Specs[k].Module || cl.Module != tb.Module {
				t.Errorf("spec %s of module %s is in table %s of module %s", cl.Name, c.Specs[k].Module, tb.Name, tb.Module)
			}
		}
	}
	if len(seen) != len(c.Specs) {
		t.Errorf("%d of %d spec types exported", len(seen), len(c.Specs))
	}

	// A snapshot whose vocabulary names an unknown module is refused.
	bad := *c
	bad.Specs = slices.Clone(c.Specs)
	bad.Specs[3].Module = "gossip"
	if _, err := NewPlan(&bad, everything, false); err == nil || !strings.Contains(err.Error(), "gossip") {
		t.Errorf("unknown module: %v", err)
	}
}

func exportTo(t *testing.T, c *engine.Catalogue, opts Options, wo WriteOptions) (string, *Manifest) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "export")
	m, err := Export(c, opts, dir, wo)
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// TestExportDeterministic: two runs, with different numbers of workers,
// give the same bytes.
func TestExportDeterministic(t *testing.T) {
	c, _, _ := quarterPair(t)
	a, _ := exportTo(t, c, everything, WriteOptions{Workers: 1})
	b, _ := exportTo(t, c, everything, WriteOptions{Workers: 4})
	sameDirs(t, a, b)
}

// readCSV parses a CSV file strictly: RFC 4180, the same number of fields
// on every line, CRLF line ends, valid UTF-8.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != bytes.Count(b, []byte("\r\n")) || !bytes.HasSuffix(b, []byte("\r\n")) {
		t.Errorf("%s: lines do not all end in CRLF", path)
	}
	r := csv.NewReader(bytes.NewReader(b))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			t.Fatalf("%s line %d: %v", path, len(out)+1, err)
		}
		out = append(out, m)
	}
	return out
}

// TestExportLayout checks every file against the manifest and each
// table's CSV against its JSON Lines, and spot-checks values against the
// catalogue.
func TestExportLayout(t *testing.T) {
	c, _, _ := quarterPair(t)
	var calls, last, lastTotal int
	dir, m := exportTo(t, c, everything, WriteOptions{Progress: func(done, total int) { calls++; last, lastTotal = done, total }})
	if calls == 0 || last != lastTotal {
		t.Errorf("progress: %d calls, last %d of %d", calls, last, lastTotal)
	}
	files := readDir(t, dir)
	if len(files) != len(m.Files)+1 {
		t.Errorf("%d files on disk, %d in the manifest (+ manifest.json)", len(files), len(m.Files))
	}
	for _, f := range m.Files {
		b, ok := files[f.Path]
		sum := sha256.Sum256(b)
		if !ok || int64(len(b)) != f.Bytes || hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Errorf("%s: on disk %v, %d bytes; manifest says %d bytes, sha256 %s", f.Path, ok, len(b), f.Bytes, f.SHA256)
		}
	}
	if m.Snapshot.Identity != c.Meta.Identity || m.Share != 1 || len(m.Options.Languages) != 20 || len(m.Options.Modules) != 10 {
		t.Errorf("manifest: %+v", m)
	}
	wantTables := []string{"brands", "models", "generations", "variants", "engine_performance", "dimensions_weights", "consumption_emissions",
		"ev_hybrid", "equipment", "service_costs", "list_prices", "scores_costs", "images", "confidence", "dictionary", "value_labels", "coverage"}
	var got []string
	rows := map[string]int{}
	for _, ti := range m.Tables {
		got = append(got, ti.Name)
		rows[ti.Name] = ti.Rows
	}
	if !slices.Equal(got, wantTables) {
		t.Errorf("tables %v, want %v", got, wantTables)
	}
	readme := string(files["README.txt"])
	for _, s := range []string{c.Meta.Identity, "csv/TABLE.csv", "RFC 4180", "value_labels", "coverage", "\"op\":\"changed\""} {
		if !strings.Contains(readme, s) {
			t.Errorf("README.txt lacks %q", s)
		}
	}

	// CSV and JSON Lines hold the same rows.
	for _, name := range wantTables {
		recs := readCSV(t, filepath.Join(dir, "csv", name+".csv"))
		lines := readJSONL(t, filepath.Join(dir, "jsonl", name+".jsonl"))
		if len(recs)-1 != len(lines) || len(lines) != rows[name] {
			t.Fatalf("%s: %d CSV rows, %d JSON lines, manifest %d", name, len(recs)-1, len(lines), rows[name])
		}
		header := recs[0]
		for i, rec := range recs[1:] {
			obj := lines[i]
			n := 0
			for j, cell := range rec {
				v, ok := obj[header[j]]
				if cell == "" {
					if ok {
						t.Fatalf("%s row %d: %s is empty in CSV but %v in JSON", name, i+1, header[j], v)
					}
					continue
				}
				n++
				if s := jsonText(v); s != cell {
					t.Fatalf("%s row %d: %s is %q in CSV, %q in JSON", name, i+1, header[j], cell, s)
				}
			}
			if n != len(obj) {
				t.Fatalf("%s row %d: JSON has keys the CSV lacks", name, i+1)
			}
		}
	}

	// Spot checks against the catalogue.
	variants := readCSV(t, filepath.Join(dir, "csv", "variants.csv"))
	if len(variants)-1 != len(c.VarID) || len(readCSV(t, filepath.Join(dir, "csv", "brands.csv")))-1 != len(c.BrandID) {
		t.Errorf("variants or brands missing")
	}
	eng := readCSV(t, filepath.Join(dir, "csv", "engine_performance.csv"))
	pcol := slices.Index(eng[0], "power_kw")
	pk, _ := c.SpecIndex("power_kw")
	for row := range c.VarID {
		want := ""
		a, b := c.VariantSpecs(uint32(row))
		for j := a; j < b; j++ {
			if int(c.SpecKey[j]) == pk {
				want = strconv.Itoa(int(c.SpecVal[j]))
			}
		}
		if eng[row+1][0] != strconv.Itoa(int(c.VarID[row])) || eng[row+1][pcol] != want {
			t.Fatalf("engine_performance row %d: %v, want id %d power_kw %q", row, eng[row+1][:3], c.VarID[row], want)
		}
	}
	prices := readCSV(t, filepath.Join(dir, "csv", "list_prices.csv"))
	withPrice, withDate := 0, 0
	for row := range c.VarID {
		if c.VarHasPrice[row] && c.VarPriceEUR[row] != 0 {
			withPrice++
			if prices[row+1][1] != strconv.Itoa(int(c.VarPriceEUR[row])) {
				t.Fatalf("price of row %d: %q, want %d", row, prices[row+1][1], c.VarPriceEUR[row])
			}
		} else if prices[row+1][1] != "" {
			t.Fatalf("price of row %d: %q, want empty", row, prices[row+1][1])
		}
		if c.VarHasPrice[row] {
			withDate++
		}
	}
	images := readCSV(t, filepath.Join(dir, "csv", "images.csv"))
	if len(images)-1 != len(c.ImageKey) || !strings.HasPrefix(images[1][3], c.Meta.CDNBase+"/") {
		t.Errorf("images: %d rows for %d images; first %v", len(images)-1, len(c.ImageKey), images[1])
	}
	uncertain := 0
	for _, conf := range c.SpecConf {
		if conf != 0 {
			uncertain++
		}
	}
	if rows["confidence"] != uncertain {
		t.Errorf("confidence: %d rows, want %d", rows["confidence"], uncertain)
	}

	// Coverage agrees with what the tables hold.
	cov := readCSV(t, filepath.Join(dir, "csv", "coverage.csv"))
	find := func(level, table, field string) []string {
		for _, r := range cov[1:] {
			if r[0] == level && r[2] == table && r[3] == field {
				return r
			}
		}
		t.Fatalf("coverage has no row %s %s %s", level, table, field)
		return nil
	}
	if r := find("field", "list_prices", "price_new_eur"); r[4] != strconv.Itoa(len(c.VarID)) || r[5] != strconv.Itoa(withPrice) {
		t.Errorf("coverage of price_new_eur: %v, want %d of %d", r, withPrice, len(c.VarID))
	}
	if r := find("field", "list_prices", "price_as_of"); r[5] != strconv.Itoa(withDate) {
		t.Errorf("coverage of price_as_of: %v, want %d", r, withDate)
	}
	if r := find("field", "variants", "fuel_type"); r[6] != "1.0000" {
		t.Errorf("coverage of fuel_type: %v", r)
	}
	overall := find("overall", "", "")
	if overall[7] != strconv.Itoa(uncertain) {
		t.Errorf("overall uncertain values %s, want %d", overall[7], uncertain)
	}
	for _, mod := range m.Options.Modules {
		find("module", "", "")
		found := false
		for _, r := range cov[1:] {
			found = found || (r[0] == "module" && r[1] == mod)
		}
		if !found {
			t.Errorf("coverage has no row for module %s", mod)
		}
	}

	// The dictionary describes every column of the data tables, with an
	// English description and a label in each language for spec fields.
	dict := readCSV(t, filepath.Join(dir, "csv", "dictionary.csv"))
	described := map[string][]string{}
	for _, r := range dict[1:] {
		described[r[0]+"."+r[1]] = r
	}
	for _, name := range wantTables[:14] {
		recs := readCSV(t, filepath.Join(dir, "csv", name+".csv"))
		for _, h := range recs[0] {
			r, ok := described[name+"."+h]
			if !ok || r[6] == "" || r[7] == "" {
				t.Errorf("dictionary lacks %s.%s or its description or English label: %v", name, h, r)
			}
		}
	}
	if r := described["dimensions_weights.length_mm"]; r[2] != "dimensions_weights" || r[3] != "integer" || r[4] != "mm" || r[12] != "Länge" {
		t.Errorf("dictionary row of length_mm: %v (header %v)", r, dict[0])
	}
	labels := readCSV(t, filepath.Join(dir, "csv", "value_labels.csv"))
	fuels := 0
	for _, r := range labels[1:] {
		if r[0] == "fuel_type" {
			fuels++
		}
	}
	if fuels != 10 || len(labels[0]) != 22 {
		t.Errorf("value_labels: %d fuel values, %d columns", fuels, len(labels[0]))
	}
}

// jsonText renders a decoded JSON value as the CSV writes it.
func jsonText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return "?"
}

// TestExportOptions: a subset of brands, some modules and one language.
func TestExportOptions(t *testing.T) {
	c, _, _ := quarterPair(t)
	opts := Options{Modules: []string{"equipment", "list_prices"}, Languages: []string{"de"}, Brands: []string{"toyota", "volkswagen"}}
	dir, m := exportTo(t, c, opts, WriteOptions{})
	if !slices.Equal(m.Options.Modules, []string{"catalogue", "equipment", "list_prices"}) || !slices.Equal(m.Options.Languages, []string{"en", "de"}) ||
		!slices.Equal(m.Options.Brands, []string{"volkswagen", "toyota"}) {
		t.Errorf("options not normalised: %+v", m.Options)
	}
	vw, _ := c.BrandBySlug("volkswagen")
	ty, _ := c.BrandBySlug("toyota")
	n := 0
	for row := range c.VarID {
		if b := c.VariantBrand(uint32(row)); b == vw || b == ty {
			n++
		}
	}
	variants := readCSV(t, filepath.Join(dir, "csv", "variants.csv"))
	if len(variants)-1 != n || m.Share <= 0 || m.Share >= 1 || m.Share != float64(int(float64(n)/float64(len(c.VarID))*1e6+0.5))/1e6 {
		t.Errorf("subset: %d variants (want %d), share %v", len(variants)-1, n, m.Share)
	}
	for _, r := range variants[1:] {
		if r[3] != strconv.Itoa(int(c.BrandID[vw])) && r[3] != strconv.Itoa(int(c.BrandID[ty])) {
			t.Fatalf("variant of another brand: %v", r)
		}
	}
	files := readDir(t, dir)
	for _, name := range []string{"csv/engine_performance.csv", "csv/images.csv"} {
		if _, ok := files[name]; ok {
			t.Errorf("%s exported without its module", name)
		}
	}
	brands := readCSV(t, filepath.Join(dir, "csv", "brands.csv"))
	if len(brands) != 3 || !slices.Equal(brands[0][6:], []string{"name_en", "name_de"}) {
		t.Errorf("brands: %v", brands)
	}
	dict := readCSV(t, filepath.Join(dir, "csv", "dictionary.csv"))
	if !slices.Equal(dict[0][7:], []string{"label_en", "label_de", "unit_en", "unit_de"}) {
		t.Errorf("dictionary header %v", dict[0])
	}
	// Units as each language writes them: the same symbol or its German.
	german := map[string]string{"hp": "PS", "years": "Jahre", "months": "Monate", "cc": "cm³", "rpm": "U/min"}
	withUnit := 0
	for _, r := range dict[1:] {
		en, de := r[9], r[10]
		if en == "" {
			continue
		}
		withUnit++
		if want, ok := german[en]; ok && de != want || !ok && de != en {
			t.Errorf("%s: unit %q in German is %q", r[1], en, de)
		}
	}
	if withUnit == 0 {
		t.Error("no exported field has a unit")
	}
	// Confidences only for the fields exported.
	for _, r := range readCSV(t, filepath.Join(dir, "csv", "confidence.csv"))[1:] {
		k, _ := c.SpecIndex(r[1])
		if mod := c.Specs[k].Module; mod != Catalogue && mod != Equipment && mod != ListPrices {
			t.Fatalf("confidence of %s (module %s) exported", r[1], mod)
		}
	}

	for _, bad := range []Options{{Brands: []string{"trabant"}}, {Modules: []string{"gossip"}}, {Languages: []string{"nl"}}} {
		if _, err := Export(c, bad, filepath.Join(t.TempDir(), "x"), WriteOptions{}); err == nil {
			t.Errorf("options %+v accepted", bad)
		}
	}
	// The target must be new or empty.
	if _, err := Export(c, opts, dir, WriteOptions{}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("export over an export: %v", err)
	}
	empty := t.TempDir()
	if _, err := Export(c, opts, empty, WriteOptions{}); err != nil {
		t.Errorf("export into an empty directory: %v", err)
	}
}

// TestDiffApply is the update subscription's guarantee: applying the
// change file between two snapshots to the old export gives the new export,
// byte for byte, whatever the options.
func TestDiffApply(t *testing.T) {
	old, new, st := quarterPair(t)
	for _, opts := range []Options{
		everything,
		{Modules: []string{"engine_performance", "images"}, Languages: []string{"de", "fr"}, Brands: []string{"volkswagen", "skoda", "toyota"}},
		{},
	} {
		oldDir, _ := exportTo(t, old, opts, WriteOptions{})
		newDir, _ := exportTo(t, new, opts, WriteOptions{})
		op, err := NewPlan(old, opts, true)
		if err != nil {
			t.Fatal(err)
		}
		np, err := NewPlan(new, opts, false)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "changes.jsonl")
		h, err := DiffFile(op, np, path, WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("options %+v: %+v", opts, h.Counts)
		counts := map[string]TableCounts{}
		for _, c := range h.Counts {
			counts[c.Table] = c
		}
		if h.Total.Added == 0 || h.Total.Changed == 0 || h.Total.Removed == 0 {
			t.Errorf("%+v: counts %+v", opts, h.Total)
		}
		if len(opts.Brands) == 0 {
			v := counts["variants"]
			if v.Removed != st.removedVariants || v.Added != st.addedVariants {
				t.Errorf("variants %+v, want %d removed, %d added", v, st.removedVariants, st.addedVariants)
			}
			if g := counts["generations"]; g.Removed != 1 || g.Added != 1 {
				t.Errorf("generations %+v, want one removed and one added", g)
			}
			// The German relabelling shows only when German was bought.
			want := 0
			if len(opts.Languages) > 0 {
				want = 1
			}
			if counts["brands"].Changed != want || counts["dictionary"].Changed != want || counts["value_labels"].Changed != want {
				t.Errorf("brands, dictionary, value_labels: %+v, want %d changed each", h.Counts, want)
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
		if len(lines)-1 != h.Total.Added+h.Total.Changed+h.Total.Removed {
			t.Errorf("%d record lines for counts %+v", len(lines)-1, h.Total)
		}
		for _, l := range lines[1:] {
			var ch Change
			if err := json.Unmarshal(l, &ch); err != nil || len(ch.Key) == 0 || (ch.Op == OpChanged && len(ch.Fields) == 0) {
				t.Fatalf("record %s: %v", l, err)
			}
		}
		// The in-memory form writes the same bytes.
		var mem bytes.Buffer
		if _, err := Diff(op, np, &mem, WriteOptions{}); err != nil || !bytes.Equal(mem.Bytes(), b) {
			t.Errorf("Diff and DiffFile differ (%v)", err)
		}

		applied := filepath.Join(t.TempDir(), "applied")
		if _, err := Apply(oldDir, bytes.NewReader(b), applied, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		sameDirs(t, applied, newDir)
	}

	// A snapshot against itself: no records, and applying gives the same export.
	p, _ := NewPlan(old, everything, false)
	var buf bytes.Buffer
	h, err := Diff(p, p, &buf, WriteOptions{})
	if err != nil || h.Total != (TableCounts{}) || bytes.Count(buf.Bytes(), []byte("\n")) != 1 {
		t.Errorf("self diff: %+v, %v", h, err)
	}
}

func TestApplyRefuses(t *testing.T) {
	old, new, _ := quarterPair(t)
	opts := Options{Modules: []string{"list_prices"}}
	oldDir, _ := exportTo(t, old, opts, WriteOptions{})
	newDir, _ := exportTo(t, new, opts, WriteOptions{})
	op, _ := NewPlan(old, opts, false)
	np, _ := NewPlan(new, opts, false)
	var changes bytes.Buffer
	if _, err := Diff(op, np, &changes, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir, changes, want string
	}{
		{newDir, changes.String(), "starts from snapshot"},
		{oldDir, "not json\n", "header"},
		{oldDir, strings.Replace(changes.String(), `"modules":["catalogue","list_prices"]`, `"modules":["catalogue"]`, 1), "other options"},
		{oldDir, changes.String() + `{"table":"nope","op":"added","key":{}}` + "\n", "unknown table"},
		{oldDir, changes.String() + `{"table":"variants","op":"removed","key":{"variant_id":1}}` + "\n", "lacks"},
	} {
		_, err := Apply(c.dir, strings.NewReader(c.changes), filepath.Join(t.TempDir(), "out"), WriteOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error with %q, got %v", c.want, err)
		}
	}
}

// TestTextRoundTrip: text with separators, quotes, line breaks and
// non-Latin scripts survives CSV and JSON Lines, and reading the CSV back
// (as Apply does) gives the same cells.
func TestTextRoundTrip(t *testing.T) {
	texts := []string{"plain", "comma, inside", `"quoted"`, "line\nbreak", " leading space", "Ελληνικά, русский, عربي", `back\slash`, "tab\there", "U+2028 \u2028 sep"}
	p := &Plan{}
	var rows []Row
	for i, s := range texts {
		var r Row
		r.int(int64(i + 1))
		r.str(s)
		r.null()
		rows = append(rows, r)
	}
	tb := p.memTable(Schema{Name: "t", Role: RoleData, Keys: 1, Cols: []Column{{Name: "id", Type: TypeInt}, {Name: "text", Type: TypeText}, {Name: "n", Type: TypeNumber}}}, rows)
	root := t.TempDir()
	for _, sub := range []string{"csv", "jsonl"} {
		os.Mkdir(filepath.Join(root, sub), 0o755)
	}
	if _, err := writeTable(root, tb, nil); err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, filepath.Join(root, "csv", "t.csv"))
	lines := readJSONL(t, filepath.Join(root, "jsonl", "t.jsonl"))
	it, err := newApplyIter(&tb.Schema, filepath.Join(root, "csv", "t.csv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var r Row
	for i, s := range texts {
		if recs[i+1][1] != s || lines[i]["text"] != s {
			t.Errorf("%q: CSV %q, JSON %q", s, recs[i+1][1], lines[i]["text"])
		}
		if _, ok := lines[i]["n"]; ok {
			t.Errorf("null written to JSON")
		}
		if ok, err := it.next(&r); !ok || err != nil || string(r.Cell(1)) != s || len(r.Cell(2)) != 0 {
			t.Errorf("%q read back as %q (%v %v)", s, r.Cell(1), ok, err)
		}
	}
	if ok, _ := it.next(&r); ok {
		t.Error("an extra row read back")
	}

	// Keys out of order are refused.
	rows[0], rows[1] = rows[1], rows[0]
	bad := &Table{Schema: tb.Schema, Open: func() (rowIter, error) { return &sliceIter{rows: rows}, nil }}
	if _, err := writeTable(root, bad, nil); err == nil || !strings.Contains(err.Error(), "key") {
		t.Errorf("unordered keys: %v", err)
	}
}
