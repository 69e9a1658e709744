// Package engine owns the immutable in-memory catalogue: columns of the
// brand > model > generation > variant hierarchy, string arenas, dictionary
// codes, the 15 million spec values as parallel arrays with a span per
// variant, the vocabulary with per-locale label tables (plain and
// pre-escaped for JSON), lookups by stable id, list orders, filter indexes
// and the typeahead.
//
// A Catalogue is built once by New from Columns (the loader decodes a
// snapshot into Columns) and never changes afterwards, so any number of
// goroutines may read it without locks. The large columns are slices of
// integers and byte arenas: the garbage collector sees a few dozen pointers,
// not millions. The engine holds no "current" catalogue: whoever serves one
// keeps it behind its own atomic pointer and swaps in the next on reload
// (httpd's Service does).
//
// Rows of each kind are numbered 0..n-1 in snapshot order, which is stable-id
// order; children of a parent are contiguous, so the hierarchy is spans.
//
// The package may import index and engine/jsonenc; it must not import
// loader, data or httpd.
package engine
