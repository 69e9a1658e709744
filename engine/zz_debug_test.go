package engine_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/vspec/catalogue/loader/loadertest"
)

func TestZZDebug(t *testing.T) {
	qs := os.Getenv("ZZQ")
	if qs == "" {
		return
	}
	c := loadertest.Full(t)
	for _, q := range strings.Split(qs, "|") {
		f := c.SearchQuery(q, 0)
		ms := c.Search(nil, f, 0.5, nil, 10)
		fmt.Printf("== %q -> %q\n", q, f)
		for _, m := range ms {
			fmt.Printf("   %016x %.3f %s | %d-%d\n", m.Key, m.Score, c.SearchText(m.Row), c.GenYearStart[c.VarGen[m.Row]], c.GenYearEnd[c.VarGen[m.Row]])
		}
	}
}
