package loader

// Temporary equivalence harness (not part of the change): records, for many
// damaged payloads and columns, what Decode and engine.New return.

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/engine/query"
)

func eqSummary(c *engine.Catalogue) string {
	h := sha256.New()
	w := func(a ...any) { fmt.Fprintln(h, a...) }
	safe := func(f func() string) (s string) {
		defer func() {
			if r := recover(); r != nil {
				s = "panic"
			}
		}()
		return f()
	}
	w(c.Counts())
	for li, l := range c.Locales {
		i, ok := c.Locale(l)
		w("loc", l, i, ok)
		for k := range c.Specs {
			w(string(c.AppendSpecLabelJSON(nil, li, uint8(k))))
		}
		for g := range c.Groups {
			w(string(c.AppendGroupLabelJSON(nil, li, uint16(g))))
		}
		for g, e := range c.Enums {
			for v := range e.Slugs {
				w(string(c.AppendEnumLabelJSON(nil, li, int16(g), int32(v))))
			}
		}
		for b := range c.BrandID {
			w(string(c.AppendBrandNameJSON(nil, li, uint32(b))), c.BrandDisplayName(li, uint32(b)))
		}
	}
	w(c.LocaleOrEnglish("zz"), c.English())
	for v := range c.VarID {
		w(string(c.AppendVariantNameJSON(nil, uint32(v))), c.VariantModel(uint32(v)), c.VariantBrand(uint32(v)), c.SearchText(uint32(v)))
	}
	for i := 0; i < c.Texts.Len(); i++ {
		w(string(c.AppendTextJSON(nil, int32(i))))
	}
	for b := range c.BrandID {
		r, ok := c.BrandBySlug(c.BrandSlug.String(uint32(b)))
		w("slug", r, ok)
		w(c.BrandModels(uint32(b)))
		w(c.ModelsAfter(uint32(b), nil))
	}
	w(c.BrandsAfter(nil))
	for m := range c.ModelID {
		w(c.ModelGenerations(uint32(m)))
		w(c.GenerationsAfter(uint32(m), nil))
	}
	for g := range c.GenID {
		w(c.GenerationVariants(uint32(g)))
	}
	for _, s := range c.Specs {
		w(c.SpecIndex(s.Key))
	}
	for code := 0; code < 256; code++ {
		w(safe(func() string { return c.FuelSlug(uint8(code)) }), safe(func() string { return c.BodySlug(uint8(code)) }), safe(func() string { return c.DriveSlug(uint8(code)) }), safe(func() string { return c.BodyLabel(0, uint8(code)) }))
	}
	var qs []query.Q
	for _, e := range c.Enums {
		for _, s := range e.Slugs {
			qs = append(qs, query.Term{Field: query.Fuel, Value: s}, query.Term{Field: query.Body, Value: s}, query.Term{Field: query.Drive, Value: s})
		}
	}
	for y := int64(1880); y <= 2105; y += 3 {
		qs = append(qs, query.Range{Field: query.Year, Lo: y, Hi: y})
	}
	qs = append(qs, query.Range{Field: query.Power, Lo: 100, Hi: 200}, query.Range{Field: query.Price, Lo: 10000, Hi: 40000})
	s := engine.GetFilterScratch()
	for _, q := range qs {
		rows, err := c.Filter(nil, q, 0, 1<<30, s)
		w(q, rows, err)
	}
	engine.PutFilterScratch(s)
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}

func eqCols(cols engine.Columns) string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(fmt.Sprintf("%#v", cols))))[:16]
}

func eqRun(p []byte) string {
	cols, err := Decode(Header{Version: FormatVersion}, p)
	if err != nil {
		return "D " + err.Error()
	}
	return "d " + eqCols(cols) + " " + eqNew(cols)
}

func eqNew(cols engine.Columns) string {
	c, err := engine.New(cols)
	if err != nil {
		return "N " + err.Error()
	}
	return "ok " + eqSummary(c)
}

// sectionsOf splits a payload into its sections (header+body bytes).
func sectionsOf(p []byte) [][]byte {
	var out [][]byte
	for off := 0; off+12 <= len(p); {
		n := int(uint64(p[off+4]) | uint64(p[off+5])<<8 | uint64(p[off+6])<<16 | uint64(p[off+7])<<24)
		out = append(out, p[off:off+12+n])
		off += 12 + n
	}
	return out
}

