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
				rs.found = true
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
// A word whose postings cost more than the candidates are worth adds its
// best kind to every row's bound, and its brand-or-model match too unless
// the postings of its brand and model occurrences are cheap enough to
// count.
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
	if cap(rs.trimPl) < 2*nw*span {
		rs.trimPl = make([]uint64, 2*nw*len(rs.bits))
	}
	trimPl := rs.trimPl[:2*nw*span]
	rs.trimKnown = 0
	if cap(rs.anyTrim) < span {
		rs.anyTrim = make([]uint64, len(rs.bits))
	}
	rs.anyTrim = rs.anyTrim[:span]
	clear(rs.anyTrim)
	if len(rs.sigStamp) < len(wx.sigOrd) {
		rs.sigStamp = make([]uint32, len(wx.sigOrd))
		rs.sigMemo = make([]sigMemo, len(wx.sigOrd))
	}
	if len(rs.sigParts) < nw*len(wx.sigOrd) {
		rs.sigParts = make([]sigPart, nw*len(wx.sigOrd))
	}
	ncand := 0
	for w := lo; w <= hi; w++ {
		ncand += bits.OnesCount64(rs.bits[w])
	}
	var cE, cP, cB int // the words not counted
	for i := 0; i < nw; i++ {
		if rs.card[i] == 0 {
			continue
		}
		how := wx.classes(rs, cls, i, lo, hi, nw, prefixLast, ncand)
		if how != classesAll {
			switch rs.bestKind[i] {
			case kindExact:
				cE++
			case kindPrefix:
				cP++
			}
		}
		switch how {
		case classesNone:
			if rs.bm[i] {
				cB++
			}
		case classesBM:
			// The rows where some token of the word is a brand or model
			// word, in clsBMExact.
			for k := 0; k < span; k++ {
				addCount(planes[k*np:k*np+sh], cls[clsBMExact*span+k])
			}
		case classesAll:
			rs.trimKnown |= 1 << i
			t0, t1 := trimPl[2*i*span:(2*i+1)*span], trimPl[(2*i+1)*span:(2*i+2)*span]
			for k := 0; k < span; k++ {
				ex, pr, ty := cls[clsExact*span+k], cls[clsPrefix*span+k], cls[clsTypo*span+k]
				bx, bp, bt := cls[clsBMExact*span+k], cls[clsBMPrefix*span+k], cls[clsBMTypo*span+k]
				p := pr &^ ex
				b := ex&bx | p&bp | ty&^pr&^ex&bt
				pl := planes[k*np : (k+1)*np]
				addCount(pl[2*sh:3*sh], ex)
				addCount(pl[sh:2*sh], p)
				addCount(pl[:sh], b)
				// The best kind of the word's trim-only tokens, in two
				// planes (typo 1, prefix 2, exact 3): where it is below
				// the row's brand or model match, that one wins anyway.
				tx, tp, tt := ex&^bx, pr&^bp, ty&^bt
				t1[k] = tx | tp
				t0[k] = tx | tt&^tp
				rs.anyTrim[k] |= t1[k] | t0[k]
			}
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
				key, matched, exact := wx.sigKey(rs, o, k, span, nw)
				if matched != need {
					continue
				}
				if !exact {
					if len(rs.heap) == rs.kept && !rbetter(rhit{key: key, ord: o}, rs.heap[0]) {
						continue
					}
					key, _ = wx.features(rs, o, nw)
				}
				rs.push(rhit{key: key, ord: o})
				rs.found = true
			}
		}
		t = maxTier(planes, rs.bits[lo:hi+1], np, t)
	}
}

// sigPart is what a row signature's tokens give a query word: its best
// kind and first position among the brand and model tokens, and among the
// brand's aliases.
type sigPart struct {
	kB, pB, kA, pA uint8
}

