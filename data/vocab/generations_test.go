package vocab

import (
	"slices"
	"strings"
	"testing"
)

// bare returns a copy of the embedded vocabulary without the data of the
// tables of real histories (generations.tsv, powertrains.tsv, engines.tsv,
// electrified.tsv, ...), to load other content of those files into.
func bare(t testing.TB) *Vocabulary {
	t.Helper()
	v := *Default()
	v.Models = slices.Clone(v.Models)
	for i := range v.Models {
		v.Models[i].Rank, v.Models[i].Marks = 0, nil
	}
	v.Powertrains, v.Engines, v.Electrified, v.HybridBoxes, v.PowerCodes, v.GearboxTypes, v.EVs = nil, nil, nil, nil, nil, nil, nil
	return &v
}

// rejects returns an f-test of a table's loader: load parses content into
// a bare vocabulary and must fail with an error containing wantErr.
func rejects(t *testing.T, load func(v *Vocabulary, b []byte) error) func(content, wantErr string) {
	return func(content, wantErr string) {
		t.Helper()
		err := load(bare(t), []byte(content))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: error %v, want one containing %q", content, err, wantErr)
		}
	}
}

// fuzzTable fuzzes a table's loader from seeds: load takes any bytes into a
// bare vocabulary without panicking, and what it accepts passes check.
func fuzzTable(f *testing.F, load func(v *Vocabulary, b []byte) error, seeds []string, check func(t *testing.T, v *Vocabulary)) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v := bare(t)
		if err := load(v, b); err != nil {
			return
		}
		check(t, v)
	})
}

// checkNamed fails t on an accepted row of a named table (badges.tsv,
// gearboxes.tsv: see name) without a name or whose span of years, as span
// reads it, ends before it starts.
func checkNamed[T any](t *testing.T, rows map[string]T, span func(T) (first, last int)) {
	for name, r := range rows {
		if first, last := span(r); name == "" || (last != 0 && last < first) {
			t.Fatalf("accepted %q %+v", name, r)
		}
	}
}

func TestGenerationsData(t *testing.T) {
	v := load(t)
	find := func(brand, model string) ModelSeed {
		for _, m := range v.Models {
			if m.Brand == brand && m.Name == model {
				return m
			}
		}
		t.Fatalf("no nameplate %s %s", brand, model)
		return ModelSeed{}
	}
	listed := 0
	for _, m := range v.Models {
		if m.Rank > 0 {
			listed++
		}
	}
	if listed < 300 {
		t.Errorf("%d nameplates in generations.tsv, want at least 300", listed)
	}
	golf := find("volkswagen", "Golf")
	if golf.Rank != 1 || len(golf.Marks) != 7 || golf.Marks[5].Code != "VII" || golf.Marks[5].Facelift != 2017 {
		t.Errorf("Golf: rank %d, marks %+v", golf.Rank, golf.Marks)
	}
	var names []string
	for _, mk := range find("bmw", "3 Series").Marks {
		for _, p := range mk.Phases() {
			names = append(names, p.Name)
		}
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "E90,E90 LCI,F30,F30 LCI,G20,G20 LCI") {
		t.Errorf("3 Series phases %s", got)
	}
	// A gap: the Frontera was off the market from 2004 to 2024.
	fr := find("opel", "Frontera").Marks
	if len(fr) != 3 || fr[1].YearEnd != 2004 || fr[2].YearStart != 2024 || fr[2].YearEnd != 0 {
		t.Errorf("Frontera marks %+v", fr)
	}
}

func TestGenerationsRejects(t *testing.T) {
	f := rejects(t, (*Vocabulary).loadGenerationsFrom)
	f("volkswagen\tGolff\tVII\t2012\t2019", "unknown nameplate")
	f("volkswagen\tGolf\tVII\t2012", "first mark starts 2012") // a valid row, but the Golf dates from 1990
	f("volkswagen\tGolf\tVII\t2012\t2008", "bad year_end")
	f("volkswagen\tGolf\tVII\t2012\t2019\t2011", "bad facelift year")
	f("volkswagen\tGolf\tVII\t2012\t2019\t\tLCI", "without a facelift year")
	f("volkswagen\tGolf\tVII\t2012\t2019\nvolkswagen\tGolf\tVI\t2008\t2012", "out of order")
	f("volkswagen\tGolf\tVII\t2012\t2019\nvolkswagen\tGolf\tVII\t2019\t", "twice")
	f("volkswagen\tGolf\tI\t1974\t1983", "outside the nameplate's years")
	f("volkswagen\tGolf\tVII\t2012\t2019\nvolkswagen\tPolo\tAW\t2017\t\nvolkswagen\tGolf\tVIII\t2019\t", "not together")
}

