package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var updateFlagsDoc = flag.Bool("update", false, "rewrite docs/flags.md from catalogued -help")

// flagsDoc is generated from catalogued's -help by TestFlagsDoc.
const flagsDoc = "../../docs/flags.md"

// TestFlagsDoc holds docs/flags.md to the flag set: it renders what the
// built binary's -help says, and fails when the file differs (a flag added,
// renamed, or its default or text changed). -update rewrites the file.
func TestFlagsDoc(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "-help")
	cmd.Env = cleanEnv()
	help, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("catalogued -help: %v\n%s", err, help)
	}
	want, err := flagsMarkdown(string(help))
	if err != nil {
		t.Fatal(err)
	}
	if *updateFlagsDoc {
		if err := os.WriteFile(flagsDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(flagsDoc)
	if err != nil {
		t.Fatalf("%v: generate it with go test ./cmd/catalogued -run TestFlagsDoc -update", err)
	}
	if string(got) != want {
		g, w := strings.Split(string(got), "\n"), strings.Split(want, "\n")
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(end of file)"
		}
		t.Errorf("docs/flags.md is stale: regenerate it with go test ./cmd/catalogued -run TestFlagsDoc -update\nline %d is\n\t%s\nwant\n\t%s", i+1, line(g), line(w))
	}
}

// helpFlag is a flag as usage prints it: "  -name (ENV, default "v")" and
// its text on the next line after a tab.
var helpFlag = regexp.MustCompile(`(?m)^  -(\S+) \((\S+), default ("(?:[^"\\]|\\.)*")\)\n    \t(.*)$`)

// flagsMarkdown renders catalogued's -help as docs/flags.md: the flags
// grouped by the first part of their dotted names.
func flagsMarkdown(help string) (string, error) {
	type entry struct{ name, env, def, text string }
	groups := map[string][]entry{}
	var order []string
	for _, m := range helpFlag.FindAllStringSubmatch(help, -1) {
		def, err := strconv.Unquote(m[3])
		if err != nil {
			return "", fmt.Errorf("default of -%s: %v", m[1], err)
		}
		g, _, dotted := strings.Cut(m[1], ".")
		if !dotted {
			g = ""
		}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], entry{m[1], m[2], def, m[4]})
	}
	if n := strings.Count(help, "\n  -"); len(groups) == 0 || n != countEntries(groups) {
		return "", fmt.Errorf("read %d of the %d flags -help lists", countEntries(groups), n)
	}
	if i := slices.Index(order, ""); i > 0 { // the undotted flags first
		order = append([]string{""}, slices.Delete(order, i, i+1)...)
	}
	var b strings.Builder
	b.WriteString("# Flags of catalogued\n\n" +
		"<!-- Generated from `catalogued -help` by `go test ./cmd/catalogued -run TestFlagsDoc -update`; do not edit: the test fails when this file differs from the flag set. -->\n\n" +
		"Every flag has an environment twin, `CATALOGUED_` and its name in capitals with dots as underscores; a flag given on the\n" +
		"command line wins. `catalogued` checks every value before it starts and, when any is wrong, exits with status 2 naming\n" +
		"them all (docs/operating.md). Durations take a unit (`10s`, `500ms`, `1m30s`); secrets take a literal value or\n" +
		"`file://PATH`. Bool flags are set as `-flag` or `-flag=false`.\n")
	for _, g := range order {
		title := "`" + g + ".*`"
		if g == "" {
			title = "General"
		}
		b.WriteString("\n## " + title + "\n\n")
		for _, e := range groups[g] {
			def := "`" + e.def + "`"
			if e.def == "" {
				def = "empty"
			}
			fmt.Fprintf(&b, "- **`-%s`** (`%s`, default %s): %s\n", e.name, e.env, def, markdownText(e.text))
		}
	}
	return b.String(), nil
}

func countEntries[M ~map[string][]E, E any](m M) int {
	n := 0
	for _, v := range m {
		n += len(v)
	}
	return n
}

// markdownText escapes what Markdown would read as markup in a flag's
// text: <state> is no HTML tag, * and _ no emphasis.
var markdownText = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "<", `\<`, ">", `\>`).Replace
