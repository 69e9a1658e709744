package trigram

import (
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
)

// Query holds the options of one search.
type Query struct {
	// Text is the folded query (Fold).
	Text string
	// Threshold is the least word similarity of a match: a row matches when
	// float64(WordSimilarity(Text, row text)) >= float64(Threshold), which is
	// pg_trgm's test with pg_trgm.word_similarity_threshold set to the same
	// float4 value. A threshold of 0 or less still requires one shared
	// trigram (pg_trgm would match every row with similarity 0).
	Threshold float32
	// After, when set, is the position of the last match of the previous
	// page: only matches strictly after it in result order are returned.
	After *Position
	// Limit is the page size; Search returns up to Limit+1 matches. A
	// negative Limit counts as 0.
	Limit int
}

// Position is a point in the result order (score descending, then text
// ascending bytewise, then row ascending): what a keyset cursor carries. A
// match (s, t, r) is after the position when s < Score, or s == Score and
// (t > Text, or t == Text and r > Row).
//
// Score and Text keep their meaning in another index; Row is a row number of
// the index searched. Rows are in the caller's stable-id order, so a caller
// that stores the stable id in its cursor maps it back to the row of the same
// id in the current index or, if that id is gone, to the row of the largest
// id below it. (Only when no smaller id exists at all may a row with the
// same text and score be skipped.)
type Position struct {
	Score float32
	Text  string
	Row   uint32
}

// Match is one search result.
type Match struct {
	Row   uint32
	Score float32
}

// Scratch is the reusable state of one search: bit-sliced counters over the
// ranks, per-trigram and per-word marks sized for the largest index it
// served, the query's trigrams, the candidates and the result heap (about
// 0.2 MB for 100,000 texts), and Rank's own (per-token marks, the tiers'
// counters and class bitsets, per-signature keys: a few hundred kilobytes
// more, up to 2 MB for a query of MaxRankWords words). A Scratch serves one
// Search or Rank at a time: use one
// per goroutine, or take one from AcquireScratch and give it back with
// ReleaseScratch when the search has returned. The matches Search appends to
// dst do not refer to the Scratch. Between searches every array is back in
// its resting state, so a Scratch may move from one index to another. Its
// zero value is ready to use.
type Scratch struct {
	planes    []uint64 // bit-sliced shared-trigram counts, k planes per 64-rank word; zero at rest
	qmark     []bool   // by trigram id: in the query; false at rest
	qbits     []uint64 // the same as a bitset (small enough to stay in cache); 0 at rest
	qidx      []uint8  // by trigram id: 1 + its index in qids when that is < 64, else 0; 0 at rest
	fpos      []int32  // pairBound's query trigram positions,
	fbit      []uint64 // their bits,
	fu        []int32  // and the U before each
	lastpos   []int32  // by trigram id, for iterateWordSimilarity; -1 at rest
	qkeys     []Trigram
	qids      []uint32
	wbuf      []byte
	wlo, whi  int      // the 64-rank words of planes in use
	cw        []uint32 // the words holding candidates
	cm        []uint64 // their candidates
	lv        []uint32 // the candidates of one count, ascending rank
	heap      []hit
	words     []wordFacts // by word id, valid when stamped with gen
	pu        []int32     // wordBound's prefix sums of U over the text's words
	fw        []foundWord // wordBound's words holding query trigrams
	opts      []wordOpt   // extents of the words met in this search
	prevBound prevBound
	mark      []uint32 // by trigram id: stamps of wordInfo
	tick      uint32   // last stamp used in mark
	gen       uint32   // the current search, for words
	it        roaring.ManyIntIterator
	buf       [256]uint32 // ranks from it
	rank      rankScratch // Rank's own state
}

// hit is a scored text. When the score came from the exact integer loop,
// num/den is its fraction (den > 0), which the pruning bound compares with.
type hit struct {
	score    float32
	rank     uint32
	num, den int32
}

var scratchPool sync.Pool