func TestPowertrainsRejects(t *testing.T) {
	f := rejects(t, (*Vocabulary).loadPowertrainsFrom)
	f("porsche\t911\t1990\t\tdiesle", "unknown fuel")
	f("porsche\t911\t1990\t\tpetrol\tfront,back", "unknown drive")
	f("porsche\t911\t2000\t1990\tpetrol", "before from")
	f("porsche\t911\t1990\t\tpetrol\trear\t500\t300", "bad power range")
	f("porsche\t912\t1990\t\tpetrol", "unknown nameplate")
	f("porshe\t*\t\t\tpetrol", "unknown brand")
}

func TestEnginesRejects(t *testing.T) {
	f := rejects(t, (*Vocabulary).loadEnginesFrom)
	f("volkswagen\tdiesle\tTDI\t1968\t4\tturbo\t150\t2003", "petrol or diesel")
	f("volkswagen\tdiesel\tTDI\t1968\t4\tbiturbo\t150\t2003", "turbo or na")
	f("volkswagen\tdiesel\tTDI\t1968\t4\tturbo\t150,140\t2003", "not ascending")
	f("volkswagen\tdiesel\tTDI\t1968\t4\tturbo\t150\t2003\t2001", "bad number")
	f("vw\tdiesel\tTDI\t1968\t4\tturbo\t150\t2003", "unknown brand")
}

func TestLimits(t *testing.T) {
	v := load(t)
	l := v.PowertrainLimits("volkswagen", "Golf")
	if slices.Contains(l.Fuels(1995), "electric") || !slices.Contains(l.Fuels(2016), "electric") {
		t.Errorf("Golf fuels 1995 %v, 2016 %v", l.Fuels(1995), l.Fuels(2016))
	}
	if !v.PowertrainLimits("land-rover", "Defender").FourByFourOnly() || v.PowertrainLimits("volkswagen", "Golf").FourByFourOnly() {
		t.Error("four-wheel-drive-only nameplates wrong")
	}
	// A nameplate's own rows take precedence over its brand's.
	if d := v.PowertrainLimits("subaru", "BRZ").Drives(2015); !slices.Equal(d, []string{"rear"}) {
		t.Errorf("BRZ drives %v", d)
	}
	if lo, hi, ok := v.PowertrainLimits("porsche", "911").HP(2010); !ok || lo != 250 || hi != 700 {
		t.Errorf("911 power %d-%d %v", lo, hi, ok)
	}
}

// The three loaders take any bytes without panicking; what they accept is
// consistent (marks in order with valid facelifts, ascending power steps).
func FuzzGenerations(f *testing.F) {
	fuzzTable(f, (*Vocabulary).loadGenerationsFrom, []string{
		"volkswagen\tGolf\tVII\t2012\t2019\t2017\tVII.5\n",
		"opel\tFrontera\tA\t1991\t1998\nopel\tFrontera\tB\t1998\t2004\t2001\nopel\tFrontera\t\t2024\n",
		"# comment\n\nbmw\tX7\tG07\t2019\t\t2022\tG07 LCI\n",
	}, func(t *testing.T, v *Vocabulary) {
		for _, m := range v.Models {
			for i, mk := range m.Marks {
				if i > 0 && mk.YearStart < m.Marks[i-1].YearStart {
					t.Fatalf("%s: marks out of order", m.Name)
				}
				for _, p := range mk.Phases() {
					if p.YearEnd != 0 && p.YearEnd < p.YearStart {
						t.Fatalf("%s %s: phase %d-%d", m.Name, p.Name, p.YearStart, p.YearEnd)
					}
				}
			}
		}
	})
}

