package engine

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vspec/catalogue/index/trigram"
)

// The typeahead: a trigram index over each variant's search text, the
// folded "brand display-name" (the display name starts with the model's
// name), with pg_trgm's word_similarity as the recall floor, and a word
// index over the brand, model and name words ranked as index/trigram's Rank
// documents.
//
// Popularity and recency, the ranking's business tie-break (searchOrder):
// the generation's era first (in production or ended within 10 years of
// the catalogue's newest generation; older), then the brand's
// popularity rank (brands.tsv), then the model's place in its brand's list
// (the vocabulary lists models roughly by sales), then the newest
// generation start first; the stable id breaks the remaining ties.
//
// Brand aliases: data/vocab's (vw, merc, chevy, ...) and every locale's
// local spelling of each brand (Фолксваген, Φολκσβάγκεν, فولكس فاجن),
// whatever the request's locale. A query word that starts a local spelling
// (3 letters or more) is also rewritten to the brand's canonical name before
// word_similarity scores it, so "фолкс" finds Volkswagen.

type search struct {
	ix *trigram.Index
	// aliases by popularity (the most popular brand first), and their
	// indices in localized order, for aliasFor's prefix lookup.
	aliases    []brandAlias
	aliasOrder []int
}

type brandAlias struct {
	localized, canonical string // folded
	popularity           uint16
}

func (c *Catalogue) deriveSearch() {
	texts := make([]string, len(c.VarID))
	docs := make([]trigram.Doc, len(c.VarID))
	buf := make([]byte, 0, 64)
	newest := uint16(0)
	for g := range c.GenID {
		newest = max(newest, c.GenYearStart[g], c.GenYearEnd[g])
	}
	brandNames := make([]string, len(c.BrandID))
	for b := range c.BrandID {
		brandNames[b] = trigram.Fold(c.BrandName.String(uint32(b)))
	}
	modelNames := make([]string, len(c.ModelID))
	for m := range c.ModelID {
		modelNames[m] = trigram.Fold(c.ModelName.String(uint32(m)))
	}
	for r := range c.VarID {
		g := c.VarGen[r]
		m := c.GenModel[g]
		b := c.ModelBrand[m]
		buf = append(buf[:0], c.BrandName.Bytes(b)...)
		buf = append(buf, ' ')
		buf = append(buf, c.VarName.Bytes(uint32(r))...)
		texts[r] = trigram.Fold(string(buf))
		docs[r] = trigram.Doc{
			Brand: brandNames[b], Model: modelNames[m], Name: texts[r][len(brandNames[b])+1:],
			Order: c.searchOrder(g, newest),
		}
	}
	var aliases []trigram.Alias
	for b := range c.BrandID {
		for li := range c.Locales {
			for _, n := range []string{c.BrandAliases[li].String(uint32(b)), c.BrandNames[li].String(uint32(b))} {
				if n != "" {
					a := brandAlias{localized: trigram.Fold(n), canonical: brandNames[b], popularity: c.BrandPopularity[b]}
					aliases = append(aliases, trigram.Alias{Word: a.localized, Brand: a.canonical})
					if !containsAlias(c.search.aliases, a) {
						c.search.aliases = append(c.search.aliases, a)
					}
				}
			}
		}
	}
	for _, a := range c.SearchAliases {
		if b, ok := c.BrandBySlug(a.BrandSlug); ok {
			aliases = append(aliases, trigram.Alias{Word: trigram.Fold(a.Alias), Brand: brandNames[b]})
		}
	}
	c.search.ix = trigram.BuildRanked(texts, docs, aliases)
	// The most popular brand wins when a prefix starts several names.
	sort.SliceStable(c.search.aliases, func(i, j int) bool {
		return c.search.aliases[i].popularity < c.search.aliases[j].popularity
	})
	c.search.aliasOrder = make([]int, len(c.search.aliases))
	for i := range c.search.aliasOrder {
		c.search.aliasOrder[i] = i
	}
	sort.SliceStable(c.search.aliasOrder, func(i, j int) bool {
		return c.search.aliases[c.search.aliasOrder[i]].localized < c.search.aliases[c.search.aliasOrder[j]].localized
	})
}

func containsAlias(as []brandAlias, a brandAlias) bool {
	for _, x := range as {
		if x.localized == a.localized && x.canonical == a.canonical {
			return true
		}
	}
	return false
}

