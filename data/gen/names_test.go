package gen

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/vspec/catalogue/data/vocab"
)

// nameRules are the invariants of variant names (issue 16, item 4): each
// brand's grammar, badges and gearboxes of their era, trims of their brand.
var nameRules = []editorRule{
	tableRule(editorRule{"engine badge before its era", func(f *variantFacts) string {
		rest := " " + nameRest(f) + " "
		for _, b := range badgesLongestFirst() {
			if !strings.Contains(rest, " "+b+" ") {
				continue
			}
			rest = strings.ReplaceAll(rest, " "+b+" ", " ")
			// A badge of the generation's model years: one launched within
			// a generation (FSI in 2002 on the Polo 9N of 2001) is real.
			e := badgeEras()[b]
			inEra := false
			for y := f.year; y <= max(f.year, f.to); y++ {
				inEra = inEra || e.has(y)
			}
			if !inEra {
				return fmt.Sprintf("%s is %d-%d", b, e.first, e.last)
			}
			if b == "TDI" {
				if cc, ok := f.sp["displacement_cc"]; ok && cc < 1150 {
					return fmt.Sprintf("TDI on %d cc", cc)
				}
			}
		}
		return ""
	}}),
	{"gearbox name not of its brand or era", func(f *variantFacts) string {
		rest := " " + nameRest(f) + " "
		for _, g := range gtronic.FindAllString(rest, -1) {
			if _, ok := gearboxEras()[g]; !ok {
				return g + " does not exist"
			}
		}
		for _, g := range longestFirst(gearboxEras()) {
			e := gearboxEras()[g]
			if g == "Automatic" || !strings.Contains(rest, " "+g+" ") {
				continue
			}
			rest = strings.ReplaceAll(rest, " "+g+" ", " ")
			if owners, ok := gearboxBrands()[g]; ok && !hasString(owners, f.brand) {
				return g + " is not a " + f.brand + " gearbox"
			}
			if !e.has(f.year) {
				return fmt.Sprintf("%s is %d-%d", g, e.first, e.last)
			}
		}
		return ""
	}},
	tableRule(editorRule{"Mercedes name repeats the model or has no class number", func(f *variantFacts) string {
		if f.brand != "mercedes-benz" || f.fuel == "hydrogen" || (f.fuel == "electric" && !strings.HasPrefix(f.model, "EQ")) {
			return ""
		}
		letter, isClass := mercedesLetter(f.model)
		if letter == "" {
			return ""
		}
		first := strings.Fields(f.model)[0]
		tok := strings.Fields(nameRest(f))
		if hasString(tok, first) {
			return "repeats " + first
		}
		if isClass {
			if len(tok) < 2 || tok[0] != letter {
				return "no class letter " + letter
			}
			tok = tok[1:]
		}
		var n int
		if len(tok) == 0 || func() bool { _, err := fmt.Sscan(tok[0], &n); return err != nil }() || !(mercedesNumberSet[n] || vocab.Default().PowerCodeNumbers(f.brand)[n]) {
			return "no Mercedes class number"
		}
		return ""
	}}),
	tableRule(editorRule{"Mercedes number not the one of its power in its era (powercodes.tsv)", func(f *variantFacts) string {
		if f.brand != "mercedes-benz" || f.fuel == "electric" || f.fuel == "hydrogen" || f.hp == 0 {
			return ""
		}
		want, ok := vocab.Default().PowerCode(f.brand, f.model, f.fuel, f.year, int(f.hp))
		if !ok {
			return ""
		}
		letter, isClass := mercedesLetter(f.model)
		tok := strings.Fields(nameRest(f))
		if isClass && len(tok) > 0 && tok[0] == letter {
			tok = tok[1:]
		}
		if len(tok) == 0 || tok[0] != strconv.Itoa(want) {
			return fmt.Sprintf("%.0f hp in %d is a %d", f.hp, f.year, want)
		}
		return ""
	}}),
	tableRule(editorRule{"Lexus code not from the power class", func(f *variantFacts) string {
		if f.brand != "lexus" || f.fuel == "electric" || f.fuel == "hydrogen" {
			return ""
		}
		tok := strings.Fields(nameRest(f))
		if len(tok) == 0 || !lexusCodes[tok[0]] {
			return "no Lexus code"
		}
		if strings.HasSuffix(tok[0], "h") != (f.fuel == "hybrid" || f.fuel == "mild_hybrid") {
			return tok[0] + " on a " + f.fuel
		}
		return ""
	}}),
	tableRule(editorRule{"BMW code disagrees with the engine or drive", func(f *variantFacts) string {
		if f.brand != "bmw" || f.fuel == "electric" || f.fuel == "hydrogen" {
			return ""
		}
		tok := strings.Fields(nameRest(f))
		if len(tok) == 0 {
			return "no code"
		}
		code := tok[0]
		if !bmwCodeRE.MatchString(code) {
			return "code " + code
		}
		if strings.HasSuffix(code, "30d") || strings.HasSuffix(code, "40d") {
			cyl, okc := f.sp["cylinders"]
			cc, okd := f.sp["displacement_cc"]
			if (okc && cyl != 6) || (okd && cc < 2500) {
				return fmt.Sprintf("%s with %d cylinders, %d cc", code, cyl, cc)
			}
		}
		xz := f.model[0] == 'X' || f.model[0] == 'Z'
		if xz && f.year >= 2009 && !strings.Contains(code, "Drive") {
			return "no sDrive/xDrive on an X or Z model"
		}
		if strings.HasPrefix(code, "xDrive") != (xz && f.drive == "all" && f.year >= 2003) && xz {
			return "xDrive and the drive disagree"
		}
		if hasString(tok[1:], "xDrive") && xz {
			return "xDrive apart from the code"
		}
		return ""
	}}),
	{"HYBRID4 on a car that is not a hybrid", func(f *variantFacts) string {
		if strings.Contains(" "+nameRest(f)+" ", " HYBRID4 ") && f.fuel != "hybrid" && f.fuel != "plug_in_hybrid" {
			return f.fuel
		}
		return ""
	}},
	{"hybrid transmission on a car that is not a full or plug-in hybrid", func(f *variantFacts) string {
		if f.fuel == "hybrid" || f.fuel == "plug_in_hybrid" {
			return ""
		}
		for _, w := range strings.Fields(nameRest(f)) {
			if hybridTransmissions[w] {
				return w + " on a " + f.fuel
			}
		}
		return ""
	}},
	tableRule(editorRule{"trim of another brand, nameplate or era", func(f *variantFacts) string {
		rest := " " + nameRest(f)
		rest = strings.TrimSpace(yearTail.ReplaceAllString(rest, "")) + " "
		for _, t := range trimsLongestFirst() {
			if strings.HasSuffix(" "+rest, " "+t+" ") && !trimRules[t].allows(f.brand, f.model, f.year) {
				return t
			}
		}
		return ""
	}}),
}

