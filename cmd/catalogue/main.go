// Command catalogue is the operator CLI of the catalogue service.
//
//	catalogue gen [-scale F] [-seed N] [-cdn URL] -o FILE   write a snapshot
//	catalogue inspect [-json] FILE                          print what a snapshot holds
//	catalogue keys create|list|revoke|activate -state DIR|-store URL   manage API keys
//	catalogue payments list|resolve -state DIR             reconcile payments of unknown outcome
//	catalogue export [flags] -o DIR SNAPSHOT                write a licensed data export
//	catalogue diff [flags] -o CHANGES OLD NEW               write the update subscription's change file
//	catalogue diff -apply CHANGES -o NEWDIR OLDDIR          apply a change file to an export
//	catalogue quote [flags] [-json]                         price a licence by the contract's terms
//	catalogue publish -store URL -origin DIR|URL FILE       roll a snapshot out to the fleet (-hash HEX: back)
//
// Run "catalogue help" for the list of commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vspec/catalogue/httpd/buildinfo"
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
		{"keys", "keys create|list|revoke|activate -state DIR|-store URL ...", "manage API keys in a stopped server's state directory, or in a running fleet's Redis", runKeys},
		{"payments", "payments list|resolve -state DIR ...", "list and resolve x402 payments whose settlement had no clear outcome (stopped server)", runPayments},
		{"export", "export [flags] -o DIR SNAPSHOT", "write a licensed data export (CSV, JSON Lines, dictionary, coverage, manifest)", runExport},
		{"diff", "diff [flags] -o CHANGES OLD NEW", "write the update change file between two snapshots (-apply: apply one to an export)", runDiff},
		{"quote", "quote [-modules L] [-languages L] [-share F] ...", "price a licence by the contract's table and terms", runQuote},
		{"publish", "publish -store URL -origin DIR|URL FILE|-hash HEX", "roll a snapshot out to the fleet's replicas, or back (-hash)", runPublish},
	}
	os.Exit(dispatch(os.Args[1:], os.Stdout))
}

// dispatch runs the command args name and returns the exit status: 0 when
// it succeeded or help was asked for (-h, -help, help), 2 for a usage
// error (no or an unknown command), 1 when the command failed.
func dispatch(args []string, stdout io.Writer) int {
	if len(args) == 0 {
		usage()
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage()
		return 0
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, buildinfo.Read().Line("catalogue"))
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(args[1:], stdout)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp): // the command printed its usage
				return 0
			}
			fmt.Fprintf(os.Stderr, "catalogue %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(os.Stderr, "catalogue: unknown command %q\n\n", args[0])
	usage()
	return 2
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: catalogue COMMAND [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-48s %s\n", c.usage, c.summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun \"catalogue COMMAND -h\" for the flags of a command, \"catalogue -version\" for the build.")
}

// commandFlags returns the flag set of a command whose usage is help
// followed by the flags and their defaults.
func commandFlags(name, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), help)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses a command's flags and then wants exactly n arguments
// and a value for each required flag: otherwise it prints the usage and
// fails with want.
func parseArgs(fs *flag.FlagSet, args []string, n int, want string, required ...*string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	ok := fs.NArg() == n
	for _, r := range required {
		ok = ok && *r != ""
	}
	if !ok {
		fs.Usage()
		return errors.New(want)
	}
	return nil
}

// subcommand starts a command made of subcommands (keys, payments) whose
// usage is usage: with no argument it fails with the usage, with a help
// argument it prints it; otherwise it returns the flag set of subcommand
// args[0] with the -state flag that every subcommand takes.
func subcommand(name, usage string, args []string, stdout io.Writer) (fs *flag.FlagSet, state *string, err error) {
	usage = strings.TrimSpace(usage)
	if len(args) == 0 {
		return nil, nil, errors.New(usage)
	}
	if isHelp(args[0]) {
		fmt.Fprintln(stdout, usage)
		return nil, nil, flag.ErrHelp
	}
	fs = flag.NewFlagSet(name+" "+args[0], flag.ContinueOnError)
	return fs, fs.String("state", "state", "the server's state directory"), nil
}

// isHelp reports whether a command's first argument asks for its usage.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// article is the indefinite article before a word: "an apify key", "a demo
// key".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