func FuzzPowertrains(f *testing.F) {
	fuzzTable(f, (*Vocabulary).loadPowertrainsFrom, []string{
		"porsche\t911\t1990\t2023\tpetrol\trear,all\t250\t700\n",
		"land-rover\t*\t\t\t\tall\n",
	}, func(t *testing.T, v *Vocabulary) {
		for _, r := range v.Powertrains {
			if r.HPMax < r.HPMin || (r.To != 0 && r.To < r.From) {
				t.Fatalf("accepted %+v", r)
			}
		}
	})
}

func FuzzEngines(f *testing.F) {
	fuzzTable(f, (*Vocabulary).loadEnginesFrom, []string{
		"volkswagen,skoda\tpetrol\tTSI\t999\t3\tturbo\t95,110,115\t2015\n",
		"ford\tdiesel\t\t1753\t4\tna\t60\t1990\t2002\n",
	}, func(t *testing.T, v *Vocabulary) {
		for _, e := range v.Engines {
			if !slices.IsSorted(e.HP) || (e.Last != 0 && e.Last < e.First) {
				t.Fatalf("accepted %+v", e)
			}
		}
	})
}

func TestBadgesRejects(t *testing.T) {
	f := rejects(t, (*Vocabulary).loadBadgesFrom)
	f("TSI\t2005\nTSI\t2006", "twice")
	f("HDi\t2013\t1998", "before first")
	f("TSI\t20o5", "bad year")
	if b := load(t).Badges["HDi"]; b.First != 1998 || b.Last != 2013 || b.After != "BlueHDi" || b.Before != "TD" {
		t.Errorf("HDi %+v", b)
	}
}

func FuzzBadges(f *testing.F) {
	fuzzTable(f, (*Vocabulary).loadBadgesFrom, []string{
		"HDi\t1998\t2013\tTD\tBlueHDi\nTD\n",
	}, func(t *testing.T, v *Vocabulary) {
		checkNamed(t, v.Badges, func(b Badge) (int, int) { return b.First, b.Last })
	})
}

func TestGearboxesRejects(t *testing.T) {
	f := rejects(t, (*Vocabulary).loadGearboxesFrom)
	f("DSG\t2003\nDSG\t2003", "twice")
	f("PowerShift\t2010\t2001\tford", "bad last year")
	f("DSG\t2003\t\tvw", "unknown brand")
	if g := load(t).Gearboxes["PowerShift"]; g.First != 2010 || g.Last != 2019 || !slices.Equal(g.Brands, []string{"ford"}) {
		t.Errorf("PowerShift %+v", g)
	}
}

func FuzzGearboxes(f *testing.F) {
	fuzzTable(f, (*Vocabulary).loadGearboxesFrom, []string{
		"PowerShift\t2010\t2019\tford\nCVT\t1987\n",
	}, func(t *testing.T, v *Vocabulary) {
		checkNamed(t, v.Gearboxes, func(g Gearbox) (int, int) { return g.First, g.Last })
	})
}

func TestElectrifiedRejects(t *testing.T) {
	f := rejects(t, (*Vocabulary).loadElectrifiedFrom)
	f("toyota\tRAV5\tplug_in_hybrid\t2020\t\t306\t306", "unknown nameplate")
	f("toyota\tRAV4\tmild_hybrid\t2020\t\t306\t306", "hybrid or plug_in_hybrid")
	f("toyota\tRAV4\tplug_in_hybrid\t\t\t306\t306", "bad first year")
	f("toyota\tRAV4\tplug_in_hybrid\t2020\t2018\t306\t306", "bad year")
	f("toyota\tRAV4\tplug_in_hybrid\t2020\t\t306\t300", "bad power range")
	f("toyota\tRAV4\thybrid\t2016\t\t197\t222\t18.1", "bad plug-in pack")
	f("toyota\tRAV4\tplug_in_hybrid\t2020\t\t306\t306\t99", "bad plug-in pack")
}

