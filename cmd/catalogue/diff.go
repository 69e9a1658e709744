package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/vspec/catalogue/cmd/catalogue/export"
	"github.com/vspec/catalogue/loader/progress"
)

const diffHelp = `usage: catalogue diff [-modules LIST] [-languages LIST] [-brands SLUGS] -o CHANGES OLD NEW
       catalogue diff -apply CHANGES -o NEWDIR OLDDIR

The first form writes the update subscription's change file (JSON Lines) between the exports of two
snapshots with the same options: a header line (both snapshots' identities, the options, counts per table,
the new tables' schemas), then one line per added, changed (with the changed fields) or removed record,
keyed on stable ids. It prints the counts.

The second form applies a change file to the export in OLDDIR (made from the change file's OLD snapshot
with the same options) and writes the resulting export into NEWDIR: byte for byte the export of NEW.
`

func runDiff(args []string, stdout io.Writer) error {
	fs := commandFlags("diff", diffHelp)
	ef := addExportFlags(fs)
	out := fs.String("o", "", "change file to write, or with -apply the export directory to create (required)")
	apply := fs.String("apply", "", "change file to apply to the export directory given as the argument")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *apply != "" {
		if *out == "" || fs.NArg() != 1 {
			fs.Usage()
			return errors.New("-apply needs -o NEWDIR and exactly one OLDDIR")
		}
		return applyChanges(*apply, fs.Arg(0), *out, stdout)
	}
	if *out == "" || fs.NArg() != 2 {
		fs.Usage()
		return errors.New("-o CHANGES and exactly two snapshots, OLD and NEW, are required")
	}
	oldCat, err := loadTimed(fs.Arg(0))
	if err != nil {
		return err
	}
	newCat, err := loadTimed(fs.Arg(1))
	if err != nil {
		return err
	}
	opts := ef.options()
	newPlan, err := export.NewPlan(newCat, opts, false)
	if err != nil {
		return err
	}
	oldPlan, err := export.NewPlan(oldCat, opts, true)
	if err != nil {
		return err
	}
	start := time.Now()
	bar := progress.New(os.Stderr, "comparing")
	h, err := export.DiffFile(oldPlan, newPlan, *out, export.WriteOptions{Progress: bar.Update})
	bar.Done()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "changes %s -> %s written to %s\n", h.From.Identity, h.To.Identity, *out)
	printCounts(stdout, h)
	fmt.Fprintf(os.Stderr, "compared in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

func printCounts(w io.Writer, h *export.ChangeHeader) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "table\tadded\tchanged\tremoved\t")
	for _, c := range h.Counts {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", c.Table, c.Added, c.Changed, c.Removed)
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t\n", h.Total.Added, h.Total.Changed, h.Total.Removed)
	tw.Flush()
}

func applyChanges(changes, oldDir, newDir string, stdout io.Writer) error {
	f, err := os.Open(changes)
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now()
	bar := progress.New(os.Stderr, "applying")
	m, err := export.Apply(oldDir, f, newDir, export.WriteOptions{Progress: bar.Update})
	bar.Done()
	if err != nil {
		return err
	}
	printManifest(stdout, newDir, m)
	fmt.Fprintf(os.Stderr, "applied in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}
