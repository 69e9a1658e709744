package export

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vspec/catalogue/data/vocab"
)

// Prices and terms of the contract that are not module prices.
const (
	LanguagePrice         = 190    // each extra language
	AllLanguagesPrice     = 990    // all 19 extra languages
	SubsetMinimumPPM      = 300000 // a subset costs at least 30 % of the price
	DisplayMultiplier     = 2      // public display costs twice the export price
	SubscriptionPercent   = 4      // update subscription per month, % of the export price
	SubscriptionMinimum   = 49     // EUR per month
	AnnualBilledMonths    = 10     // billed annually in advance: 10 months' price for 12
	QuarterlyBilledMonths = 3      // billed quarterly: 3 months' price per quarter
)

// Billing periods of the update subscription.
const (
	BillingNone      = ""
	BillingAnnual    = "annual"
	BillingQuarterly = "quarterly"
)

// QuoteRequest is what a customer asks for.
type QuoteRequest struct {
	Modules   []string // module names; catalogue is implied; may include images
	Languages []string // locale codes; en is implied; "all" for all of them
	Share     float64  // the subset's share of the catalogue's variants, in (0, 1]; 0 means the whole catalogue
	Display   bool     // public-display licence instead of internal use
	Billing   string   // BillingNone (no update subscription), BillingAnnual or BillingQuarterly
}

// QuoteLine is one priced item.
type QuoteLine struct {
	Item   string `json:"item"`
	Amount int    `json:"amount_eur"`
}

// Quote is a priced licence. Every amount is in whole euros.
type Quote struct {
	Modules      []string    `json:"modules"` // as asked, in the contract's order
	ModuleLines  []QuoteLine `json:"module_lines"`
	ModulesTotal int         `json:"modules_total_eur"` // the modules' prices added up
	Bundle       string      `json:"bundle,omitempty"`  // the bundle proposed instead, when it is cheaper
	BundleSaving int         `json:"bundle_saving_eur,omitempty"`
	Delivered    []string    `json:"delivered_modules"` // what the customer gets: the bundle's modules when one is proposed
	DataPrice    int         `json:"data_price_eur"`    // the cheaper of the modules and the bundle, whole catalogue

	Share        float64 `json:"share"`         // the subset's share of variants (1: whole catalogue)
	SubsetFactor float64 `json:"subset_factor"` // max(share, 0.30)
	SubsetPrice  int     `json:"subset_price_eur"`

	Languages      []string      `json:"extra_languages"` // delivered besides English
	LanguagesAll   bool          `json:"all_languages"`   // the 990 price for all 19 applies
	LanguageSaving int           `json:"language_saving_eur,omitempty"`
	LanguagesPrice int           `json:"languages_price_eur"`
	ExportPrice    int           `json:"export_price_eur"` // subset price + languages: the internal-use licence
	Display        bool          `json:"public_display"`
	LicencePrice   int           `json:"licence_price_eur"` // x2 for public display
	Subscription   *Subscription `json:"subscription,omitempty"`
	FirstYearTotal int           `json:"first_year_total_eur"` // licence + the first year of updates
}

// Subscription is the priced update subscription.
type Subscription struct {
	Billing        string `json:"billing"`
	Percent        int    `json:"percent_per_month"`
	MonthlyRaw     int    `json:"monthly_before_minimum_eur"` // 4 % of the export price, rounded
	Monthly        int    `json:"monthly_eur"`                // at least 49
	MinimumApplied bool   `json:"minimum_applied"`
	BilledMonths   int    `json:"billed_months_per_invoice"` // 10 a year, or 3 a quarter
	Invoice        int    `json:"invoice_eur"`               // one invoice
	InvoicesAYear  int    `json:"invoices_per_year"`
	PerYear        int    `json:"per_year_eur"`
}

// roundDiv returns a/b rounded half up, for non-negative a and positive b.
func roundDiv(a, b int64) int64 { return (2*a + b) / (2 * b) }

