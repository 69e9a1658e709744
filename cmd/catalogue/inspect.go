package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/loader"
	"github.com/vspec/catalogue/loader/progress"
)

// inspection is what "catalogue inspect -json" prints.
type inspection struct {
	File        string         `json:"file"`
	Identity    string         `json:"identity"`
	Version     uint32         `json:"format_version"`
	Seed        uint64         `json:"seed"`
	Scale       float64        `json:"scale"`
	SyncedAt    string         `json:"synced_at"`
	LoadMillis  int64          `json:"load_ms"`
	Brands      int            `json:"brands"`
	Models      int            `json:"models"`
	Generations int            `json:"generations"`
	Variants    int            `json:"variants"`
	SpecTypes   int            `json:"spec_types"`
	SpecGroups  int            `json:"spec_groups"`
	SpecValues  int            `json:"spec_values"`
	Images      int            `json:"images"`
	Locales     int            `json:"locales"`
	PerFuel     map[string]int `json:"per_fuel"`
	PerLocale   []localeCount  `json:"per_locale"`
	DemoCount   int            `json:"demo_variants"`
	DemoFuels   []string       `json:"demo_fuels"`
	Demo        []demoRow      `json:"demo"`
}

type localeCount struct {
	Locale         string `json:"locale"`
	SpecLabels     int    `json:"spec_labels"`
	GroupLabels    int    `json:"group_labels"`
	EnumLabels     int    `json:"enum_labels"`
	LocalizedBrand int    `json:"localized_brand_names"`
}

type demoRow struct {
	ID         uint32 `json:"id"`
	Brand      string `json:"brand"`
	Model      string `json:"model"`
	Generation string `json:"generation"`
	Name       string `json:"display_name"`
	Fuel       string `json:"fuel"`
	SpecCount  int    `json:"spec_count"`
}

func runInspect(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object instead of tables")
	if err := parseArgs(fs, args, 1, "exactly one snapshot FILE is required"); err != nil {
		return err
	}
	start := time.Now()
	stop := progress.Phase(os.Stderr, "loading "+fs.Arg(0))
	cat, err := loader.Load(fs.Arg(0))
	stop()
	if err != nil {
		return err
	}
	in := inspect(cat)
	in.File = fs.Arg(0)
	in.LoadMillis = time.Since(start).Milliseconds()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(in)
	}
	printInspection(stdout, in)
	return nil
}

func inspect(c *engine.Catalogue) inspection {
	b, m, g, v := c.Counts()
	in := inspection{
		Identity: c.Meta.Identity, Version: c.Meta.Version, Seed: c.Meta.Seed, Scale: c.Meta.Scale,
		SyncedAt: c.Meta.SyncedAt.Format(time.RFC3339), Brands: b, Models: m, Generations: g, Variants: v,
		SpecTypes: len(c.Specs), SpecGroups: len(c.Groups), SpecValues: len(c.SpecKey), Images: len(c.ImageKey),
		Locales: len(c.Locales), PerFuel: map[string]int{}, DemoCount: len(c.Demo),
	}
	for _, f := range c.VarFuel {
		in.PerFuel[c.FuelSlug(f)]++
	}
	for li, l := range c.Locales {
		lc := localeCount{Locale: l}
		for i := 0; i < c.SpecLabels[li].Len(); i++ {
			if c.SpecLabels[li].String(uint32(i)) != "" {
				lc.SpecLabels++
			}
		}
		for i := 0; i < c.GroupLabels[li].Len(); i++ {
			if c.GroupLabels[li].String(uint32(i)) != "" {
				lc.GroupLabels++
			}
		}
		for i := 0; i < c.EnumLabels[li].Len(); i++ {
			if c.EnumLabels[li].String(uint32(i)) != "" {
				lc.EnumLabels++
			}
		}
		for i := range c.BrandID {
			if c.BrandNames[li].String(uint32(i)) != "" {
				lc.LocalizedBrand++
			}
		}
		in.PerLocale = append(in.PerLocale, lc)
	}
	fuels := map[string]bool{}
	for _, r := range c.Demo {
		gen := c.VarGen[r]
		model := c.GenModel[gen]
		first, end := c.VariantSpecs(r)
		fuel := c.FuelSlug(c.VarFuel[r])
		fuels[fuel] = true
		in.Demo = append(in.Demo, demoRow{
			ID: c.VarID[r], Brand: c.BrandName.String(c.ModelBrand[model]), Model: c.ModelName.String(model),
			Generation: c.GenName.String(gen), Name: c.VarName.String(r), Fuel: fuel, SpecCount: int(end - first),
		})
	}
	for f := range fuels {
		in.DemoFuels = append(in.DemoFuels, f)
	}
	sort.Strings(in.DemoFuels)
	return in
}

func printInspection(out io.Writer, in inspection) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "snapshot\t%s (format v%d, identity %s, seed %d, scale %g, synced %s, loaded in %d ms)\n", in.File, in.Version, in.Identity, in.Seed, in.Scale, in.SyncedAt, in.LoadMillis)
	fmt.Fprintf(w, "brands\t%d\nmodels\t%d\ngenerations\t%d\nvariants\t%d\nspec types\t%d in %d groups\nspec values\t%d (%.1f per variant)\nimages\t%d\nlocales\t%d\n",
		in.Brands, in.Models, in.Generations, in.Variants, in.SpecTypes, in.SpecGroups, in.SpecValues, float64(in.SpecValues)/float64(max(1, in.Variants)), in.Images, in.Locales)
	w.Flush()
	fmt.Fprintln(out, "\nvariants per fuel:")
	fuels := make([]string, 0, len(in.PerFuel))
	for f := range in.PerFuel {
		fuels = append(fuels, f)
	}
	sort.Slice(fuels, func(i, j int) bool { return in.PerFuel[fuels[i]] > in.PerFuel[fuels[j]] })
	for _, f := range fuels {
		fmt.Fprintf(w, "  %s\t%d\n", f, in.PerFuel[f])
	}
	w.Flush()
	fmt.Fprintln(out, "\nlabels per locale:")
	fmt.Fprintln(w, "  locale\tspecs\tgroups\tenum values\tlocalized brand names")
	for _, l := range in.PerLocale {
		fmt.Fprintf(w, "  %s\t%d\t%d\t%d\t%d\n", l.Locale, l.SpecLabels, l.GroupLabels, l.EnumLabels, l.LocalizedBrand)
	}
	w.Flush()
	fmt.Fprintf(out, "\ndemo set: %d variants, %d fuels (%v)\n", in.DemoCount, len(in.DemoFuels), in.DemoFuels)
	fmt.Fprintln(w, "  id\tbrand\tmodel\tgeneration\tfuel\tspecs\tdisplay name")
	for _, d := range in.Demo {
		fmt.Fprintf(w, "  %d\t%s\t%s\t%s\t%s\t%d\t%s\n", d.ID, d.Brand, d.Model, d.Generation, d.Fuel, d.SpecCount, d.Name)
	}
	w.Flush()
}