func eqMutations(t *testing.T, w *bytes.Buffer, name string, p []byte, n int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 1))
	fmt.Fprintf(w, "%s intact: %s\n", name, eqRun(p))
	secs := sectionsOf(p)
	join := func(ss [][]byte) []byte { return bytes.Join(ss, nil) }
	for i := range secs {
		// drop, duplicate, swap with next, rename to each other tag, rename to junk
		var ss [][]byte
		ss = append(append(ss, secs[:i]...), secs[i+1:]...)
		fmt.Fprintf(w, "%s drop %d: %s\n", name, i, eqRun(join(ss)))
		ss = nil
		ss = append(append(append(ss, secs[:i+1]...), secs[i]), secs[i+1:]...)
		fmt.Fprintf(w, "%s dup %d: %s\n", name, i, eqRun(join(ss)))
		if i+1 < len(secs) {
			ss = append([][]byte(nil), secs...)
			ss[i], ss[i+1] = ss[i+1], ss[i]
			fmt.Fprintf(w, "%s swap %d: %s\n", name, i, eqRun(join(ss)))
		}
		for j := range secs {
			q := join(secs)
			off := len(join(secs[:i]))
			copy(q[off:], secs[j][:4])
			fmt.Fprintf(w, "%s rename %d->%d: %s\n", name, i, j, eqRun(q))
		}
		q := join(secs)
		copy(q[len(join(secs[:i])):], "XXXX")
		fmt.Fprintf(w, "%s junk %d: %s\n", name, i, eqRun(q))
		// length +-1
		for _, d := range []int{-1, 1, 1000} {
			q := join(secs)
			off := len(join(secs[:i]))
			secLen := len(secs[i]) - 12 + d
			if secLen >= 0 {
				for b := 0; b < 8; b++ {
					q[off+4+b] = byte(uint64(secLen) >> (8 * b))
				}
				fmt.Fprintf(w, "%s len %d %+d: %s\n", name, i, d, eqRun(q))
			}
		}
	}
	fmt.Fprintf(w, "%s trailing: %s\n", name, eqRun(append(append([]byte(nil), p...), 0)))
	for k := 0; k < n; k++ {
		q := append([]byte(nil), p...)
		var desc string
		switch r.IntN(6) {
		case 0:
			i := r.IntN(len(q))
			q[i] ^= 1 << r.IntN(8)
			desc = fmt.Sprint("flip ", i)
		case 1:
			i := r.IntN(len(q))
			q[i] = byte(r.IntN(256))
			desc = fmt.Sprint("set ", i)
		case 2:
			i := r.IntN(len(q) + 1)
			q = q[:i]
			desc = fmt.Sprint("trunc ", i)
		case 3:
			i := r.IntN(len(q))
			j := i + r.IntN(8)
			if j > len(q) {
				j = len(q)
			}
			q = append(q[:i:i], q[j:]...)
			desc = fmt.Sprint("del ", i, j)
		case 4:
			i := r.IntN(len(q))
			q = append(q[:i:i], append([]byte{byte(r.IntN(256)), byte(r.IntN(256))}, q[i:]...)...)
			desc = fmt.Sprint("ins ", i)
		case 5:
			i := r.IntN(len(q) - 4)
			v := r.Uint32()
			if r.IntN(2) == 0 {
				v = uint32(r.IntN(300))
			}
			q[i], q[i+1], q[i+2], q[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			desc = fmt.Sprint("u32 ", i)
		}
		fmt.Fprintf(w, "%s %d %s: %s\n", name, k, desc, eqRun(q))
	}
}

