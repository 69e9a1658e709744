package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vspec/catalogue/cmd/catalogue/export"
	"github.com/vspec/catalogue/cmd/internal/cliflag"
	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/loader"
	"github.com/vspec/catalogue/loader/progress"
)

// exportFlags are the flags that say what a customer bought, shared by
// export, diff and quote.
type exportFlags struct {
	modules, languages, brands *string
}

func addExportFlags(fs *flag.FlagSet) exportFlags {
	return exportFlags{
		modules: fs.String("modules", "", "comma-separated modules bought besides the catalogue (always included): "+
			strings.Join(moduleNames(), ", ")+"; \"all\" for every data module, \"everything\" for every data module and images"),
		languages: fs.String("languages", "", "comma-separated locale codes bought besides English (always included), or \"all\""),
		brands:    fs.String("brands", "", "comma-separated brand slugs of a subset; empty for the whole catalogue"),
	}
}

func moduleNames() []string {
	var out []string
	for _, m := range export.Modules {
		if m.Name != export.Catalogue {
			out = append(out, m.Name)
		}
	}
	return out
}

func (f exportFlags) options() export.Options {
	return export.Options{Modules: cliflag.List(*f.modules), Languages: cliflag.List(*f.languages), Brands: cliflag.List(*f.brands)}
}

// loadTimed loads a snapshot and says how long it took.
func loadTimed(path string) (*engine.Catalogue, error) {
	start := time.Now()
	stop := progress.Phase(os.Stderr, "loading "+path)
	c, err := loader.Load(path)
	stop()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "loaded %s (identity %s, %d variants) in %s\n", path, c.Meta.Identity, len(c.VarID), time.Since(start).Round(time.Millisecond))
	return c, nil
}

const exportHelp = `usage: catalogue export [-modules LIST] [-languages LIST] [-brands SLUGS] [-j N] -o DIR SNAPSHOT

Writes the licensed export of SNAPSHOT into DIR (created; it must not exist or be empty): csv/ and jsonl/
with one file per table, README.txt describing the layout, and manifest.json with the snapshot identity,
options, counts and the SHA-256 of every file. The same snapshot and options give identical files.
`

func runExport(args []string, stdout io.Writer) error {
	fs := commandFlags("export", exportHelp)
	ef := addExportFlags(fs)
	out := fs.String("o", "", "export directory to create (required)")
	workers := fs.Int("j", 0, "tables written at once; 0 means one per CPU (the files are the same whatever the number)")
	if err := parseArgs(fs, args, 1, "-o DIR and exactly one SNAPSHOT are required", out); err != nil {
		return err
	}
	c, err := loadTimed(fs.Arg(0))
	if err != nil {
		return err
	}
	start := time.Now()
	bar := progress.New(os.Stderr, "exporting")
	m, err := export.Export(c, ef.options(), *out, export.WriteOptions{Workers: *workers, Progress: bar.Update})
	bar.Done()
	if err != nil {
		return err
	}
	printManifest(stdout, *out, m)
	fmt.Fprintf(os.Stderr, "exported in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

func printManifest(w io.Writer, dir string, m *export.Manifest) {
	fmt.Fprintf(w, "export %s of snapshot %s\nmodules: %s\nlanguages: %s\n", dir, m.Snapshot.Identity, strings.Join(m.Options.Modules, ", "), strings.Join(m.Options.Languages, ", "))
	if len(m.Options.Brands) > 0 {
		fmt.Fprintf(w, "subset: %s (%.4f%% of variants)\n", strings.Join(m.Options.Brands, ", "), 100*m.Share)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "file\trows\tbytes\t")
	var total int64
	for _, f := range m.Files {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", f.Path, f.Rows, f.Bytes)
		total += f.Bytes
	}
	fmt.Fprintf(tw, "total (without manifest.json)\t\t%d\t\n", total)
	tw.Flush()
}
