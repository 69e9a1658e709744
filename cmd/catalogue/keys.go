package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/admin"
	"github.com/vspec/catalogue/httpd/redisstore"
)

const keysUsage = `usage:
  catalogue keys create -state DIR|-store URL -plan apify|demo [-email E] [-note N] [-pending]
  catalogue keys create -state DIR|-store URL -plan free -allow-deprecated ...   (only to migrate a hand-granted key)
  catalogue keys list -state DIR|-store URL
  catalogue keys revoke -state DIR|-store URL KEY|HASH-PREFIX
  catalogue keys activate -state DIR|-store URL KEY|HASH-PREFIX

With -state the commands work on a state directory while its server is
stopped; while it runs, use its admin API (-admin.listen) instead. With
-store redis://HOST:PORT/DB (the URL the replicas of a fleet run with; also
CATALOGUED_STORE) they work on the shared Redis while the replicas run: a
revoke holds on every replica within a second.`

func runKeys(args []string, stdout io.Writer) error {
	fs, state, err := subcommand("keys", keysUsage, args, stdout)
	if err != nil {
		return err
	}
	plan := fs.String("plan", "", "plan of the new key: apify (full catalogue, raw ids) or demo (40 cars); free is deprecated (see -allow-deprecated)")
	allowDeprecated := fs.Bool("allow-deprecated", false, "allow -plan free, deprecated and no longer issued: only to migrate a key granted by hand")
	email := fs.String("email", "", "email address of the key's holder")
	note := fs.String("note", "", "a note kept with the key")
	pending := fs.Bool("pending", false, "create the key not yet active (it answers 403 until activated)")
	storeURL := fs.String("store", os.Getenv("CATALOGUED_STORE"), "the fleet's shared access store, redis://[USER:PASSWORD@]HOST:PORT/DB (or rediss://…[?ca=FILE] for TLS); default $CATALOGUED_STORE; empty uses -state")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	open := func() (access.Backend, error) {
		if *storeURL == "" {
			return access.Open(*state)
		}
		co, err := redisstore.ClientOption(*storeURL)
		if err != nil {
			return nil, fmt.Errorf("-store: %w", err)
		}
		// An operator's command waits longer than a request would.
		return redisstore.Open(redisstore.Options{Client: co, Timeout: 5 * time.Second})
	}
	switch args[0] {
	case "create":
		p, ok := access.ParsePlan(*plan)
		if !ok {
			return errors.New("-plan must be apify or demo")
		}
		if p == access.PlanFree && !*allowDeprecated {
			return errors.New("the free plan is deprecated and no longer issued; to migrate a key granted by hand, add -allow-deprecated")
		}
		st := access.StateActive
		if *pending {
			st = access.StatePending
		}
		s, err := open()
		if err != nil {
			return err
		}
		defer s.Close()
		text, k, err := s.Create(p, st, *email, *note)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created %s %s key (%s), hash %s\nThe key is shown once and only its hash is stored:\n%s\n", article(k.Plan.String()), k.Plan, k.State, k.Hash.String()[:16], text)
		return nil
	case "list":
		s, err := open()
		if err != nil {
			return err
		}
		defer s.Close()
		keys, err := s.List()
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "HASH\tPLAN\tSTATE\tCREATED\tEMAIL\tNOTE")
		for _, k := range keys {
			v := admin.View(k)
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", v.Hash[:16], v.Plan, v.State, v.Created.Format(time.DateOnly), v.Email, v.Note)
		}
		return w.Flush()
	case "revoke", "activate":
		if fs.NArg() != 1 {
			return fmt.Errorf("keys %s needs the key or at least 8 hex digits of its hash", args[0])
		}
		st := access.StateRevoked
		if args[0] == "activate" {
			st = access.StateActive
		}
		s, err := open()
		if err != nil {
			return err
		}
		defer s.Close()
		k, err := s.SetState(fs.Arg(0), st)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "key %s is now %s\n", k.Hash.String()[:16], k.State)
		return nil
	}
	return fmt.Errorf("unknown keys command %q\n%s", args[0], keysUsage)
}