func TestHybridGearboxesRejects(t *testing.T) {
	f := rejects(t, func(v *Vocabulary, b []byte) error {
		if err := v.loadGearboxesFrom([]byte("e-CVT\t1997\t\ttoyota")); err != nil {
			t.Fatal(err)
		}
		return v.loadHybridGearboxesFrom(b)
	})
	f("toyta\thybrid\t1997\t\tcvt\t1\te-CVT", "unknown brand")
	f("toyota\tpetrol\t1997\t\tcvt\t1\te-CVT", "hybrid or plug_in_hybrid")
	f("toyota\thybrid\t1997\t\tmanual\t5", "transmission")
	f("toyota\thybrid\t1997\t\tcvt\t0\te-CVT", "bad gears")
	f("toyota\thybrid\t1997\t\tcvt\t1\tE-CVT", "not in gearboxes.tsv")
	f("toyota\thybrid\t1997\t\tcvt\t1\te-CVT\tPrius,Golf", "unknown nameplate")
}

func FuzzElectrified(f *testing.F) {
	fuzzTable(f, (*Vocabulary).loadElectrifiedFrom, []string{
		"toyota\tRAV4\tplug_in_hybrid\t2020\t\t306\t309\t18.1\n",
		"honda\tJazz\thybrid\t2011\t2015\t98\t98\n",
	}, func(t *testing.T, v *Vocabulary) {
		for _, r := range v.Electrified {
			if r.HPMax < r.HPMin || (r.To != 0 && r.To < r.From) || !IsElectrifiedFuel(r.Fuel) || (r.BatteryKWh != 0 && r.Fuel != "plug_in_hybrid") {
				t.Fatalf("accepted %+v", r)
			}
		}
	})
}

func FuzzHybridGearboxes(f *testing.F) {
	fuzzTable(f, (*Vocabulary).loadHybridGearboxesFrom, []string{
		"toyota,lexus\thybrid,plug_in_hybrid\t1997\t\tcvt\t1\te-CVT\n",
		"ford\tplug_in_hybrid\t2020\t\tautomatic\t10\t\tExplorer,Ranger\n",
	}, func(t *testing.T, v *Vocabulary) {
		for _, g := range v.HybridBoxes {
			if g.Gears < 1 || g.Transmission == "manual" || (g.Last != 0 && g.Last < g.First) {
				t.Fatalf("accepted %+v", g)
			}
		}
	})
}

func TestPowerCodesRejects(t *testing.T) {
	f := rejects(t, (*Vocabulary).loadPowerCodesFrom)
	f("mercedes\t*\tpetrol\t2021\t\t180:0,200:190", "unknown brand")
	f("mercedes-benz\tZ-Class\tpetrol\t2021\t\t180:0,200:190", "unknown nameplate")
	f("mercedes-benz\t*\tmild_hybrid\t2021\t\t180:0,200:190", "petrol, diesel or plug_in_hybrid")
	f("mercedes-benz\t*\tpetrol\t\t\t180:0,200:190", "bad first year")
	f("mercedes-benz\t*\tpetrol\t2021\t2019\t180:0,200:190", "bad year")
	f("mercedes-benz\t*\tpetrol\t2021\t\t180:0,200", "bad code")
	f("mercedes-benz\t*\tpetrol\t2021\t\t180:10,200:190", "starts at 0 hp")
	f("mercedes-benz\t*\tpetrol\t2021\t\t180:0,200:190,300:150", "rise")
	f("mercedes-benz\t*\tpetrol\t2021\t\t180:0,200:190,150:230", "rise")
	f("mercedes-benz\t*\tpetrol\t2014\t2021\t180:0\nmercedes-benz\t*\tpetrol\t2021\t\t180:0", "overlaps")
	f("mercedes-benz\t*\tpetrol\t2021", "fields")
}

