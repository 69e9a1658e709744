package buildinfo

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	i := Info{Module: "v1.2.3", Revision: "0123456789abcdef0123", Time: "2026-11-24T00:00:00Z", Modified: true, Go: "go1.26.8"}
	if got, want := i.Line("catalogued"), "catalogued v1.2.3 0123456789ab 2026-11-24T00:00:00Z (modified), go1.26.8"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := (Info{Module: "(devel)", Go: "go1.26.8"}).Line("catalogue"); got != "catalogue (devel), go1.26.8" {
		t.Errorf("without VCS: %q", got)
	}
	// A test binary has build information too.
	if r := Read(); !strings.HasPrefix(r.Go, "go1.") {
		t.Errorf("Read: %+v", r)
	}
}
