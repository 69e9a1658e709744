package trigram

import (
	"slices"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// Index is an immutable trigram index over texts. It is safe for concurrent
// use by any number of goroutines, each with its own Scratch.
//
// Internally the texts are numbered by rank, their position in (text
// ascending bytewise, row ascending) order, so that posting bitmaps and
// candidate sets iterate in result order within one score. Everything but
// the posting bitmaps is flat integer slices and one byte arena.
type Index struct {
	arena   []byte   // texts in rank order
	textOff []uint32 // by rank; len n+1
	rowOf   []uint32 // rank -> caller's row
	rankOf  []uint32 // caller's row -> rank
	seqOff  []uint32 // by rank; len n+1
	seq     []uint32 // ordered trigram sequence of each text, as trigram ids
	keys    []Trigram
	post    []roaring.Bitmap // by trigram id: the ranks of the texts that hold it
}

// maxRowTrigrams bounds the distinct trigrams of one text, so that the
// per-row counters of a search fit in a uint16.
const maxRowTrigrams = 1<<16 - 1

// Build indexes texts, which should already be folded (Fold). Row i is
// texts[i]; rows keep the caller's numbering (stable-id order in the
// catalogue). Texts must total less than 4 GiB and each must have fewer than
// 65,535 distinct trigrams (roughly 64 KB of text); Build panics otherwise.
func Build(texts []string) *Index {
	n := len(texts)
	ix := &Index{
		textOff: make([]uint32, n+1),
		rowOf:   make([]uint32, n),
		rankOf:  make([]uint32, n),
		seqOff:  make([]uint32, n+1),
	}
	total := 0
	for i := range texts {
		ix.rowOf[i] = uint32(i)
		total += len(texts[i])
	}
	if uint64(total) >= 1<<32 {
		panic("BUG: trigram.Build: texts total 4 GiB or more")
	}
	slices.SortFunc(ix.rowOf, func(a, b uint32) int {
		if c := strings.Compare(texts[a], texts[b]); c != 0 {
			return c
		}
		return int(a) - int(b)
	})
	ix.arena = make([]byte, 0, total)
	for rank, row := range ix.rowOf {
		ix.rankOf[row] = uint32(rank)
		ix.arena = append(ix.arena, texts[row]...)
		ix.textOff[rank+1] = uint32(len(ix.arena))
	}

	// Trigram sequences, with provisional ids in order of first appearance.
	ids := make(map[Trigram]uint32, 1<<14)
	var keys []Trigram
	seq := make([]uint32, 0, total+2*n)
	var tbuf []Trigram
	var wbuf []byte
	for rank, row := range ix.rowOf {
		tbuf, wbuf = appendTrigrams(tbuf[:0], texts[row], wbuf)
		for _, t := range tbuf {
			id, ok := ids[t]
			if !ok {
				id = uint32(len(keys))
				ids[t] = id
				keys = append(keys, t)
			}
			seq = append(seq, id)
		}
		ix.seqOff[rank+1] = uint32(len(seq))
	}

	// Final ids follow the key order, so that a query maps its keys to ids
	// by binary search.
	order := make([]uint32, len(keys))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return int(keys[a]) - int(keys[b]) })
	final := make([]uint32, len(keys))
	ix.keys = make([]Trigram, len(keys))
	for f, p := range order {
		final[p] = uint32(f)
		ix.keys[f] = keys[p]
	}
	for i, id := range seq {
		seq[i] = final[id]
	}
	ix.seq = slices.Clip(seq)

	// Postings: count, then fill one flat array in rank order, then one
	// bitmap per trigram.
	nk := len(keys)
	seen := make([]uint32, nk) // rank+1 of the last text that counted the id
	count := make([]uint32, nk+1)
	for rank := 0; rank < n; rank++ {
		distinct := 0
		for _, id := range ix.seq[ix.seqOff[rank]:ix.seqOff[rank+1]] {
			if seen[id] != uint32(rank+1) {
				seen[id] = uint32(rank + 1)
				count[id+1]++
				distinct++
			}
		}
		if distinct > maxRowTrigrams {
			panic("BUG: trigram.Build: a text has 65,535 distinct trigrams or more")
		}
	}
	for id := 0; id < nk; id++ {
		count[id+1] += count[id]
		seen[id] = 0
	}
	flat := make([]uint32, count[nk])
	fill := slices.Clone(count[:nk])
	for rank := 0; rank < n; rank++ {
		for _, id := range ix.seq[ix.seqOff[rank]:ix.seqOff[rank+1]] {
			if seen[id] != uint32(rank+1) {
				seen[id] = uint32(rank + 1)
				flat[fill[id]] = uint32(rank)
				fill[id]++
			}
		}
	}
	ix.post = make([]roaring.Bitmap, nk)
	for id := 0; id < nk; id++ {
		bm := &ix.post[id]
		bm.AddMany(flat[count[id]:count[id+1]])
		bm.RunOptimize()
	}
	return ix
}

