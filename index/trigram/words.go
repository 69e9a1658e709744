package trigram

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Doc is what the ranked search (Index.Rank) knows of a row beyond its
// text: its brand, model and variant name, folded (Fold), and its place in
// the catalogue's static order (popularity and recency; lower first). The
// name usually starts with the model's name; its words after the model's
// are the trim words.
type Doc struct {
	Brand, Model, Name string
	Order              uint64
}

// Alias is another spelling of a brand, folded: "vw", "merc", "фолксваген".
// A query word matching an alias matches the brand's rows as their brand
// word would.
type Alias struct {
	Word, Brand string
}

// Field flags of a row token.
const (
	fieldBM    = 1 << iota // a word of the brand or the model (else a trim word)
	fieldModel             // a word of the model
)

// wordIndex is the word side of the index: every row's tokens (its words;
// the halves of words that join letters and digits, "a4" -> "a", "4"; the
// joins of a letter word and a digit word that follow each other,
// "c 200" -> "c200"; its brand's aliases) with their positions and fields,
// a sorted dictionary of the distinct tokens with their postings, and a
// trigram index over the dictionary for typos. Rows are numbered by ord,
// their place in the static order.
type wordIndex struct {
	ordRow, rowOrd []uint32
	dict           []byte   // tokens, sorted bytewise
	dictOff        []uint32 // by token id; len tokens+1
	tokFlags       []uint8  // by token id: fieldBM when some row holds it in its brand or model
	tokPos         []uint64 // by token id: the word positions it has in some row (bit p, 63 for 63 and later)
	postOff        []uint32 // by token id; len tokens+1
	post           []uint32 // ords ascending, as runs (runs.go)
	postN          []uint32 // by token id: how many ords
	bmOff          []uint32 // by token id; len tokens+1
	bmPost         []uint32 // the ords where the token is a brand or model word, ascending, as runs
	bmN            []uint32 // by token id: how many
	// By ord: the row's tokens, each with its word position and fields.
	rtOff   []uint32
	rtTok   []uint32
	rtPos   []uint8
	rtField []uint8
	// By ord: where the row's brand aliases start among its tokens (they
	// end its list), and its brand's number.
	rtAlias  []uint32
	rowBrand []uint16
	brands   int
	// By ord: the word positions of the model's words (bit p, p < 64).
	modelMask []uint64
	// Rows that share their brand and their brand and model tokens (the
	// first tokens of a row, up to its first trim word's) share a
	// signature: rowSig by ord; by signature, its first ord and the
	// position of the first trim word (the last brand or model token's
	// position plus one).
	rowSig  []uint32
	sigOrd  []uint32
	sigTrim []uint8
	// The rows holding a token that starts with one of the common one- or
	// two-byte ASCII prefixes, as bitsets by ord (typeahead sends "s",
	// "vo", ... and their postings are long): prefix prefKeys[i] (b0<<8 |
	// b1, b1 0 for one byte) is words [i*w, (i+1)*w) of prefBits.
	prefKeys []uint16
	prefBits []uint64
	// The same, counting only the rows where the token is a brand or
	// model word.
	prefBMBits []uint64
	// Typos: the distinct trigrams of each token (tokTriN) and, by trigram
	// key, the tokens that hold it.
	tokTriN   []uint8
	tokTriOff []uint32  // by token id; len tokens+1
	tokTri    []Trigram // each token's distinct trigrams, sorted
	triKeys   []Trigram
	triOff    []uint32
	triTok    []uint32
}

// token is a row token during Build.
type token struct {
	s          string
	pos, field uint8
}

// splitWords appends the words of a folded text: maximal runs of letters
// and digits, as pg_trgm cuts them.
func splitWords(dst []string, s string) []string {
	for i := 0; ; {
		start, end := nextWord(s, i)
		if start == end {
			return dst
		}
		dst = append(dst, s[start:end])
		i = end
	}
}