// TestPowerCodesData holds powercodes.tsv to cars as Mercedes sold them.
func TestPowerCodesData(t *testing.T) {
	v := load(t)
	for _, c := range []struct {
		model, fuel string
		year, hp    int
		want        int
	}{
		{"C-Class", "mild_hybrid", 2021, 204, 200}, // W206 C 200, not a C 250
		{"C-Class", "petrol", 2021, 170, 180},
		{"C-Class", "petrol", 2021, 258, 300},
		{"C-Class", "petrol", 2014, 184, 200}, // W205 C 200
		{"C-Class", "petrol", 2014, 211, 250},
		{"C-Class", "petrol", 2007, 204, 250}, // W204 C 250 CGI
		{"C-Class", "petrol", 2000, 163, 200}, // W203 C 200 Kompressor
		{"C-Class", "diesel", 2021, 200, 220},
		{"C-Class", "diesel", 2021, 265, 300},
		{"E-Class", "diesel", 2016, 194, 220},
		{"E-Class", "diesel", 2016, 258, 350},
		{"S-Class", "mild_hybrid", 2021, 503, 580},
		{"C-Class", "plug_in_hybrid", 2021, 313, 300},
		{"C-Class", "plug_in_hybrid", 2014, 279, 350},
		{"A-Class", "petrol", 2018, 163, 200}, // W177 A 200, a C 200 has 204 hp
		{"A-Class", "petrol", 2018, 224, 250},
		{"A-Class", "diesel", 2018, 150, 200},
		{"A-Class", "plug_in_hybrid", 2019, 218, 250},
	} {
		if n, ok := v.PowerCode("mercedes-benz", c.model, c.fuel, c.year, c.hp); !ok || n != c.want {
			t.Errorf("%s %s %d %d hp: %d (%v), want %d", c.model, c.fuel, c.year, c.hp, n, ok, c.want)
		}
	}
	if _, ok := v.PowerCode("volkswagen", "Golf", "petrol", 2021, 150); ok {
		t.Error("a Golf has a power code")
	}
}

func FuzzPowerCodes(f *testing.F) {
	fuzzTable(f, (*Vocabulary).loadPowerCodesFrom, []string{
		"mercedes-benz\t*\tpetrol\t2021\t\t180:0,200:190,300:230\n",
		"mercedes-benz\tA-Class,GLA\tdiesel\t2018\t2020\t180:0,200:140\n",
	}, func(t *testing.T, v *Vocabulary) {
		for _, r := range v.PowerCodes {
			if len(r.Codes) == 0 || r.Codes[0].MinHP != 0 || (r.Last != 0 && r.Last < r.First) || powerCodeFuel(r.Fuel) != r.Fuel {
				t.Fatalf("accepted %+v", r)
			}
			for i := 1; i < len(r.Codes); i++ {
				if r.Codes[i].MinHP <= r.Codes[i-1].MinHP || r.Codes[i].Number <= r.Codes[i-1].Number {
					t.Fatalf("accepted %+v", r)
				}
			}
		}
	})
}

func TestGearboxTypesRejects(t *testing.T) {
	f := rejects(t, (*Vocabulary).loadGearboxTypesFrom)
	f("volkswagn\tdct\t\t2003", "unknown brand")
	f("volkswagen\tmanual\t\t2003", "dct, cvt or amt")
	f("volkswagen\tdct\tpetro\t2003", "unknown fuel")
	f("volkswagen\tdct\t\t", "bad first year")
	f("volkswagen\tdct\t\t2003\t2001", "bad year")
	f("volkswagen\tdct\t\t2003\t\tGolf,911", "unknown nameplate")
	f("volkswagen\tdct\t\t2003\t\tGolf,!up!", "either")
	f("volkswagen\tdct\t\t2003\t\t!Golff", "unknown nameplate")
	f("volkswagen\tdct", "fields")
}

