// Command doccheck runs every shell command of README.md and docs/*.md
// against a live catalogued, so that a documented command cannot rot:
// .ci/run runs it after its other client checks and fails when a command
// fails.
//
//	go run ./docs/doccheck -bin DIR -snapshot FILE [FILE.md ...]
//
// DIR holds catalogued, catalogue and facilitator built from this tree;
// FILE is the snapshot the servers serve (a small one). Without file
// arguments it reads README.md, then docs/*.md in name order.
//
// # What runs, and how
//
// Every fenced block whose info string is sh, bash or shell runs, in file
// order, as one bash script (set -euo pipefail) in a scratch directory
// laid out like a fresh clone (its entries link to the repository's):
// data/snapshots/catalogue.snap is the given snapshot, and state/ is the
// live server's state directory. The scripts run with these shims, so that
// the text stays what a reader pastes:
//
//   - go run ./cmd/catalogued, ./cmd/catalogue and ./cmd/facilitator run
//     the binaries of DIR, which is also first on PATH (the fleet's pages
//     call catalogued and catalogue by name);
//   - curl reaches the live server where the docs write the defaults
//     (localhost:8080 and 127.0.0.1:8080 for the API, 127.0.0.1:8081 for
//     the admin API, 127.0.0.1:8090 for MCP), and reports each HTTP status:
//     a block fails on a status of 400 or more (or no answer), unless its
//     marker allows that status; so a command must not set its own
//     --write-out;
//   - npx runs the MCP clients pinned in .ci/mcp (installed by the MCP
//     check before this one), and python3 the examples, with the same
//     address rewriting.
//
// The live server is started by the block marked live (the README's first
// command) with the ports picked free and passed as environment twins
// (CATALOGUED_LISTEN, CATALOGUED_MCP_LISTEN, CATALOGUED_ADMIN_LISTEN); the
// keys it prints on its first start are exported to every later block as
// KEY (full catalogue) and DEMO_KEY, as the README tells a reader to. Every
// block also sees DOCCHECK_PID (the live server's process), DOCCHECK_API,
// DOCCHECK_ADMIN, DOCCHECK_MCP (its addresses) and DOCCHECK_PORT_A and
// DOCCHECK_PORT_B (two more free loopback ports).
//
// # Markers
//
// An HTML comment on the line before a block's fence (blank lines aside)
// says how it runs, as "<!-- doccheck: DIRECTIVE; DIRECTIVE ... -->";
// Markdown renderers do not show it. The directives:
//
//   - skip REASON: the block is not run; REASON says why (a secret, a
//     payment on a real chain, a service CI does not have, or a run too long
//     for CI and where it is covered instead). It comes alone: the rest of
//     the marker, semicolons and all, is the reason.
//   - live: each command of the block starts the live server (above).
//   - serve: each command of the block starts a server beside the live one
//     (its own free ports and state directory through the environment
//     twins); once each answers (catalogued's /readyz, or the address of its
//     -listen flag), the block passed, and the servers are stopped.
//   - stopped: the block runs with the live server stopped (the key and
//     payment commands need its state files), which is then started again.
//   - restart: the block stops the live server itself (SIGTERM); it must
//     exit with status 0, and is then started again.
//   - sub OLD => NEW: OLD is replaced by NEW in the block before it runs,
//     for placeholders (an address of your own, a process id) and test
//     values (a facilitator on loopback instead of a real one); NEW may name
//     the variables above, as $NAME.
//   - status CODE ...: curl may answer these HTTP error statuses here, for
//     a block that shows an error on purpose.
//
// A marker that is malformed, unknown, or not followed by a shell block is
// an error (Extract), and TestRepositoryMarkers checks the repository's
// markers on every go test run.
//
// It imports only the standard library; nothing imports it.
package main
