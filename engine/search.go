package engine

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vspec/catalogue/index/trigram"
)

// The typeahead: a trigram index over each variant's search text, the
// folded "brand display-name" (the display name starts with the model's
// name), scored with pg_trgm's word_similarity (see index/trigram).
//
// Brand names that a locale writes in another script (Фолксваген in
// Bulgarian) are honoured by rewriting the query: a query word that starts
// the folded brand name as the request's locale writes it is replaced by the
// brand's canonical folded name before scoring, so "фолксваген голф" and
// "фолкс" find Volkswagen in bg. Model and variant names are not localized in
// the catalogue, so nothing else needs rewriting.

type search struct {
	ix      *trigram.Index
	aliases [][]brandAlias // per locale
}

type brandAlias struct {
	localized, canonical string // folded
	popularity           uint16
}

func (c *Catalogue) deriveSearch() {
	texts := make([]string, len(c.VarID))
	buf := make([]byte, 0, 64)
	for r := range c.VarID {
		buf = append(buf[:0], c.BrandName.Bytes(c.ModelBrand[c.varModel[r]])...)
		buf = append(buf, ' ')
		buf = append(buf, c.VarName.Bytes(uint32(r))...)
		texts[r] = trigram.Fold(string(buf))
	}
	c.search.ix = trigram.Build(texts)
	c.search.aliases = make([][]brandAlias, len(c.Locales))
	for li := range c.Locales {
		for b := range c.BrandID {
			// The local spelling, whether the locale displays it (ar) or
			// the Latin name (bg, el, sr), stands for the brand.
			if n := c.BrandAliases[li].String(uint32(b)); n != "" {
				c.search.aliases[li] = append(c.search.aliases[li], brandAlias{
					localized: trigram.Fold(n), canonical: trigram.Fold(c.BrandName.String(uint32(b))), popularity: c.BrandPopularity[b],
				})
			}
		}
		// The most popular brand wins when a prefix starts several names.
		a := c.search.aliases[li]
		sort.Slice(a, func(i, j int) bool { return a[i].popularity < a[j].popularity })
	}
}

// SearchQuery folds q and rewrites the words that start a brand name as
// locale li writes it into the brand's canonical name.
func (c *Catalogue) SearchQuery(q string, li int) string {
	folded := trigram.Fold(q)
	aliases := c.search.aliases[li]
	if len(aliases) == 0 {
		return folded
	}
	words := strings.Fields(folded)
	changed := false
	for i, w := range words {
		if utf8.RuneCountInString(w) < 3 {
			continue
		}
		for _, a := range aliases {
			if strings.HasPrefix(a.localized, w) {
				words[i], changed = a.canonical, true
				break
			}
		}
	}
	if !changed {
		return folded
	}
	return strings.Join(words, " ")
}

// SearchText returns the folded search text of a variant row.
func (c *Catalogue) SearchText(row uint32) string { return c.search.ix.Text(row) }

// Search appends to dst the variant rows whose search text matches the
// folded query with a word similarity of at least threshold, in result
// order (score descending, text ascending, row ascending), after the
// position when one is given, at most limit+1 of them.
func (c *Catalogue) Search(dst []SearchMatch, folded string, threshold float32, after *SearchPosition, limit int) []SearchMatch {
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

// SearchMatch is one search result: a variant row and its score.
type SearchMatch = trigram.Match

// SearchPosition is a point in the search result order, what a cursor
// carries (see trigram.Position).
type SearchPosition = trigram.Position

// Fold lower-cases s and removes diacritics, as the search texts are.
func Fold(s string) string { return trigram.Fold(s) }