// Len returns the number of rows.
func (ix *Index) Len() int { return len(ix.rowOf) }

// Text returns the text of row, as given to Build. The string shares the
// index's memory; it stays valid as long as the index is referenced.
func (ix *Index) Text(row uint32) string {
	return ix.textAt(ix.rankOf[row])
}

// NumTrigrams returns the number of distinct trigrams in the index.
func (ix *Index) NumTrigrams() int { return len(ix.keys) }

func (ix *Index) textAt(rank uint32) string {
	b := ix.arena[ix.textOff[rank]:ix.textOff[rank+1]]
	if len(b) == 0 {
		return ""
	}
	return unsafeString(b)
}

// SizeBytes estimates the memory the index holds, postings included.
func (ix *Index) SizeBytes() int {
	n := cap(ix.arena) + 4*(cap(ix.textOff)+cap(ix.rowOf)+cap(ix.rankOf)+cap(ix.seqOff)+cap(ix.seq)+cap(ix.keys))
	for i := range ix.post {
		n += int(ix.post[i].GetSizeInBytes()) + 48
	}
	return n
}

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
// id in the current index, or, if that id is gone, to the row of the largest
// id below it (rows with the same text and score are then resumed exactly;
// only when no smaller id exists may one such row be skipped).
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

// Scratch is the reusable state of one search: counters sized for the
// largest index it served, the query's trigrams and the result heap. A
// Scratch serves one Search at a time; use one per goroutine, or take one
// from AcquireScratch and give it back with ReleaseScratch when the search
// is over. The matches appended to dst do not refer to the Scratch.
type Scratch struct {
	cnt     []uint16 // by rank: shared query trigrams; zero between searches
	seen    []uint64 // by rank: bitset of the ranks in cnt; zero between searches
	qmark   []bool   // by trigram id: in the query; false between searches
	lastpos []int32  // by trigram id, for iterateWordSimilarity; -1 between searches
	qkeys   []Trigram
	qids    []uint32
	wbuf    []byte
	levels  [][]uint32 // candidates by shared count, ascending rank
	heap    []hit
	it      roaring.ManyIntIterator
	buf     [256]uint32
}

type hit struct {
	score float32
	rank  uint32
}

var scratchPool sync.Pool

// AcquireScratch returns a Scratch from a pool. Give it back with
// ReleaseScratch once the search that used it has returned; do not use it
// afterwards.
func AcquireScratch() *Scratch {
	if s, ok := scratchPool.Get().(*Scratch); ok {
		return s
	}
	return &Scratch{}
}

// ReleaseScratch returns s to the pool of AcquireScratch.
func ReleaseScratch(s *Scratch) {
	s.qkeys = s.qkeys[:0]
	s.qids = s.qids[:0]
	s.heap = s.heap[:0]
	scratchPool.Put(s)
}

// fit sizes the per-rank and per-trigram arrays for ix. Their contents are
// kept in their resting state (zero, false, -1) by every search.
func (s *Scratch) fit(ix *Index) {
	n := ix.Len()
	if len(s.cnt) < n {
		s.cnt = make([]uint16, n)
		s.seen = make([]uint64, (n+63)/64)
	}
	if nk := len(ix.keys); len(s.qmark) < nk {
		s.qmark = make([]bool, nk)
		s.lastpos = make([]int32, nk)
		for i := range s.lastpos {
			s.lastpos[i] = -1
		}
	}
}

