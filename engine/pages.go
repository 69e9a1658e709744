package engine

import (
	"bytes"
	"sort"
)

// List orders. Every list has a deterministic total order ending in the
// stable id, so keyset pagination never skips or repeats a row:
//
//	brands                  popularity rank, then canonical name (bytewise), then id
//	models of a brand       canonical name (bytewise), then id
//	generations of a model  first production year, then id
//	variants of a generation id (the catalogue numbers a generation's variants by fuel, then power, then name)
//	spec dictionary         dictionary order (groups in display order, specs in display order within their group)
//
// A position is the sort key of the last row a page showed; the next page
// starts at the first row whose key is greater, so a position stays valid
// across snapshot reloads even when rows were added or removed.

// BrandKey is a position in the brand list.
type BrandKey struct {
	Popularity uint16
	Name       []byte
	ID         uint32
}

// ModelKey is a position in a brand's model list.
type ModelKey struct {
	Name []byte
	ID   uint32
}

// GenerationKey is a position in a model's generation list.
type GenerationKey struct {
	YearStart uint16
	ID        uint32
}

type orders struct {
	brands []uint32 // brand rows in list order
	models []uint32 // model rows, each brand's span sorted in list order
	gens   []uint32 // generation rows, each model's span sorted in list order
}

func (c *Catalogue) deriveOrders() {
	o := &c.orders
	o.brands = listOrder(len(c.BrandID), []uint32{0, uint32(len(c.BrandID))}, c.brandKey, c.compareBrand) // one span: all brands
	o.models = listOrder(len(c.ModelID), c.brandModels, c.modelKey, c.compareModel)
	o.gens = listOrder(len(c.GenID), c.modelGens, c.generationKey, c.compareGeneration)
}

// listOrder returns the rows 0 to n-1 with each span spans[i]:spans[i+1]
// (a parent's children) sorted by compare against the key of a row.
func listOrder[K any](n int, spans []uint32, key func(row uint32) K, compare func(row uint32, k K) int) []uint32 {
	rows := make([]uint32, n)
	for i := range rows {
		rows[i] = uint32(i)
	}
	for p := 0; p+1 < len(spans); p++ {
		span := rows[spans[p]:spans[p+1]]
		sort.Slice(span, func(i, j int) bool { return compare(span[i], key(span[j])) < 0 })
	}
	return rows
}

func (c *Catalogue) brandKey(row uint32) BrandKey {
	return BrandKey{c.BrandPopularity[row], c.BrandName.Bytes(row), c.BrandID[row]}
}

func (c *Catalogue) modelKey(row uint32) ModelKey {
	return ModelKey{c.ModelName.Bytes(row), c.ModelID[row]}
}

func (c *Catalogue) generationKey(row uint32) GenerationKey {
	return GenerationKey{c.GenYearStart[row], c.GenID[row]}
}

func cmpU(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c *Catalogue) compareBrand(row uint32, k BrandKey) int {
	if p := c.BrandPopularity[row]; p != k.Popularity {
		return cmpU(uint32(p), uint32(k.Popularity))
	}
	if d := bytes.Compare(c.BrandName.Bytes(row), k.Name); d != 0 {
		return d
	}
	return cmpU(c.BrandID[row], k.ID)
}

func (c *Catalogue) compareModel(row uint32, k ModelKey) int {
	if d := bytes.Compare(c.ModelName.Bytes(row), k.Name); d != 0 {
		return d
	}
	return cmpU(c.ModelID[row], k.ID)
}

func (c *Catalogue) compareGeneration(row uint32, k GenerationKey) int {
	if y := c.GenYearStart[row]; y != k.YearStart {
		return cmpU(uint32(y), uint32(k.YearStart))
	}
	return cmpU(c.GenID[row], k.ID)
}

// BrandsAfter returns the brand rows in list order that follow position
// after, or all of them when after is nil. The slice is shared: do not
// modify it.
func (c *Catalogue) BrandsAfter(after *BrandKey) []uint32 {
	rows := c.orders.brands
	if after == nil {
		return rows
	}
	return rowsAfter(rows, func(r uint32) int { return c.compareBrand(r, *after) })
}

// ModelsAfter returns a brand's model rows in list order that follow after.
func (c *Catalogue) ModelsAfter(brand uint32, after *ModelKey) []uint32 {
	rows := c.orders.models[c.brandModels[brand]:c.brandModels[brand+1]]
	if after == nil {
		return rows
	}
	return rowsAfter(rows, func(r uint32) int { return c.compareModel(r, *after) })
}

// GenerationsAfter returns a model's generation rows in list order that
// follow after.
func (c *Catalogue) GenerationsAfter(model uint32, after *GenerationKey) []uint32 {
	rows := c.orders.gens[c.modelGens[model]:c.modelGens[model+1]]
	if after == nil {
		return rows
	}
	return rowsAfter(rows, func(r uint32) int { return c.compareGeneration(r, *after) })
}

// rowsAfter returns the rows of a list, in list order, that follow a
// position: those whose comparison with it, compare(row), is positive.
func rowsAfter(rows []uint32, compare func(row uint32) int) []uint32 {
	return rows[sort.Search(len(rows), func(i int) bool { return compare(rows[i]) > 0 }):]
}

// VariantsAfter returns the first and end rows of a generation's variants
// whose stable id is greater than afterID (all of them when afterID is 0).
func (c *Catalogue) VariantsAfter(gen uint32, afterID uint32) (first, end uint32) {
	first, end = c.genVariants[gen], c.genVariants[gen+1]
	ids := c.VarID[first:end]
	return first + uint32(sort.Search(len(ids), func(i int) bool { return ids[i] > afterID })), end
}

// BrandKeyOf, ModelKeyOf and GenerationKeyOf return the position of a row,
// to be carried by the next page's cursor. Name views share the arena.
func (c *Catalogue) BrandKeyOf(row uint32) BrandKey           { return c.brandKey(row) }
func (c *Catalogue) ModelKeyOf(row uint32) ModelKey           { return c.modelKey(row) }
func (c *Catalogue) GenerationKeyOf(row uint32) GenerationKey { return c.generationKey(row) }
