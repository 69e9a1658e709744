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

// Scratch is the reusable state of one search: per-rank counters sized for
// the largest index it served, the query's trigrams and the result heap. A Scratch serves one Search at a time: use one per goroutine,
// or take one from AcquireScratch and give it back with ReleaseScratch when
// the search has returned. The matches Search appends to dst do not refer to
// the Scratch. Between searches every array is back in its resting state, so
// a Scratch may move from one index to another.
type Scratch struct {
	planes  []uint64 // bit-sliced shared-trigram counts, k planes per 64-rank word; zero at rest
	dense   []uint64 // one posting as a dense bitmap; zero at rest
	qmark   []bool   // by trigram id: in the query; false at rest
	qbit    []uint8  // qmark as 0/1, for branch-free loops
	lastpos []int32  // by trigram id, for iterateWordSimilarity; -1 at rest
	qkeys   []Trigram
	qids    []uint32
	wbuf    []byte
	levels  [][]uint32 // candidates by shared count, ascending rank
	heap    []hit
	it      roaring.ManyIntIterator
	buf     [256]uint32
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
	if len(s.dense) < words {
		s.dense = make([]uint64, words)
	}
	if len(s.planes) < words*k {
		s.planes = make([]uint64, words*k)
	}
	if nk := len(ix.keys); len(s.qmark) < nk {
		s.qmark = make([]bool, nk)
		s.qbit = make([]uint8, nk)
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
	lo, hi := ix.bucket(s, k, m)

	// The keyset position, as a score and the first rank after it among the
	// texts of that score.
	var afterScore float32
	var afterRank uint32
	if q.After != nil {
		afterScore = q.After.Score
		afterRank = ix.firstRankAfter(q.After.Text, q.After.Row)
	}
	for _, id := range s.qids {
		s.qmark[id] = true
		s.qbit[id] = 1
	}
	h := s.heap[:0]
levels:
	for c := hi; c >= lo; c-- {
		ub := float32(c) / float32(nq)
		for _, r := range s.levels[c] {
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
			x, ok := ix.score(r, s, nq, full, w)
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
	for _, id := range s.qids {
		s.qmark[id] = false
		s.qbit[id] = 0
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
// number is the exact shared count c. A sparse posting is added one rank at
// a time; a dense one is written out as a bitmap and added 64 ranks at a
// time (ripple-carry across the planes).
func (ix *Index) count(s *Scratch, k int) {
	planes, dense := s.planes, s.dense
	for _, id := range s.qids {
		lo, hi := int(ix.postLo[id]), int(ix.postHi[id])
		if int(ix.postCard[id]) < hi-lo+1 {
			s.it.Initialize(&ix.post[id])
			for {
				got := s.it.NextMany(s.buf[:])
				if got == 0 {
					break
				}
				for _, r := range s.buf[:got] {
					p := planes[int(r>>6)*k:][:k]
					carry := uint64(1) << (r & 63)
					for j := range p {
						t := p[j] & carry
						p[j] ^= carry
						carry = t
						if carry == 0 {
							break
						}
					}
				}
			}
			continue
		}
		ix.post[id].WriteDenseTo(dense)
		for w := lo; w <= hi; w++ {
			carry := dense[w]
			if carry == 0 {
				continue
			}
			dense[w] = 0
			p := planes[w*k:][:k]
			for j := range p {
				t := p[j] & carry
				p[j] ^= carry
				carry = t
				if carry == 0 {
					break
				}
			}
		}
	}
}

// bucket moves the ranks whose count is at least m from s.planes into
// s.levels[count], in ascending rank order, clears the planes, and returns
// the lowest and highest non-empty levels (lo > hi when there is none).
func (ix *Index) bucket(s *Scratch, k, m int) (lo, hi int) {
	maxc := len(s.qids)
	for len(s.levels) <= maxc {
		s.levels = append(s.levels, nil)
	}
	for c := m; c <= maxc; c++ {
		s.levels[c] = s.levels[c][:0]
	}
	wlo, whi := len(s.dense), -1
	for _, id := range s.qids {
		wlo = min(wlo, int(ix.postLo[id]))
		whi = max(whi, int(ix.postHi[id]))
	}
	lo, hi = maxc+1, m-1
	planes := s.planes
	for w := wlo; w <= whi; w++ {
		p := planes[w*k:][:k]
		var any uint64
		for _, x := range p {
			any |= x
		}
		if any == 0 {
			continue
		}
		// ge: the bits whose count is >= m, by comparing from the top plane.
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
		for ge != 0 {
			b := uint(bits.TrailingZeros64(ge))
			ge &= ge - 1
			c := 0
			for j, x := range p {
				c |= int(x>>b&1) << j
			}
			s.levels[c] = append(s.levels[c], uint32(w)<<6|uint32(b))
			lo, hi = min(lo, c), max(hi, c)
		}
		clear(p)
	}
	return lo, hi
}

// score returns the word similarity of the query marked in s.qmark to the
// text of rank, or false when the text cannot enter a full heap whose worst
// match is w.
//
// Only the span from the first to the last query trigram of the text
// matters (see iterateWordSimilarity). Before running the greedy loop on it,
// which costs up to (query trigrams in the text) x (span length), a full
// heap is first tried with an upper bound computed in one pass: any extent
// scores at most F/(nq+U), where F counts the positions of query trigrams in
// it (at least its distinct ones) and U the positions of other trigrams that
// are the first occurrence of theirs in the text (at most its distinct
// ones); an extent can be taken to start and end on query trigrams, and the
// best pair of ends against w's exact fraction is a maximum-gain problem
// solved with a running minimum. Texts where the query trigrams are far
// apart ("audi ... line") are thus dismissed without the loop.
func (ix *Index) score(rank uint32, s *Scratch, nq int, full bool, w hit) (hit, bool) {
	start, end := ix.seqOff[rank], ix.seqOff[rank+1]
	seq := ix.seq[start:end]
	exact := nq+len(seq) < maxExactDen
	first, last := -1, -1
	if full && exact && w.den > 0 {
		// With g(p) = F(0,p)*wd - U(0,p)*wn, an extent [l, r] can reach
		// wn/wd only if g(r+1) - g(l) >= wn*nq.
		wn, wd := int(w.num), int(w.den)
		f, u := 0, 0
		minG, best := math.MaxInt, math.MinInt
		occ := ix.firstOcc
		for p, id := range seq {
			if s.qmark[id] {
				minG = min(minG, f*wd-u*wn)
				f++
				best = max(best, f*wd-u*wn-minG)
				if first < 0 {
					first = p
				}
				last = p
			} else if i := start + uint32(p); occ[i>>6]>>(i&63)&1 != 0 {
				u++
			}
		}
		dbgTried++
		if need := wn * nq; best < need || best == need && rank > w.rank {
			dbgPruned++
			return hit{}, false
		}
	} else {
		for p, id := range seq {
			if s.qmark[id] {
				if first < 0 {
					first = p
				}
				last = p
			}
		}
	}
	if first < 0 {
		return hit{rank: rank}, true
	}
	span := seq[first : last+1]
	dbgScored++
	if exact {
		n, d := iterateWordSimilarityFrac(span, s.qmark, s.lastpos, nq)
		return hit{score: float32(n) / float32(d), rank: rank, num: int32(n), den: int32(d)}, true
	}
	return hit{score: iterateWordSimilarity(span, s.qmark, s.lastpos, nq), rank: rank}, true
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

var dbgTried, dbgPruned, dbgScored int