// TestGearboxTypesData holds gearboxtypes.tsv to what the brands fitted,
// and every hybrid gearbox of hybridgearboxes.tsv to it.
func TestGearboxTypesData(t *testing.T) {
	v := load(t)
	for _, c := range []struct {
		brand, model, fuel, transmission string
		year                             int
		want                             bool
	}{
		{"volkswagen", "Golf", "petrol", "dct", 2004, true},
		{"volkswagen", "Golf", "petrol", "dct", 2002, false},
		{"volkswagen", "up!", "petrol", "dct", 2016, false}, // an ASG, never a DSG
		{"volkswagen", "up!", "petrol", "amt", 2016, true},
		{"land-rover", "Discovery", "diesel", "dct", 2018, false}, // ZF automatics only
		{"porsche", "Cayenne", "petrol", "dct", 2018, false},      // Tiptronic S
		{"porsche", "911", "petrol", "dct", 2018, true},
		{"toyota", "Auris", "diesel", "cvt", 2012, false},
		{"toyota", "Auris", "petrol", "cvt", 2012, true},
		{"toyota", "Yaris", "hybrid", "cvt", 2012, true},
		{"mercedes-benz", "C-Class", "petrol", "dct", 2018, false},
		{"mercedes-benz", "A-Class", "petrol", "dct", 2018, true},
		{"bmw", "3 Series", "petrol", "manual", 2018, true},
	} {
		if got := v.Fitted(c.brand, c.model, c.fuel, c.transmission, c.year); got != c.want {
			t.Errorf("%s %s %s %s %d: fitted %v, want %v", c.brand, c.model, c.fuel, c.transmission, c.year, got, c.want)
		}
	}
	brandFrom := map[string]int{} // a brand's first model year (Cupra 2018)
	for _, m := range v.Models {
		if y, ok := brandFrom[m.Brand]; !ok || m.YearStart < y {
			brandFrom[m.Brand] = m.YearStart
		}
	}
	for _, h := range v.HybridBoxes {
		for _, br := range h.Brands {
			first := max(h.First, brandFrom[br])
			for _, fu := range h.Fuels {
				models := h.Models
				if models == nil {
					models = []string{""}
				}
				for _, m := range models {
					if m == "" {
						// A row for every nameplate needs a row for every nameplate.
						ok := slices.ContainsFunc(v.GearboxTypes, func(g GearboxType) bool {
							return g.Models == nil && g.Transmission == h.Transmission && g.Covers(br, "", fu, first)
						})
						if GovernedTransmission(h.Transmission) && !ok {
							t.Errorf("hybridgearboxes.tsv: %s %s %s from %d is not in gearboxtypes.tsv", br, fu, h.Transmission, first)
						}
						continue
					}
					if !v.Fitted(br, m, fu, h.Transmission, first) {
						t.Errorf("hybridgearboxes.tsv: %s %s %s %s from %d is not in gearboxtypes.tsv", br, m, fu, h.Transmission, first)
					}
				}
			}
		}
	}
}

func FuzzGearboxTypes(f *testing.F) {
	fuzzTable(f, (*Vocabulary).loadGearboxTypesFrom, []string{
		"volkswagen,audi\tdct\t\t2003\n",
		"toyota\tcvt\thybrid,plug_in_hybrid\t1997\t2020\tYaris,Auris\n",
		"volkswagen\tdct\t\t2003\t\t!up!,!Fox\n",
	}, func(t *testing.T, v *Vocabulary) {
		for _, g := range v.GearboxTypes {
			if !GovernedTransmission(g.Transmission) || g.First == 0 || (g.Last != 0 && g.Last < g.First) || len(g.Brands) == 0 || (g.Models != nil && g.Except != nil) {
				t.Fatalf("accepted %+v", g)
			}
		}
	})
}

func TestEVsRejects(t *testing.T) {
	f := rejects(t, (*Vocabulary).loadEVsFrom)
	f("tesla\tModel 4\t2021\t\t75\t440\tall", "unknown nameplate")
	f("tesla\tModel 3\t\t\t75\t440\tall", "bad first year")
	f("tesla\tModel 3\t2021\t2019\t75\t440\tall", "bad year")
	f("tesla\tModel 3\t2021\t\t750\t440\tall", "bad battery")
	f("tesla\tModel 3\t2021\t\tNaN\t440\tall", "bad battery")
	f("tesla\tModel 3\t2021\t\t75\t4400\tall", "bad power")
	f("tesla\tModel 3\t2021\t\t75\t440\tawd", "front, rear or all")
	f("tesla\tModel 3\t2021\t\t75\t440", "fields")
}