// PriceQuote prices a request by the contract's table and terms. The
// reading of the terms, in the order they apply:
//
//  1. Modules: the catalogue module is always included. The modules'
//     prices are added up; when that total is above the price of a bundle
//     that holds every module asked for ("All data modules" without images,
//     "All data modules plus images" with them), the cheaper such bundle is
//     proposed and delivered instead. At an equal price the modules stay.
//  2. Subset: the data price of step 1 is multiplied by the subset's share
//     of variants, at least 30 %, and rounded to the euro (half up). The
//     share and minimum apply to the data price only: the price of
//     languages is the same for any subset, since the label tables do not
//     shrink with it.
//  3. Languages: English is included; each other language costs 190, and
//     all 19 cost 990. From 6 languages on, 990 is cheaper than 190 each,
//     so all 19 are proposed and delivered for 990.
//  4. Export price = step 2 + step 3: the price for internal use.
//  5. Public display: the licence costs twice the export price.
//  6. Update subscription: 4 % of the export price of step 4 per month
//     (the internal-use price, as the term's wording "export price" is the
//     one the display term doubles), rounded to the euro, at least 49 a
//     month; billed annually in advance as 10 months' price for 12 months,
//     or quarterly as 3 months' price each quarter.
func PriceQuote(req QuoteRequest) (*Quote, error) {
	mods, err := ParseModules(strings.Join(req.Modules, ","))
	if err != nil {
		return nil, err
	}
	q := &Quote{Modules: mods, Display: req.Display}
	images := false
	for _, m := range mods {
		mod, _ := ModuleByName(m)
		q.ModuleLines = append(q.ModuleLines, QuoteLine{mod.Title, mod.Price})
		q.ModulesTotal += mod.Price
		images = images || m == Images
	}
	q.DataPrice, q.Delivered = q.ModulesTotal, mods
	for _, b := range []Bundle{BundleData, BundleAllImages} {
		if (images && !b.Images) || b.Price >= q.DataPrice {
			continue
		}
		q.Bundle, q.DataPrice = b.Title, b.Price
		q.Delivered = DataModules()
		if b.Images {
			q.Delivered = append(q.Delivered, Images)
		}
	}
	if q.Bundle != "" {
		q.BundleSaving = q.ModulesTotal - q.DataPrice
	}

	share := req.Share
	switch {
	case share == 0:
		share = 1
	case math.IsNaN(share) || share < 0 || share > 1:
		return nil, fmt.Errorf("subset share %v out of range (0, 1]", req.Share)
	}
	ppm := int64(math.Round(share * 1e6))
	if ppm == 0 {
		return nil, errors.New("subset share rounds to 0: the subset is empty")
	}
	q.Share = float64(ppm) / 1e6
	factor := max(ppm, SubsetMinimumPPM)
	q.SubsetFactor = float64(factor) / 1e6
	q.SubsetPrice = int(roundDiv(int64(q.DataPrice)*factor, 1e6))

	langs, err := ParseLanguages(strings.Join(req.Languages, ","), vocab.Locales[:])
	if err != nil {
		return nil, err
	}
	q.Languages = langs[1:]
	n := len(q.Languages)
	allExtra := len(vocab.Locales) - 1
	q.LanguagesPrice = n * LanguagePrice
	if q.LanguagesPrice > AllLanguagesPrice || n == allExtra {
		q.LanguageSaving = q.LanguagesPrice - AllLanguagesPrice
		q.LanguagesPrice, q.LanguagesAll = AllLanguagesPrice, true
		all, _ := ParseLanguages("all", vocab.Locales[:])
		q.Languages = all[1:]
	}

	q.ExportPrice = q.SubsetPrice + q.LanguagesPrice
	q.LicencePrice = q.ExportPrice
	if req.Display {
		q.LicencePrice *= DisplayMultiplier
	}
	q.FirstYearTotal = q.LicencePrice

	switch req.Billing {
	case BillingNone:
	case BillingAnnual, BillingQuarterly:
		s := &Subscription{Billing: req.Billing, Percent: SubscriptionPercent}
		s.MonthlyRaw = int(roundDiv(int64(q.ExportPrice)*SubscriptionPercent, 100))
		s.Monthly = max(s.MonthlyRaw, SubscriptionMinimum)
		s.MinimumApplied = s.MonthlyRaw < SubscriptionMinimum
		if req.Billing == BillingAnnual {
			s.BilledMonths, s.InvoicesAYear = AnnualBilledMonths, 1
		} else {
			s.BilledMonths, s.InvoicesAYear = QuarterlyBilledMonths, 4
		}
		s.Invoice = s.Monthly * s.BilledMonths
		s.PerYear = s.Invoice * s.InvoicesAYear
		q.Subscription = s
		q.FirstYearTotal += s.PerYear
	default:
		return nil, fmt.Errorf("unknown billing %q (want annual or quarterly, or none)", req.Billing)
	}
	return q, nil
}