// nextWord returns the bounds of the first word of s at or after byte i
// (start == end when there is none).
func nextWord(s string, i int) (start, end int) {
	start = -1
	for j, r := range s[i:] {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i + j
			}
			continue
		}
		if start >= 0 {
			return start, i + j
		}
	}
	if start < 0 {
		return len(s), len(s)
	}
	return start, len(s)
}

// letterDigit returns the index where word switches once between letters and
// digits ("a4" -> 1, "320d" -> 3), or 0 when it does not switch exactly once.
func letterDigit(w string) int {
	cut, switches := 0, 0
	prev := -1
	for i, r := range w {
		k := 0
		if unicode.IsDigit(r) {
			k = 1
		}
		if prev >= 0 && k != prev {
			switches++
			cut = i
		}
		prev = k
	}
	if switches != 1 {
		return 0
	}
	return cut
}

func isDigits(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

func isLetters(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return w != ""
}

// tokenizer cuts rows into tokens, keeping what rows share (a model's
// words, a brand's alias words, joined words) so that building allocates
// per distinct string, not per row.
type tokenizer struct {
	aliases map[string][]aliasWord // brand -> alias words, split
	models  map[string][]string    // model -> its words
	joins   map[string]string      // "c\x00200" -> "c200"
	words   []string
	buf     []byte
}

// aliasWord is word j of an alias.
type aliasWord struct {
	w string
	j int
}

// rowTokens appends the tokens of one row and returns how many of them, at
// the end, are its brand's aliases.
func (tz *tokenizer) rowTokens(dst []token, d Doc) ([]token, int) {
	words := splitWords(tz.words[:0], d.Brand)
	nb := len(words)
	words = splitWords(words, d.Name)
	tz.words = words
	model, ok := tz.models[d.Model]
	if !ok {
		model = splitWords(nil, d.Model)
		tz.models[d.Model] = model
	}
	// The name's first words are the model's when it starts with them.
	nm := 0
	if len(model) <= len(words)-nb && slices.Equal(words[nb:nb+len(model)], model) {
		nm = len(model)
	}
	for i, w := range words {
		if i >= 255 {
			break
		}
		var f uint8
		switch {
		case i < nb:
			f = fieldBM
		case i < nb+nm:
			f = fieldBM | fieldModel
		}
		dst = append(dst, token{s: w, pos: uint8(i), field: f})
		if cut := letterDigit(w); cut > 0 {
			dst = append(dst, token{s: w[:cut], pos: uint8(i), field: f}, token{s: w[cut:], pos: uint8(i), field: f})
		}
		if i+1 < len(words) && (isLetters(w) && isDigits(words[i+1]) || isDigits(w) && isLetters(words[i+1])) {
			tz.buf = append(append(append(tz.buf[:0], w...), 0), words[i+1]...)
			j, ok := tz.joins[string(tz.buf)]
			if !ok {
				j = w + words[i+1]
				tz.joins[string(tz.buf)] = j
			}
			dst = append(dst, token{s: j, pos: uint8(i), field: f})
		}
	}
	// The brand's aliases come last: the same for every row of the brand,
	// so Rank looks at them once per brand and query.
	n := len(dst)
	for _, a := range tz.aliases[d.Brand] {
		dst = append(dst, token{s: a.w, pos: uint8(min(a.j, nb-1, 255)), field: fieldBM})
	}
	return dst, len(dst) - n
}

// buildWords builds the word index of docs (one per row) and aliases.
func buildWords(docs []Doc, aliases []Alias) *wordIndex {
	n := len(docs)
	wx := &wordIndex{ordRow: make([]uint32, n), rowOrd: make([]uint32, n)}
	for i := range wx.ordRow {
		wx.ordRow[i] = uint32(i)
	}
	slices.SortStableFunc(wx.ordRow, func(a, b uint32) int {
		if docs[a].Order != docs[b].Order {
			if docs[a].Order < docs[b].Order {
				return -1
			}
			return 1
		}
		return int(a) - int(b)
	})
	for o, r := range wx.ordRow {
		wx.rowOrd[r] = uint32(o)
	}
	// Each alias's words stand at the brand's word positions (the second
	// word of "فولكس فاجن" at the brand's second word, or its last).
	tz := &tokenizer{aliases: map[string][]aliasWord{}, models: map[string][]string{}, joins: map[string]string{}}
	seenAlias := map[Alias]bool{}
	for _, a := range aliases {
		if a.Word == "" || a.Word == a.Brand || seenAlias[a] {
			continue
		}
		seenAlias[a] = true
		for j, w := range splitWords(nil, a.Word) {
			tz.aliases[a.Brand] = append(tz.aliases[a.Brand], aliasWord{w, j})
		}
	}

	ids := map[string]uint32{}
	var names []string
	var toks []token
	wx.rtOff = make([]uint32, n+1)
	wx.rtAlias = make([]uint32, n)
	wx.rowBrand = make([]uint16, n)
	wx.modelMask = make([]uint64, n)
	brands := map[string]uint16{}
	for o, r := range wx.ordRow {
		b, ok := brands[docs[r].Brand]
		if !ok {
			b = uint16(min(len(brands), 1<<16-1))
			brands[docs[r].Brand] = b
		}
		wx.rowBrand[o] = b
		var nalias int
		toks, nalias = tz.rowTokens(toks[:0], docs[r])
		wx.rtAlias[o] = uint32(len(wx.rtTok) + len(toks) - nalias)
		for _, t := range toks {
			id, ok := ids[t.s]
			if !ok {
				id = uint32(len(names))
				ids[t.s] = id
				names = append(names, strings.Clone(t.s))
			}
			wx.rtTok = append(wx.rtTok, id)
			wx.rtPos = append(wx.rtPos, t.pos)
			wx.rtField = append(wx.rtField, t.field)
			if t.field&fieldModel != 0 && t.pos < 64 {
				wx.modelMask[o] |= 1 << t.pos
			}
		}
		wx.rtOff[o+1] = uint32(len(wx.rtTok))
	}

	wx.brands = len(brands)
	wx.buildSigs()

	// Token ids in dictionary order.
	order := make([]uint32, len(names))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(names[a], names[b]) })
	final := make([]uint32, len(names))
	wx.dictOff = make([]uint32, len(names)+1)
	for f, p := range order {
		final[p] = uint32(f)
		wx.dict = append(wx.dict, names[p]...)
		wx.dictOff[f+1] = uint32(len(wx.dict))
	}
	for i, id := range wx.rtTok {
		wx.rtTok[i] = final[id]
	}

	// Postings, one ord at most once per token.
	nt := len(names)
	wx.tokFlags = make([]uint8, nt)
	wx.tokPos = make([]uint64, nt)
	for i, id := range wx.rtTok {
		wx.tokFlags[id] |= wx.rtField[i] & fieldBM
		wx.tokPos[id] |= 1 << min(wx.rtPos[i], 63)
	}
	wx.postOff, wx.post, wx.postN = wx.postings(nt, func(int) bool { return true })
	// The rows where a token is a brand or model word, for the early
	// stop's bound.
	wx.bmOff, wx.bmPost, wx.bmN = wx.postings(nt, func(i int) bool { return wx.rtField[i]&fieldBM != 0 })

	wx.buildPrefixes()

	// The typo index: token trigrams, as pg_trgm's similarity counts them.
	type pair struct {
		k  Trigram
		id uint32
	}
	var pairs []pair
	var tb []Trigram
	var wb []byte
	wx.tokTriN = make([]uint8, nt)
	wx.tokTriOff = make([]uint32, nt+1)
	for id := 0; id < nt; id++ {
		tb, wb = appendTrigrams(tb[:0], wx.tokenAt(uint32(id)), wb)
		tb = sortUnique(tb)
		wx.tokTriN[id] = uint8(min(len(tb), 255))
		wx.tokTri = append(wx.tokTri, tb...)
		wx.tokTriOff[id+1] = uint32(len(wx.tokTri))
		for _, k := range tb {
			pairs = append(pairs, pair{k, uint32(id)})
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if a.k != b.k {
			if a.k < b.k {
				return -1
			}
			return 1
		}
		return int(a.id) - int(b.id)
	})
	wx.triTok = make([]uint32, len(pairs))
	for i, p := range pairs {
		if i == 0 || p.k != pairs[i-1].k {
			wx.triKeys = append(wx.triKeys, p.k)
			wx.triOff = append(wx.triOff, uint32(i))
		}
		wx.triTok[i] = p.id
	}
	wx.triOff = append(wx.triOff, uint32(len(pairs)))
	return wx
}

