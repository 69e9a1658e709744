// Package trigram is the catalogue's typeahead index: it finds, among about
// 100,000 short texts (Fold(brand + " " + variant display name)), those whose
// PostgreSQL pg_trgm word_similarity to a query reaches a threshold, best
// first, with keyset paging (Build, Index.Search), and ranks the rows a
// person means by their words (BuildRanked, Index.Rank). It owns the folding
// of texts and queries (Fold), the transliteration of Cyrillic, Greek and
// Arabic (AppendTranslit), the trigram key (Trigram), the exact pg_trgm
// scoring (WordSimilarity) and the index.
//
// # Ranked search (Rank)
//
// Matching: a row matches when every query word (up to MaxRankWords)
// matches a word of its brand, model or name, in any order: exactly, as a
// prefix (the last word when the query does not end with a separator), or
// with a typo (pg_trgm similarity of the two words at least 0.3, or one
// byte inserted, deleted, replaced or two swapped, for query words of 4
// letters or more that no word of the catalogue holds or starts with, as
// Typesense's typo_tokens_threshold). A row also matches when
// word_similarity reaches the threshold, so nothing Search finds is lost. A
// query word that matches no word of the catalogue at all is left out of
// "every query word". Row words include the halves
// of a word joining letters and digits ("a4": "a", "4") and the join of a
// letter word followed by a digit word ("c 200": "c200"), so both spellings
// find both. Brand aliases (the caller's: data/vocab's "vw", "merc" and
// every locale's local spelling) are words of each of the brand's rows. A
// query word in Cyrillic, Greek or Arabic is also tried transliterated
// ("королла" -> "korolla", a typo of "corolla") and with k written c and j
// written g ("фокус" -> "focus"); a Cyrillic or Greek letter in a word with
// Latin letters or digits is read as its Latin look-alike ("х3" -> "x3").
//
// The rank order, a total order: first the rows that every query word
// matches, by (1) more exact matches, then more prefix matches (the rest are
// typos); (2) more words matched in the brand or model than in trim words;
// (3) more consecutive query words on consecutive row words, then more in
// the query's order; (4) when a query word matched the model, fewer model
// words left unmatched; (5) the static order the caller gives each row
// (the engine's: generation era, in production first, brand popularity,
// model position in its brand, newest generation), then the row. Then the
// rows only word_similarity finds, in Search's order (score, text, row).
// Ranked.Key packs items 1 to 4 (with the query's word count in the top 4
// bits), or the float bits of the score for the rows only word_similarity
// finds, so a keyset cursor is the key and the row.
//
// Rank finds the rows every word matches from the postings of the most
// selective query word (the sum of the postings of the dictionary words it
// matches), narrowed by the others', as a bitset by static order. It scores
// them in static order and stops as soon as the heap of Limit+1 holds only
// rows whose key equals the best key the query can reach. When a few
// hundred candidates did not get there (tiers.go), it scores the rest by
// upper bound: each candidate's numbers of exact, prefix and brand-or-model
// matches, counted 64 rows at a time in bit-sliced counters from the
// postings of each class of match, put it in a tier whose key is bounded;
// tiers are scored best first until the next one cannot enter the heap.
// There a row's key comes from its signature (its brand and its brand and
// model tokens, 3,004 of them for 103,372 rows: how they match is worked
// out once per query) and the best kind of its trim-only matches, read from
// the class bitsets; only a row whose trim words could change its
// adjacency gets the full computation, unless its bound keeps it out. The
// word index keeps its postings as runs (rows of a brand or model follow
// each other in static order), ORed into bitsets 64 rows at a time. The
// rows only word_similarity finds come from Search, in batches, when the
// page still has room. The page's scores run the greedy loop once per
// distinct extent (found word by word).
//
// # Semantics reproduced
//
// Scores are exactly those of pg_trgm 1.6 in PostgreSQL 15 (contrib/pg_trgm,
// trgm_op.c) in a UTF8 database whose LC_CTYPE is C.UTF-8, as
// word_similarity(query, text) returns them:
//
//   - Words are maximal runs of letters and digits (ISWORDCHR: ASCII
//     letters and digits, and for other characters what glibc's
//     iswalpha/iswdigit accept); everything else separates words and is
//     dropped. Each word is lower-cased one character at a time (towlower,
//     unicode.ToLower here), padded as "  word ", and cut into trigrams of
//     three characters (generate_trgm_only, make_trigrams).
//   - A trigram of three ASCII bytes is those bytes; any other is the low
//     three bytes of the legacy CRC32 of its UTF-8 bytes (compact_trigram),
//     so hash collisions behave as in PostgreSQL.
//   - word_similarity is the best similarity count/(|Q| + |uniq(extent)| -
//     count) over extents of the text's ordered trigrams, found by pg_trgm's
//     greedy scan, ported line for line (calc_word_similarity,
//     iterate_word_similarity), in float4 arithmetic.
//   - A text matches when float64(score) >= float64(threshold), the float4
//     score against the float4 threshold widened to float8, which is the
//     `query <% text` test with pg_trgm.word_similarity_threshold set to the
//     same value. A query without trigrams matches nothing.
//
// Results come in the order of `ORDER BY score DESC, text COLLATE "C", row`:
// score descending, then text ascending bytewise, then row ascending. Rows
// are the caller's numbering of the texts given to Build (stable-id order in
// the catalogue). A Position (score, text, row) taken from the last match of
// a page resumes the order strictly after it, in this index or a rebuilt
// one.
//
// testdata/ holds the parity fixture: 440 queries (queries.tsv) and the top
// 10 that a real PostgreSQL 15.18 returned for each at thresholds 0.5 and
// 0.3 over the 103,372 catalogue texts (expected_word_*.tsv), which
// TestParityPostgres requires Search to equal exactly (rows, order and
// scores); testdata/gen_fixture.sh regenerates them with a throwaway
// cluster, and records PostgreSQL's own GIN-indexed query time in
// pg_timing.txt.
//
// # How a search runs
//
// Build numbers the texts by rank, their position in result order among
// equal scores (text, then row), and keeps per text its ordered trigram ids
// and its words; a roaring bitmap of ranks per trigram; and a dictionary of
// the distinct words. Everything but the bitmaps is flat integer slices and
// one byte arena.
//
// Search takes the query's nq trigrams. A text holding c of them scores at
// most c/nq, so only texts holding at least m of them (GIN's bound, the
// least c with c/nq >= threshold) are candidates. The query's posting
// bitmaps are added into bit-sliced counters (64 ranks per machine word),
// which give every candidate its exact c; candidates are then taken by
// decreasing c and, within one c, by ascending rank, into a heap of the
// Limit+1 best. The search stops as soon as the next candidate's bound
// cannot beat the worst match kept, which for a query like "volkswagen"
// (8,000 texts tying at 1) is after Limit+1 texts. Before a candidate is
// scored with the greedy loop, two upper bounds of its score against the
// worst match kept (over its words, then over its query trigram positions)
// dismiss the texts that cannot enter; texts whose denominators stay below
// 4096 are scored with exact integer fractions, which give the same float4.
//
// # Dependencies
//
// The package depends on the standard library, roaring and
// golang.org/x/text only. It must not import engine, loader, httpd or data
// (cmd/deps_test.go enforces it); its tests use data/gen to rebuild the
// catalogue's texts.
package trigram