var (
	gtronic   = regexp.MustCompile(`\d+G-(TRONIC|DCT)`)
	bmwCodeRE = regexp.MustCompile(`^(M?[1-8](16|18|20|25|28|30|35|40|50)x?[ide]|(sDrive|xDrive)(16|18|20|25|28|30|35|40|50)[ide]|(16|18|20|25|28|30|35|40|50)[ide]|\d\.\d[ide])$`)
	yearTail  = regexp.MustCompile(` \(\d{4}\)$`)
)

// nameRest is the variant name after the model name.
func nameRest(f *variantFacts) string {
	return strings.TrimSpace(strings.TrimPrefix(f.name, f.model))
}

func hasString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func longestFirst[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	return keys
}

func badgesLongestFirst() []string { return longestFirst(badgeEras()) }
func trimsLongestFirst() []string  { return longestFirst(trimRules) }

// TestNameInvariants checks the naming rules on the full catalogue.
func TestNameInvariants(t *testing.T) {
	checkEditorRules(t, nameRules)
}

// hybridTransmissions are the gearbox names only a full or plug-in hybrid
// has: the power-split or motor-driven e-CVT, the Chinese brands' DHT,
// PSA's e-EAT8 and its HYbrid4 diesels' ETG6.
var hybridTransmissions = map[string]bool{"e-CVT": true, "DHT": true, "e-EAT8": true, "ETG6": true}
