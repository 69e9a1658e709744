package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/httpd/x402"
)

const paymentsUsage = `usage:
  catalogue payments list -state DIR|-store URL [-all] [-json]
  catalogue payments resolve -state DIR|-store URL REF settled|unsettled [-tx HASH]

A paid call whose settlement the facilitator did not confirm in time (no
answer, a reset connection, a 5xx, an unreadable answer) was answered 504
with a payment reference, and the payment recorded as unsettled-unknown in
DIR/payments.db: it may have been taken. "list" shows those (-all: every
payment ever recorded, resolved ones too). Find each one's outcome with the
facilitator or on chain (the payer's authorization nonce: USDC
authorizationState(payer, nonce) is true once it was settled), then
"resolve" it: settled (with -tx, its transaction hash) or unsettled.

With -state the commands work on the state directory while the server is
stopped: a running catalogued holds payments.db. With -store
redis://HOST:PORT/DB (a fleet's shared store; also CATALOGUED_STORE) they
work while the replicas run.`

func runPayments(args []string, stdout io.Writer) error {
	fset, state, err := subcommand("payments", paymentsUsage, args, stdout)
	if err != nil {
		return err
	}
	all := fset.Bool("all", false, "list: every recorded payment, resolved ones too, not only those of unknown outcome")
	asJSON := fset.Bool("json", false, "list: print JSON instead of a table")
	tx := fset.String("tx", "", "resolve settled: the settlement's transaction hash")
	storeURL := fset.String("store", os.Getenv("CATALOGUED_STORE"), "the fleet's shared access store, redis://[USER:PASSWORD@]HOST:PORT/DB (or rediss://…[?ca=FILE] for TLS); default $CATALOGUED_STORE; empty uses -state")
	pos, err := parseInterspersed(fset, args[1:])
	if err != nil {
		return err
	}
	switch args[0] {
	case "list":
		if len(pos) != 0 {
			return fmt.Errorf("payments list takes no arguments, got %q\n%s", pos, paymentsUsage)
		}
		s, err := openPayments(*state, *storeURL)
		if err != nil {
			return err
		}
		defer s.Close()
		recs, err := s.Records(*all)
		if err != nil {
			return err
		}
		if *asJSON {
			if recs == nil {
				recs = []x402.PaymentRecord{}
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(recs)
		}
		if len(recs) == 0 {
			if *all {
				fmt.Fprintln(stdout, "no payment is recorded")
			} else {
				fmt.Fprintln(stdout, "no payment of unknown outcome (-all lists resolved ones too)")
			}
			return nil
		}
		w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "REFERENCE\tSTATE\tAT\tPAYER\tNONCE\tUSD\tOPERATION\tTRANSACTION\tFACILITATOR ERROR")
		for _, r := range recs {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Reference, r.State, r.At.UTC().Format(time.RFC3339), r.Payer, r.Nonce, usd(r.Amount),
				r.Operation, dash(r.Transaction), clip(r.Error, 80))
		}
		return w.Flush()
	case "resolve":
		if len(pos) != 2 {
			return fmt.Errorf("payments resolve needs a payment reference and its outcome, settled or unsettled\n%s", paymentsUsage)
		}
		ref, outcome := pos[0], pos[1]
		switch outcome {
		case x402.StateSettled:
		case x402.StateUnsettled:
			if *tx != "" {
				return errors.New("-tx names the transaction of a settled payment; an unsettled one has none")
			}
		default:
			return fmt.Errorf("the outcome is settled or unsettled, not %q", outcome)
		}
		s, err := openPayments(*state, *storeURL)
		if err != nil {
			return err
		}
		defer s.Close()
		r, err := s.Resolve(ref, outcome, *tx, "operator")
		switch {
		case errors.Is(err, x402.ErrNoRecord):
			return fmt.Errorf("no payment is recorded under %q (catalogue payments list -all -state %s lists them)", ref, *state)
		case errors.Is(err, x402.ErrResolved):
			return fmt.Errorf("%w; a payment is resolved once", err)
		case err != nil:
			return err
		}
		fmt.Fprintf(stdout, "payment %s (payer %s, %s USD, %s) is now %s", r.Reference, r.Payer, usd(r.Amount), r.Operation, r.State)
		if r.Transaction != "" {
			fmt.Fprintf(stdout, ", transaction %s", r.Transaction)
		}
		fmt.Fprintln(stdout)
		return nil
	}
	return fmt.Errorf("unknown payments command %q\n%s", args[0], paymentsUsage)
}

// ledger is the payment state the commands work on, and what closes it.
type ledger interface {
	x402.Ledger
	Close() error
}

// openPayments opens the fleet's Redis store when storeURL is given, or
// else the payments store of a state directory, which must exist: the
// commands never create one.
func openPayments(state, storeURL string) (ledger, error) {
	if storeURL != "" {
		co, err := redisstore.ClientOption(storeURL)
		if err != nil {
			return nil, fmt.Errorf("-store: %w", err)
		}
		return redisstore.Open(redisstore.Options{Client: co, Timeout: 5 * time.Second})
	}
	path := filepath.Join(state, "payments.db")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: no payment was recorded in %s (is -state the server's state directory?)", path, state)
	}
	s, err := x402.OpenStore(path, nil)
	if errors.Is(err, x402.ErrLocked) {
		return nil, fmt.Errorf("%s is locked by another process, most likely a running catalogued, which holds it while it runs: stop the server and run the command again", path)
	}
	return s, err
}

// parseInterspersed parses flags wherever they are among the arguments
// (REF settled -tx HASH) and returns the others in order.
func parseInterspersed(fset *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 { // each round consumes at least one argument
		if err := fset.Parse(args); err != nil {
			return nil, err
		}
		args = fset.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	return pos, nil
}

// usd renders an amount in atomic units as dollars.
func usd(atomic string) string {
	n, err := strconv.ParseInt(atomic, 10, 64)
	if err != nil {
		return atomic + " units"
	}
	return x402.USD(n)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
