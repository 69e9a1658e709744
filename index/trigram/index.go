package trigram

import (
	"slices"
	"strings"
	"unsafe"

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
	// firstOcc has bit i set when seq[i] is the first occurrence of its
	// trigram in its text.
	firstOcc []uint64
	// Each text is also a sequence of words (slots); a word is identified
	// by its trigram id sequence, stored once in wordSeq.
	slotOff  []uint32 // by rank; len n+1
	slotWord []uint32 // word id of each slot
	// slotLCP is, by rank, how many first slots the text shares with the
	// previous rank's (up to 255).
	slotLCP []uint8
	// slotNew counts the distinct trigrams of a slot that no earlier slot of
	// the same text holds (up to 255).
	slotNew []uint8
	wordOff []uint32 // by word id; len words+1
	wordSeq []uint32
	keys    []Trigram
	post    []roaring.Bitmap // by trigram id: the ranks of the texts that hold it
	// By trigram id: the posting's cardinality and its first and last 64-rank
	// words, which bound the words the bitmap writes in a dense copy.
	postCard, postLo, postHi []uint32
	// The postings denser than one rank per 64 have a dense copy, words
	// postLo..postHi, at denseOff[id] in dense (noDense for the others).
	denseOff []uint32
	dense    []uint64
	// wx is the word side for Rank (BuildRanked); nil after Build.
	wx *wordIndex
}

const noDense = ^uint32(0)