// AcquireScratch returns a Scratch from a pool. Give it back with
// ReleaseScratch once the search that used it has returned, and do not use it
// afterwards.
func AcquireScratch() *Scratch {
	if s, ok := scratchPool.Get().(*Scratch); ok {
		return s
	}
	return &Scratch{}
}

// ReleaseScratch returns s to the pool of AcquireScratch.
func ReleaseScratch(s *Scratch) {
	scratchPool.Put(s)
}

// fit sizes the arrays of s for ix and k counter planes.
func (s *Scratch) fit(ix *Index, k int) {
	words := (ix.Len() + 63) / 64
	if len(s.planes) < words*k {
		s.planes = make([]uint64, words*k)
	}
	if nw := len(ix.wordOff) - 1; len(s.words) < nw {
		s.words = make([]wordFacts, nw)
	}
	s.prevBound.ok = false
	s.opts = s.opts[:0]
	s.gen++
	if s.gen == 0 || s.tick > math.MaxUint32/2 {
		// A stamp wrapped: forget them all.
		clear(s.words)
		clear(s.mark)
		s.gen, s.tick = 1, 0
	}
	if nk := len(ix.keys); len(s.qmark) < nk {
		s.mark = make([]uint32, nk)
		s.qmark = make([]bool, nk)
		s.qbits = make([]uint64, (nk+63)/64)
		s.qidx = make([]uint8, nk)
		s.lastpos = make([]int32, nk)
		for i := range s.lastpos {
			s.lastpos[i] = -1
		}
	}
}