// TestEVsData holds evs.tsv to cars as they were sold, and EVVersions to
// the nearest years outside a nameplate's rows.
func TestEVsData(t *testing.T) {
	v := load(t)
	has := func(brand, model string, y int, kwh float64, hp int, drive string) bool {
		for _, e := range v.EVVersions(brand, model, y) {
			if e.BatteryKWh == kwh && e.HP == hp && e.Drive == drive {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		brand, model string
		year         int
		kwh          float64
		hp           int
		drive        string
		want         bool
	}{
		{"tesla", "Model 3", 2021, 75, 440, "all", true}, // Long Range AWD
		{"tesla", "Model 3", 2021, 75, 440, "rear", false},
		{"renault", "Zoe", 2020, 52, 135, "front", true}, // R135
		{"renault", "Zoe", 2014, 52, 135, "front", false},
		{"volkswagen", "ID.3", 2020, 62, 204, "rear", true}, // Pro Performance 58 kWh net
		{"nissan", "Leaf", 2012, 24, 109, "front", true},
		{"nissan", "Leaf", 2009, 24, 109, "front", true}, // before its rows: the nearest
		{"dacia", "Spring", 2024, 27.4, 65, "front", true},
	} {
		if got := has(c.brand, c.model, c.year, c.kwh, c.hp, c.drive); got != c.want {
			t.Errorf("%s %s %d %.1f kWh %d hp %s: %v, want %v", c.brand, c.model, c.year, c.kwh, c.hp, c.drive, got, c.want)
		}
	}
	if v.EVVersions("volkswagen", "Passat", 2020) != nil {
		t.Error("a Passat has electric versions")
	}
	// Every listed nameplate's powers lie inside its powertrains.tsv range.
	for _, e := range v.EVs {
		for y := e.From; y <= max(e.From, e.To); y++ {
			if lo, hi, ok := v.PowertrainLimits(e.Brand, e.Model).HP(y); ok && (e.HP < lo || e.HP > hi) {
				t.Errorf("evs.tsv %s %s %d: %d hp outside powertrains.tsv's %d-%d", e.Brand, e.Model, y, e.HP, lo, hi)
				break
			}
		}
	}
}

func FuzzEVs(f *testing.F) {
	fuzzTable(f, (*Vocabulary).loadEVsFrom, []string{
		"tesla\tModel 3\t2021\t2023\t75\t440\tall\n",
		"renault\tZoe\t2020\t\t52\t135\tfront\n",
	}, func(t *testing.T, v *Vocabulary) {
		for _, e := range v.EVs {
			if !(e.BatteryKWh >= 5 && e.BatteryKWh <= 250) || e.HP < 20 || (e.To != 0 && e.To < e.From) || (e.Drive != "front" && e.Drive != "rear" && e.Drive != "all") {
				t.Fatalf("accepted %+v", e)
			}
		}
	})
}

func TestVanClassesRejects(t *testing.T) {
	f := rejects(t, (*Vocabulary).loadVanClassesFrom)
	f("piaggio\tPorterr\tmicro", "unknown nameplate")
	f("piaggio\tPorter\ttiny", "micro, small, medium or large")
	f("piaggio\tPorter\tmicro\npiaggio\tPorter\tsmall", "twice")
	f("piaggio\tPorter", "fields")
	v := load(t)
	for _, c := range [][3]string{{"piaggio", "Porter", "micro"}, {"volkswagen", "Caddy", "small"}, {"volkswagen", "Transporter", "medium"}, {"mercedes-benz", "Sprinter", "large"}} {
		if got := v.VanClass(c[0], c[1]); got != c[2] {
			t.Errorf("%s %s: %s, want %s", c[0], c[1], got, c[2])
		}
	}
}

func FuzzVanClasses(f *testing.F) {
	fuzzTable(f, (*Vocabulary).loadVanClassesFrom, []string{
		"piaggio\tPorter\tmicro\nvolkswagen\tCaddy\tsmall\n",
	}, func(t *testing.T, v *Vocabulary) {
		for k, c := range v.vanClass {
			if !slices.Contains(VanClasses, c) || !strings.Contains(k, "\t") {
				t.Fatalf("accepted %q %q", k, c)
			}
		}
	})
}
