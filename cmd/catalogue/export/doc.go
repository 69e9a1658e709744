// Package export writes the licensed data exports the business sells
// outside the API (the contract's "Licensed data exports" section), the
// change files of the update subscription, and the price quotes of both.
// It lives beneath cmd/catalogue because the operator CLI is its only user
// (catalogue export, diff and quote); the server never exports, and loader
// keeps only the snapshot format. cmd/deps_test.go lets no other package
// import it.
//
// # Layout of an export directory
//
//	README.txt          the layout, the options and the conventions, for the buyer (CRLF, plain text)
//	manifest.json       format, snapshot identity, options, subset share, tables with row and column
//	                    counts, and path, rows, bytes and SHA-256 of every other file
//	csv/TABLE.csv       one file per table, RFC 4180 as encoding/csv writes it with CRLF line ends,
//	                    UTF-8 without a byte-order mark, a header row of column names
//	jsonl/TABLE.jsonl   the same rows as JSON Lines: one object per line, keys in column order, null
//	                    (empty) values left out, numbers and booleans unquoted
//
// The tables, in this order (a module's tables only when it was bought):
//
//	brands              catalogue  brand_id; slug, name, country, popularity_rank, wikidata_id, name_LANG...
//	models              catalogue  model_id; brand_id, name, slug
//	generations         catalogue  generation_id; model_id, brand_id, name, slug, year_start, year_end
//	variants            catalogue  variant_id; generation_id, model_id, brand_id, name, the catalogue
//	                               module's spec fields (fuel_type, transmission, drive_wheel, body_type),
//	                               last_synced_at
//	MODULE              one per bought data module: variant_id and one column per spec type of the
//	                    module, in dictionary order (list_prices adds price_as_of)
//	images              images     (variant_id, position); role, url
//	confidence          (variant_id, field); confidence, for every exported value below 1
//	dictionary          (table, field); module, type, unit, enum, description, label_LANG...
//	value_labels        (field, value); label_LANG... for every value of every exported enum field
//	coverage            level (field, module, overall), module, table, field, records, with_value,
//	                    share, uncertain_values
//
// Why this shape: a buyer loads each file as it is into a spreadsheet or a
// database table. Module tables are wide (one row per variant, one column
// per spec key, the key carrying its unit) because that is the form a
// spreadsheet filters and a database joins on variant_id without a pivot;
// the widest, equipment, has 112 columns, far inside any tool's limits.
// Confidence is long instead: only 9.5 % of values are uncertain, and a
// "__confidence" column beside every field would double the width of every
// table for mostly empty cells. Data values are language-neutral (numbers,
// English enum slugs, names as published); the bought languages add label
// columns to brands, dictionary and value_labels only, so a language never
// widens the data tables and the same data tables serve every customer.
// Empty is null everywhere; no exported value is an empty string.
//
// Every table is sorted by its key, integers by value and text bytewise,
// and the writer checks it. Nothing depends on the clock, on map order or on
// the number of workers, so the same snapshot and options give the same
// bytes and hashes (TestExportDeterministic).
//
// # Change files
//
// Diff merges the tables of two plans (the same options over two
// snapshots) by key and writes JSON Lines: a header (format, from and to
// snapshot identities, options, counts per table and in total, and the
// schema of every new table: column names, types, modules, key width),
// then one record per difference, table by table in key order:
//
//	{"table":T,"op":"added","key":{...},"fields":{every non-null field}}
//	{"table":T,"op":"changed","key":{...},"fields":{each changed field: its new value, null when removed}}
//	{"table":T,"op":"removed","key":{...}}
//
// The reference tables (dictionary, value_labels) are diffed like the data
// tables, so Apply rebuilds a complete export from the old one and the
// change file alone: tables patched in a streaming merge, then coverage,
// README.txt and manifest.json derived exactly as Export derives them. The
// result is byte for byte the export of the new snapshot (TestDiffApply).
//
// # Quotes
//
// PriceQuote implements the price table and the licence terms; its doc
// comment states the reading of the points the contract leaves open: the
// cheaper bundle is proposed only when the modules cost strictly more; the
// subset share (at least 30 %) scales the data price but not the languages;
// six or more extra languages cost the 990 of all 19, which are then
// delivered; public display doubles the export price including languages;
// the update subscription is 4 % of the internal-use export price (not of
// the doubled display price), at least 49 a month, billed 10 months a year
// in advance or 3 months a quarter; every amount is rounded to the euro,
// half up, once per step.
//
// # Performance
//
// Tables are written in parallel, largest first, each in one pass that
// produces its CSV, its JSON Lines, both SHA-256 sums and its coverage
// counts; rows are rendered into a reused buffer straight from the
// catalogue's columns. On the 2-core machine of bench/RESULTS.md, exporting
// the full catalogue (103,372 variants) with every module and all 20
// languages takes 4.2 s and writes 753 MB in 35 files (CSV 190 MB, JSON
// Lines 563 MB), plus 0.7 s to load the snapshot:
//
//	go test ./cmd/catalogue/export -run '^$' -bench ExportFull -benchtime 3x
//
// The change file between the full catalogue and its simulated next
// quarter (130,727 records, 17 MB) takes 3.8 s (BenchmarkDiffFull). Apply
// decodes records with encoding/json at about 10 MB/s, which suits
// quarterly change files; the worst case, the change file between two
// unrelated full catalogues (seeds 1 and 2: 4.4 million records, 755 MB),
// takes 10 s to write and over a minute to apply, and the result is
// identical to the export of the new snapshot.
//
// The package imports engine, engine/jsonenc and data/vocab (the published
// locales, for quotes).
package export
