package trigram

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"
)

// MaxRankWords is the number of query words the word matching considers; a
// longer query is ranked on its first MaxRankWords words, and only the rows
// word_similarity finds match it.
const MaxRankWords = 16

// typoSimilarity is the least pg_trgm similarity between a query word and a
// row word that counts as a typo ("fokus" and "focus" share 3 of 9
// trigrams, 0.33); typoMinRunes is the shortest query word that may match
// with a typo.
const (
	typoSimilarity = 0.3
	typoMinRunes   = 4
)

// Kinds of word match, best last.
const (
	kindNone   = 0
	kindTypo   = 1
	kindPrefix = 2
	kindExact  = 3
)

// RankQuery holds the options of one ranked search.
type RankQuery struct {
	// Text is the folded query (Fold).
	Text string
	// Threshold is word_similarity's threshold, as in Query.
	Threshold float32
	// After, when set, is the position of the last match of the previous
	// page: only matches strictly after it in rank order are returned.
	After *RankPosition
	// Limit is the page size; Rank returns up to Limit+1 matches.
	Limit int
}

// RankPosition is a point in the rank order: a match (k, r) comes after it
// when k < Key, or k == Key and r comes after Row in the static order. Row
// is a row of the index searched (see Position for mapping a stable id).
type RankPosition struct {
	Key uint64
	Row uint32
}

// Ranked is one ranked search result: the row, its sort key (what a cursor
// carries) and its word_similarity to the query (0 when below every
// trigram), which is reported, not sorted on.
type Ranked struct {
	Row   uint32
	Key   uint64
	Score float32
}

// rhit is a match in Rank's heap.
type rhit struct {
	key   uint64
	ord   uint32
	score float32
	has   bool // score is computed
}

// rankScratch is the part of Scratch that Rank uses.
type rankScratch struct {
	qbuf    []byte
	qw      [MaxRankWords][3][2]int32 // per query word, three spellings (as typed, transliterated, AppendHard): [start, end) in qbuf
	tm      []uint32                  // by token id: 2 bits per query word, its best kind of match; 0 at rest
	touched []uint32                  // the token ids set in tm
	tcnt    []uint8                   // by token id: shared trigrams in the typo pass; 0 at rest
	tlist   []uint32                  // the token ids counted in tcnt
	tkeys   []Trigram
	tbuf    []byte
	bits    []uint64 // by ord: the driver's rows; 0 at rest
	bits2   []uint64 // by ord: another word's rows; 0 at rest
	heap    []rhit
	mw      markState
	// By query word, from markWord: how many rows its tokens hold in all,
	// its best kind of match, whether a token it matches is a brand or
	// model word somewhere, and the positions of its tokens.
	card     [MaxRankWords]int
	bestKind [MaxRankWords]uint8
	bm       [MaxRankWords]bool
	wpos     [MaxRankWords]uint64
	// The tiers of scan (tiers.go): bit-sliced counters, per 64-row word
	// of the candidates, and one query word's class bitsets.
	planes []uint64
	cls    []uint64
	// By query word, the best kind of its trim-only tokens per candidate
	// (two planes per word, for the words in trimKnown), and by row
	// signature the parts sigKey reads, valid when stamped with gen.
	trimPl    []uint64
	anyTrim   []uint64 // the candidates with a trim match of a counted word
	trimKnown uint32
	sigStamp  []uint32
	sigParts  []sigPart
	sigMemo   []sigMemo
	// scorePage's extents scored so far on the page (as the words of the
	// text that hold them, slices of the index's) and their scores; by
	// word id, its query trigrams' first and last positions.
	spans      [][]uint32
	spanScores []float32
	wordMark   []wordMark
	// found is set when a row every query word matches was met, on the
	// heap or kept out of it by the position.
	found bool
	// By brand number: whether an alias of the brand matches a query
	// word, valid when aliasGen is gen, the current search's number.
	aliasGen []uint32
	aliasHit []bool
	gen      uint32
	fb       []Match  // a page of Search, for rankSimilar
	pos      Position // where rankSimilar resumes
	// The page: its size plus one, and the position it starts after.
	kept     int
	after    bool
	afterKey uint64
	afterOrd uint32
}