// Search appends to dst the matches of q in result order (score descending,
// then text ascending bytewise, then row ascending) that come after q.After,
// at most q.Limit+1 of them: the extra one tells the caller that another
// page follows. A query without trigrams (empty after folding, or without
// letters and digits) matches nothing. s must not be nil. With a warm
// Scratch, Search does not allocate beyond growing dst.
//
// Candidates come from the posting bitmaps of the query's trigrams, never
// from a scan of the rows. A text holding c of the nq query trigrams scores
// at most c/nq, so only texts holding at least m of them, GIN's bound, are
// candidates; they are scored by decreasing c and, within one c, by
// ascending text, and the search stops as soon as no candidate left can
// beat the worst match kept.
func (ix *Index) Search(dst []Match, q Query, s *Scratch) []Match {
	limit := min(max(q.Limit, 0), ix.Len())
	kept := limit + 1

	// The query's trigram set, and the ids of those the index holds.
	s.qkeys, s.wbuf = appendTrigrams(s.qkeys[:0], q.Text, s.wbuf)
	s.qkeys = sortUnique(s.qkeys)
	nq := len(s.qkeys)
	if nq == 0 || ix.Len() == 0 {
		return dst
	}
	thr := float64(q.Threshold)
	m := 1
	for m <= nq && !(float64(float32(m)/float32(nq)) >= thr) {
		m++
	}
	s.qids = s.qids[:0]
	for _, t := range s.qkeys {
		if id, ok := slices.BinarySearch(ix.keys, t); ok {
			s.qids = append(s.qids, uint32(id))
		}
	}
	if len(s.qids) < m {
		return dst
	}
	maxc := len(s.qids)
	k := bits.Len(uint(maxc))
	s.fit(ix, k)
	ix.count(s, k)
	hi := ix.candidates(s, k, m)

	// The keyset position, as a score and the first rank after it among the
	// texts of that score.
	var afterScore float32
	var afterRank uint32
	if q.After != nil {
		afterScore = q.After.Score
		afterRank = ix.firstRankAfter(q.After.Text, q.After.Row)
	}
	for i, id := range s.qids {
		s.qmark[id] = true
		s.qbits[id>>6] |= 1 << (id & 63)
		if i < 64 {
			s.qidx[id] = uint8(i + 1)
		}
	}
	h := s.heap[:0]
levels:
	for c := hi; c >= m; c-- {
		ub := float32(c) / float32(nq)
		for _, r := range ix.level(s, k, c) {
			var w hit
			full := len(h) == kept
			if full {
				w = h[0]
				if ub < w.score || ub == w.score && r > w.rank {
					// Nothing left in this level can beat the worst match
					// kept, and lower levels are bounded below ub.
					break levels
				}
			}
			x, ok := ix.score(r, c, s, nq, full, w)
			if !ok || !(float64(x.score) >= thr) {
				continue
			}
			if q.After != nil && (x.score > afterScore || x.score == afterScore && r < afterRank) {
				continue
			}
			if len(h) < kept {
				h = append(h, x)
				heapUp(h, len(h)-1)
			} else if better(x, h[0]) {
				h[0] = x
				heapDown(h, 0)
			}
		}
	}
	clear(s.planes[s.wlo*k : (s.whi+1)*k])
	for _, id := range s.qids {
		s.qmark[id] = false
		s.qbits[id>>6] = 0
		s.qidx[id] = 0
	}

	slices.SortFunc(h, func(a, b hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	for _, x := range h {
		dst = append(dst, Match{Row: ix.rowOf[x.rank], Score: x.score})
	}
	s.heap = h[:0]
	return dst
}

// count adds the posting of every query trigram into s.planes: k bit planes
// per 64-rank word, so that bit b of plane j of word w is bit j of the number
// of query trigrams that rank 64w+b holds. Because both sides are sets, that
// number is the exact shared count c. A sparse posting is iterated from its
// roaring bitmap and added one rank at a time; a dense one is added from the
// index's dense copy, 64 ranks at a time (ripple-carry across the planes).
func (ix *Index) count(s *Scratch, k int) {
	planes := s.planes
	for _, id := range s.qids {
		lo, hi := int(ix.postLo[id]), int(ix.postHi[id])
		if ix.denseOff[id] == noDense {
			s.it.Initialize(&ix.post[id])
			for {
				got := s.it.NextMany(s.buf[:])
				if got == 0 {
					break
				}
				for _, r := range s.buf[:got] {
					addCount(planes[int(r>>6)*k:][:k], 1<<(r&63))
				}
			}
			continue
		}
		d := ix.dense[ix.denseOff[id]:][:hi-lo+1]
		for i, carry := range d {
			if carry != 0 {
				addCount(planes[(lo+i)*k:][:k], carry)
			}
		}
	}
}

// candidates finds the 64-rank words of s.planes that hold a rank whose
// count is at least m, keeps them with that mask in s.cw and s.cm, and
// returns the highest count present (below m when there is none).
func (ix *Index) candidates(s *Scratch, k, m int) int {
	wlo, whi := (ix.Len()+63)/64, -1
	for _, id := range s.qids {
		wlo = min(wlo, int(ix.postLo[id]))
		whi = max(whi, int(ix.postHi[id]))
	}
	s.wlo, s.whi = wlo, whi
	cw, cm := s.cw[:0], s.cm[:0]
	top := m - 1
	planes := s.planes
	for w := wlo; w <= whi; w++ {
		p := planes[w*k:][:k]
		// ge: the bits whose count is >= m, comparing from the top plane.
		var gt uint64
		eq := ^uint64(0)
		for j := k - 1; j >= 0; j-- {
			if m>>j&1 == 1 {
				eq &= p[j]
			} else {
				gt |= eq & p[j]
				eq &^= p[j]
			}
		}
		ge := gt | eq
		if ge == 0 {
			continue
		}
		cw = append(cw, uint32(w))
		cm = append(cm, ge)
		top = max(top, maxCount(p, ge))
	}
	s.cw, s.cm = cw, cm
	return top
}

// addCount adds 1 to the bit-sliced counters p (least significant plane
// first) of the ranks or rows in m (ripple carry); the counters never
// overflow.
func addCount(p []uint64, m uint64) {
	for j := range p {
		t := p[j] & m
		p[j] ^= m
		m = t
		if m == 0 {
			return
		}
	}
}

// maxCount returns the largest of the bit-sliced counters p among the bits
// of x (not 0), choosing from the top plane down.
func maxCount(p []uint64, x uint64) int {
	c := 0
	for j := len(p) - 1; j >= 0; j-- {
		if t := x & p[j]; t != 0 {
			x = t
			c |= 1 << j
		}
	}
	return c
}

// level returns the ranks whose count is c, ascending, in s.lv.
func (ix *Index) level(s *Scratch, k, c int) []uint32 {
	lv := s.lv[:0]
	for i, w := range s.cw {
		p := s.planes[int(w)*k:][:k]
		eq := s.cm[i]
		for j, x := range p {
			if c>>j&1 == 1 {
				eq &= x
			} else {
				eq &^= x
			}
		}
		for eq != 0 {
			lv = append(lv, w<<6|uint32(bits.TrailingZeros64(eq)))
			eq &= eq - 1
		}
	}
	s.lv = lv
	return lv
}

// score returns the word similarity of the query marked in s.qmark to the
// text of rank, or false when the text cannot enter a full heap whose worst
// match is w.
//
// Only the span from the first to the last query trigram of the text
// matters (see iterateWordSimilarity), but the greedy loop over it costs up
// to (query trigrams in the text) x (span length). With a full heap, two
// upper bounds come first, and most texts are dismissed by the first:
//
//   - wordBound, over the text's words (about 7), with per-word figures
//     computed once per search;
//   - pairBound, over the positions of the query trigrams in the text, with
//     exact distinct counts.
func (ix *Index) score(rank uint32, c int, s *Scratch, nq int, full bool, w hit) (hit, bool) {
	start, end := ix.seqOff[rank], ix.seqOff[rank+1]
	seq := ix.seq[start:end]
	exact := nq+len(seq) < maxExactDen
	if full && exact && w.den > 0 {
		wn, wd := int(w.num), int(w.den)
		strict := rank > w.rank
		if !ix.wordBound(rank, c, s, nq, wn, wd, strict) {
			return hit{}, false
		}
	}
	first, last := markedSpan(seq, s.qbits)
	if first < 0 {
		return hit{rank: rank}, true
	}
	span := seq[first : last+1]
	if full && exact && w.den > 0 && len(s.qids) <= 64 {
		if !ix.pairBound(span, start+uint32(first), s, int(w.num)*nq, int(w.num), int(w.den), rank > w.rank) {
			return hit{}, false
		}
	}
	if exact {
		n, d := iterateWordSimilarityFrac(span, s.qmark, s.lastpos, nq)
		return hit{score: float32(n) / float32(d), rank: rank, num: int32(n), den: int32(d)}, true
	}
	return hit{score: iterateWordSimilarity(span, s.qmark, s.lastpos, nq), rank: rank}, true
}

// wordBound tells whether the text of rank, which holds c distinct query
// trigrams, may reach wn/wd (strictly exceed it when strict). An extent
// starts and ends on query trigrams, in words a <= b. Within one word
// (a == b), its best score is the word's exhaustive maximum. Across words,
// it holds at most F query trigrams, the size of the union of those of
// words a..b (or, past 64 query trigrams, their sum capped by c), and at
// least U others: the tail of word a (its other trigrams after its last
// query trigram), the distinct other trigrams of the words strictly between
// that no earlier word of the text holds, and the head of word b when all
// of word b is new to the text. It reaches wn/wd only if
// F*wd - U*wn >= wn*nq. When that holds, each way the extent can start in a
// (a suffix of a from one of its query trigrams) and end in b (a prefix up
// to one) is tried with its own query trigrams and others. The three sets
// of others counted are disjoint, so U is a lower bound. Texts have a
// handful of words, so all pairs are tried; a text that shares its first
// words with the previous rank, dismissed against the same match, only
// tries the pairs that end in its other words.
func (ix *Index) wordBound(rank uint32, c int, s *Scratch, nq, wn, wd int, strict bool) bool {
	need := wn * nq
	base := ix.slotOff[rank]
	nslots := int(ix.slotOff[rank+1] - base)
	// The previous rank, dismissed against the same worst match, shares its
	// first words: their figures are still in s.pu and s.fw, and no pair of
	// them nor any of them alone reaches wn/wd.
	from := 0
	if p := &s.prevBound; p.ok && p.rank+1 == rank && p.c == c && p.wn == wn && p.wd == wd {
		from = min(int(ix.slotLCP[rank]), nslots)
	}
	s.prevBound.ok = false
	if cap(s.pu) < nslots+1 {
		s.pu = make([]int32, 0, 2*nslots+16)
		from = 0
	}
	pu := s.pu[:from+1] // pu[i]: the U of the words before word i
	if from == 0 {
		pu[0] = 0
	}
	fw := s.fw[:0]  // the words holding query trigrams
	var prev uint64 // their query trigrams
	for _, x := range s.fw {
		if int(x.slot) >= from {
			break
		}
		fw = append(fw, x)
		prev |= x.m
	}
	masks := len(s.qids) <= 64
	for j := from; j < nslots; j++ {
		sj := base + uint32(j)
		w := ix.slotWord[sj]
		wi := &s.words[w]
		if wi.stamp != s.gen {
			ix.wordInfo(w, s, nq)
		}
		// U of the word: its distinct other trigrams that no earlier word
		// of the text holds: its trigrams new to the text, less its query
		// trigrams new to the text.
		fresh := int(ix.slotNew[sj])
		u := fresh
		if wi.fd > 0 {
			u -= int(wi.fd)
			if masks {
				u += bits.OnesCount64(wi.fmask & prev)
				prev |= wi.fmask
			}
			u = max(u, 0)
			// Within the word: num/den >= wn/wd.
			if x, y := int(wi.num)*wd, wn*int(wi.den); x > y || x == y && !strict {
				s.pu, s.fw = append(pu, 0), fw
				return true
			}
			// The head counts towards U only when all of the word's
			// trigrams are new to the text (so none is counted in an
			// earlier word).
			h := 0
			if fresh == int(wi.fd)+int(wi.nfd) {
				h = int(wi.head)
			}
			fw = append(fw, foundWord{slot: int32(j), f: int32(wi.fd), h: int32(h), t: int32(wi.tail), m: wi.fmask,
				opt: wi.opt, nf: uint32(wi.nf), fresh: fresh == int(wi.fd)+int(wi.nfd)})
		}
		pu = append(pu, pu[j]+int32(u))
	}
	s.pu, s.fw = pu, fw
	reaches := func(g int) bool { return g > need || g == need && !strict }
	for ai, a := range fw {
		f, m := int(a.f), a.m
		var mid uint64 // query trigrams of the words strictly between
		for _, b := range fw[ai+1:] {
			umid := int(pu[b.slot] - pu[a.slot+1])
			u := int(a.t) + umid
			if c*wd-u*wn < need {
				break // U only grows with b
			}
			if int(b.slot) >= from {
				if !masks {
					// F: the sum of the words' query trigrams, capped by c.
					if reaches(min(f+int(b.f), c)*wd - (u+int(b.h))*wn) {
						return true
					}
				} else if reaches(bits.OnesCount64(m|b.m)*wd - (u+int(b.h))*wn) {
					// With the whole of both end words' query trigrams it
					// may reach: try each way the extent can start in a and
					// end in b.
					sufs := s.opts[a.opt+a.nf : a.opt+2*a.nf]
					pres := s.opts[b.opt : b.opt+b.nf]
					for _, sa := range sufs {
						for _, eb := range pres {
							ub := int(sa.u) + umid
							if b.fresh {
								ub += int(eb.u)
							}
							if reaches(bits.OnesCount64(sa.m|mid|eb.m)*wd - ub*wn) {
								return true
							}
						}
					}
				}
			}
			f += int(b.f)
			m |= b.m
			mid |= b.m
		}
	}
	s.prevBound = prevBound{ok: true, rank: rank, c: c, wn: wn, wd: wd}
	return false
}

// foundWord holds the figures of a word of the text being bounded that
// holds query trigrams.
type foundWord struct {
	slot, f, h, t int32
	m             uint64
	opt, nf       uint32 // the word's extents in s.opts
	fresh         bool   // all the word's trigrams are new to the text
}

// prevBound records the last text that wordBound dismissed.
type prevBound struct {
	ok        bool
	rank      uint32
	c, wn, wd int
}

// wordFacts are the figures of one word against the current query.
type wordFacts struct {
	stamp   uint32 // Scratch.gen of the search that computed them
	fd, nfd uint16 // distinct query trigrams, distinct other trigrams
	fmask   uint64 // the query trigrams (bit i: qids[i]), when there are at most 64
	// Distinct other trigrams before the first query trigram (head) and
	// after the last one (tail): an extent that starts in the word holds
	// its tail, one that ends in it holds its head.
	head, tail uint16
	// With at most 64 query trigrams, s.opts[opt:opt+2*nf] lists, for each
	// of the word's nf query trigram positions p in order, the extent of the
	// word ending at p (its query trigrams and distinct others), then for
	// each p the extent starting at p.
	opt      uint32
	nf       uint16
	num, den uint16 // the word's best extent score as a fraction
}

// wordInfo computes the figures of word w for the query of s, on its first
// use in this search.
func (ix *Index) wordInfo(w uint32, s *Scratch, nq int) {
	wi := &s.words[w]
	seq := ix.wordSeq[ix.wordOff[w]:ix.wordOff[w+1]]
	*wi = wordFacts{stamp: s.gen, den: 1}
	s.tick += uint32(len(seq)) + 1
	base := s.tick
	for _, id := range seq {
		if s.mark[id] < base {
			s.mark[id] = base
			if s.qmark[id] {
				wi.fd++
				if q := s.qidx[id]; q != 0 {
					wi.fmask |= 1 << (q - 1)
				}
			} else {
				wi.nfd++
			}
		}
	}
	if wi.fd == 0 {
		return
	}
	firstF, lastF := -1, -1
	for p, id := range seq {
		if s.qmark[id] {
			if firstF < 0 {
				firstF = p
			}
			lastF = p
		}
	}
	s.tick++
	for _, id := range seq[:firstF] {
		if s.mark[id] != s.tick {
			s.mark[id] = s.tick
			wi.head++
		}
	}
	s.tick++
	for _, id := range seq[lastF+1:] {
		if s.mark[id] != s.tick && !s.qmark[id] {
			s.mark[id] = s.tick
			wi.tail++
		}
	}
	s.tick++
	base = s.tick
	// The exhaustive maximum over extents within the word, both ends on
	// query trigrams: each start a gets its own stamp, base+1+a.
	for a, id := range seq {
		if !s.qmark[id] {
			continue
		}
		stamp := base + 1 + uint32(a)
		cnt, u := 0, 0
		for _, t := range seq[a:] {
			if s.mark[t] != stamp {
				s.mark[t] = stamp
				if s.qmark[t] {
					cnt++
				} else {
					u++
				}
			}
			if s.qmark[t] {
				if d := nq + u; cnt*int(wi.den) > int(wi.num)*d {
					wi.num, wi.den = uint16(cnt), uint16(d)
				}
			}
		}
	}
	s.tick += uint32(len(seq)) + 1
	if len(s.qids) > 64 {
		return
	}
	// Prefixes and suffixes ending and starting on query trigrams.
	wi.opt = uint32(len(s.opts))
	var m uint64
	u := 0
	s.tick++
	for _, id := range seq {
		if q := s.qidx[id]; q != 0 {
			m |= 1 << (q - 1)
			s.opts = append(s.opts, wordOpt{m: m, u: int32(u)})
			wi.nf++
		} else if s.mark[id] != s.tick {
			s.mark[id] = s.tick
			u++
		}
	}
	m, u = 0, 0
	s.tick++
	suf := len(s.opts)
	for p := len(seq) - 1; p >= 0; p-- {
		id := seq[p]
		if q := s.qidx[id]; q != 0 {
			m |= 1 << (q - 1)
			s.opts = append(s.opts, wordOpt{m: m, u: int32(u)})
		} else if s.mark[id] != s.tick {
			s.mark[id] = s.tick
			u++
		}
	}
	slices.Reverse(s.opts[suf:])
	s.tick++
}

// wordOpt is an extent of a word that starts or ends on a query trigram:
// the query trigrams it holds and its number of distinct other trigrams.
type wordOpt struct {
	m uint64
	u int32
}

// pairBound is the second, exact-count test of Index.score, for texts that
// pass the first: it tells whether some extent [l, r] of span, both ends on
// query trigrams, has F*wd - U*wn >= need (> need when strict), where F is
// now the exact number of distinct query trigrams in the extent (a bit mask
// over the query's trigrams, so at most 64 of them) and U is as before. The
// pairs cost (query trigram positions)^2, less than the greedy loop.
func (ix *Index) pairBound(span []uint32, start uint32, s *Scratch, need, wn, wd int, strict bool) bool {
	pos, bit, uBefore := s.fpos[:0], s.fbit[:0], s.fu[:0]
	u := 0
	for p, id := range span {
		if q := s.qidx[id]; q != 0 {
			pos = append(pos, int32(p))
			bit = append(bit, 1<<(q-1))
			uBefore = append(uBefore, int32(u))
		} else if i := start + uint32(p); ix.firstOcc[i>>6]>>(i&63)&1 != 0 {
			u++
		}
	}
	s.fpos, s.fbit, s.fu = pos, bit, uBefore
	maxF := bits.OnesCount64(func() uint64 {
		var m uint64
		for _, b := range bit {
			m |= b
		}
		return m
	}())
	for a := range pos {
		var mask uint64
		for b := a; b < len(pos); b++ {
			mask |= bit[b]
			// U of [pos[a], pos[b]]: the first occurrences strictly between
			// (the ends are query trigrams).
			uu := int(uBefore[b] - uBefore[a])
			if maxF*wd-uu*wn < need {
				break // U only grows with b
			}
			g := bits.OnesCount64(mask)*wd - uu*wn
			if g > need || g == need && !strict {
				return true
			}
		}
	}
	return false
}

// firstRankAfter returns the first rank whose (text, row) comes after
// (text, row) in result order.
func (ix *Index) firstRankAfter(text string, row uint32) uint32 {
	lo, hi := 0, ix.Len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		t := ix.textAt(uint32(mid))
		if t < text || t == text && ix.rowOf[mid] <= row {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return uint32(lo)
}

// markedSpan is the first and last position of seq holding a trigram set
// in mark (a bitset by trigram id), the extent word_similarity scores (-1,
// -1 when none is). It looks from both ends: the extent is usually most
// of the text's first words.
func markedSpan(seq []uint32, mark []uint64) (first, last int) {
	for p, id := range seq {
		if mark[id>>6]>>(id&63)&1 != 0 {
			for q := len(seq) - 1; ; q-- {
				if id := seq[q]; mark[id>>6]>>(id&63)&1 != 0 {
					return p, q
				}
			}
		}
	}
	return -1, -1
}

// better tells whether a comes before b in result order: higher score, then
// lower rank (text, then row).
func better(a, b hit) bool {
	return a.score > b.score || a.score == b.score && a.rank < b.rank
}

// The heap keeps the worst match kept at h[0].
func heapUp(h []hit, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func heapDown(h []hit, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		w := l
		if r := l + 1; r < len(h) && better(h[l], h[r]) {
			w = r
		}
		if !better(h[i], h[w]) {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// unsafeString returns b as a string without copying; b must never change.
func unsafeString(b []byte) string { return unsafe.String(&b[0], len(b)) }
