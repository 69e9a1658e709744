// Package cmd_test enforces the direction of imports agreed in
// ARCHITECTURE.md: lower packages never import higher ones, nothing
// imports cmd or bench, and code beneath a command (cmd/catalogue/export)
// is that command's own; cmd/internal is what the commands share. It runs
// `go list` over the module, like pebble's TestForbiddenImports.
package cmd_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/vspec/catalogue/"

// forbidden maps a package prefix (relative to the module) to the module
// packages it must not import.
var forbidden = map[string][]string{
	"data/":  {"engine", "index", "loader", "httpd", "bench", "cmd"},
	"index":  {"engine", "loader", "httpd", "data", "bench", "cmd"},
	"engine": {"loader", "httpd", "data", "bench", "cmd"},
	"loader": {"httpd", "bench", "cmd"},
	"httpd":  {"loader", "data", "bench", "cmd"},
	// The licensed exports sit beneath the operator CLI, their only user,
	// and keep the layering they had under loader.
	"cmd/catalogue/export": {"httpd", "bench"},
}

func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} | {{join .TestImports " "}} {{join .XTestImports " "}}`, module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	checked, owned := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		shipped, tests, _ := strings.Cut(line, " | ")
		fields := strings.Fields(shipped)
		pkg := strings.TrimPrefix(fields[0], module)
		// Nothing outside a command imports it or the code beneath it, not
		// even in tests: cmd/catalogue/export is cmd/catalogue's alone.
		for _, imp := range append(fields[1:], strings.Fields(tests)...) {
			rel := strings.TrimPrefix(imp, module)
			if rel == imp {
				continue
			}
			if cmd := command(rel); cmd != "" {
				owned++
				if command(pkg) != cmd {
					t.Errorf("%s imports %s, which only %s may import (see ARCHITECTURE.md)", pkg, rel, cmd)
				}
			}
		}
		// Test-support packages (httpd/httpdtest, x402/x402test, ...) build
		// fixtures from the layers below, like the tests that use them; no
		// shipped package may import one.
		for _, imp := range fields[1:] {
			if rel := strings.TrimPrefix(imp, module); rel != imp && isTestSupport(rel) && !isTestSupport(pkg) {
				t.Errorf("%s imports the test-support package %s", pkg, rel)
			}
		}
		if isTestSupport(pkg) {
			continue
		}
		for prefix, bad := range forbidden {
			if !strings.HasPrefix(pkg+"/", prefix) && !strings.HasPrefix(pkg, prefix) {
				continue
			}
			checked++
			for _, imp := range fields[1:] {
				if !strings.HasPrefix(imp, module) {
					continue
				}
				rel := strings.TrimPrefix(imp, module)
				for _, b := range bad {
					if rel == b || strings.HasPrefix(rel, b+"/") {
						// engine/jsonenc is engine's own; httpd may use it.
						t.Errorf("%s imports %s, which it must not (see ARCHITECTURE.md)", pkg, rel)
					}
				}
			}
		}
	}
	if checked < 5 {
		t.Errorf("only %d packages checked; the rules no longer match the layout", checked)
	}
	if owned == 0 {
		t.Errorf("no import of code beneath a command seen; cmd/catalogue/export has moved, update the rules")
	}
}

// command returns the command ("cmd/NAME") a package is or lies beneath,
// or "" for a package outside cmd and for cmd/internal, which the commands
// share (Go's internal rule keeps everything else out of it).
func command(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "cmd/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	if name == "internal" {
		return ""
	}
	return "cmd/" + name
}

// isTestSupport reports a package that exists for tests: its name ends in
// "test".
func isTestSupport(pkg string) bool {
	return strings.HasSuffix(pkg[strings.LastIndexByte(pkg, '/')+1:], "test")
}
