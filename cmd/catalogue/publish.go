package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/vspec/catalogue/cmd/internal/cliflag"
	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/loader/rollout"
)

const publishHelp = `usage: catalogue publish -store redis://HOST:PORT/DB -origin DIR|URL FILE
       catalogue publish -store redis://HOST:PORT/DB -origin DIR|URL -hash HEX

Rolls a catalogue out to every replica started with -store and -origin.

With FILE: checks that FILE loads as a catalogue, stores it in the origin
as <sha256>.snap (a directory: copied atomically; an http(s) URL: nothing is
uploaded, copy the file there first with the store's own tool, and publish
checks that the URL serves it intact), then sets the fleet's current
catalogue in Redis (key catalog:current) and announces it (channel
catalog:rollout). Replicas fetch, verify, load and swap it within a poll
interval (5 s) even if they missed the announcement.

With -hash: points the fleet at a catalogue already in the origin, after
checking that the origin serves it intact: a rollback is -hash with the
hash the last publish printed as the previous one.

-store and -origin default to $CATALOGUED_STORE and $CATALOGUED_ORIGIN, as
the replicas read them.

`

func runPublish(args []string, stdout io.Writer) error {
	fs := commandFlags("publish", publishHelp)
	store := fs.String("store", os.Getenv("CATALOGUED_STORE"), "the fleet's Redis: redis://[USER:PASSWORD@]HOST:PORT/DB, rediss://…[?ca=FILE] for TLS")
	origin := fs.String("origin", os.Getenv("CATALOGUED_ORIGIN"), "where replicas fetch snapshots: a directory, or an http(s) URL they GET <URL>/<sha256>.snap from")
	hash := fs.String("hash", "", "point the fleet at this catalogue already in the origin (64 hex digits) instead of publishing FILE: a rollback")
	timeout := fs.Duration("timeout", 10*time.Minute, "longest the whole publication may take (checking an HTTP origin downloads the file)")
	redirects := fs.String("origin.redirectHosts", os.Getenv("CATALOGUED_ORIGIN_REDIRECTHOSTS"), "comma-separated hosts a redirect from an http(s) origin may lead to (a name, any port, or name:port), as the replicas' -origin.redirectHosts; empty follows redirects within the origin's host only")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *store == "" || *origin == "":
		fs.Usage()
		return errors.New("-store and -origin are required (or $CATALOGUED_STORE and $CATALOGUED_ORIGIN)")
	case (*hash == "") == (fs.NArg() == 0) || fs.NArg() > 1:
		fs.Usage()
		return errors.New("give one snapshot FILE, or -hash HEX of one in the origin")
	}
	opt, err := redisstore.ClientOption(*store)
	if err != nil {
		return fmt.Errorf("-store: %w", err)
	}
	o, err := rollout.ParseOrigin(*origin, rollout.HTTPOptions{RedirectHosts: cliflag.List(*redirects)})
	if err != nil {
		return fmt.Errorf("-origin: %w", err)
	}
	pointer := rollout.NewRedis(opt, 0)
	defer pointer.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var p rollout.Published
	if *hash != "" {
		if p, err = rollout.Repoint(ctx, pointer, o, *hash); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "pointed the fleet at %s from %s\n", p.Hash, o)
	} else {
		if p, err = rollout.Publish(ctx, pointer, o, fs.Arg(0)); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "published %s as %s (identity %s, %d variants) in %s\n", fs.Arg(0), p.Hash, p.Identity, p.Variants, o)
	}
	switch p.Previous {
	case p.Hash:
		fmt.Fprintf(stdout, "the fleet was on it already (%d replicas notified)\n", p.Notified)
	case "":
		fmt.Fprintf(stdout, "the fleet's first catalogue: %d replicas notified, the others load it at their next poll\n", p.Notified)
	default:
		fmt.Fprintf(stdout, "the fleet moves from %s: %d replicas notified, the others follow at their next poll\n", p.Previous, p.Notified)
		fmt.Fprintf(stdout, "roll back with: catalogue publish -store %s -origin %s -hash %s\n", redisstore.RedactedURL(*store), *origin, p.Previous)
	}
	return nil
}
