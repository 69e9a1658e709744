package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vspec/catalogue/data/dataset"
	"github.com/vspec/catalogue/data/vocab"
)

// bestSellers are the nameplates issue 16 found missing from the catalogue.
var bestSellers = [][2]string{
	{"volkswagen", "T-Roc"}, {"volkswagen", "T-Cross"}, {"volkswagen", "ID.3"}, {"volkswagen", "ID.4"}, {"volkswagen", "Caddy"},
	{"bmw", "X5"}, {"bmw", "X7"}, {"mercedes-benz", "S-Class"}, {"mercedes-benz", "G-Class"}, {"mercedes-benz", "Sprinter"},
	{"audi", "A8"}, {"audi", "Q7"}, {"volvo", "XC60"}, {"volvo", "XC90"}, {"ford", "Transit"}, {"toyota", "Hilux"},
}

// genFacts is what the generation invariants look at for one generation of
// the full catalogue.
type genFacts struct {
	brand     string
	seed      vocab.ModelSeed
	name      string // display name without the model name ("VII", "E90 LCI", "" for the model name alone)
	full      string // display name as served
	yearStart int
	yearEnd   int // 0 while in production
}

// marks returns a listed nameplate's generations as the table gives them.
func tablePhases(ms vocab.ModelSeed) []vocab.Phase {
	var out []vocab.Phase
	for _, mk := range ms.Marks {
		out = append(out, mk.Phases()...)
	}
	return out
}

// generationRules are the rules of issue 16, item 1, each checked on every
// generation of the full catalogue.
var generationRules = []rule[genFacts]{
	{"generation not in generations.tsv (name and years)", func(g *genFacts) string {
		if len(g.seed.Marks) == 0 {
			return ""
		}
		for _, p := range tablePhases(g.seed) {
			if p.Name == g.name && p.YearStart == g.yearStart && p.YearEnd == g.yearEnd {
				return ""
			}
		}
		return "no such generation in the table"
	}},
	{"generation outside the nameplate's production years", func(g *genFacts) string {
		// Unlisted nameplates: within models_*.tsv's years. Listed ones:
		// every year inside one of the real marks, none in a gap.
		if g.yearEnd == 0 && g.seed.YearEnd != 0 {
			return fmt.Sprintf("in production, but the nameplate ended in %d", g.seed.YearEnd)
		}
		if len(g.seed.Marks) == 0 {
			if g.yearStart < g.seed.YearStart || endYear(g.yearEnd) > endYear(g.seed.YearEnd) {
				return fmt.Sprintf("outside %d-%d", g.seed.YearStart, g.seed.YearEnd)
			}
			return ""
		}
		for y := g.yearStart; y <= endYear(g.yearEnd); y++ {
			on := false
			for _, mk := range g.seed.Marks {
				on = on || (y >= mk.YearStart && y <= endYear(mk.YearEnd))
			}
			if !on {
				return fmt.Sprintf("the nameplate was off the market in %d", y)
			}
		}
		return ""
	}},
	{"the issue's invented generations (Golf X, Mustang I 2015, Model 3 II)", func(g *genFacts) string {
		switch {
		case g.brand == "volkswagen" && g.seed.Name == "Golf" && strings.HasPrefix(g.name, "X"),
			g.brand == "ford" && g.seed.Name == "Mustang" && (g.name == "I" || strings.HasPrefix(g.name, "I ")),
			g.brand == "tesla" && g.seed.Name == "Model 3" && strings.HasPrefix(g.name, "II"):
			return "invented numeral"
		}
		return ""
	}},
}

// markFacts is a mark of the full catalogue: a generation and its
// facelift together, from the first's start to the second's end.
type markFacts struct {
	*genFacts
	start, end int
}

// markRules check the marks (a generation and its facelift together) of the
// nameplates generations.tsv does not list.
var markRules = []rule[markFacts]{
	{"cycle mark outside 5-10 years (unlisted nameplates running 5 years or more)", func(m *markFacts) string {
		if len(m.seed.Marks) > 0 || endYear(m.seed.YearEnd)-m.seed.YearStart < 5 {
			return ""
		}
		if n := endYear(m.end) - m.start; n < 5 || n > 10 {
			return fmt.Sprintf("%d years", n)
		}
		return ""
	}},
}

// marksOf returns the marks of generations: a generation followed by its
// "<name> Facelift" is one mark (the table's facelift names are those of
// listed nameplates, which the mark rules skip), any other generation one
// on its own.
func marksOf(generations []genFacts) []markFacts {
	var out []markFacts
	for i := 0; i < len(generations); i++ {
		f := &generations[i]
		start, end := f.yearStart, f.yearEnd
		if i+1 < len(generations) && generations[i+1].seed.Name == f.seed.Name && generations[i+1].brand == f.brand &&
			strings.TrimSpace(strings.TrimSuffix(generations[i+1].name, "Facelift")) == f.name && strings.HasSuffix(generations[i+1].name, "Facelift") {
			end = generations[i+1].yearEnd
			i++
		}
		out = append(out, markFacts{f, start, end})
	}
	return out
}