// Euros formats an amount with thousands separators: 3,900.
func Euros(v int) string {
	s := strconv.Itoa(max(v, -v))
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if v < 0 {
		return "-" + s
	}
	return s
}

// WriteTable prints the quote as a readable table.
func (q *Quote) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(item, amount string) { fmt.Fprintf(tw, "%s\t%16s\n", item, amount) }
	fmt.Fprintln(tw, "Licence quote (EUR)")
	for _, l := range q.ModuleLines {
		line("  "+l.Item, Euros(l.Amount))
	}
	line("Modules total", Euros(q.ModulesTotal))
	if q.Bundle != "" {
		line(fmt.Sprintf("Proposed instead: %s (saves %s)", q.Bundle, Euros(q.BundleSaving)), Euros(q.DataPrice))
	}
	if q.Share < 1 {
		note := ""
		if q.SubsetFactor > q.Share {
			note = ", 30 % minimum applies"
		}
		line(fmt.Sprintf("Subset: %.2f %% of variants, priced at %.2f %%%s", 100*q.Share, 100*q.SubsetFactor, note), Euros(q.SubsetPrice))
	}
	switch n := len(q.Languages); {
	case n == 0:
		line("Languages: English only (included)", "0")
	case q.LanguagesAll:
		item := "Languages: all 19 besides English"
		if q.LanguageSaving > 0 {
			item += fmt.Sprintf(" (cheaper than the ones asked at 190 each; saves %s)", Euros(q.LanguageSaving))
		}
		line(item, Euros(q.LanguagesPrice))
	default:
		line(fmt.Sprintf("Languages: %s, %d x 190", strings.Join(q.Languages, " "), n), Euros(q.LanguagesPrice))
	}
	line("Export price (internal use)", Euros(q.ExportPrice))
	if q.Display {
		line("Public-display licence (2 x export price)", Euros(q.LicencePrice))
	}
	if s := q.Subscription; s != nil {
		floor := ""
		if s.MinimumApplied {
			floor = fmt.Sprintf(" = %s, minimum 49 applies", Euros(s.MonthlyRaw))
		}
		line(fmt.Sprintf("Update subscription: 4 %% of %s a month%s", Euros(q.ExportPrice), floor), Euros(s.Monthly)+"/month")
		if s.Billing == BillingAnnual {
			line("  billed annually in advance: 10 months' price for 12 months", Euros(s.Invoice)+"/year")
		} else {
			line("  billed quarterly: 3 months' price a quarter", Euros(s.Invoice)+"/quarter")
		}
	}
	use := "internal use"
	if q.Display {
		use = "public display"
	}
	line("Licence price (one-time, "+use+")", Euros(q.LicencePrice))
	if q.Subscription != nil {
		line("First year total (licence + 12 months of updates)", Euros(q.FirstYearTotal))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "Delivered modules: %s\n", strings.Join(q.Delivered, ", "))
	return err
}