// searchOrder is generation g's place in the search's static order (lower
// first): era, brand popularity, model position in its brand, newest start.
func (c *Catalogue) searchOrder(g uint32, newest uint16) uint64 {
	// Generations in production or ended within 10 years are one era:
	// real marks split at their facelift (G20, G20 LCI) and a nameplate's
	// body styles sell different engines in different years, so a 2019
	// 3 Series 320d is as current to a buyer as a 2022 Touring's.
	era := uint64(1)
	if end := c.GenYearEnd[g]; end == 0 || newest-min(end, newest) <= 10 {
		era = 0
	}
	m := c.GenModel[g]
	b := c.ModelBrand[m]
	return era<<48 | uint64(c.BrandPopularity[b])<<32 | uint64(c.ModelID[m]&63)<<16 | uint64(MaxYear-min(c.GenYearStart[g], MaxYear))
}

// SearchQuery folds q and rewrites the words that start a brand's local
// spelling (3 letters or more), in any locale, into the brand's canonical
// name, for word_similarity. The locale argument is the request's; every
// locale's spellings count. It allocates only when q is not already folded
// or a word is rewritten.
func (c *Catalogue) SearchQuery(q string, _ int) string {
	folded := trigram.Fold(q)
	var words []string // allocated on the first rewrite
	changed := false
	for i := 0; i < len(folded); {
		for i < len(folded) && folded[i] <= ' ' {
			i++
		}
		j := i
		for j < len(folded) && folded[j] > ' ' {
			j++
		}
		if w := folded[i:j]; w != "" {
			if cw, ok := c.aliasFor(w); ok {
				if !changed {
					words, changed = strings.Fields(folded[:i]), true
				}
				words = append(words, cw)
			} else if changed {
				words = append(words, w)
			}
		}
		i = j
	}
	if !changed {
		return folded
	}
	return strings.Join(words, " ")
}

// aliasFor returns the canonical brand name a query word stands for, when
// it starts a local spelling (the most popular brand first).
func (c *Catalogue) aliasFor(w string) (string, bool) {
	if utf8.RuneCountInString(w) < 3 {
		return "", false
	}
	// The spellings that start with w follow each other in localized
	// order; the first in popularity order wins.
	as, order := c.search.aliases, c.search.aliasOrder
	i := sort.Search(len(order), func(i int) bool { return as[order[i]].localized >= w })
	best := -1
	for ; i < len(order) && strings.HasPrefix(as[order[i]].localized, w); i++ {
		if best < 0 || order[i] < best {
			best = order[i]
		}
	}
	if best < 0 {
		return "", false
	}
	return as[best].canonical, true
}

// SearchText returns the folded search text of a variant row.
func (c *Catalogue) SearchText(row uint32) string { return c.search.ix.Text(row) }

// Search appends to dst the variant rows matching the folded query, in
// rank order (see trigram.Index.Rank), after the position when one is
// given, at most limit+1 of them, and reports whether a next page follows
// (the page may hold fewer than limit rows when it does: see Rank).
func (c *Catalogue) Search(dst []SearchMatch, folded string, threshold float32, after *SearchPosition, limit int) ([]SearchMatch, bool) {
	s := trigram.AcquireScratch()
	defer trigram.ReleaseScratch(s)
	return c.search.ix.Rank(dst, trigram.RankQuery{Text: folded, Threshold: threshold, After: after, Limit: limit}, s)
}

// SearchSimilar appends to dst the variant rows whose search text matches
// the folded query with a word similarity of at least threshold, in
// word_similarity's order (score descending, text ascending, row
// ascending), after the position when one is given, at most limit+1 of
// them: the recall floor of Search, PostgreSQL's answer.
func (c *Catalogue) SearchSimilar(dst []trigram.Match, folded string, threshold float32, after *trigram.Position, limit int) []trigram.Match {
	s := trigram.AcquireScratch()
	defer trigram.ReleaseScratch(s)
	return c.search.ix.Search(dst, trigram.Query{Text: folded, Threshold: threshold, After: after, Limit: limit}, s)
}

// RowAtOrBefore returns the row of the largest stable id at most id, and
// false when every id is greater (a cursor's variant gone after a reload).
func (c *Catalogue) RowAtOrBefore(id uint32) (uint32, bool) {
	i := sort.Search(len(c.VarID), func(i int) bool { return c.VarID[i] > id })
	if i == 0 {
		return 0, false
	}
	return uint32(i - 1), true
}

// SearchMatch is one search result: a variant row, its rank key and its
// word_similarity score.
type SearchMatch = trigram.Ranked

// SearchPosition is a point in the search's rank order, what a cursor
// carries (see trigram.RankPosition).
type SearchPosition = trigram.RankPosition

// Fold lower-cases s and removes diacritics, as the search texts are.
func Fold(s string) string { return trigram.Fold(s) }
