package engine

// ForceFilterPlan makes Filter use one plan (1 walk, 2 intersect, 0 the
// cost model) until the returned function restores the default.
func ForceFilterPlan(p int) (restore func()) {
	forcePlan = p
	return func() { forcePlan = 0 }
}
