package export

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// readmeText renders README.txt. It depends only on the manifest's
// snapshot, options and row counts and on the tables' schemas, so an export
// rebuilt from a change file gets the same text.
func readmeText(m *Manifest, tables []*Table) string {
	var b strings.Builder
	o := m.Options
	b.WriteString("VSPEC VEHICLE CATALOGUE - LICENSED DATA EXPORT\n")
	b.WriteString("==============================================\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Snapshot\t%s (snapshot format v%d, seed %d, scale %g, synced %s)\n", m.Snapshot.Identity, m.Snapshot.FormatVersion, m.Snapshot.Seed, m.Snapshot.Scale, m.Snapshot.SyncedAt)
	fmt.Fprintf(tw, "Modules\t%s\n", strings.Join(o.Modules, ", "))
	fmt.Fprintf(tw, "Languages\t%s\n", strings.Join(o.Languages, ", "))
	if len(o.Brands) == 0 {
		fmt.Fprintf(tw, "Subset\tnone: the whole catalogue (%d variants)\n", m.Snapshot.Variants)
	} else {
		fmt.Fprintf(tw, "Subset\tbrands %s: %.4f%% of the snapshot's %d variants\n", strings.Join(o.Brands, ", "), 100*m.Share, m.Snapshot.Variants)
	}
	fmt.Fprintf(tw, "Layout\t%s\n", FormatName)
	tw.Flush()
	b.WriteString(`
Licence: the data is licensed for internal use unless the licence agreement
grants public display. Reselling or redistributing the raw data is not
permitted.

FILES

  README.txt         this file
  manifest.json      snapshot identity, options, tables with their row counts,
                     and the size and SHA-256 of every other file
  csv/TABLE.csv      one file per table: RFC 4180 (comma-separated, fields
                     with a comma, quote or line break in double quotes,
                     CRLF line ends), UTF-8 without a byte-order mark, a
                     header row with the column names
  jsonl/TABLE.jsonl  the same rows as JSON Lines: one object per line, keys
                     in column order, null values left out

Both formats hold exactly the same rows and values: pick one. In a
spreadsheet, import the CSV as UTF-8 (Excel: Data > From Text/CSV, file
origin 65001: Unicode (UTF-8)).

TABLES

`)
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "  table\trole\tmodule\tkey\trows\tcolumns\tcontent\n")
	rows := map[string]int{}
	for _, ti := range m.Tables {
		rows[ti.Name] = ti.Rows
	}
	for _, t := range tables {
		key := "-"
		if t.Keys > 0 {
			names := make([]string, t.Keys)
			for i := range names {
				names[i] = t.Cols[i].Name
			}
			key = strings.Join(names, ", ")
		}
		module := t.Module
		if module == "" {
			module = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%d\t%s\n", t.Name, t.Role, module, key, rows[t.Name], len(t.Cols), t.Title)
	}
	tw.Flush()
	b.WriteString(`
Every table's rows are sorted by its key: ids as numbers, text bytewise.
The field dictionary (dictionary) gives the module, type, unit, English
description and the label in each bought language of every column of the
data and confidence tables.

VALUES

  - An empty CSV field, or a key missing from a JSON line, is null: the
    value is not known. Nothing else is ever empty.
  - Ids are the catalogue's stable integer ids: a variant keeps its
    variant_id from one snapshot to the next, and they are the keys of the
    update subscription's change files. Join variant-level tables on
    variant_id; variants join generations on generation_id, models on
    model_id and brands on brand_id.
  - Module tables (one per bought data module) are wide: one row per
    variant of the export, one column per field of the module, named by its
    key, which carries its unit (length_mm, range_wltp_km). A row whose
    fields are all empty is a variant for which the module has no data.
  - Numbers use a dot and no thousands separator; integers have no
    decimals. Units are metric; the field dictionary gives each field's unit
    as written in each bought language (unit_de: PS, cm³, U/min).
  - Booleans are true or false. Enum fields hold the value's stable English
    slug (fuel_type "plug_in_hybrid"); value_labels gives the label of each
    value in each bought language, keyed on (field, value).
  - Dates are YYYY-MM-DD, times RFC 3339 in UTC (2026-11-01T03:00:00Z).
  - list_prices: price_new_eur is the Dutch list price in EUR; price_as_of
    is the date of the price snapshot. A date with an empty price means the
    source carried no price (unknown, not free).
  - confidence lists the values whose confidence is below 1 (0.5 to 0.95),
    keyed on (variant_id, field); every other value is certain.

LANGUAGES

English is always included. Each bought language adds one column to brands
(name_CODE), dictionary and value_labels (label_CODE). Data values are
language-neutral (numbers, slugs, names as published), so the data tables
are the same whatever the languages.

COVERAGE

coverage gives, for every field of the data tables, the number of records,
how many have a value and the share (with_value / records, four decimals),
and how many of those values are uncertain (listed in confidence). Rows of
level "module" and "overall" sum the fields of a module and of the whole
export: there records and with_value count field values, so share is the
fill rate of the module.

UPDATES

An update subscription delivers a full export of the new snapshot and a
change file (JSON Lines) from the previous one. Its first line is a header
with both snapshots' identities, the options, the counts of added, changed
and removed records per table, and the schema of every table. Each further
line is one record:

  {"table":"variants","op":"added","key":{"variant_id":1234},"fields":{...}}
  {"table":"equipment","op":"changed","key":{"variant_id":1234},"fields":{"navigation":true,"wheel_size_in":null}}
  {"table":"images","op":"removed","key":{"variant_id":1234,"position":3}}

"added" carries every non-null field of the new row, "changed" only the
fields whose value changed (null: the value was removed), "removed" only the
key. Applying the records to the tables of this export gives the tables of
the next one; coverage, README.txt and manifest.json follow from them.
`)
	return strings.ReplaceAll(strings.ReplaceAll(b.String(), "\n", "\n"), "\n", "\n")
}
