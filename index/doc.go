// Package index holds the catalogue's search structures over variant rows:
// equality bitmaps for enumerated columns, range indexes for numeric columns
// (sorted values with cumulative bucket bitmaps), and, in index/trigram, the
// typeahead trigram index. Everything is roaring bitmaps of row numbers and
// flat integer slices built once per catalogue and never modified.
//
// The package knows nothing of the catalogue's types, of HTTP or of the
// snapshot format: it must not import engine, loader, httpd or data.
package index
