package trigram

import "math/bits"

// scanBudget is how many candidates scan scores in static order before it
// sorts the rest into tiers. (A variable for the tests.)
var scanBudget = 256

// scan scores the candidates of rs.bits (64-row words lo..hi, which it
// consumes) into the heap, for the nw query words of which need match
// something.
//
// It first takes the candidates in static order, which finds the page at
// once when the first rows the query can match best are popular ones,
// and stops as soon as the heap holds only keys equal to the best key
// the query can reach (ub). When scanBudget candidates did not get there
// ("s": the Audi S3 comes after every Volkswagen with an S in its trim),
// the rest are sorted into tiers by what their key's first items (exact
// matches, prefix matches, brand or model matches) can be, computed for
// 64 rows at a time from the postings of each class of matches, and the
// tiers are scored best first, each in static order, until no row of the
// next tier can enter the heap.
func (wx *wordIndex) scan(rs *rankScratch, lo, hi, nw, need int, prefixLast bool) {
	// A row with as many exact matches as there are words that match
	// some word exactly has its prefix matches among the others. A word
	// counts as a brand or model match only when a candidate has it so
	// ("1.5 tsi": the 1 of the 1 Series is no such row).
	exact, prefix, nbm := 0, 0, 0
	for i := 0; i < nw; i++ {
		switch rs.bestKind[i] {
		case kindExact:
			exact++
		case kindPrefix:
			prefix++
		}
		if rs.bm[i] && wx.bmAmong(rs, i, lo, hi) {
			nbm++
		}
	}
	// Consecutive words can be adjacent, or in order, only where their
	// tokens' positions allow it in some row ("bmw steptronic": the model
	// always stands between).
	adj, inOrder := 0, 0
	for i := 0; i+1 < nw; i++ {
		if rs.wpos[i]<<1&rs.wpos[i+1] != 0 {
			adj++
		}
		if rs.wpos[i] != 0 && rs.wpos[i+1]>>(bits.TrailingZeros64(rs.wpos[i])+1) != 0 {
			inOrder++
		}
	}
	ub := packKey(need, exact, prefix, nbm, adj, inOrder, 15)
	budget := scanBudget
	for w := lo; w <= hi; w++ {
		for b := rs.bits[w]; b != 0; b &= b - 1 {
			if budget == 0 {
				rs.bits[w] = b
				wx.tiers(rs, w, hi, nw, need, prefixLast, adj, inOrder)
				return
			}
			budget--
			o := uint32(w<<6 | bits.TrailingZeros64(b))
			key, matched := wx.features(rs, o, nw)
			if matched == need {
				rs.push(rhit{key: key, ord: o})
			}
			if len(rs.heap) == rs.kept && rs.heap[0].key >= ub {
				return
			}
		}
	}
}

// Classes of rows for one query word, as bitsets over the candidates'
// 64-row words: the rows where a token it matches exactly, as a prefix or
// as a typo is a word of the row, and those where such a token is a brand
// or model word.
const (
	clsExact = iota
	clsPrefix
	clsTypo
	clsBMExact
	clsBMPrefix
	clsBMTypo
	numCls
)

// tiers scores the candidates of rs.bits in words lo..hi tier by tier (see
// scan). A row's tier is t = E<<2s | P<<s | B, its numbers of query words
// matched exactly, matched as a prefix, and whose best match is a brand or
// model word, each below 1<<s: bit-sliced counters over the rows hold it,
// 3s planes per 64-row word. The key of a row of tier t is at most
// packKey(need, E, P, B, adj, inOrder, 15) (adj and inOrder the query's
// bounds), and tiers are visited by decreasing t, rows in static order,
// so the scan ends at the first row that this bound keeps out of the heap.
// A word whose postings cost more than the candidates are worth is not
// counted: it adds its best kind and brand-or-model match to every row's
// bound.
func (wx *wordIndex) tiers(rs *rankScratch, lo, hi, nw, need int, prefixLast bool, adj, inOrder int) {
	sh := bits.Len(uint(nw))
	np := 3 * sh
	span := hi - lo + 1
	if cap(rs.planes) < span*np {
		rs.planes = make([]uint64, 0, len(rs.bits)*np)
	}
	planes := rs.planes[:span*np]
	clear(planes)
	if cap(rs.cls) < numCls*len(rs.bits) {
		rs.cls = make([]uint64, numCls*len(rs.bits))
	}
	cls := rs.cls[:numCls*span]
	ncand := 0
	for w := lo; w <= hi; w++ {
		ncand += bits.OnesCount64(rs.bits[w])
	}
	var cE, cP, cB int // the words not counted
	for i := 0; i < nw; i++ {
		if rs.card[i] == 0 {
			continue
		}
		if !wx.classes(rs, cls, i, lo, hi, nw, prefixLast, ncand) {
			switch rs.bestKind[i] {
			case kindExact:
				cE++
			case kindPrefix:
				cP++
			}
			if rs.bm[i] {
				cB++
			}
			continue
		}
		for k := 0; k < span; k++ {
			ex, pr, ty := cls[clsExact*span+k], cls[clsPrefix*span+k], cls[clsTypo*span+k]
			p := pr &^ ex
			b := ex&cls[clsBMExact*span+k] | p&cls[clsBMPrefix*span+k] | ty&^pr&^ex&cls[clsBMTypo*span+k]
			pl := planes[k*np : (k+1)*np]
			addPlane(pl[2*sh:3*sh], ex)
			addPlane(pl[sh:2*sh], p)
			addPlane(pl[:sh], b)
		}
		clear(cls)
	}
	mask := 1<<sh - 1
	t := maxTier(planes, rs.bits[lo:hi+1], np, 1<<np)
	for t >= 0 {
		ub := packKey(need, t>>(2*sh)&mask+cE, t>>sh&mask+cP, t&mask+cB, adj, inOrder, 15)
		if len(rs.heap) == rs.kept && rs.heap[0].key > ub {
			return // no row of this tier or a lower one can enter
		}
	tier:
		for k := 0; k < span; k++ {
			pl := planes[k*np : (k+1)*np]
			for m := rs.bits[lo+k] & tierEq(pl, t); m != 0; m &= m - 1 {
				o := uint32((lo+k)<<6 | bits.TrailingZeros64(m))
				if len(rs.heap) == rs.kept {
					if h := rs.heap[0]; h.key > ub || h.key == ub && h.ord < o {
						// Neither this row nor any after it in this
						// tier can enter.
						break tier
					}
				}
				key, matched := wx.features(rs, o, nw)
				if matched == need {
					rs.push(rhit{key: key, ord: o})
				}
			}
		}
		t = maxTier(planes, rs.bits[lo:hi+1], np, t)
	}
}

