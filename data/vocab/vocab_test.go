package vocab

import (
	"strings"
	"testing"
	"unicode"
)

func load(t *testing.T) *Vocabulary {
	t.Helper()
	v, err := Load()
	if err != nil {
		t.Fatalf("cannot load the embedded vocabulary: %v", err)
	}
	return v
}

func TestSizes(t *testing.T) {
	v := load(t)
	if len(v.Specs) != 232 {
		t.Errorf("%d spec types, want 232", len(v.Specs))
	}
	if len(v.Groups) != 21 {
		t.Errorf("%d groups, want 21", len(v.Groups))
	}
	if len(Locales) != 20 || Locales[En] != "en" {
		t.Errorf("locales %v, en at %d", Locales, En)
	}
	if len(v.Brands) < 100 {
		t.Errorf("%d brands, want at least 100", len(v.Brands))
	}
	if len(v.Models) < 1357 {
		t.Errorf("%d models, want at least 1357 to draw the full catalogue from", len(v.Models))
	}
	used := map[int]int{}
	for _, s := range v.Specs {
		used[s.Group]++
	}
	for i, g := range v.Groups {
		if used[i] == 0 {
			t.Errorf("group %s has no spec", g.Key)
		}
	}
}

func TestEnumerations(t *testing.T) {
	v := load(t)
	f := func(group string, want ...string) {
		t.Helper()
		gi, ok := v.EnumIndex(group)
		if !ok {
			t.Fatalf("enum %s missing", group)
		}
		var got []string
		for _, ev := range v.Enums[gi].Values {
			got = append(got, ev.Slug)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("enum %s = %v, want %v", group, got, want)
		}
	}
	f("fuel", "petrol", "diesel", "electric", "hybrid", "plug_in_hybrid", "mild_hybrid", "lpg", "cng", "ethanol", "hydrogen")
	f("drive", "front", "rear", "all")
	for _, k := range []string{"fuel_type", "body_type", "drive_wheel", "transmission"} {
		i, ok := v.SpecIndex(k)
		if !ok || v.Specs[i].Kind != KindEnum {
			t.Errorf("spec %s must exist and be an enum", k)
		}
	}
}

var unitSuffix = map[string]string{
	"mm": "_mm", "km": "_km", "kg": "_kg", "l": "_l", "kW": "_kw", "hp": "_hp", "Nm": "_nm", "km/h": "_kmh", "s": "_s",
	"kWh": "_kwh", "V": "_v", "cc": "_cc", "g/km": "_g_km", "mg/km": "_mg_km", "l/100 km": "_l_100km",
	"kWh/100 km": "_kwh_100km", "kg/100 km": "_kg_100km", "m": "_m", "in": "_in", "EUR": "_eur", "h": "_h", "min": "_min",
	"rpm": "_rpm", "%": "_pct", "kg/hp": "_kg_hp", "years": "_years", "months": "_months",
}

func TestSpecKeys(t *testing.T) {
	v := load(t)
	for _, s := range v.Specs {
		for _, r := range s.Key {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
				t.Errorf("spec key %q is not snake_case", s.Key)
				break
			}
		}
		if s.Unit != "" {
			suf, ok := unitSuffix[s.Unit]
			if !ok {
				t.Errorf("spec %s: unit %q has no known key suffix", s.Key, s.Unit)
			} else if !strings.HasSuffix(s.Key, suf) && !strings.Contains(s.Key, suf+"_") {
				t.Errorf("spec %s: key does not carry the unit suffix %s", s.Key, suf)
			}
		}
		if s.Module == "" {
			t.Errorf("spec %s has no export module", s.Key)
		}
	}
}