func collectGenFacts(s *dataset.Set) []genFacts {
	seeds := map[string]vocab.ModelSeed{}
	for _, m := range s.Vocab.Models {
		seeds[m.Brand+"\t"+m.Name] = m
	}
	out := make([]genFacts, 0, len(s.Generations))
	for _, g := range s.Generations {
		m := &s.Models[g.Model]
		brand := s.Brands[m.Brand].Slug
		name := strings.TrimPrefix(strings.TrimPrefix(g.Name, m.Name), " ")
		out = append(out, genFacts{
			brand: brand, seed: seeds[brand+"\t"+m.Name], name: name, full: g.Name,
			yearStart: int(g.YearStart), yearEnd: int(g.YearEnd),
		})
	}
	return out
}

// TestGenerationInvariants checks issue 16's rules on models and
// generations over the full catalogue, each as a named subtest reporting its
// violation count.
func TestGenerationInvariants(t *testing.T) {
	s := full(t)
	facts := collectGenFacts(s)
	checkRules(t, generationRules, facts, func(f *genFacts) string {
		return fmt.Sprintf("%s %q %d-%d", f.brand, f.full, f.yearStart, f.yearEnd)
	}, nil)
	checkRules(t, markRules, marksOf(facts), func(m *markFacts) string {
		return fmt.Sprintf("%s %q %d-%d", m.brand, m.full, m.start, m.end)
	}, nil)
	t.Run("listed_generation_missing_from_the_catalogue", func(t *testing.T) {
		have := map[string]bool{}
		for _, f := range facts {
			have[f.brand+"\t"+f.seed.Name+"\t"+f.name] = true
		}
		var v tally
		for _, m := range s.Models {
			brand := s.Brands[m.Brand].Slug
			var seed vocab.ModelSeed
			for _, ms := range s.Vocab.Models {
				if ms.Brand == brand && ms.Name == m.Name {
					seed = ms
				}
			}
			for _, p := range tablePhases(seed) {
				if endYear(p.YearEnd) >= seed.YearStart && !have[brand+"\t"+m.Name+"\t"+p.Name] {
					v.add("%s %s %s %d-%d", brand, m.Name, p.Name, p.YearStart, p.YearEnd)
				}
			}
		}
		v.report(t)
	})
	t.Run("named_best-seller_missing", func(t *testing.T) {
		have := map[string]bool{}
		for _, m := range s.Models {
			have[s.Brands[m.Brand].Slug+"\t"+m.Name] = true
		}
		var v tally
		for _, b := range bestSellers {
			if !have[b[0]+"\t"+b[1]] {
				v.add("%s %s", b[0], b[1])
			}
		}
		v.report(t)
	})
}

// TestGenerationRulesCatch shows each generation rule flags what it is
// meant to flag, so a rule that cannot fail does not pass silently.
func TestGenerationRulesCatch(t *testing.T) {
	v := vocab.Default()
	seed := func(brand, name string) vocab.ModelSeed { return nameplate(t, v, brand, name) }
	golf, frontera, mustang := seed("volkswagen", "Golf"), seed("opel", "Frontera"), seed("ford", "Mustang")
	f := func(rule int, g genFacts, wantBad bool) {
		t.Helper()
		if got := generationRules[rule].bad(&g) != ""; got != wantBad {
			t.Errorf("rule %q on %s %q %d-%d: bad=%v, want %v", generationRules[rule].name, g.seed.Name, g.name, g.yearStart, g.yearEnd, got, wantBad)
		}
	}
	f(0, genFacts{brand: "volkswagen", seed: golf, name: "VII", yearStart: 2012, yearEnd: 2017}, false)
	f(0, genFacts{brand: "volkswagen", seed: golf, name: "VII", yearStart: 2012, yearEnd: 2019}, true)
	f(0, genFacts{brand: "volkswagen", seed: golf, name: "X", yearStart: 2023}, true)
	f(1, genFacts{brand: "opel", seed: frontera, name: "B", yearStart: 1998, yearEnd: 2001}, false)
	f(1, genFacts{brand: "opel", seed: frontera, name: "C", yearStart: 2005, yearEnd: 2010}, true)
	f(2, genFacts{brand: "ford", seed: mustang, name: "I", yearStart: 2015, yearEnd: 2018}, true)
	f(2, genFacts{brand: "ford", seed: mustang, name: "S550", yearStart: 2015, yearEnd: 2018}, false)
	unlisted := vocab.ModelSeed{Brand: "x", Name: "Y", YearStart: 2000, YearEnd: 2020}
	mark := func(start, end int) *markFacts { return &markFacts{&genFacts{seed: unlisted}, start, end} }
	if markRules[0].bad(mark(2000, 2003)) == "" || markRules[0].bad(mark(2000, 2007)) != "" {
		t.Errorf("the cycle rule does not tell a 3-year mark from a 7-year one")
	}
}