func eqColumnMutations(w *bytes.Buffer, base engine.Columns, n int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 2))
	fmt.Fprintf(w, "cols intact: %s\n", eqNew(base))
	named := map[string]func(c *engine.Columns){
		"dup fuel enum last": func(c *engine.Columns) {
			c.Enums = append([]engine.EnumGroup(nil), c.Enums...)
			for i := range c.Enums {
				if c.Enums[i].Key == "body" {
					c.Enums[i].Key = "fuel"
				}
			}
		},
		"dup locale": func(c *engine.Columns) {
			c.Locales = append([]string(nil), c.Locales...)
			c.Locales[1] = c.Locales[0]
		},
		"no locales":  func(c *engine.Columns) { c.Locales = nil },
		"no en":       func(c *engine.Columns) { c.Locales = append([]string(nil), c.Locales...); for i, l := range c.Locales {
				if l == "en" {
					c.Locales[i] = "zz"
				}
			} },
		"dup slug":    func(c *engine.Columns) { c.BrandSlug = engine.TextOf(dupFirst(c.BrandSlug)) },
		"empty slug":  func(c *engine.Columns) { c.BrandSlug = engine.TextOf(emptyFirst(c.BrandSlug)) },
		"no fuel":     func(c *engine.Columns) { c.Enums = append([]engine.EnumGroup(nil), c.Enums...); c.Enums[0].Key = "nofuel" },
		"specs 257":   func(c *engine.Columns) { c.Specs = append(append([]engine.SpecType(nil), c.Specs...), make([]engine.SpecType, 257)...) },
		"no demo":     func(c *engine.Columns) { c.Demo = nil },
		"enum first":  func(c *engine.Columns) { c.Enums = append([]engine.EnumGroup(nil), c.Enums...); c.Enums[1].First++ },
		"role":        func(c *engine.Columns) { c.ImageRole = append([]uint8(nil), c.ImageRole...); c.ImageRole[0] = 5 },
		"sync future": func(c *engine.Columns) { c.Meta.SyncedAt = c.Meta.SyncedAt.AddDate(200, 0, 0) },
	}
	for _, k := range []string{"dup fuel enum last", "dup locale", "no locales", "no en", "dup slug", "empty slug", "no fuel", "specs 257", "no demo", "enum first", "role", "sync future"} {
		c := base
		named[k](&c)
		fmt.Fprintf(w, "cols %s: %s\n", k, eqNew(c))
	}
	// Random element mutations of integer slice columns.
	v := reflect.ValueOf(base)
	var fields []int
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Slice && f.Len() > 0 {
			switch f.Type().Elem().Kind() {
			case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Int32, reflect.Int64, reflect.Bool:
				fields = append(fields, i)
			}
		}
	}
	for k := 0; k < n; k++ {
		c := base
		cv := reflect.ValueOf(&c).Elem()
		fi := fields[r.IntN(len(fields))]
		f := cv.Field(fi)
		cp := reflect.MakeSlice(f.Type(), f.Len(), f.Len())
		reflect.Copy(cp, f)
		i := r.IntN(cp.Len())
		e := cp.Index(i)
		delta := int64(r.IntN(5)) - 2
		if r.IntN(4) == 0 {
			delta = int64(r.Uint32())
		}
		switch e.Kind() {
		case reflect.Bool:
			e.SetBool(!e.Bool())
		case reflect.Int32, reflect.Int64:
			e.SetInt(e.Int() + delta)
		default:
			e.SetUint(e.Uint() + uint64(delta))
		}
		if r.IntN(8) == 0 {
			cp = cp.Slice(0, cp.Len()-1)
		}
		f.Set(cp)
		fmt.Fprintf(w, "cols %d %s[%d]: %s\n", k, v.Type().Field(fi).Name, i, eqNew(c))
	}
}

func dupFirst(t engine.Text) []string {
	var s []string
	for i := 0; i < t.Len(); i++ {
		s = append(s, t.String(uint32(i)))
	}
	s[len(s)-1] = s[0]
	return s
}

func emptyFirst(t engine.Text) []string {
	var s []string
	for i := 0; i < t.Len(); i++ {
		s = append(s, t.String(uint32(i)))
	}
	s[0] = ""
	return s
}

func TestZZEquivalence(t *testing.T) {
	out := os.Getenv("EQUIV_OUT")
	if out == "" {
		t.Skip("EQUIV_OUT not set")
	}
	var w bytes.Buffer
	eqMutations(t, &w, "tiny", Encode(tinySet()), 30000, 1)
	s, _ := small(t)
	p := Encode(s)
	eqMutations(t, &w, "small", p, 400, 2)
	cols, err := Decode(Header{Version: FormatVersion}, p)
	if err != nil {
		t.Fatal(err)
	}
	eqColumnMutations(&w, cols, 1500, 3)
	if err := os.WriteFile(out, w.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