// buildSigs numbers the rows' signatures.
func (wx *wordIndex) buildSigs() {
	n := len(wx.ordRow)
	wx.rowSig = make([]uint32, n)
	sigs := map[string]uint32{}
	var key []byte
	for o := 0; o < n; o++ {
		key = append(key[:0], byte(wx.rowBrand[o]), byte(wx.rowBrand[o]>>8))
		end := wx.rtOff[o]
		trim := 0
		for ; end < wx.rtAlias[o] && wx.rtField[end]&fieldBM != 0; end++ {
			t := wx.rtTok[end]
			key = append(key, byte(t), byte(t>>8), byte(t>>16), byte(t>>24), wx.rtPos[end], wx.rtField[end])
			trim = max(trim, int(wx.rtPos[end])+1)
		}
		id, ok := sigs[string(key)]
		if !ok {
			id = uint32(len(wx.sigOrd))
			sigs[string(key)] = id
			wx.sigOrd = append(wx.sigOrd, uint32(o))
			wx.sigTrim = append(wx.sigTrim, uint8(min(trim, 255)))
		}
		wx.rowSig[o] = id
	}
}

// postings lays out, for each of the nt tokens, the ords of the rows whose
// row-token entries i with keep(i) hold it, each ord once and in order, as
// runs: offsets (nt+1) into one flat list, and how many ords each has.
func (wx *wordIndex) postings(nt int, keep func(i int) bool) (off, runs, count []uint32) {
	n := len(wx.rtOff) - 1
	off = make([]uint32, nt+1)
	seen := make([]uint32, nt) // the last ord+1 counted per token
	for o := 0; o < n; o++ {
		for i := wx.rtOff[o]; i < wx.rtOff[o+1]; i++ {
			if id := wx.rtTok[i]; keep(int(i)) && seen[id] != uint32(o+1) {
				seen[id] = uint32(o + 1)
				off[id+1]++
			}
		}
	}
	count = make([]uint32, nt)
	for id := 0; id < nt; id++ {
		count[id] = off[id+1]
		off[id+1] += off[id]
	}
	post := make([]uint32, off[nt])
	fill := slices.Clone(off[:nt])
	clear(seen)
	for o := 0; o < n; o++ {
		for i := wx.rtOff[o]; i < wx.rtOff[o+1]; i++ {
			if id := wx.rtTok[i]; keep(int(i)) && seen[id] != uint32(o+1) {
				seen[id] = uint32(o + 1)
				post[fill[id]] = uint32(o)
				fill[id]++
			}
		}
	}
	roff := make([]uint32, nt+1)
	for id := 0; id < nt; id++ {
		runs = appendRuns(runs, post[off[id]:off[id+1]])
		roff[id+1] = uint32(len(runs))
	}
	return roff, slices.Clip(runs), count
}

