package cliflag

import (
	"slices"
	"testing"
)

func TestList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,", nil},
		{"de", []string{"de"}},
		{"equipment, prices ,,images", []string{"equipment", "prices", "images"}},
		{"https://app.example.com,localhost:8090", []string{"https://app.example.com", "localhost:8090"}},
	} {
		if got := List(c.in); !slices.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("List(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