// classes fills cls (numCls bitsets of the 64-row words lo..hi) for query
// word i, and returns false, leaving cls clear, when its postings would cost
// more than scoring the ncand candidates.
func (wx *wordIndex) classes(rs *rankScratch, cls []uint64, i, lo, hi, nw int, prefixLast bool, ncand int) bool {
	span := hi - lo + 1
	pb, pbm, havePB := []uint64(nil), []uint64(nil), false
	if i == nw-1 {
		pb, pbm, havePB = rs.prefixBits(wx, i, nw, prefixLast)
	}
	cost := 0
	for _, id := range rs.touched {
		k := rs.tm[id] >> (2 * i) & 3
		if k == kindNone || havePB && k == kindPrefix {
			continue
		}
		cost += int(wx.postOff[id+1]-wx.postOff[id]) + int(wx.bmOff[id+1]-wx.bmOff[id])
	}
	if cost > max(4096, 8*ncand) {
		return false
	}
	set := func(c int, ords []uint32) {
		bs := cls[c*span : (c+1)*span]
		for _, o := range ords {
			if w := int(o>>6) - lo; uint(w) < uint(span) {
				bs[w] |= 1 << (o & 63)
			}
		}
	}
	for _, id := range rs.touched {
		k := rs.tm[id] >> (2 * i) & 3
		if k == kindNone || havePB && k == kindPrefix {
			continue
		}
		c := clsTypo
		switch k {
		case kindExact:
			c = clsExact
		case kindPrefix:
			c = clsPrefix
		}
		set(c, wx.post[wx.postOff[id]:wx.postOff[id+1]])
		set(c+clsBMExact, wx.bmPost[wx.bmOff[id]:wx.bmOff[id+1]])
	}
	if havePB {
		// The prefix bitsets hold the exact token too: the exact class
		// takes precedence where both are set.
		copy(cls[clsPrefix*span:(clsPrefix+1)*span], pb[lo:hi+1])
		copy(cls[clsBMPrefix*span:(clsBMPrefix+1)*span], pbm[lo:hi+1])
	}
	return true
}

// addPlane adds 1 to the bit-sliced counters p (least significant plane
// first) of the rows in m; the counters never overflow.
func addPlane(p []uint64, m uint64) {
	for j := range p {
		if m == 0 {
			return
		}
		t := p[j] & m
		p[j] ^= m
		m = t
	}
}

// tierEq returns the rows whose counter in planes pl is t.
func tierEq(pl []uint64, t int) uint64 {
	eq := ^uint64(0)
	for j, x := range pl {
		if t>>j&1 == 1 {
			eq &= x
		} else {
			eq &^= x
		}
	}
	return eq
}

// maxTier returns the largest counter below limit among the rows of cand
// (one word per 64 rows, np planes each in planes), or -1.
func maxTier(planes, cand []uint64, np, limit int) int {
	best := -1
	for k, c := range cand {
		if c == 0 {
			continue
		}
		pl := planes[k*np : (k+1)*np]
		// lt: the rows whose counter is below limit, comparing from the
		// top plane.
		var lt uint64
		eq := c
		for j := np - 1; j >= 0; j-- {
			if limit>>j&1 == 1 {
				lt |= eq &^ pl[j]
				eq &= pl[j]
			} else {
				eq &^= pl[j]
			}
		}
		if limit >= 1<<np {
			lt = c
		}
		if lt == 0 {
			continue
		}
		// The largest counter among them.
		x, v := lt, 0
		for j := np - 1; j >= 0; j-- {
			if y := x & pl[j]; y != 0 {
				x = y
				v |= 1 << j
			}
		}
		best = max(best, v)
	}
	return best
}
