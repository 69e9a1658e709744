//go:build !race

package engine_test

import "testing"

// TestListAfterAllocs: the rows after a position in the brand, model and
// generation lists are found with no allocation.
func TestListAfterAllocs(t *testing.T) {
	c := small(t)
	brand, model := c.ModelBrand[0], c.GenModel[0]
	b := c.BrandKeyOf(c.BrandsAfter(nil)[0])
	m := c.ModelKeyOf(c.ModelsAfter(brand, nil)[0])
	g := c.GenerationKeyOf(c.GenerationsAfter(model, nil)[0])
	rows := 0
	if n := testing.AllocsPerRun(100, func() {
		rows += len(c.BrandsAfter(&b)) + len(c.ModelsAfter(brand, &m)) + len(c.GenerationsAfter(model, &g))
	}); n != 0 {
		t.Errorf("BrandsAfter, ModelsAfter and GenerationsAfter allocate %v times", n)
	}
}