// Build indexes texts, which should already be folded (Fold). Row i is
// texts[i]; rows keep the caller's numbering (stable-id order in the
// catalogue). Build panics when the texts total 4 GiB or more (offsets are
// 32-bit).
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
	var lens []uint32
	ix.slotOff = make([]uint32, n+1)
	for rank, row := range ix.rowOf {
		tbuf, lens, wbuf = appendWordTrigrams(tbuf[:0], lens, true, texts[row], wbuf)
		ix.slotOff[rank+1] = uint32(len(lens))
		for _, t := range tbuf {
			id, ok := ids[t]
			if !ok {
				id = uint32(len(keys))
				ids[t] = id
				keys = append(keys, t)
			}
			seq = append(seq, id)
		}
		if uint64(len(seq)) >= 1<<32 {
			panic("BUG: trigram.Build: more than 4G trigrams")
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
	ix.buildWords(lens, len(keys))

	// Postings: count, then fill one flat array in rank order, then one
	// bitmap per trigram.
	nk := len(keys)
	seen := make([]uint32, nk) // rank+1 of the last text that counted the id
	count := make([]uint32, nk+1)
	ix.firstOcc = make([]uint64, (len(ix.seq)+63)/64)
	for rank := 0; rank < n; rank++ {
		for i := ix.seqOff[rank]; i < ix.seqOff[rank+1]; i++ {
			if id := ix.seq[i]; seen[id] != uint32(rank+1) {
				seen[id] = uint32(rank + 1)
				count[id+1]++
				ix.firstOcc[i>>6] |= 1 << (i & 63)
			}
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
	ix.postCard = make([]uint32, nk)
	ix.postLo = make([]uint32, nk)
	ix.postHi = make([]uint32, nk)
	for id := 0; id < nk; id++ {
		ranks := flat[count[id]:count[id+1]]
		bm := &ix.post[id]
		bm.AddMany(ranks)
		bm.RunOptimize()
		ix.postCard[id] = uint32(len(ranks))
		ix.postLo[id] = ranks[0] >> 6
		ix.postHi[id] = ranks[len(ranks)-1] >> 6
	}

	ix.denseOff = make([]uint32, nk)
	size := 0
	for id := 0; id < nk; id++ {
		ix.denseOff[id] = noDense
		if span := int(ix.postHi[id]-ix.postLo[id]) + 1; int(ix.postCard[id]) >= span {
			size += span
		}
	}
	ix.dense = make([]uint64, 0, size)
	for id := 0; id < nk; id++ {
		lo, hi := int(ix.postLo[id]), int(ix.postHi[id])
		if int(ix.postCard[id]) < hi-lo+1 {
			continue
		}
		ix.denseOff[id] = uint32(len(ix.dense))
		w := ix.dense[len(ix.dense) : len(ix.dense)+hi-lo+1]
		for _, r := range flat[count[id]:count[id+1]] {
			w[int(r>>6)-lo] |= 1 << (r & 63)
		}
		ix.dense = ix.dense[:len(ix.dense)+hi-lo+1]
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
	n := cap(ix.arena) + 8*cap(ix.firstOcc) + 8*cap(ix.dense) + 4*cap(ix.denseOff) + cap(ix.slotNew) + cap(ix.slotLCP) + 4*(cap(ix.slotOff)+cap(ix.slotWord)+cap(ix.wordOff)+cap(ix.wordSeq)) + 4*(cap(ix.textOff)+cap(ix.rowOf)+cap(ix.rankOf)+cap(ix.seqOff)+cap(ix.seq)+cap(ix.keys)+
		cap(ix.postCard)+cap(ix.postLo)+cap(ix.postHi))
	for i := range ix.post {
		n += int(ix.post[i].GetSizeInBytes()) + 48
	}
	return n + ix.WordIndexBytes()
}

// WordIndexBytes estimates the memory of the word side of the index
// (BuildRanked), 0 after Build.
func (ix *Index) WordIndexBytes() int {
	if ix.wx == nil {
		return 0
	}
	wx := ix.wx
	return cap(wx.dict) + cap(wx.tokFlags) + cap(wx.rtPos) + cap(wx.rtField) + cap(wx.tokTriN) + 2*cap(wx.rowBrand) +
		cap(wx.sigTrim) + 4*(cap(wx.rowSig)+cap(wx.sigOrd)+cap(wx.ordRow)+cap(wx.rowOrd)+cap(wx.dictOff)+cap(wx.postOff)+cap(wx.post)+cap(wx.postN)+cap(wx.bmOff)+cap(wx.bmPost)+cap(wx.bmN)+cap(wx.rtOff)+cap(wx.rtTok)+cap(wx.rtAlias)+
		cap(wx.tokTriOff)+cap(wx.tokTri)+cap(wx.triKeys)+cap(wx.triOff)+cap(wx.triTok)) +
		8*(cap(wx.tokPos)+cap(wx.modelMask)+cap(wx.prefBits)+cap(wx.prefBMBits)) + 2*cap(wx.prefKeys)
}

// buildWords fills the word dictionary and the slots from the trigram
// sequences and the number of trigrams of each word (lens, all texts in rank
// order).
func (ix *Index) buildWords(lens []uint32, nk int) {
	n := ix.Len()
	words := make(map[string]uint32, 1<<14)
	ix.slotWord = make([]uint32, len(lens))
	ix.slotNew = make([]uint8, len(lens))
	ix.wordOff = []uint32{0}
	seen := make([]uint32, nk) // rank+1 of the last text that holds the id so far
	for rank := 0; rank < n; rank++ {
		pos := ix.seqOff[rank]
		for j := ix.slotOff[rank]; j < ix.slotOff[rank+1]; j++ {
			w := ix.seq[pos : pos+lens[j]]
			pos += lens[j]
			key := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), 4*len(w))
			id, ok := words[string(key)]
			if !ok {
				id = uint32(len(ix.wordOff) - 1)
				words[string(key)] = id
				ix.wordSeq = append(ix.wordSeq, w...)
				ix.wordOff = append(ix.wordOff, uint32(len(ix.wordSeq)))
			}
			ix.slotWord[j] = id
			fresh := 0
			for _, t := range w {
				if seen[t] != uint32(rank+1) {
					seen[t] = uint32(rank + 1)
					fresh++
				}
			}
			ix.slotNew[j] = uint8(min(fresh, 255))
		}
	}
	ix.slotLCP = make([]uint8, n)
	for rank := 1; rank < n; rank++ {
		a := ix.slotWord[ix.slotOff[rank-1]:ix.slotOff[rank]]
		b := ix.slotWord[ix.slotOff[rank]:ix.slotOff[rank+1]]
		l := 0
		for l < len(a) && l < len(b) && l < 255 && a[l] == b[l] {
			l++
		}
		ix.slotLCP[rank] = uint8(l)
	}
	ix.wordSeq = slices.Clip(ix.wordSeq)
	ix.wordOff = slices.Clip(ix.wordOff)
}