// prefixRows is the least number of postings for which a prefix gets a
// bitset: the bitset costs ordWords words, and copying it beats setting
// that many bits one by one. (A variable for the tests.)
var prefixRows = 8192

// buildPrefixes builds the bitsets of the common one- and two-byte
// prefixes.
func (wx *wordIndex) buildPrefixes() {
	sum := map[uint16]int{}
	for id := 0; id < wx.numTokens(); id++ {
		t := wx.tokenAt(uint32(id))
		n := int(wx.postN[id])
		if len(t) >= 1 && t[0] < utf8.RuneSelf {
			sum[uint16(t[0])<<8] += n
			if len(t) >= 2 && t[1] < utf8.RuneSelf {
				sum[uint16(t[0])<<8|uint16(t[1])] += n
			}
		}
	}
	for k, n := range sum {
		if n >= prefixRows {
			wx.prefKeys = append(wx.prefKeys, k)
		}
	}
	slices.Sort(wx.prefKeys)
	w := wx.ordWords()
	wx.prefBits = make([]uint64, w*len(wx.prefKeys))
	wx.prefBMBits = make([]uint64, w*len(wx.prefKeys))
	var p [2]byte
	for i, k := range wx.prefKeys {
		p[0], p[1] = byte(k>>8), byte(k)
		pre := p[:1]
		if p[1] != 0 {
			pre = p[:2]
		}
		bs, bm := wx.prefBits[i*w:(i+1)*w], wx.prefBMBits[i*w:(i+1)*w]
		lo := wx.lowerBound(pre)
		for id, end := lo, wx.prefixEnd(pre, lo); id < end; id++ {
			orRuns(bs, 0, wx.post[wx.postOff[id]:wx.postOff[id+1]])
			orRuns(bm, 0, wx.bmPost[wx.bmOff[id]:wx.bmOff[id+1]])
		}
	}
}

