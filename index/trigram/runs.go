package trigram

// Postings of the word index as runs. Rows are numbered in static order
// (era, brand, model, ...), so a brand's or a model's rows, and most of a
// trim word's, follow each other: a list holds an ord alone, or runFlag|ord
// followed by the number of ords of the run from it (runs of runMin ords or
// more). 1.6 M postings fit in about 0.5 M entries, and a bitset takes a run
// 64 rows at a time.

// runFlag marks the start of a run; ords stay below it.
const runFlag = 1 << 31

// runMin is the shortest run written as one.
const runMin = 3

// appendRuns appends the ascending ords as runs.
func appendRuns(dst, ords []uint32) []uint32 {
	for i := 0; i < len(ords); {
		j := i + 1
		for j < len(ords) && ords[j] == ords[j-1]+1 {
			j++
		}
		if j-i >= runMin {
			dst = append(dst, runFlag|ords[i], uint32(j-i))
		} else {
			dst = append(dst, ords[i:j]...)
		}
		i = j
	}
	return dst
}

// runsSpan returns the first and last ord of a non-empty list.
func runsSpan(p []uint32) (first, last uint32) {
	first = p[0] &^ runFlag
	last = p[len(p)-1]
	if n := len(p); n >= 2 && p[n-2]&runFlag != 0 {
		last = p[n-2]&^runFlag + p[n-1] - 1
	}
	return first, last
}

// orRuns sets in bs, the 64-row words lo..lo+len(bs)-1 of a bitset by
// ord, the bits of the ords of p that fall there.
func orRuns(bs []uint64, lo int, p []uint32) { walkRuns(bs, lo, p, false) }

// anyRuns tells whether a bit of bs (words lo..lo+len(bs)-1) is set for an
// ord of p.
func anyRuns(bs []uint64, lo int, p []uint32) bool { return walkRuns(bs, lo, p, true) }

// walkRuns is orRuns, or anyRuns when test is set.
func walkRuns(bs []uint64, lo int, p []uint32, test bool) bool {
	n := len(bs)
	for j := 0; j < len(p); j++ {
		e := p[j]
		if e&runFlag == 0 {
			if w := int(e>>6) - lo; uint(w) < uint(n) {
				if !test {
					bs[w] |= 1 << (e & 63)
				} else if bs[w]>>(e&63)&1 != 0 {
					return true
				}
			}
			continue
		}
		j++
		from, to := max(int(e&^runFlag), lo<<6), min(int(e&^runFlag+p[j]), (lo+n)<<6)
		for from < to {
			var w int
			var m uint64
			w, m, from = runWord(from, to)
			if !test {
				bs[w-lo] |= m
			} else if bs[w-lo]&m != 0 {
				return true
			}
		}
	}
	return false
}

// runWord returns the 64-row word holding ord from, the mask of the ords
// [from, to) in it, and the first of them past it.
func runWord(from, to int) (w int, m uint64, next int) {
	w = from >> 6
	m = ^uint64(0) << (from & 63)
	next = (w + 1) << 6
	if to < next {
		m &= ^uint64(0) >> (next - to)
		next = to
	}
	return w, m, next
}
