// Package dataset defines the catalogue as the generator produces it and the
// snapshot writer consumes it: plain rows for the hierarchy and parallel
// arrays for the 15 million spec values. It is the hand-over format between
// data/gen and loader; the serving engine never sees it (it reads snapshots).
//
// The package imports only data/vocab and the standard library.
package dataset

import (
	"math"

	"github.com/vspec/catalogue/data/vocab"
)

// Null marks a missing value in an int32 column.
const Null int32 = math.MinInt32

// Image roles. The numeric values are part of the snapshot format.
const (
	RoleCard uint8 = 0
	RoleHero uint8 = 1
)

// Set is a whole catalogue. Rows of each kind are sorted by stable id, and
// children of one parent are contiguous, so spans describe the hierarchy.
type Set struct {
	Seed     uint64
	Scale    float64
	SyncedAt int64  // Unix seconds of the catalogue-wide last sync
	CDNBase  string // image URL prefix, without a trailing slash

	Vocab *vocab.Vocabulary

	Brands      []Brand
	Models      []Model
	Generations []Generation
	Variants    []Variant

	// Spec values in variant order; Variant.SpecStart/SpecEnd delimit a
	// variant's values, sorted by spec index.
	SpecKey  []uint8 // index into Vocab.Specs
	SpecVal  []int32 // value, interpreted by the spec's kind
	SpecConf []uint8 // confidence in percent; 0 means 1.0 (certain)

	// Texts is the dictionary of KindText values; SpecVal indexes it.
	Texts []string

	// Images in variant order; Variant.ImageStart/ImageEnd delimit them.
	ImageKey  []uint32 // the photograph's angle: an index into engine.ImageAngles
	ImageRole []uint8  // RoleCard or RoleHero

	// Demo lists the rows of Variants that form the frozen demo set, in
	// demo order (brand, model, generation, variant).
	Demo []uint32
}

// Brand is a brand row.
type Brand struct {
	ID         uint32
	Slug       string
	Name       string
	Names      vocab.Labels // localized names, "" where the locale uses Name
	Aliases    vocab.Labels // local spellings search takes for the brand, "" where none
	Popularity uint16
	Wikidata   string
	Country    string
}

// Model is a model row.
type Model struct {
	ID    uint32
	Brand uint32 // row in Brands
	Name  string
	Slug  string
}

// Generation is a generation row.
type Generation struct {
	ID        uint32
	Model     uint32 // row in Models
	Name      string
	Slug      string
	YearStart uint16
	YearEnd   uint16 // 0 while in production
}

// Variant is a variant row with its summary columns.
type Variant struct {
	ID         uint32
	Generation uint32 // row in Generations
	Name       string // display name, e.g. "Golf 1.5 eTSI 150 DSG Style"

	Fuel         uint8 // index into the "fuel" enum
	Body         uint8 // index into the "body" enum
	Drive        uint8 // index into the "drive" enum
	Transmission uint8 // index into the "transmission" enum

	PowerHP     int32 // Null when unknown
	TorqueNM    int32
	TopSpeedKMH int32
	Accel100    int32 // tenths of a second
	BatteryKWh  int32 // tenths of a kWh

	HasPrice  bool  // a Dutch list-price snapshot exists
	PriceEUR  int32 // price of the snapshot; 0 when the source carries 0 (unknown)
	PriceAsOf int32 // days since 1970-01-01 of the snapshot
	SyncedAt  int64 // Unix seconds of the variant's last sync

	SpecStart, SpecEnd   uint32
	ImageStart, ImageEnd uint32
}

// Stable ids are hierarchical and bit-packed so that every kind's ids fit in
// 24 bits (what the public token codec needs to put a kind tag beside the
// id inside one 32-bit block):
//
//	brand       1..255                       (8 bits, the public brand id)
//	model       brand<<6 | position in brand  (14 bits, position 1..63)
//	generation  model<<4 | ordinal            (18 bits, ordinal 1..15)
//	variant     generation<<6 | ordinal       (24 bits, ordinal 1..63)
//
// An id never depends on which other entities a catalogue holds, so ids are
// stable across seeds' other draws, scales and regenerations.
const (
	MaxBrandID           = 1<<8 - 1
	MaxModelsPerBrand    = 1<<6 - 1
	MaxGenerationsPerMod = 1<<4 - 1
	MaxVariantsPerGen    = 1<<6 - 1
)

// ModelID is the stable id of the model at position ordinal (1-based) of a brand.
func ModelID(brand uint32, ordinal int) uint32 { return brand<<6 | uint32(ordinal) }

// GenerationID is the stable id of a model's generation ordinal (1-based).
func GenerationID(model uint32, ordinal int) uint32 { return model<<4 | uint32(ordinal) }

// VariantID is the stable id of a generation's variant ordinal (1-based).
func VariantID(generation uint32, ordinal int) uint32 { return generation<<6 | uint32(ordinal) }

// ParentOfModel, ParentOfGeneration and ParentOfVariant invert the packing.
func ParentOfModel(model uint32) uint32           { return model >> 6 }
func ParentOfGeneration(generation uint32) uint32 { return generation >> 4 }
func ParentOfVariant(variant uint32) uint32       { return variant >> 6 }