// push offers x to the heap of the best rs.kept matches after the position.
func (rs *rankScratch) push(x rhit) {
	if rs.after && (x.key > rs.afterKey || x.key == rs.afterKey && x.ord <= rs.afterOrd) {
		return
	}
	h := rs.heap
	if len(h) < rs.kept {
		h = append(h, x)
		rheapUp(h, len(h)-1)
	} else if rbetter(x, h[0]) {
		h[0] = x
		rheapDown(h, 0)
	}
	rs.heap = h
}

// Rank appends to dst the matches of q in rank order, after q.After, at
// most q.Limit+1 of them. A row matches when every query word matches a
// word of its brand, model or name, or when its word_similarity to the
// query reaches q.Threshold (as Search: nothing Search finds is lost). A
// query word matches a row word exactly, as a prefix (the last word, when
// the query does not end with a separator), or with a typo (pg_trgm
// similarity at least 0.3, or one byte inserted, deleted, replaced or two
// swapped, for words of 4 letters or more that no word of the catalogue
// holds or starts with); a word spelled
// in Cyrillic, Greek or Arabic also matches as transliterated; a brand
// alias matches as the brand; letters and digits written together or apart
// match both ways ("c200" and "c 200", "a4" and "a 4").
//
// A query word that matches no word of the catalogue at all is left out of
// "every query word" (Algolia's removeWordsIfNoResults): "golf xyzzy" ranks
// the Golfs first. The rank order, a total order, puts first the rows that
// every query word matches (at most MaxRankWords words), best first by:
//
//  1. how many query words match exactly, then how many as a prefix (the
//     others are typos);
//  2. how many match a word of the brand or model rather than a trim word;
//  3. how many consecutive query words match consecutive words of the row,
//     then how many match in the query's order;
//  4. when a query word matched a model word, how few of the model's words
//     no query word matched ("golf" puts Golf before Golf Variant);
//  5. the static order given to BuildRanked (popularity and recency), then
//     the row.
//
// The other rows follow in word_similarity's order (Search's: score, then
// text, then row). The key (Ranked.Key) encodes items 1 to 4 with the
// number of query words in its top 4 bits, or for the other rows the
// score's float bits alone, so it is smaller for every one of them; a
// cursor carries the key and the row. The index must come from
// BuildRanked. With a warm Scratch, Rank does not allocate beyond growing
// dst.
//
// more reports that a next page follows. A page that holds rows every
// query word matches but not Limit+1 of them ends there with more set: the
// rows only word_similarity finds start on the next page (which may then
// be empty), so a first page costs a word_similarity search only when no
// row matches every word.
func (ix *Index) Rank(dst []Ranked, q RankQuery, s *Scratch) ([]Ranked, bool) {
	wx := ix.wx
	rs := &s.rank
	limit := min(max(q.Limit, 0), ix.Len())
	kept := limit + 1
	if ix.Len() == 0 {
		return dst, false
	}
	if len(rs.tm) < wx.numTokens() {
		rs.tm = make([]uint32, wx.numTokens())
		rs.tcnt = make([]uint8, wx.numTokens())
	}
	if len(rs.aliasGen) < wx.brands {
		rs.aliasGen = make([]uint32, wx.brands)
		rs.aliasHit = make([]bool, wx.brands)
	}
	rs.gen++
	if rs.gen == 0 {
		clear(rs.aliasGen)
		clear(rs.sigStamp)
		clear(rs.sigMemo)
		clear(rs.wordMark)
		rs.gen = 1
	}
	if nw := (len(wx.ordRow) + 63) / 64; len(rs.bits) < nw {
		rs.bits = make([]uint64, nw)
		rs.bits2 = make([]uint64, nw)
	}
	var afterOrd uint32
	if q.After != nil {
		afterOrd = wx.rowOrd[q.After.Row]
	}
	nw, whole := rs.words(q.Text)
	rs.heap = rs.heap[:0]
	rs.found = false
	rs.kept, rs.after, rs.afterKey, rs.afterOrd = kept, q.After != nil, 0, afterOrd
	if q.After != nil {
		rs.afterKey = q.After.Key
	}

	// Every query word matches: candidates from the postings of the most
	// selective word, in static order.
	card := &rs.card
	// The words that match no word of the catalogue at all (garbage, or
	// a model the catalogue lacks) are left out of "every word": the rows
	// the others match come first (Algolia's removeWordsIfNoResults).
	need := 0
	inSimilar := q.After != nil && q.After.Key < 1<<60 // the cursor is past every row all words match
	prefixLast := q.Text != "" && isWordByte(q.Text)
	if whole {
		for i := 0; i < nw; i++ {
			card[i], rs.bestKind[i], rs.bm[i] = wx.markWord(rs, i, i == nw-1 && prefixLast)
			rs.wpos[i] = rs.mw.pos
			if card[i] > 0 {
				need++
			}
		}
	}
	all := need > 0
	if all && !inSimilar {
		d := -1
		for i := 0; i < nw; i++ {
			if card[i] > 0 && (d < 0 || card[i] < card[d]) {
				d = i
			}
		}
		lo, hi := len(rs.bits), -1
		if pb, _, ok := rs.prefixBits(wx, d, nw, prefixLast); ok {
			lo, hi = 0, len(pb)-1
			copy(rs.bits, pb)
		} else {
			for _, id := range rs.touched {
				if rs.tm[id]>>(2*d)&3 == 0 {
					continue
				}
				runs := wx.post[wx.postOff[id]:wx.postOff[id+1]]
				first, last := runsSpan(runs)
				lo = min(lo, int(first>>6))
				hi = max(hi, int(last>>6))
				orRuns(rs.bits, 0, runs)
			}
		}
		// The other words' rows narrow the candidates first when their
		// postings cost less than scoring the driver's rows would.
		for i := 0; i < nw && hi >= lo; i++ {
			if i == d || card[i] == 0 {
				continue
			}
			if pb, _, ok := rs.prefixBits(wx, i, nw, prefixLast); ok {
				for w := lo; w <= hi; w++ {
					rs.bits[w] &= pb[w]
				}
				continue
			}
			if card[i] > 16*card[d] {
				continue
			}
			for _, id := range rs.touched {
				if rs.tm[id]>>(2*i)&3 == 0 {
					continue
				}
				orRuns(rs.bits2[lo:hi+1], lo, wx.post[wx.postOff[id]:wx.postOff[id+1]])
			}
			for w := lo; w <= hi; w++ {
				rs.bits[w] &= rs.bits2[w]
				rs.bits2[w] = 0
			}
		}
		// Words of the candidate bitset left empty by the narrowing
		// hold no candidate.
		for lo <= hi && rs.bits[lo] == 0 {
			lo++
		}
		for hi >= lo && rs.bits[hi] == 0 {
			hi--
		}
		if hi >= lo {
			wx.scan(rs, lo, hi, nw, need, prefixLast)
			clear(rs.bits[lo : hi+1])
		}
	}

	base := len(dst)
	h := rs.heap
	slices.SortFunc(h, func(a, b rhit) int { // rbetter's order, one comparison
		if a.key != b.key {
			if a.key > b.key {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.ord, b.ord)
	})
	ix.scorePage(h, q.Text, s)
	for _, x := range h {
		dst = append(dst, Ranked{Row: wx.ordRow[x.ord], Key: x.key, Score: x.score})
	}
	// The rows word_similarity finds that not every query word matches
	// follow, in word_similarity's own order, when the page has room.
	more := len(h) == kept
	if n := kept - len(h); n > 0 {
		if len(h) == 0 {
			if !rs.found && !inSimilar {
				// No row matches every word: none to skip.
				need = 0
			}
			dst = ix.rankSimilar(dst, rs, s, q, nw, need, n)
			more = len(dst)-base > limit
		} else {
			// A page of rows that every word matches ends here; the rows
			// only word_similarity finds start on the next page, which
			// costs a word_similarity search only when asked for.
			more = true
		}
	}
	for _, id := range rs.touched {
		rs.tm[id] = 0
	}
	rs.touched = rs.touched[:0]
	rs.heap = h[:0]
	return dst, more
}

// isWordByte tells whether s ends with a letter or digit: the last word is
// still being typed, so it matches as a prefix.
func isWordByte(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// bmAmong tells whether some candidate row (rs.bits, words lo..hi) holds
// a token of query word i as a brand or model word.
func (wx *wordIndex) bmAmong(rs *rankScratch, i, lo, hi int) bool {
	for _, id := range rs.touched {
		if rs.tm[id]>>(2*i)&3 == 0 {
			continue
		}
		if anyRuns(rs.bits[lo:hi+1], lo, wx.bmPost[wx.bmOff[id]:wx.bmOff[id+1]]) {
			return true
		}
	}
	return false
}

// prefixBits returns the prefix bitsets of query word i (all its rows, and
// those where it is a brand or model word) when the rows it matches are
// exactly those: the last word typed as a prefix, one or two ASCII bytes
// (so no transliteration and no typos).
func (rs *rankScratch) prefixBits(wx *wordIndex, i, nw int, prefixLast bool) (all, bm []uint64, ok bool) {
	if i != nw-1 || !prefixLast || rs.qw[i][1][0] != rs.qw[i][1][1] {
		return nil, nil, false
	}
	return wx.prefixBits(rs.qbuf[rs.qw[i][0][0]:rs.qw[i][0][1]])
}

// packKey packs the number of query words matched and items 1 to 4 of the
// rank order, 4 bits each, into the top 28 bits of a key. The keys of the
// rows only word_similarity finds are the score's float bits alone, below
// 1<<32, so below every packed key (at least one word matched).
func packKey(matched, exact, prefix, nbm, adj, inOrder, cover int) uint64 {
	c := func(v int) uint64 { return uint64(min(max(v, 0), 15)) }
	return c(matched)<<60 | c(exact)<<56 | c(prefix)<<52 | c(nbm)<<48 | c(adj)<<44 | c(inOrder)<<40 | c(cover)<<36
}

// words splits the folded query into at most MaxRankWords words, each with
// its transliteration when it has one, into rs.qw; whole is false when the
// query had more words.
func (rs *rankScratch) words(text string) (n int, whole bool) {
	rs.qbuf = rs.qbuf[:0]
	whole = true
	add := func(w string) {
		if n == MaxRankWords {
			whole = false
			return
		}
		a := int32(len(rs.qbuf))
		rs.qbuf = append(rs.qbuf, w...)
		b := int32(len(rs.qbuf))
		rs.qw[n][0] = [2]int32{a, b}
		rs.qw[n][1] = [2]int32{b, b}
		rs.qw[n][2] = [2]int32{b, b}
		if NeedsTranslit(w) {
			rs.qbuf = AppendTranslit(rs.qbuf, w)
			c := int32(len(rs.qbuf))
			rs.qw[n][1] = [2]int32{b, c}
			rs.qbuf = AppendHard(rs.qbuf, w)
			rs.qw[n][2] = [2]int32{c, int32(len(rs.qbuf))}
		}
		n++
	}
	for i := 0; ; {
		start, end := nextWord(text, i)
		if start == end {
			return n, whole
		}
		add(text[start:end])
		i = end
	}
}

// markWord marks in rs.tm the tokens that query word i matches, with their
// kind, and returns how many rows they hold in all (an upper bound on the
// rows the word matches), its best kind, and whether a token it matches is
// a brand or model word somewhere.
func (wx *wordIndex) markWord(rs *rankScratch, i int, prefix bool) (card int, best uint8, bm bool) {
	rs.mw = markState{shift: uint(2 * i)}
	for alt := 0; alt < 3; alt++ {
		span := rs.qw[i][alt]
		if span[0] == span[1] {
			continue
		}
		w := rs.qbuf[span[0]:span[1]]
		lo := wx.lowerBound(w)
		if int(lo) < wx.numTokens() && wx.tokenAt(lo) == unsafeString(w) {
			wx.mark(rs, lo, kindExact)
		}
		if prefix {
			for id, end := lo, wx.prefixEnd(w, lo); id < end; id++ {
				wx.mark(rs, id, kindPrefix)
			}
		}
	}
	// Typos only for a word that no word of the catalogue holds or starts
	// with (as Typesense's typo_tokens_threshold): they would rank below
	// those anyway, and the trigram pass is the costly part of matching.
	for alt := 0; alt < 3 && rs.mw.best == kindNone; alt++ {
		span := rs.qw[i][alt]
		if w := rs.qbuf[span[0]:span[1]]; runeCount(w) >= typoMinRunes {
			wx.typos(rs, w)
		}
	}
	return rs.mw.card, rs.mw.best, rs.mw.bm
}

// markState is what markWord gathers about the word being marked.
type markState struct {
	shift uint
	card  int
	best  uint8
	bm    bool
	pos   uint64 // the word positions its tokens have in some row
}

// mark records that the word being marked matches token id with kind.
func (wx *wordIndex) mark(rs *rankScratch, id uint32, kind uint8) {
	st := &rs.mw
	m := rs.tm[id]
	cur := uint8(m >> st.shift & 3)
	if kind <= cur {
		return
	}
	if m == 0 {
		rs.touched = append(rs.touched, id)
	}
	rs.tm[id] = m&^(3<<st.shift) | uint32(kind)<<st.shift
	if cur == 0 {
		st.card += int(wx.postN[id])
	}
	st.best = max(st.best, kind)
	st.bm = st.bm || wx.tokFlags[id]&fieldBM != 0
	st.pos |= wx.tokPos[id]
}

// typos marks the tokens whose trigram similarity to w is at least
// typoSimilarity.
func (wx *wordIndex) typos(rs *rankScratch, w []byte) {
	rs.tkeys, rs.tbuf = appendTrigrams(rs.tkeys[:0], unsafeString(w), rs.tbuf)
	rs.tkeys = sortUnique(rs.tkeys)
	nk := len(rs.tkeys)
	// A token within typoSimilarity shares at least 0.3*nk of the word's
	// trigrams, so from 4 trigrams on it shares one besides the commonest
	// (pigeonhole): that list, often a word's first letter, is not walked;
	// a token found through the others gets its share of it from its own
	// trigrams.
	skip := -1
	if nk >= 4 {
		most := -1
		for i, k := range rs.tkeys {
			if j, ok := slices.BinarySearch(wx.triKeys, k); ok {
				if n := int(wx.triOff[j+1] - wx.triOff[j]); n > most {
					most, skip = n, i
				}
			}
		}
	}
	for i, k := range rs.tkeys {
		if i == skip {
			continue
		}
		j, ok := slices.BinarySearch(wx.triKeys, k)
		if !ok {
			continue
		}
		for _, id := range wx.triTok[wx.triOff[j]:wx.triOff[j+1]] {
			if rs.tcnt[id] == 0 {
				rs.tlist = append(rs.tlist, id)
			}
			if rs.tcnt[id] < 255 {
				rs.tcnt[id]++
			}
		}
	}
	for _, id := range rs.tlist {
		c := int(rs.tcnt[id])
		rs.tcnt[id] = 0
		if skip >= 0 {
			if _, ok := slices.BinarySearch(wx.tokTri[wx.tokTriOff[id]:wx.tokTriOff[id+1]], rs.tkeys[skip]); ok {
				c++
			}
		}
		tok := wx.dict[wx.dictOff[id]:wx.dictOff[id+1]]
		if (float64(c) >= typoSimilarity*float64(nk+int(wx.tokTriN[id])-c) || oneEdit(w, tok)) && !isDigitsBytes(tok) {
			wx.mark(rs, id, kindTypo)
		}
	}
	rs.tlist = rs.tlist[:0]
}

// oneEdit tells whether a and b differ by one inserted, deleted or
// replaced byte, or two adjacent bytes swapped ("swfit", "swift"): typos
// that break too many trigrams of a short word for the similarity to see.
func oneEdit(a, b []byte) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if i == len(a) {
		return true // equal, or b has one more byte at the end
	}
	if len(a) == len(b) {
		if string(a[i+1:]) == string(b[i+1:]) {
			return true // replaced
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && string(a[i+2:]) == string(b[i+2:])
	}
	return string(a[i:]) == string(b[i+1:]) // inserted
}

func isDigitsBytes(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// features returns the key of the row at ord o for the nw query words
// marked in rs.tm, and how many of them match a word of the row.
func (wx *wordIndex) features(rs *rankScratch, o uint32, nw int) (uint64, int) {
	var kind, field, pos [MaxRankWords]uint8
	end := wx.rtOff[o+1]
	// The brand's aliases, when none of them matches (known after the
	// brand's first row), are skipped.
	if b := wx.rowBrand[o]; rs.aliasGen[b] != rs.gen {
		rs.aliasGen[b] = rs.gen
		rs.aliasHit[b] = false
		for j := wx.rtAlias[o]; j < end; j++ {
			if rs.tm[wx.rtTok[j]] != 0 {
				rs.aliasHit[b] = true
				break
			}
		}
		if !rs.aliasHit[b] {
			end = wx.rtAlias[o]
		}
	} else if !rs.aliasHit[b] {
		end = wx.rtAlias[o]
	}
	for j := wx.rtOff[o]; j < end; j++ {
		m := rs.tm[wx.rtTok[j]]
		if m == 0 {
			continue
		}
		f := wx.rtField[j] & fieldBM
		for i := 0; i < nw; i++ {
			k := uint8(m >> (2 * i) & 3)
			if k > kind[i] || k == kind[i] && k != 0 && f > field[i] {
				// Positions past 63 count as 63, as in the tokens'
				// position masks the early stop's bound reads.
				kind[i], field[i], pos[i] = k, f, min(wx.rtPos[j], 63)
			}
		}
	}
	key, matched, _ := wordKey(&kind, &field, &pos, nw, wx.modelMask[o], 0, 0)
	return key, matched
}

// wordKey returns the key of a row whose query word i (of nw) has its best
// match of kind[i] on a token of field[i] at position pos[i] (at most 63),
// mm being the positions of its model's words, and how many words match.
// A word whose bit is set in trim matched a trim word whose position is not
// known beyond being at least tEnd (at most 62), the first trim word's:
// the key is then the best the row can have, and exact tells whether it is
// the row's.
func wordKey(kind, field, pos *[MaxRankWords]uint8, nw int, mm uint64, trim uint32, tEnd uint8) (key uint64, matched int, exact bool) {
	exact = true
	nExact, prefix, nbm, adj, inOrder := 0, 0, 0, 0, 0
	var hit uint64
	for i := 0; i < nw; i++ {
		switch kind[i] {
		case kindNone:
			continue
		case kindExact:
			nExact++
		case kindPrefix:
			prefix++
		}
		matched++
		if field[i] != 0 {
			nbm++
		}
		ti := trim>>i&1 != 0
		if !ti {
			hit |= 1 << pos[i]
		}
		if i+1 >= nw || kind[i+1] == kindNone {
			continue
		}
		switch tj := trim>>(i+1)&1 != 0; {
		case !ti && !tj:
			if pos[i+1] == pos[i]+1 {
				adj++
			}
			if pos[i+1] > pos[i] {
				inOrder++
			}
		case !ti:
			// A brand or model word, then a trim word: in order, and
			// adjacent only if the first is the last before the trims.
			inOrder++
			if pos[i]+1 >= tEnd {
				adj++
				exact = false
			}
		case tj:
			adj++
			inOrder++
			exact = false
		}
		// A trim word, then a brand or model word: neither.
	}
	// Trim words are never model words.
	cover := 15
	if mm&hit != 0 {
		cover -= bits.OnesCount64(mm &^ hit)
	}
	return packKey(matched, nExact, prefix, nbm, adj, inOrder, cover), matched, exact
}

// rankSimilar appends to dst up to n rows whose word_similarity reaches
// the threshold and that not all the need query words that match
// something match (those were ranked already), in Search's order after the query's position when
// that lies among them. Their key is the score's float bits (below every
// key of a row that all query words match, whose top bits count them).
func (ix *Index) rankSimilar(dst []Ranked, rs *rankScratch, s *Scratch, q RankQuery, nw, need, n int) []Ranked {
	var after *Position
	if q.After != nil && q.After.Key < 1<<60 {
		rs.pos = Position{Score: math.Float32frombits(uint32(q.After.Key)), Text: ix.Text(q.After.Row), Row: q.After.Row}
		after = &rs.pos
	}
	// Batches double: most of the rows Search gives may be rows that all
	// query words match, skipped here.
	for limit := n + 8; n > 0; limit = min(2*limit, 1<<14) {
		rs.fb = ix.Search(rs.fb[:0], Query{Text: q.Text, Threshold: q.Threshold, After: after, Limit: limit}, s)
		for _, m := range rs.fb {
			if need > 0 {
				if _, matched := ix.wx.features(rs, ix.wx.rowOrd[m.Row], nw); matched == need {
					continue
				}
			}
			dst = append(dst, Ranked{Row: m.Row, Key: uint64(math.Float32bits(m.Score)), Score: m.Score})
			if n--; n == 0 {
				break
			}
		}
		if len(rs.fb) <= limit {
			break // no more matches
		}
		last := rs.fb[len(rs.fb)-1]
		rs.pos = Position{Score: last.Score, Text: ix.Text(last.Row), Row: last.Row}
		after = &rs.pos
	}
	return dst
}

// scorePage fills in the word_similarity of the matches that have none.
func (ix *Index) scorePage(h []rhit, text string, s *Scratch) {
	need := false
	for _, x := range h {
		need = need || !x.has
	}
	if !need {
		return
	}
	s.qkeys, s.wbuf = appendTrigrams(s.qkeys[:0], text, s.wbuf)
	s.qkeys = sortUnique(s.qkeys)
	nq := len(s.qkeys)
	if nq == 0 {
		return
	}
	s.fit(ix, 1)
	s.qids = s.qids[:0]
	for _, t := range s.qkeys {
		if id, ok := slices.BinarySearch(ix.keys, t); ok {
			s.qids = append(s.qids, uint32(id))
			s.qmark[id] = true
			s.qbits[id>>6] |= 1 << (id & 63)
		}
	}
	// Rows of a page often share the extent word_similarity scores ("bmw
	// 320d": the brand and model words, the trims after the last query
	// trigram): the greedy loop runs once per distinct extent. The extent
	// is found word by word (each word's marks looked at once per query),
	// from the first to the last word holding a query trigram, and two
	// rows with the same words there have the same extent, so a row
	// whose extent was scored is not read further.
	rs := &s.rank
	if nw := len(ix.wordOff) - 1; len(rs.wordMark) < nw {
		rs.wordMark = make([]wordMark, nw)
	}
	rs.spans, rs.spanScores = rs.spans[:0], rs.spanScores[:0]
next:
	for i := range h {
		if h[i].has {
			continue
		}
		h[i].has = true
		r := ix.rankOf[ix.wx.ordRow[h[i].ord]]
		slots := ix.slotWord[ix.slotOff[r]:ix.slotOff[r+1]]
		// The first word holding a query trigram from the front, the
		// last from the back: the words between are not looked at.
		fs, ls := -1, -1
		for j, w := range slots {
			if rs.wordMarks(ix, w, s.qbits).first >= 0 {
				fs = j
				break
			}
		}
		if fs < 0 {
			continue
		}
		// An extent scoring 1 that the words from fs start with settles
		// the score before the back is read: its last word holds a query
		// trigram, so the row's extent starts with it (the rule below).
		for j, x := range rs.spans {
			if rs.spanScores[j] == 1 && len(x) <= len(slots)-fs && slices.Equal(x, slots[fs:fs+len(x)]) {
				h[i].score = 1
				continue next
			}
		}
		for j := len(slots) - 1; ; j-- {
			if j == fs || rs.wordMarks(ix, slots[j], s.qbits).first >= 0 {
				ls = j
				break
			}
		}
		words := slots[fs : ls+1]
		for j, x := range rs.spans {
			// The same extent; or one that starts with an extent
			// scoring 1: the greedy loop reads an extent left to right
			// and keeps its best, so after that prefix it holds 1, the
			// most there is.
			if slices.Equal(x, words) || rs.spanScores[j] == 1 && len(x) < len(words) && slices.Equal(x, words[:len(x)]) {
				h[i].score = rs.spanScores[j]
				continue next
			}
		}
		// The extent in the text's trigrams: its words' trigrams follow
		// each other.
		seq := ix.seq[ix.seqOff[r]:ix.seqOff[r+1]]
		first := 0
		for _, w := range slots[:fs] {
			first += int(ix.wordOff[w+1] - ix.wordOff[w])
		}
		last := first
		for _, w := range slots[fs:ls] {
			last += int(ix.wordOff[w+1] - ix.wordOff[w])
		}
		first += int(rs.wordMark[slots[fs]].first)
		last += int(rs.wordMark[slots[ls]].last)
		span := seq[first : last+1]
		// The integer loop gives the same float4 when the denominators
		// stay small (see Index.score).
		if nq+len(seq) < maxExactDen {
			n, d := iterateWordSimilarityFrac(span, s.qmark, s.lastpos, nq)
			h[i].score = float32(n) / float32(d)
		} else {
			h[i].score = iterateWordSimilarity(span, s.qmark, s.lastpos, nq)
		}
		rs.spans = append(rs.spans, words)
		rs.spanScores = append(rs.spanScores, h[i].score)
	}
	clear(rs.spans) // no reference to this index stays in a pooled Scratch
	for _, id := range s.qids {
		s.qmark[id] = false
		s.qbits[id>>6] = 0
	}
}

// wordMark is the first and last position of a word's trigrams in the
// query (-1 when none is), valid when stamped with the search's gen.
type wordMark struct {
	stamp       uint32
	first, last int32
}

// wordMarks returns word w's marks in mark, computed once per search.
func (rs *rankScratch) wordMarks(ix *Index, w uint32, mark []uint64) wordMark {
	if m := rs.wordMark[w]; m.stamp == rs.gen {
		return m
	}
	first, last := markedSpan(ix.wordSeq[ix.wordOff[w]:ix.wordOff[w+1]], mark)
	rs.wordMark[w] = wordMark{stamp: rs.gen, first: int32(first), last: int32(last)}
	return rs.wordMark[w]
}

// rbetter tells whether a comes before b in rank order.
func rbetter(a, b rhit) bool {
	return a.key > b.key || a.key == b.key && a.ord < b.ord
}

// The heap keeps the worst match kept at h[0].
func rheapUp(h []rhit, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !rbetter(h[p], h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func rheapDown(h []rhit, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		w := l
		if r := l + 1; r < len(h) && rbetter(h[l], h[r]) {
			w = r
		}
		if !rbetter(h[i], h[w]) {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}
