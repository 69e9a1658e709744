package export

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/vspec/catalogue/data/dataset"
	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/loader"
)

// smallSet generates a catalogue of about 1,000 variants.
func smallSet(t testing.TB, seed uint64) *dataset.Set {
	t.Helper()
	s, err := gen.Generate(vocab.Default(), gen.Options{Scale: 0.01, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// catalogueOf writes s as a snapshot and loads it back.
func catalogueOf(t testing.TB, s *dataset.Set) *engine.Catalogue {
	t.Helper()
	var buf bytes.Buffer
	if err := loader.Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	c, err := loader.FromBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	pairOnce         sync.Once
	pairOld, pairNew *engine.Catalogue
	pairStats        mutationStats
)

// quarterPair returns a small catalogue and its "next quarter": the same
// catalogue with variants, a generation, spec values, confidences,
// prices, names, images and labels removed, added and changed.
func quarterPair(t testing.TB) (old, new *engine.Catalogue, st mutationStats) {
	pairOnce.Do(func() {
		s := smallSet(t, 3)
		pairOld = catalogueOf(t, s)
		pairStats = nextQuarter(s)
		pairNew = catalogueOf(t, s)
	})
	return pairOld, pairNew, pairStats
}

// varRec is a variant with its own spec values and images.
type varRec struct {
	v       dataset.Variant
	keys    []uint8
	vals    []int32
	conf    []uint8
	imgKey  []uint32
	imgRole []uint8
}

func explode(s *dataset.Set) []varRec {
	out := make([]varRec, len(s.Variants))
	for i, v := range s.Variants {
		out[i] = varRec{v: v,
			keys: slices.Clone(s.SpecKey[v.SpecStart:v.SpecEnd]), vals: slices.Clone(s.SpecVal[v.SpecStart:v.SpecEnd]),
			conf: slices.Clone(s.SpecConf[v.SpecStart:v.SpecEnd]), imgKey: slices.Clone(s.ImageKey[v.ImageStart:v.ImageEnd]),
			imgRole: slices.Clone(s.ImageRole[v.ImageStart:v.ImageEnd])}
	}
	return out
}

// rebuild replaces the variants of s (and their values and images) with
// recs, which must be in ascending id order, and remaps the demo rows.
func rebuild(s *dataset.Set, recs []varRec) {
	demoIDs := map[uint32]bool{}
	for _, r := range s.Demo {
		demoIDs[s.Variants[r].ID] = true
	}
	s.Variants = s.Variants[:0]
	s.SpecKey, s.SpecVal, s.SpecConf, s.ImageKey, s.ImageRole, s.Demo = nil, nil, nil, nil, nil, nil
	for i, r := range recs {
		v := r.v
		v.SpecStart = uint32(len(s.SpecKey))
		s.SpecKey = append(s.SpecKey, r.keys...)
		s.SpecVal = append(s.SpecVal, r.vals...)
		s.SpecConf = append(s.SpecConf, r.conf...)
		v.SpecEnd = uint32(len(s.SpecKey))
		v.ImageStart = uint32(len(s.ImageKey))
		s.ImageKey = append(s.ImageKey, r.imgKey...)
		s.ImageRole = append(s.ImageRole, r.imgRole...)
		v.ImageEnd = uint32(len(s.ImageKey))
		s.Variants = append(s.Variants, v)
		if demoIDs[v.ID] {
			s.Demo = append(s.Demo, uint32(i))
		}
	}
}

type mutationStats struct {
	removedVariants, addedVariants int
	removedGeneration, addedGen    uint32
	changedBrand                   uint32
}

// nextQuarter turns s into a plausible next snapshot in place.
func nextQuarter(s *dataset.Set) mutationStats {
	var st mutationStats
	v := s.Vocab
	de, _ := vocab.LocaleIndex("de")
	specIdx := func(key string) int {
		for i, sp := range v.Specs {
			if sp.Key == key {
				return i
			}
		}
		panic(key)
	}
	recs := explode(s)

	// Drop one whole generation (not of the demo set) with its variants.
	demo := map[uint32]bool{}
	for _, r := range s.Demo {
		demo[s.Variants[r].Generation] = true
	}
	// From the middle on, wrapping round: at small scales the demo set's
	// generations can fill the second half.
	dropGen := -1
	for k := range len(s.Generations) {
		if g := (len(s.Generations)/2 + k) % len(s.Generations); !demo[uint32(g)] {
			dropGen = g
			break
		}
	}
	st.removedGeneration = s.Generations[dropGen].ID
	genIDs := make([]uint32, len(s.Generations))
	for i, g := range s.Generations {
		genIDs[i] = g.ID
	}

	// Add a generation to the first model that has room, after its last one.
	var newGen dataset.Generation
	insertAt := -1
	for i := len(s.Generations) - 1; i >= 0; i-- {
		g := s.Generations[i]
		last := i == len(s.Generations)-1 || s.Generations[i+1].Model != g.Model
		if last && int(g.ID&15) < dataset.MaxGenerationsPerMod && i != dropGen {
			newGen = dataset.Generation{ID: g.ID + 1, Model: g.Model, Name: g.Name + " Facelift", Slug: g.Slug + "-facelift", YearStart: 2026}
			insertAt = i + 1
			break
		}
	}
	st.addedGen = newGen.ID
	var gens []dataset.Generation
	for i, g := range s.Generations {
		if i == insertAt {
			gens = append(gens, newGen)
		}
		if i != dropGen {
			gens = append(gens, g)
		}
	}
	if insertAt == len(s.Generations) {
		gens = append(gens, newGen)
	}
	genRow := map[uint32]uint32{}
	for i, g := range gens {
		genRow[g.ID] = uint32(i)
	}

	prevGenID := gens[genRow[newGen.ID]-1].ID
	power := specIdx("power_kw")
	navigation := specIdx("navigation")
	length := specIdx("length_mm")
	var out []varRec
	for i, r := range recs {
		gid := genIDs[r.v.Generation]
		if int(r.v.Generation) == dropGen {
			st.removedVariants++
			continue
		}
		r.v.Generation = genRow[gid]
		switch {
		case i%41 == 7 && !slices.Contains(s.Demo, uint32(i)):
			st.removedVariants++
			continue
		case i%13 == 1: // a corrected figure
			for j, k := range r.keys {
				if int(k) == power {
					r.vals[j]++
				}
			}
		case i%17 == 2: // a value withdrawn
			if j := slices.Index(r.keys, uint8(length)); j >= 0 {
				r.keys = slices.Delete(r.keys, j, j+1)
				r.vals = slices.Delete(r.vals, j, j+1)
				r.conf = slices.Delete(r.conf, j, j+1)
			}
		case i%19 == 3: // a value newly recorded
			if !slices.Contains(r.keys, uint8(navigation)) {
				j, _ := slices.BinarySearch(r.keys, uint8(navigation))
				r.keys = slices.Insert(r.keys, j, uint8(navigation))
				r.vals = slices.Insert(r.vals, j, 1)
				r.conf = slices.Insert(r.conf, j, 0)
			}
		case i%23 == 4 && len(r.conf) > 0: // a confidence confirmed or doubted
			if r.conf[0] == 0 {
				r.conf[0] = 70
			} else {
				r.conf[0] = 0
			}
		case i%29 == 5:
			r.v.Name += " Edition"
			r.v.PriceEUR += 500
			r.v.SyncedAt += 86400
		case i%31 == 6 && len(r.imgKey) > 1:
			r.imgKey = r.imgKey[:len(r.imgKey)-1]
			r.imgRole = r.imgRole[:len(r.imgRole)-1]
		case i%37 == 8:
			r.imgKey = append(slices.Clone(r.imgKey), 8) // a new angle (engine.ImageAngles)
			r.imgRole = append(slices.Clone(r.imgRole), dataset.RoleHero)
		case i%43 == 9:
			r.v.HasPrice, r.v.PriceEUR, r.v.PriceAsOf = false, 0, 0
		}
		out = append(out, r)
		// A new variant at the end of some generations.
		lastOfGen := i == len(recs)-1 || recs[i+1].v.Generation != recs[i].v.Generation
		if lastOfGen && gid%5 == 0 && int(r.v.ID&63) < dataset.MaxVariantsPerGen {
			nr := r
			nr.v.ID++
			nr.v.Name += " Plus"
			nr.keys, nr.vals, nr.conf = slices.Clone(r.keys), slices.Clone(r.vals), slices.Clone(r.conf)
			out = append(out, nr)
			st.addedVariants++
		}
		// The new generation's variant follows the variants of the
		// generation before it.
		if lastOfGen && gid == prevGenID {
			nr := r
			nr.v.ID = dataset.VariantID(newGen.ID, 1)
			nr.v.Generation = genRow[newGen.ID]
			nr.v.Name = "New " + r.v.Name
			out = append(out, nr)
			st.addedVariants++
		}
	}
	s.Generations = gens
	rebuild(s, out)

	// A brand renamed in German, a spec and an enum value relabelled.
	b := &s.Brands[3]
	b.Names[de] = b.Name + " (DE)"
	st.changedBrand = b.ID
	nv := *v
	nv.Specs = slices.Clone(v.Specs)
	nv.Specs[power].Labels[de] = "Leistung (kW)"
	nv.Enums = slices.Clone(v.Enums)
	for i := range nv.Enums {
		if nv.Enums[i].Key == "fuel" {
			nv.Enums[i].Values = slices.Clone(nv.Enums[i].Values)
			nv.Enums[i].Values[0].Labels[de] = "Ottokraftstoff"
		}
	}
	s.Vocab = &nv
	return st
}

// readDir returns every file of an export directory by relative path.
func readDir(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameDirs fails unless two export directories hold the same files with
// the same bytes.
func sameDirs(t testing.TB, a, b string) {
	t.Helper()
	fa, fb := readDir(t, a), readDir(t, b)
	for name, x := range fa {
		y, ok := fb[name]
		switch {
		case !ok:
			t.Errorf("%s only in %s", name, a)
		case !bytes.Equal(x, y):
			t.Errorf("%s differs: %d and %d bytes; first difference at byte %d", name, len(x), len(y), firstDiff(x, y))
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			t.Errorf("%s only in %s", name, b)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
