package loader

import (
	"bytes"
	"os"
	"testing"

	"github.com/vspec/catalogue/data/dataset"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/engine"
)

// tinySet is a hand-built catalogue of two variants over a three-spec
// vocabulary: a payload of a few hundred bytes that the fuzzer can mutate
// through every section quickly.
func tinySet() *dataset.Set {
	lab := func(s string) (l vocab.Labels) {
		for i := range l {
			l[i] = s
		}
		return l
	}
	v := &vocab.Vocabulary{
		Groups: []vocab.Group{{Key: "engine", Labels: lab("Engine")}},
		Enums: []vocab.EnumGroup{
			{Key: "fuel", Values: []vocab.EnumValue{{Slug: "petrol", Labels: lab("Petrol")}, {Slug: "electric", Labels: lab("Electric")}}},
			{Key: "body", Values: []vocab.EnumValue{{Slug: "sedan", Labels: lab("Sedan \"4d\"")}}},
			{Key: "drive", Values: []vocab.EnumValue{{Slug: "front", Labels: lab("Front")}}},
			{Key: "transmission", Values: []vocab.EnumValue{{Slug: "manual", Labels: lab("Manual")}}},
		},
		Specs: []vocab.SpecType{
			{Key: "power_kw", Kind: vocab.KindInt, Unit: "kW", Enum: -1, Module: "engine_performance", Labels: lab("Power")},
			{Key: "accel_0_100_s", Kind: vocab.KindNumber, Scale: 1, Unit: "s", Enum: -1, Module: "engine_performance", Labels: lab("0-100")},
			{Key: "abs", Kind: vocab.KindBool, Enum: -1, Module: "equipment", Labels: lab("ABS")},
			{Key: "fuel_type", Kind: vocab.KindEnum, Enum: 0, Module: "catalogue", Labels: lab("Fuel")},
			{Key: "tyres", Kind: vocab.KindText, Enum: -1, Module: "equipment", Labels: lab("Tyres")},
		},
	}
	return &dataset.Set{
		Seed: 1, Scale: 1, SyncedAt: 1700000000, CDNBase: "https://cdn.example", Vocab: v,
		Brands:      []dataset.Brand{{ID: 7, Slug: "bmw", Name: "BMW", Popularity: 1, Wikidata: "Q26678", Country: "DE"}},
		Models:      []dataset.Model{{ID: 7<<6 | 1, Brand: 0, Name: "3 Series", Slug: "3-series"}},
		Generations: []dataset.Generation{{ID: (7<<6|1)<<4 | 1, Model: 0, Name: "3 Series I", Slug: "3-series-i", YearStart: 2019}},
		Variants: []dataset.Variant{
			{ID: ((7<<6|1)<<4|1)<<6 | 1, Generation: 0, Name: "330i", PowerHP: 258, TorqueNM: 400, TopSpeedKMH: 250, Accel100: 58, BatteryKWh: dataset.Null,
				HasPrice: true, PriceEUR: 52000, PriceAsOf: 20000, SyncedAt: 1700000000, SpecStart: 0, SpecEnd: 4, ImageStart: 0, ImageEnd: 2},
			{ID: ((7<<6|1)<<4|1)<<6 | 2, Generation: 0, Name: "i3", Fuel: 1, PowerHP: dataset.Null, TorqueNM: dataset.Null, TopSpeedKMH: dataset.Null,
				Accel100: dataset.Null, BatteryKWh: 420, SyncedAt: 1700000000, SpecStart: 4, SpecEnd: 5, ImageStart: 2, ImageEnd: 3},
		},
		SpecKey:   []uint8{0, 1, 2, 4, 3},
		SpecVal:   []int32{190, 58, 1, 0, 1},
		SpecConf:  []uint8{0, 80, 0, 0, 0},
		Texts:     []string{"225/45 R18"},
		ImageKey:  []uint32{1, 2, 3},
		ImageRole: []uint8{0, 1, 0},
		Demo:      []uint32{1},
	}
}

func TestTinySetLoads(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, tinySet()); err != nil {
		t.Fatal(err)
	}
	c, err := FromBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	walk(c)
	if got := string(c.AppendEnumLabelJSON(nil, 0, 1, 0)); got != `"Sedan \"4d\""` {
		t.Errorf("escaped label %s", got)
	}
}

// walk touches every reachable value, as serving would, to surface any
// index that validation let through.
func walk(c *engine.Catalogue) int {
	n := 0
	for li := range c.Locales {
		for k := range c.Specs {
			n += len(c.AppendSpecLabelJSON(nil, li, uint8(k)))
		}
		for b := range c.BrandID {
			n += len(c.AppendBrandNameJSON(nil, li, uint32(b)))
		}
	}
	for b := range c.BrandID {
		first, end := c.BrandModels(uint32(b))
		for m := first; m < end; m++ {
			gf, ge := c.ModelGenerations(m)
			for g := gf; g < ge; g++ {
				vf, ve := c.GenerationVariants(g)
				for v := vf; v < ve; v++ {
					sf, se := c.VariantSpecs(v)
					for j := sf; j < se; j++ {
						st := c.Specs[c.SpecKey[j]]
						switch st.Kind {
						case engine.KindEnum:
							n += len(c.AppendEnumLabelJSON(nil, 0, st.Enum, c.SpecVal[j]))
						case engine.KindText:
							n += len(c.Texts.Bytes(uint32(c.SpecVal[j])))
						}
					}
					n += len(c.VarName.Bytes(v)) + len(c.BodyLabel(0, c.VarBody[v])) + len(c.FuelSlug(c.VarFuel[v]))
					imf, ime := c.VariantImages(v)
					for i := imf; i < ime; i++ {
						n += int(c.ImageRole[i])
					}
				}
			}
		}
	}
	for _, r := range c.Demo {
		n += len(c.VarName.Bytes(r))
	}
	return n
}

// FuzzDecode mutates snapshot payloads after the checksum: whatever the
// bytes, decoding returns an error or a catalogue that can be walked
// without a panic.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(tinySet()))
	f.Add([]byte("META"))
	f.Fuzz(func(t *testing.T, payload []byte) {
		cols, err := Decode(Header{Version: FormatVersion}, payload)
		if err != nil {
			return
		}
		c, err := engine.New(cols)
		if err != nil {
			return
		}
		walk(c)
	})
}

// FuzzFromBytes mutates whole files: header, compression and checksum.
func FuzzFromBytes(f *testing.F) {
	var buf bytes.Buffer
	if err := Write(&buf, tinySet()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	if b, err := os.ReadFile(fixturePath(FormatVersion)); err == nil {
		f.Add(b[:headerSize+64])
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		c, err := FromBytes(file)
		if err == nil {
			walk(c)
		}
	})
}
