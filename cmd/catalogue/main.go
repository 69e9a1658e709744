// Command catalogue is the operator CLI of the catalogue service.
//
//	catalogue gen [-scale F] [-seed N] [-cdn URL] -o FILE   write a snapshot
//	catalogue inspect [-json] FILE                          print what a snapshot holds
//	catalogue keys create|list|revoke|activate -state DIR   manage API keys
//	catalogue payments list|resolve -state DIR             reconcile payments of unknown outcome
//	catalogue export [flags] -o DIR SNAPSHOT                write a licensed data export
//	catalogue diff [flags] -o CHANGES OLD NEW               write the update subscription's change file
//	catalogue diff -apply CHANGES -o NEWDIR OLDDIR          apply a change file to an export
//	catalogue quote [flags] [-json]                         price a licence by the contract's terms
//
// Run "catalogue help" for the list of commands.
package main

import (
	"fmt"
	"io"
	"os"
)

type command struct {
	name, usage, summary string
	run                  func(args []string, stdout io.Writer) error
}

var commands []command

func main() {
	commands = []command{
		{"gen", "gen [-scale F] [-seed N] [-cdn URL] -o FILE", "generate the synthetic catalogue and write it as a snapshot", runGen},
		{"inspect", "inspect [-json] FILE", "print counts per entity, per fuel and per locale, and the demo set", runInspect},
		{"keys", "keys create|list|revoke|activate -state DIR ...", "manage API keys in a stopped server's state directory", runKeys},
		{"payments", "payments list|resolve -state DIR ...", "list and resolve x402 payments whose settlement had no clear outcome (stopped server)", runPayments},
		{"export", "export [flags] -o DIR SNAPSHOT", "write a licensed data export (CSV, JSON Lines, dictionary, coverage, manifest)", runExport},
		{"diff", "diff [flags] -o CHANGES OLD NEW", "write the update change file between two snapshots (-apply: apply one to an export)", runDiff},
		{"quote", "quote [-modules L] [-languages L] [-share F] ...", "price a licence by the contract's table and terms", runQuote},
	}
	if len(os.Args) < 2 || os.Args[1] == "help" || os.Args[1] == "-h" || os.Args[1] == "-help" {
		usage()
		return
	}
	for _, c := range commands {
		if c.name == os.Args[1] {
			if err := c.run(os.Args[2:], os.Stdout); err != nil {
				fmt.Fprintf(os.Stderr, "catalogue %s: %v\n", c.name, err)
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "catalogue: unknown command %q\n\n", os.Args[1])
	usage()
	os.Exit(2)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: catalogue COMMAND [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-48s %s\n", c.usage, c.summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun \"catalogue COMMAND -h\" for the flags of a command.")
}
