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
	// Without VCS data and without the linker's stamp, the line says why
	// (it said only "(devel)").
	if got := (Info{Module: "(devel)", Go: "go1.27.3"}).Line("catalogue"); !strings.HasPrefix(got, "catalogue (devel) (no revision recorded: ") || !strings.HasSuffix(got, ", go1.27.3") {
		t.Errorf("without VCS: %q", got)
	}
	// The container build stamps both with the linker.
	got := (Info{Module: "(devel)", Go: "go1.27.3"}).stamped("v0.29.0", "0123456789abcdef").Line("catalogued")
	if got != "catalogued v0.29.0 0123456789ab, go1.27.3" {
		t.Errorf("stamped: %q", got)
	}
	// A version the toolchain recorded wins over the stamp.
	if got := (Info{Module: "v1.0.0", Revision: "aaaa", Go: "go1.27.3"}).stamped("v9", "bbbb"); got.Module != "v1.0.0" || got.Revision != "aaaa" {
		t.Errorf("stamped over recorded: %+v", got)
	}
	// A test binary has build information too.
	if r := Read(); !strings.HasPrefix(r.Go, "go1.") {
		t.Errorf("Read: %+v", r)
	}
}
