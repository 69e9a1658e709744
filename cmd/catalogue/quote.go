package main

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/vspec/catalogue/cmd/catalogue/export"
)

const quoteHelp = `usage: catalogue quote [-modules LIST] [-languages LIST] [-share F | -snapshot FILE -brands SLUGS | -export DIR]
                       [-display] [-updates none|annual|quarterly] [-json]

Prices a licence by the contract's price table and licence terms, as a table or as JSON. Amounts are whole
euros. The terms, as this command reads them, in the order they apply:

  1. Modules: the catalogue (490) is always included. When the modules asked for add up to more than a
     bundle that holds them all (all data modules 2,900; all data modules plus images 3,900), the cheaper
     such bundle is proposed and delivered instead; at an equal price the modules stay.
  2. Subset: the price of step 1 times the subset's share of variants, at least 30 %, rounded to the euro
     (half up). Only the data price scales: languages cost the same for any subset.
  3. Languages: English is included; 190 per extra language; all 19 for 990, which is proposed (with all
     19 languages) from 6 languages on, where it is cheaper.
  4. Export price = step 2 + step 3 (internal use).
  5. Public display (-display): twice the export price.
  6. Update subscription (-updates): 4 % of the export price of step 4 per month, rounded to the euro, at
     least 49; annual billing in advance is 10 months' price for 12 months, quarterly billing 3 months'
     price a quarter. The base is the internal-use export price even with -display: the contract's
     "export price" is the amount the display term doubles.

The share comes from -share, or is measured: -snapshot with -brands counts the brands' variants, and
-export reads the modules, languages and share of an export's manifest.json.

`

func runQuote(args []string, stdout io.Writer) error {
	fs := commandFlags("quote", quoteHelp)
	ef := addExportFlags(fs)
	share := fs.Float64("share", 0, "the subset's share of the catalogue's variants, in (0, 1]; 0 means the whole catalogue")
	snapshot := fs.String("snapshot", "", "snapshot to measure the share of the -brands subset in")
	fromExport := fs.String("export", "", "export directory whose manifest gives the modules, languages and share")
	display := fs.Bool("display", false, "public-display licence (twice the export price) instead of internal use")
	updates := fs.String("updates", "none", "update subscription billing: none, annual (10 months' price a year, in advance) or quarterly")
	asJSON := fs.Bool("json", false, "print the quote as one JSON object")
	if err := parseArgs(fs, args, 0, "quote takes no arguments"); err != nil {
		return err
	}
	opts := ef.options()
	req := export.QuoteRequest{Modules: opts.Modules, Languages: opts.Languages, Share: *share, Display: *display}
	switch *updates {
	case "none", "":
	default:
		req.Billing = *updates
	}
	switch {
	case *fromExport != "":
		if *snapshot != "" || *share != 0 || len(opts.Brands) > 0 {
			return errors.New("-export gives the modules, languages and share; do not combine it with -share, -snapshot or -brands")
		}
		m, err := export.ReadManifest(*fromExport)
		if err != nil {
			return err
		}
		req.Modules, req.Languages, req.Share = m.Options.Modules, m.Options.Languages, m.Share
	case *snapshot != "":
		if *share != 0 {
			return errors.New("give either -share or -snapshot with -brands, not both")
		}
		c, err := loadTimed(*snapshot)
		if err != nil {
			return err
		}
		p, err := export.NewPlan(c, opts, false)
		if err != nil {
			return err
		}
		req.Share = p.Share
	case len(opts.Brands) > 0:
		return errors.New("-brands needs -snapshot to measure the subset's share (or give -share)")
	}
	q, err := export.PriceQuote(req)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(q)
	}
	return q.WriteTable(stdout)
}