// sigKey returns the key of the candidate at ord o (bit o&63 of the span's
// word k), how many query words match it, and whether the key is exact or
// only the best the row can have. It reads the brand and model tokens once
// per signature, and the row's trim words from the class bitsets of the
// words whose classes were counted (trimPl); a row that needs more (a
// word whose classes were not counted and that its brand or model
// tokens do not match as well as the word can match) gets features' key.
func (wx *wordIndex) sigKey(rs *rankScratch, o uint32, k, span, nw int) (key uint64, matched int, exact bool) {
	sig := wx.rowSig[o]
	tEnd := wx.sigTrim[sig]
	if tEnd > 62 {
		key, matched = wx.features(rs, o, nw)
		return key, matched, true
	}
	parts := rs.sigParts[int(sig)*nw:][:nw]
	if rs.sigStamp[sig] != rs.gen {
		rs.sigStamp[sig] = rs.gen
		clear(parts)
		so := wx.sigOrd[sig]
		j := wx.rtOff[so]
		for ; j < wx.rtAlias[so] && wx.rtField[j]&fieldBM != 0; j++ {
			if m := rs.tm[wx.rtTok[j]]; m != 0 {
				for i := 0; i < nw; i++ {
					if k := uint8(m >> (2 * i) & 3); k > parts[i].kB {
						parts[i].kB, parts[i].pB = k, min(wx.rtPos[j], 63)
					}
				}
			}
		}
		for j = wx.rtAlias[so]; j < wx.rtOff[so+1]; j++ {
			if m := rs.tm[wx.rtTok[j]]; m != 0 {
				for i := 0; i < nw; i++ {
					if k := uint8(m >> (2 * i) & 3); k > parts[i].kA {
						parts[i].kA, parts[i].pA = k, min(wx.rtPos[j], 63)
					}
				}
			}
		}
	}
	// As features meets them: the brand and model tokens, the trim
	// tokens (a better kind only), the aliases (a better kind, or the
	// same as a trim word's). A row without trim matches of the counted
	// words has its signature's key, kept from the signature's first such
	// row.
	bit := o & 63
	noTrim := rs.anyTrim[k]>>bit&1 == 0
	if noTrim && rs.sigMemo[sig].stamp == rs.gen {
		m := rs.sigMemo[sig]
		if m.full {
			key, matched = wx.features(rs, o, nw)
			return key, matched, true
		}
		return m.key, int(m.matched), true
	}
	var kind, field, pos [MaxRankWords]uint8
	var trim uint32
	for i := 0; i < nw; i++ {
		p := parts[i]
		kd, f, ps := p.kB, uint8(0), p.pB
		if kd != 0 {
			f = 1
		}
		var kT uint8
		if rs.trimKnown>>i&1 != 0 {
			kT = uint8(rs.trimPl[(2*i+1)*span+k]>>bit&1<<1 | rs.trimPl[2*i*span+k]>>bit&1)
		} else if max(p.kB, p.kA) < rs.bestKind[i] {
			if noTrim {
				rs.sigMemo[sig] = sigMemo{stamp: rs.gen, full: true}
			}
			key, matched = wx.features(rs, o, nw)
			return key, matched, true
		}
		isTrim := false
		if kT > kd {
			kd, f, isTrim = kT, 0, true
		}
		if p.kA > kd || p.kA == kd && p.kA != 0 && f == 0 {
			kd, f, ps, isTrim = p.kA, 1, p.pA, false
		}
		kind[i], field[i], pos[i] = kd, f, ps
		if isTrim {
			trim |= 1 << i
		}
	}
	key, matched, exact = wordKey(&kind, &field, &pos, nw, wx.modelMask[o], trim, tEnd)
	if noTrim {
		// No trim word, so exact.
		rs.sigMemo[sig] = sigMemo{stamp: rs.gen, key: key, matched: uint8(matched)}
	}
	return key, matched, exact
}

// sigMemo is the key of a signature's rows without trim matches, valid
// when stamped with the search's gen; full when they need features.
type sigMemo struct {
	stamp   uint32
	matched uint8
	full    bool
	key     uint64
}

// What classes could afford for a query word.
const (
	classesNone = iota // nothing: its postings cost more than the candidates are worth
	classesBM          // only the rows where one of its tokens is a brand or model word, in clsBMExact
	classesAll         // every class
)

// classes fills cls (numCls bitsets of the 64-row words lo..hi) for query
// word i as far as its postings cost less than scoring the ncand
// candidates would, and tells how far.
func (wx *wordIndex) classes(rs *rankScratch, cls []uint64, i, lo, hi, nw int, prefixLast bool, ncand int) int {
	span := hi - lo + 1
	pb, pbm, havePB := rs.prefixBits(wx, i, nw, prefixLast)
	// A token that is a brand or model word wherever it is (a brand's
	// name) has the same rows in both lists: one walk.
	all, bm := 0, 0
	for _, id := range rs.touched {
		k := rs.tm[id] >> (2 * i) & 3
		if k == kindNone || havePB && k == kindPrefix {
			continue
		}
		if wx.postN[id] != wx.bmN[id] {
			all += int(wx.postOff[id+1] - wx.postOff[id])
		}
		bm += int(wx.bmOff[id+1] - wx.bmOff[id])
	}
	// A posting costs a few nanoseconds, scoring a candidate some tens.
	limit := max(4096, 24*ncand)
	how := classesAll
	switch {
	case all+bm <= limit:
	case bm <= limit:
		how = classesBM
	default:
		return classesNone
	}
	set := func(c int, runs []uint32) { orRuns(cls[c*span:(c+1)*span], lo, runs) }
	for _, id := range rs.touched {
		k := rs.tm[id] >> (2 * i) & 3
		if k == kindNone || havePB && k == kindPrefix {
			continue
		}
		bmRuns := wx.bmPost[wx.bmOff[id]:wx.bmOff[id+1]]
		if how == classesBM {
			set(clsBMExact, bmRuns)
			continue
		}
		c := clsTypo
		switch k {
		case kindExact:
			c = clsExact
		case kindPrefix:
			c = clsPrefix
		}
		set(c+clsBMExact, bmRuns)
		if wx.postN[id] != wx.bmN[id] {
			set(c, wx.post[wx.postOff[id]:wx.postOff[id+1]])
		} else {
			bs, bb := cls[c*span:(c+1)*span], cls[(c+clsBMExact)*span:(c+clsBMExact+1)*span]
			for k, x := range bb {
				bs[k] |= x
			}
		}
	}
	if havePB {
		if how == classesBM {
			bs := cls[clsBMExact*span : (clsBMExact+1)*span]
			for k := range bs {
				bs[k] |= pbm[lo+k]
			}
		} else {
			// The prefix bitsets hold the exact token too: the exact
			// class takes precedence where both are set.
			copy(cls[clsPrefix*span:(clsPrefix+1)*span], pb[lo:hi+1])
			copy(cls[clsBMPrefix*span:(clsBMPrefix+1)*span], pbm[lo:hi+1])
		}
	}
	return how
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
		best = max(best, maxCount(pl, lt))
	}
	return best
}
