package vocab

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// lineupVocab returns a copy of the embedded vocabulary without its
// line-ups and trims (the generations stay: rows name them), to load other
// content into.
func lineupVocab(t testing.TB) *Vocabulary {
	t.Helper()
	v := *Default()
	v.Offers, v.TrimLadders, v.lineups, v.ladderBadges = nil, nil, nil, nil
	return &v
}

// golfRow is a good row of lineups/volkswagen.tsv; row replaces its fields.
func golfRow(replace map[int]string) string {
	f := strings.Split("Golf\tVIII\tGTI\tpetrol\t2020-2024\t1984\t4\tturbo\t180\t245\t370\tmanual:6,dct:7\tfront\t\t\t250\t6.2\t7.0\t160\t1430\t41990\tNL 2021\tWLTP\tGolf 8 GTI", "\t")
	for i, s := range replace {
		f[i] = s
	}
	return strings.Join(f, "\t")
}

func TestLineupsRejects(t *testing.T) {
	f := func(file, content, wantErr string) {
		t.Helper()
		err := lineupVocab(t).loadLineupFrom(file, []byte(content))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: error %v, want one containing %q", content, err, wantErr)
		}
	}
	vw := "lineups/volkswagen.tsv"
	f("lineups/volkswagn.tsv", golfRow(nil), "unknown brand")
	f(vw, golfRow(map[int]string{0: "Golff"}), "unknown nameplate")
	f(vw, golfRow(map[int]string{1: "IX"}), `no generation "IX" of Golf`)
	f(vw, golfRow(map[int]string{2: ""}), "empty badge")
	f(vw, golfRow(map[int]string{3: "gasoline"}), "unknown fuel")
	f(vw, golfRow(map[int]string{4: "2018-2024"}), "outside Golf VIII")
	f(vw, golfRow(map[int]string{4: "2020-2019"}), "bad years")
	f(vw, golfRow(map[int]string{4: "20-"}), "bad years")
	f(vw, golfRow(map[int]string{1: "VII", 4: "2017-"}), "outside Golf VII")
	f(vw, golfRow(map[int]string{7: "blown"}), "unknown aspiration")
	f(vw, golfRow(map[int]string{9: "265"}), "180 kW is 245 PS, not 265")
	f(vw, golfRow(map[int]string{8: "", 9: ""}), "no power")
	f(vw, golfRow(map[int]string{11: "manual"}), "manual:N with its gears")
	f(vw, golfRow(map[int]string{11: "cvt:7"}), "no gear count")
	f(vw, golfRow(map[int]string{11: "sequential:6"}), "manual:N, automatic:N")
	f(vw, golfRow(map[int]string{11: "dct:7,dct:7"}), "twice")
	f(vw, golfRow(map[int]string{11: "manual:12"}), "bad gears")
	f(vw, golfRow(map[int]string{12: "4wd"}), "unknown drive")
	f(vw, golfRow(map[int]string{13: "12"}), "a battery on a petrol car")
	f(vw, golfRow(map[int]string{3: "electric"}), "no displacement, cylinders or aspiration")
	f(vw, golfRow(map[int]string{16: "0.5"}), "bad 0-100")
	f(vw, golfRow(map[int]string{21: "2021"}), "bad price_src")
	f(vw, golfRow(map[int]string{21: ""}), "a price needs its source")
	f(vw, golfRow(map[int]string{22: ""}), "without their cycle")
	f(vw, golfRow(map[int]string{22: "EPA"}), "NEDC or WLTP")
	f(vw, golfRow(map[int]string{0: "Golf,Golf"}), "twice")
	f(vw, golfRow(map[int]string{0: "Golf,Golf Cabriolet"}), "Golf Cabriolet had no generation")
	f(vw, golfRow(nil)+"\n"+golfRow(map[int]string{4: "2021-2023"}), "the same offer as lineups/volkswagen.tsv:1")
	f(vw, "Golf\tVIII\tGTI", "fields")
	// Every bad row is reported at once, each with its line.
	err := lineupVocab(t).loadLineupFrom(vw, []byte(golfRow(map[int]string{0: "Golff"})+"\n# note\n"+golfRow(map[int]string{3: "gas"})))
	if err == nil || !strings.Contains(err.Error(), "volkswagen.tsv:1:") || !strings.Contains(err.Error(), "volkswagen.tsv:3:") {
		t.Errorf("two bad rows: %v, want both reported by line", err)
	}
}

