package engine_test

import (
	"slices"
	"testing"
)

// TestListPages: walking the brand list, each brand's models and each
// model's generations three rows a page, each page after the position of
// the last row shown, gives every row of the list once, in its order.
func TestListPages(t *testing.T) {
	c := small(t)
	walk := func(what string, all []uint32, after func(last uint32) []uint32) {
		t.Helper()
		var got []uint32
		for page := all; len(page) > 0; page = after(got[len(got)-1]) {
			got = append(got, page[:min(len(page), 3)]...)
		}
		if !slices.Equal(got, all) {
			t.Errorf("%s: pages of three gave the rows %v, want %v", what, got, all)
		}
	}
	if n := len(c.BrandsAfter(nil)); n != len(c.BrandID) {
		t.Fatalf("the brand list has %d rows, want %d", n, len(c.BrandID))
	}
	walk("brands", c.BrandsAfter(nil), func(last uint32) []uint32 {
		k := c.BrandKeyOf(last)
		return c.BrandsAfter(&k)
	})
	models, gens := 0, 0
	for b := range uint32(len(c.BrandID)) {
		models += len(c.ModelsAfter(b, nil))
		walk("models", c.ModelsAfter(b, nil), func(last uint32) []uint32 {
			k := c.ModelKeyOf(last)
			return c.ModelsAfter(b, &k)
		})
	}
	for m := range uint32(len(c.ModelID)) {
		gens += len(c.GenerationsAfter(m, nil))
		walk("generations", c.GenerationsAfter(m, nil), func(last uint32) []uint32 {
			k := c.GenerationKeyOf(last)
			return c.GenerationsAfter(m, &k)
		})
	}
	if models != len(c.ModelID) || gens != len(c.GenID) {
		t.Errorf("the lists hold %d models and %d generations, want %d and %d", models, gens, len(c.ModelID), len(c.GenID))
	}
}
