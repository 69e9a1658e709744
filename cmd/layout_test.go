package cmd_test

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// layoutFile holds the repository's one layout table.
const layoutFile = "../docs/architecture.md"

// TestLayoutTable holds docs/architecture.md's layout table to the code:
// every package of the module is named in the table's first column, and
// every name there is a package (or, as dir/*, has packages beneath it).
func TestLayoutTable(t *testing.T) {
	md, err := os.ReadFile(layoutFile)
	if err != nil {
		t.Fatal(err)
	}
	named := layoutNames(string(md))
	if len(named) == 0 {
		t.Fatalf("%s has no layout table under \"## Layout\"", layoutFile)
	}
	out, err := exec.Command("go", "list", module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if p += "/"; p != module { // the module root holds no package
			pkgs = append(pkgs, strings.TrimSuffix(strings.TrimPrefix(p, module), "/"))
		}
	}
	covers := func(name, pkg string) bool {
		if dir, ok := strings.CutSuffix(name, "/*"); ok {
			return strings.HasPrefix(pkg, dir+"/")
		}
		return name == pkg
	}
	for _, p := range pkgs {
		if !slices.ContainsFunc(named, func(n string) bool { return covers(n, p) }) {
			t.Errorf("package %s is not in %s's layout table: add a row saying what it owns", p, layoutFile)
		}
	}
	for _, n := range named {
		if !slices.ContainsFunc(pkgs, func(p string) bool { return covers(n, p) }) {
			t.Errorf("%s's layout table names %s, which is no package of the module", layoutFile, n)
		}
	}
}

var layoutCell = regexp.MustCompile("`([^`]+)`")

// layoutNames returns the names of the first column of the table under
// the "## Layout" heading.
func layoutNames(md string) []string {
	_, section, ok := strings.Cut(md, "\n## Layout\n")
	if !ok {
		return nil
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var names []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| `") || len(cells) < 3 {
			continue
		}
		for _, m := range layoutCell.FindAllStringSubmatch(cells[1], -1) {
			names = append(names, m[1])
		}
	}
	return names
}
