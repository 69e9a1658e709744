// Package gen is the deterministic generator of the synthetic catalogue: from
// a seed it produces a dataset.Set with the exact shape and size of the real
// catalogue (1,357 models, 3,585 generations, 103,372 variants at scale 1),
// real brand and model names, the real generations of the nameplates listed
// in data/vocab/generations.tsv (6-8-year cycles for the others), and
// coherent figures (power in kW and hp agree,
// performance fits power and weight, EVs have batteries and no fuel
// consumption, plug-in hybrids have both, combustion cars have displacement,
// consumption and CO2, dimensions and weights fit the body type).
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