// Search appends to dst the matches of q in result order (score descending,
// then text ascending bytewise, then row ascending) that come after q.After,
// at most q.Limit+1 of them: an extra one tells the caller that another page
// follows. A query without trigrams (empty after folding, or without letters
// and digits) matches nothing. s must not be nil; with a warm Scratch,
// Search does not allocate beyond growing dst.
//
// Candidates come from the posting bitmaps of the query's trigrams, never
// from a scan of the rows: a row can only score c/nq or less when it holds c
// of the nq query trigrams, so only rows holding at least GIN's bound m of
// them are considered, by decreasing c, and within one c by ascending rank;
// the search stops as soon as the next candidate cannot beat the worst match
// kept.
func (ix *Index) Search(dst []Match, q Query, s *Scratch) []Match {
	limit := q.Limit
	if limit < 0 {
		limit = 0
	}
	if limit > ix.Len() {
		limit = ix.Len()
	}
	k := limit + 1
	s.fit(ix)

	// The query's trigram set, and the ids of those the index holds.
	s.qkeys, s.wbuf = appendTrigrams(s.qkeys[:0], q.Text, s.wbuf)
	s.qkeys = sortUnique(s.qkeys)
	nq := len(s.qkeys)
	if nq == 0 || nq > maxRowTrigrams {
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

	// ScanCount: cnt[rank] is the exact number of query trigrams the text
	// holds, as both sides are sets.
	var lo, hi int = len(s.seen), -1
	for _, id := range s.qids {
		s.it.Initialize(&ix.post[id])
		for {
			got := s.it.NextMany(s.buf[:])
			if got == 0 {
				break
			}
			for _, r := range s.buf[:got] {
				s.cnt[r]++
				s.seen[r>>6] |= 1 << (r & 63)
			}
			if w := int(s.buf[0] >> 6); w < lo {
				lo = w
			}
			if w := int(s.buf[got-1] >> 6); w > hi {
				hi = w
			}
		}
	}
	// Bucket the candidates holding at least m query trigrams by that count,
	// in rank order, and reset the counters.
	maxc := len(s.qids)
	for len(s.levels) <= maxc {
		s.levels = append(s.levels, nil)
	}
	for c := m; c <= maxc; c++ {
		s.levels[c] = s.levels[c][:0]
	}
	for w := lo; w <= hi; w++ {
		bits := s.seen[w]
		if bits == 0 {
			continue
		}
		s.seen[w] = 0
		base := uint32(w) << 6
		for bits != 0 {
			r := base + uint32(trailingZeros64(bits))
			bits &= bits - 1
			c := int(s.cnt[r])
			s.cnt[r] = 0
			if c >= m {
				s.levels[c] = append(s.levels[c], r)
			}
		}
	}

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
	}

	h := s.heap[:0]
levels:
	for c := maxc; c >= m; c-- {
		ub := float32(c) / float32(nq)
		for _, r := range s.levels[c] {
			if len(h) == k {
				w := h[0]
				if ub < w.score || ub == w.score && r > w.rank {
					// Nothing left in this level can beat the worst match
					// kept, and lower levels are bounded below ub.
					break levels
				}
			}
			score := ix.score(r, s, nq)
			if !(float64(score) >= thr) {
				continue
			}
			if q.After != nil && (score > afterScore || score == afterScore && r < afterRank) {
				continue
			}
			x := hit{score, r}
			if len(h) < k {
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

// score returns the word similarity of the query marked in s.qmark to the
// text of rank.
func (ix *Index) score(rank uint32, s *Scratch, nq int) float32 {
	seq := ix.seq[ix.seqOff[rank]:ix.seqOff[rank+1]]
	first, last := -1, -1
	for i, id := range seq {
		if s.qmark[id] {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0
	}
	return iterateWordSimilarity(seq[first:last+1], s.qmark, s.lastpos, nq)
}

// firstRankAfter returns the first rank whose (text, row) comes after
// (text, row) in result order.
func (ix *Index) firstRankAfter(text string, row uint32) uint32 {
	n := len(ix.rowOf)
	lo, hi := 0, n
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

// The heap keeps the worst kept match at h[0].
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