// TestLabelsComplete checks every label in every locale: present, not the
// key, and identical to English only where the label file declares the term
// international.
func TestLabelsComplete(t *testing.T) {
	v := load(t)
	check := func(kind, key string, l *Labels) {
		for li, loc := range Locales {
			s := l[li]
			if s == "" {
				t.Errorf("%s %s: no %s label", kind, key, loc)
				continue
			}
			if s == key {
				t.Errorf("%s %s: the %s label is the key", kind, key, loc)
			}
			if li != En && s == l[En] && !v.DeclaredInternational(li, kind, key) {
				t.Errorf("%s %s: the %s label %q is the English one but not declared international", kind, key, loc, s)
			}
			if li != En && s != l[En] && v.DeclaredInternational(li, kind, key) {
				t.Errorf("%s %s: the %s label %q is declared international but differs from English", kind, key, loc, s)
			}
		}
	}
	for i := range v.Groups {
		check("group", v.Groups[i].Key, &v.Groups[i].Labels)
	}
	for i := range v.Specs {
		check("spec", v.Specs[i].Key, &v.Specs[i].Labels)
	}
	for _, g := range v.Enums {
		for i := range g.Values {
			check("enum", g.Key+"."+g.Values[i].Slug, &g.Values[i].Labels)
		}
	}
	// Translations are real translations: in each locale most spec labels
	// differ from English.
	for li, loc := range Locales {
		if li == En {
			continue
		}
		same := 0
		for _, s := range v.Specs {
			if s.Labels[li] == s.Labels[En] {
				same++
			}
		}
		if same > len(v.Specs)/8 {
			t.Errorf("%s: %d of %d spec labels are the English ones", loc, same, len(v.Specs))
		}
	}
}

// TestScripts checks that Arabic, Bulgarian, Greek and Serbian labels are
// written in their own script (Serbian in Cyrillic).
func TestScripts(t *testing.T) {
	v := load(t)
	scripts := map[string]*unicode.RangeTable{"ar": unicode.Arabic, "bg": unicode.Cyrillic, "sr": unicode.Cyrillic, "el": unicode.Greek}
	for loc, table := range scripts {
		li, _ := LocaleIndex(loc)
		inScript := 0
		for _, s := range v.Specs {
			for _, r := range s.Labels[li] {
				if unicode.Is(table, r) {
					inScript++
					break
				}
			}
		}
		if inScript < len(v.Specs)*9/10 {
			t.Errorf("%s: only %d of %d spec labels use the expected script", loc, inScript, len(v.Specs))
		}
	}
}

func TestBrands(t *testing.T) {
	v := load(t)
	for i, b := range v.Brands {
		if i > 0 && b.ID <= v.Brands[i-1].ID {
			t.Errorf("brand ids not ascending at %s", b.Slug)
		}
		if b.Slug == "" || strings.ToLower(b.Slug) != b.Slug || strings.ContainsAny(b.Slug, " _") {
			t.Errorf("brand slug %q is not a lower-case hyphenated slug", b.Slug)
		}
		for li, n := range b.Names {
			if n != "" && n == b.Name {
				t.Errorf("brand %s: the %s name repeats the Latin name instead of being empty", b.Slug, Locales[li])
			}
		}
	}
	bg, _ := LocaleIndex("bg")
	ar, _ := LocaleIndex("ar")
	// The Bulgarian press writes Volkswagen: displayed in Latin, the local
	// spelling kept as a search alias; the Arabic press writes the brand in
	// Arabic.
	if b := v.Brands[0]; b.Slug != "volkswagen" || b.Names[bg] != "" || b.Aliases[bg] != "Фолксваген" || b.Names[ar] == "" || b.Wikidata != "Q246" {
		t.Errorf("first brand %+v, want Volkswagen displayed in Latin in bg (Фолксваген an alias), in Arabic in ar, Wikidata Q246", b)
	}
}

// TestUnits: units are written as each locale's press writes them, the
// keys and the English symbols stay.
func TestUnits(t *testing.T) {
	v := Default()
	want := map[string]map[string]string{
		"power_hp":                {"de": "PS", "fr": "ch", "es": "CV", "it": "CV", "pl": "KM", "hu": "LE", "sv": "hk", "en": "hp"},
		"displacement_cc":         {"de": "cm³", "en": "cc"},
		"power_rpm":               {"de": "U/min", "fr": "tr/min", "en": "rpm"},
		"warranty_years":          {"de": "Jahre", "fr": "ans", "en": "years"},
		"service_interval_months": {"de": "Monate", "en": "months"},
		"length_mm":               {"de": "mm", "ar": "mm", "en": "mm"},
	}
	for key, byLocale := range want {
		st := v.Specs[v.MustSpec(key)]
		for l, u := range byLocale {
			li, _ := LocaleIndex(l)
			if st.Units[li] != u {
				t.Errorf("%s in %s: %q, want %q", key, l, st.Units[li], u)
			}
		}
	}
	if _, err := loadUnits(nil); err == nil {
		t.Error("units of no spec were accepted")
	}
}
