// Package gen is the deterministic generator of the catalogue: from a seed
// it produces a dataset.Set of the real catalogue's shape (1,357 models,
// 3,585 generations, about 103,372 variants at scale 1) with real brand and
// model names, the real generations of the nameplates data/vocab/
// generations.tsv lists (6-8-year cycles for the others) and, inside them,
// line-ups (lineup.go): the generations of data/vocab/lineups take their
// variants from those rows only (each engine offer with its gearboxes,
// drives and the trims of its era, figures and prices the rows publish over
// the derived ones); every other generation gets a rule-based line-up of
// the same shape from its brand's engines of the era. Figures are coherent
// and of their era (car.go: power in kW and PS agree, performance fits
// power and weight, consumption, CO2 and range in the cycle of the model
// year, top speeds within the makers' limiters, EVs with batteries and no
// fuel consumption, plug-ins with both); prices are Dutch list prices in
// money of the day (price.go); names follow each brand's grammar, unique
// within a generation through real words (names.go, badges.go).
//
// Determinism: every entity draws from its own random stream seeded by the
// catalogue seed and its stable id, so the same seed gives the same catalogue
// and the same snapshot bytes. The entities of the frozen demo set (see
// demo.go) draw from a fixed seed instead, so the 40 demo cars are identical
// under any seed and any scale; the demo cars themselves are data
// (demo/generations.tsv, demo/cars.tsv: real generations, versions and their
// published figures), which the generator applies over its draws.
//
// Stable ids are hierarchical and bit-packed (see dataset.ModelID): a model's
// id is its brand's id and its position within the brand in the vocabulary
// files, a generation's its model's and its ordinal, a variant's its
// generation's and its ordinal. They never depend on which other entities a
// scaled-down catalogue keeps.
//
// The package imports data/vocab, data/dataset and the standard library.
package gen