// ordWords is the number of 64-row words of a bitset by ord.
func (wx *wordIndex) ordWords() int { return (len(wx.ordRow) + 63) / 64 }

// prefixBits returns the bitset of the rows holding a token that starts
// with w, when w is a prefix that has one, and that of the rows where such
// a token is a brand or model word.
func (wx *wordIndex) prefixBits(w []byte) (all, bm []uint64, ok bool) {
	if len(w) < 1 || len(w) > 2 || w[0] >= utf8.RuneSelf || len(w) == 2 && w[1] >= utf8.RuneSelf {
		return nil, nil, false
	}
	k := uint16(w[0]) << 8
	if len(w) == 2 {
		k |= uint16(w[1])
	}
	i, ok := slices.BinarySearch(wx.prefKeys, k)
	if !ok {
		return nil, nil, false
	}
	n := wx.ordWords()
	return wx.prefBits[i*n : (i+1)*n], wx.prefBMBits[i*n : (i+1)*n], true
}

func (wx *wordIndex) tokenAt(id uint32) string {
	b := wx.dict[wx.dictOff[id]:wx.dictOff[id+1]]
	if len(b) == 0 {
		return ""
	}
	return unsafeString(b)
}

// numTokens is the size of the dictionary.
func (wx *wordIndex) numTokens() int { return len(wx.dictOff) - 1 }

// lowerBound returns the first token id whose text is >= w.
func (wx *wordIndex) lowerBound(w []byte) uint32 {
	lo, hi := 0, wx.numTokens()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if wx.tokenAt(uint32(mid)) < unsafeStringOK(w) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return uint32(lo)
}

// unsafeStringOK is unsafeString that accepts an empty slice.
func unsafeStringOK(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafeString(b)
}

// prefixEnd returns the first token id at or after from that does not start
// with w.
func (wx *wordIndex) prefixEnd(w []byte, from uint32) uint32 {
	lo, hi := int(from), wx.numTokens()
	p := unsafeStringOK(w)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if strings.HasPrefix(wx.tokenAt(uint32(mid)), p) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return uint32(lo)
}

func runeCount(b []byte) int { return utf8.RuneCount(b) }

// BuildRanked indexes texts as Build does and, for Index.Rank, the rows'
// brand, model and name words (docs, one per row) with the brand aliases.
func BuildRanked(texts []string, docs []Doc, aliases []Alias) *Index {
	if len(docs) != len(texts) {
		panic("BUG: trigram.BuildRanked: one Doc per text")
	}
	ix := Build(texts)
	ix.wx = buildWords(docs, aliases)
	return ix
}