func TestLineupsAccepts(t *testing.T) {
	v := lineupVocab(t)
	content := golfRow(nil) + "\n" +
		// A row of the facelift years, one touching the boundary, a body
		// nameplate sharing the offer, a mark named by its facelift.
		golfRow(map[int]string{2: "GTI", 4: "2024-", 8: "195", 9: "265"}) + "\n" +
		golfRow(map[int]string{0: "Golf,Golf Variant", 2: "2.0 TDI 150", 3: "diesel", 8: "110", 9: "150", 20: "", 21: ""}) + "\n" +
		golfRow(map[int]string{1: "VIII Facelift", 2: "R", 4: "2024-", 8: "245", 9: "333", 12: "all"})
	if err := v.loadLineupFrom("lineups/volkswagen.tsv", []byte(content)); err != nil {
		t.Fatal(err)
	}
	if n := len(v.Lineup("volkswagen", "Golf")); n != 4 {
		t.Errorf("%d Golf offers, want 4", n)
	}
	vr := v.Lineup("volkswagen", "Golf Variant")
	if len(vr) != 1 || vr[0].Badge != "2.0 TDI 150" {
		t.Fatalf("Golf Variant offers %v", vr)
	}
	mi, ok := vr[0].MarkOf("Golf Variant")
	if !ok || Default().Models[modelIndex(t, "volkswagen", "Golf Variant")].Marks[mi].Code != "VIII" {
		t.Errorf("the Golf Variant's mark of a Golf VIII row: %d %v", mi, ok)
	}
	o := v.Lineup("volkswagen", "Golf")[0]
	if o.PriceEUR != 41990 || o.PriceSrc != "NL" || o.PriceYear != 2021 || o.Cycle != "WLTP" || o.TopKMH != 250 || o.Accel != 6.2 ||
		!slices.Equal(o.Boxes, []Box{{"manual", 6}, {"dct", 7}}) || o.To != 2024 || o.Source != "lineups/volkswagen.tsv:1" {
		t.Errorf("parsed %+v", o)
	}
}

func modelIndex(t *testing.T, brand, model string) int {
	t.Helper()
	for i, m := range Default().Models {
		if m.Brand == brand && m.Name == model {
			return i
		}
	}
	t.Fatalf("no %s %s", brand, model)
	return -1
}

func TestTrimsRejects(t *testing.T) {
	f := func(content, wantErr string) {
		t.Helper()
		v := lineupVocab(t)
		if err := v.loadLineupFrom("lineups/volkswagen.tsv", []byte(golfRow(nil))); err != nil {
			t.Fatal(err)
		}
		err := v.loadTrimsFrom("trims/volkswagen.tsv", []byte(content))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: error %v, want one containing %q", content, err, wantErr)
		}
	}
	f("Golff\t2020-\tLife,Style", "unknown nameplate")
	f("Golf\t2020\tLife,,Style", "empty trim name")
	f("Golf\t2020-\tLife,Life", "twice")
	f("Golf\t2020-\tClubsport\tGTI Clubsport", "is in no row")
	f("Golf\t-2020\tLife", "bad years")
	f("Golf", "fields")
}

