package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/vspec/catalogue/data/gen"
	"github.com/vspec/catalogue/data/vocab"
	"github.com/vspec/catalogue/loader"
	"github.com/vspec/catalogue/loader/progress"
)

func runGen(args []string, _ io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	scale := fs.Float64("scale", 1, "size of the catalogue relative to the full one, in (0, 1]; 1 gives exactly 103,372 variants")
	seed := fs.Uint64("seed", 1, "generator seed; the same seed gives byte-identical snapshots")
	cdn := fs.String("cdn", "https://cdn.vspec.example/img", "base URL of image URLs")
	out := fs.String("o", "", "snapshot file to write (required)")
	if err := parseArgs(fs, args, 0, "-o FILE is required and no other arguments are accepted", out); err != nil {
		return err
	}
	start := time.Now()
	bar := progress.New(os.Stderr, "generating")
	set, err := gen.Generate(vocab.Default(), gen.Options{Seed: *seed, Scale: *scale, CDNBase: *cdn, Progress: bar.Update})
	bar.Done()
	if err != nil {
		return err
	}
	genTime := time.Since(start)
	stop := progress.Phase(os.Stderr, "writing "+*out)
	err = loader.WriteFile(*out, set)
	stop()
	if err != nil {
		return err
	}
	st, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s: %d variants, %d spec values, %.1f MB; generated in %s, written in %s\n",
		*out, len(set.Variants), len(set.SpecKey), float64(st.Size())/1e6, genTime.Round(time.Millisecond), (time.Since(start) - genTime).Round(time.Millisecond))
	return nil
}
