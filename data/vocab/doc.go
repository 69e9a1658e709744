// Package vocab owns the catalogue's vocabularies: the 20 locales, the spec
// dictionary (232 spec types in 21 groups), the enumerations (fuel types, body
// types, drivetrains, ...), the brands and the list of real model names the
// generator draws from, with display labels in every locale.
//
// Everything is plain data kept in tab-separated files next to this package
// and embedded at build time, so a translator or a data editor can change a
// label without touching Go code:
//
//	specs.tsv        spec types: key, group, kind, unit, scale, enum, applicability, export module, generator hint, English name
//	groups.tsv       spec groups in display order
//	enums.tsv        enumerated values: group, English slug, English label
//	labels/<loc>.tsv labels of groups, specs and enum values per locale (same rows as labels/en.tsv)
//	brands.tsv       brands: public id, slug, name, country, popularity, naming style, Wikidata id, localized names
//	models_*.tsv     real model names per brand with body, segment, years and powertrain class
//	generations.tsv  real generations (code, years, facelift) of the best-selling nameplates, in sales rank order
//	powertrains.tsv  fuels, driven wheels and power range per nameplate (or brand) and model years
//	engines.tsv      engine families per brand group and era: badge, displacement, cylinders, power steps;
//	                 petrol, diesel, and the engines of full, plug-in and mild hybrids
//	electrified.tsv  full and plug-in hybrids per nameplate: model years, system power, a plug-in's pack
//	hybridgearboxes.tsv the gearboxes of hybrids per brand (or nameplate) and model years: e-CVT, DCT, ...
//	badges.tsv       engine and hybrid badges: the years each was on sale, its predecessor and successor
//	gearboxes.tsv    automatic gearbox names: the years each was sold and the brands that used it
//	gearboxtypes.tsv the DCTs, CVTs and automated manuals each brand (or nameplate) fitted, by fuel and model years
//	evs.tsv          electric versions of the volume EVs per nameplate and model years: battery, power, drive
//	vanclasses.tsv   size class of each van nameplate (micro, small, medium, large)
//	powercodes.tsv   model-code numbers by power per brand, fuel and era (Mercedes' C 200 of 2021 has 204 hp)
//	lineups/<brand>.tsv the engine offers of each real generation of the best-selling nameplates (lineups.go,
//	                 lineups/README.md): badge, fuel, engine, kW and PS, torque, gearboxes, drives, model years,
//	                 and the published figures and price where known; the generator builds those generations'
//	                 variants from them alone
//	trims/<brand>.tsv   the trim ladders per nameplate (or the brand's "*") and model years, and the
//	                 performance versions' own
//
// Every table is read by one reader (table.go): rowsOf skips comments and
// blank lines, checks the field count and names the file and line in its
// errors (rowsAll, for the tables several editors write at once, reports
// every bad row of a file in one pass); a record's parsers read the common kinds of field (years and
// spans of years, bounded numbers, lists of brands, nameplates or enum
// values) and word their errors alike. A record keeps the first error of
// its row, so a table's loader (generations.go, engines.go, ...) reads its
// fields as a plain list, checks what is particular to it and looks at the
// row's error once, at its end.
//
// The package imports only the standard library. It must not import the
// engine, the loader or anything under httpd.
package vocab