// TestTrimsLookup: a nameplate's own rows, else the brand's "*"; a badge
// ladder for its badge; performance versions without a ladder of their own
// carry no trim.
func TestTrimsLookup(t *testing.T) {
	v := lineupVocab(t)
	if err := v.loadLineupFrom("lineups/volkswagen.tsv", []byte(golfRow(nil))); err != nil {
		t.Fatal(err)
	}
	trims := "Golf\t2020-\tGolf,Life,Style,R-Line\n*\t2008-2019\tTrendline,Comfortline,Highline\nGolf\t2020-\tGTI,GTI Clubsport\tGTI\n"
	if err := v.loadTrimsFrom("trims/volkswagen.tsv", []byte(trims)); err != nil {
		t.Fatal(err)
	}
	f := func(model, badge string, y int, perf bool, want string) {
		t.Helper()
		if got := strings.Join(v.Trims("volkswagen", model, badge, y, perf), ","); got != want {
			t.Errorf("%s %s %d: %q, want %q", model, badge, y, got, want)
		}
	}
	f("Golf", "1.5 TSI 150", 2021, false, "Golf,Life,Style,R-Line")
	f("Golf", "GTI", 2021, true, "GTI,GTI Clubsport")
	f("Golf", "R", 2021, true, "")
	f("Golf", "1.5 TSI 150", 2015, false, "") // the Golf's own rows only
	f("Polo", "1.0 TSI 95", 2015, false, "Trendline,Comfortline,Highline")
	f("Polo", "1.0 TSI 95", 2021, false, "")
}

// TestLineupsData reads the line-ups as an editor would: every row names a
// nameplate and generation that exist, its powers agree, and the best
// known versions are there.
func TestLineupsData(t *testing.T) {
	v := load(t)
	if len(v.Offers) < 5000 {
		t.Errorf("%d engine offers, want the ~250 best-selling nameplates' (several thousand)", len(v.Offers))
	}
	for _, o := range v.Offers {
		if math.Abs(float64(o.PS)-float64(o.KW)*1.35962) > 1.5 {
			t.Errorf("%s: %d kW, %d PS", o.Source, o.KW, o.PS)
		}
	}
	has := func(brand, model, mark, badge string, ps int) bool {
		for _, o := range v.Lineup(brand, model) {
			if o.Mark == mark && o.Badge == badge && o.PS == ps {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		brand, model, mark, badge string
		ps                        int
	}{
		{"volkswagen", "Golf", "VIII", "GTI", 245},
		{"volkswagen", "Golf", "VIII", "GTI Clubsport", 300},
		{"volkswagen", "Golf", "VIII", "GTD", 200},
		{"volkswagen", "Golf", "VIII", "GTE", 245},
		{"volkswagen", "Golf", "VIII", "2.0 TDI 115", 115},
		{"volkswagen", "Golf", "VII", "e-Golf", 136},
		{"toyota", "RAV4", "XA50", "Plug-in Hybrid", 306},
	} {
		if !has(c.brand, c.model, c.mark, c.badge, c.ps) {
			t.Errorf("no %s %s %s %s %d PS", c.brand, c.model, c.mark, c.badge, c.ps)
		}
	}
	for _, o := range v.Lineup("volkswagen", "Golf") {
		if o.Mark == "VIII" && (o.Badge == "e-Golf" || o.Fuel == "electric") {
			t.Errorf("%s: an electric Golf VIII", o.Source)
		}
	}
}

func FuzzLineups(f *testing.F) {
	for _, s := range []string{golfRow(nil), golfRow(map[int]string{4: "2024-"}), "# c\n\n" + golfRow(map[int]string{3: "diesel", 2: "2.0 TDI 150"})} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v := lineupVocab(t)
		if err := v.loadLineupFrom("lineups/volkswagen.tsv", b); err != nil {
			return
		}
		for _, o := range v.Offers {
			if o.Badge == "" || len(o.Boxes) == 0 || len(o.Drives) == 0 || (o.To != 0 && o.To < o.From) || math.Abs(float64(o.PS)-float64(o.KW)*1.35962) > 1.5 || len(o.Marks) != len(o.Models) {
				t.Fatalf("accepted %+v", o)
			}
		}
	})
}
