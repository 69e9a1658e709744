package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	netmail "net/mail"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/vspec/catalogue/cmd/internal/cliflag"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/publicid"
	"github.com/vspec/catalogue/httpd/redisstore"
	"github.com/vspec/catalogue/httpd/secret"
	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/httpd/x402/eip3009"
	"github.com/vspec/catalogue/loader/rollout"
)

// Flags of the fleet (issue 18): the shared store, which holds the access
// state and the fleet's current catalogue, and the rollout of snapshots
// from an origin.
var (
	storeURL = flag.String("store", "", "the fleet's shared Redis: redis://[USER:PASSWORD@]HOST:PORT/DB, or rediss://…?ca=FILE for TLS (ca: the PEM authorities of the server's certificate, default the system's; the password is never echoed). Keys, usage counters, "+
		"per-network windows, demo key requests and x402 payments then live in Redis, and the token secret too unless -ids.secret is given; with -origin the replica also serves the fleet's current catalogue, set by catalogue publish, instead of -snapshot. Empty keeps the access state in -state (one process). "+
		"Redis must run with appendonly yes, appendfsync always and maxmemory-policy noeviction (docs/fleet.md). See also -store.timeout, -origin")
	storeTimeout = flag.Duration("store.timeout", 50*time.Millisecond, "deadline of each call to the -store Redis; a call that fails or passes it refuses its request with 503 and Retry-After, never serves it uncounted")
	originFlag   = flag.String("origin", "", "where the fleet's snapshots are: a directory or an http(s) URL. The replica fetches <origin>/<sha256>.snap of the catalogue -store names, verifies its SHA-256, loads it and swaps it in; -snapshot and SIGHUP reloads of it are then unused (SIGHUP reads the fleet's catalogue at once). Requires -store. See also -rollout.poll, -rollout.dir")
	rolloutPoll  = flag.Duration("rollout.poll", 5*time.Second, "how often a replica following the fleet (-origin) reads the fleet's current catalogue besides change notifications: the longest it lags when a notification is lost")
	rolloutDir   = flag.String("rollout.dir", "", "where a replica following the fleet keeps fetched snapshots (the one served and the one before, for a rollback without download); empty uses <state>/snapshots")

	originConnect   = flag.Duration("origin.connectTimeout", 10*time.Second, "longest a replica waits to connect to an http(s) -origin, and then for the TLS handshake. See also -origin.headerTimeout, -origin.idleTimeout")
	originHeader    = flag.Duration("origin.headerTimeout", 30*time.Second, "longest a replica waits for the response headers of an http(s) -origin once its request is sent")
	originIdle      = flag.Duration("origin.idleTimeout", 30*time.Second, "longest a download from an http(s) -origin may go without a byte: a body that stalls midway fails after it and is retried with backoff (a whole download is bounded by 10 minutes, and a newer pointer, such as a rollback, cancels it at once)")
	originRedirects = flag.String("origin.redirectHosts", "", "comma-separated hosts a redirect from an http(s) -origin may lead to: a name (any port) or name:port. Empty follows redirects within the origin's own host only; a redirect from https to http is always refused")
)

// storeConfig is -store parsed.
type storeConfig struct {
	URL    string               // as given (holds the password, if any: never log it; see redactURL)
	Client rueidis.ClientOption // rueidis.ParseURL of URL
}

// config is what run needs beyond the flag values themselves: the values
// that had to be parsed or read, each checked once before any work starts.
type config struct {
	// generateSnapshot: -snapshot does not exist and may be generated (it
	// is the default path, or -generate is set).
	generateSnapshot bool
	limits           map[access.Plan]access.Limits
	proxies          []netip.Prefix // -http.trustedProxies
	publicBase       string         // -http.publicURL, or derived from -listen
	mcpPublic        string         // -mcp.publicURL, or derived from -mcp.listen; "" when MCP is off
	// secret is -ids.secret, read; nil when the state directory (or the
	// -store) keeps it.
	secret []byte
	// store is -store parsed; nil keeps the access state in -state.
	store *storeConfig
	// mailPassword and facilitatorAuth are the values of -mail.password and
	// -x402.facilitatorAuth, read from their files when given as file://.
	mailPassword, facilitatorAuth string
	// asset, assetName and assetVersion are -x402.asset's three parts.
	asset, assetName, assetVersion string
	// origin is -origin, nil when the replica serves -snapshot rather
	// than following the fleet.
	origin rollout.Origin
}

// configure applies the environment to the flags not given on the command
// line, then validates them all. The error joins every problem found, one
// line each, so that one start names them all; nothing has been created or
// loaded when it is returned.
func configure(fs *flag.FlagSet) (*config, error) {
	problems := applyEnv(fs)
	cfg, more := parseConfig(fs)
	problems = append(problems, more...)
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return cfg, nil
}

// flagRef names a flag and its environment twin, as problems do.
func flagRef(name string) string { return fmt.Sprintf("-%s (%s)", name, envName(name)) }

// secretFlags are never echoed in messages nor in the admin API's
// /debug/pprof/cmdline: a literal value is shown as its length only, or
// as xxxxx (a file:// path is shown: it is not the secret). The password
// of a URL (-store, or credentials in any other URL flag) is redacted
// instead (redactedURL).
var secretFlags = map[string]bool{"ids.secret": true, "admin.token": true, "mail.password": true, "x402.facilitatorAuth": true}

// shown is how a value of flag name appears in a message.
func shown(name, v string) string {
	if secretFlags[name] && v != "" && !secret.IsFile(v) {
		return fmt.Sprintf("(%d characters, not shown)", len(v))
	}
	return strconv.Quote(redactedURL(name, v))
}

// redactedURL returns v, a value of flag name, with the credentials of a
// URL in it redacted: the password as xxxxx (-store's, or any other), a
// user name alone (a token, as some services take) as xxxxx.
func redactedURL(name, v string) string {
	if name == "store" {
		return redisstore.RedactedURL(v)
	}
	if !strings.Contains(v, "://") {
		return v
	}
	u, err := url.Parse(v)
	switch {
	case err != nil && strings.Contains(v, "@"):
		return "(not a URL)"
	case err != nil || u.User == nil:
		return v
	}
	if _, ok := u.User.Password(); !ok {
		u.User = url.User("xxxxx")
	}
	return u.Redacted()
}

// redactedArgs returns args, a command line of fs's flags (os.Args), as
// the admin API's /debug/pprof/cmdline shows it: the literal values of
// secretFlags as xxxxx, and the credentials of URLs redacted.
func redactedArgs(fs *flag.FlagSet, args []string) []string {
	out := slices.Clone(args)
	for i := 1; i < len(out); i++ {
		a := out[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			break // the flag package stops at the first non-flag
		}
		name, value, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !inline { // -name value, unless a bool flag
			f := fs.Lookup(name)
			if f == nil || isBoolFlag(f) || i+1 == len(out) {
				continue
			}
			i++
			value = out[i]
		}
		if secretFlags[name] && value != "" && !secret.IsFile(value) {
			value = "xxxxx"
		} else {
			value = redactedURL(name, value)
		}
		if inline {
			out[i] = a[:strings.Index(a, "=")+1] + value
		} else {
			out[i] = value
		}
	}
	return out
}

// problem reports a flag value that is not of the expected form: the
// flag, its environment twin, the value and what is wanted.
func problem(fs *flag.FlagSet, name, format string, args ...any) error {
	return fmt.Errorf("%s = %s: %s", flagRef(name), shown(name, fs.Lookup(name).Value.String()), fmt.Sprintf(format, args...))
}

// parseConfig validates every flag of fs (flag.CommandLine, whose values
// the package-level flag variables hold) without side effects: it reads
// the files named by file:// values and looks at -snapshot, and creates,
// loads and listens on nothing.
func parseConfig(fs *flag.FlagSet) (*config, []error) {
	var errs []error
	bad := func(name, format string, args ...any) { errs = append(errs, problem(fs, name, format, args...)) }
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true }) // on the command line or, through applyEnv, in the environment
	cfg := &config{}

	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected argument %q: catalogued takes flags only (a bool flag takes a value as -flag=false, not -flag false)", fs.Arg(0)))
	}

	// Where things are. A replica following the fleet (-origin) serves
	// the catalogue the store names and neither reads nor generates
	// -snapshot.
	checkFleet(cfg, bad)
	if *snapshotPath == "" {
		bad("snapshot", "want the path of a snapshot file")
	} else if cfg.origin == nil {
		gen, err := planSnapshot(*snapshotPath, given["snapshot"], *generate)
		if err != nil {
			errs = append(errs, err)
		}
		cfg.generateSnapshot = gen
	}
	if *stateDir == "" {
		bad("state", "want a directory (created when missing)")
	}

	checkLogFlags(bad)

	// Addresses and URLs: check reports flag name when its value v is not
	// valid, saying what is wanted; an empty value is left alone where
	// empty is true (it disables a listener or uses the default).
	check := func(name, v string, empty bool, valid func(string) error, want string) {
		if v == "" && empty {
			return
		}
		if err := valid(v); err != nil {
			bad(name, "want %s (%v)", want, err)
		}
	}
	listen := func(v string) error { return hostPort(v, false) }
	dial := func(v string) error { return hostPort(v, true) }
	check("listen", *listenAddr, false, listen, "a TCP address host:port to listen on, like 127.0.0.1:8080 or :8080")
	check("admin.listen", *adminListen, true, listen, "a TCP address host:port, like 127.0.0.1:8081, or empty to disable the admin API")
	check("mcp.listen", *mcpListen, true, listen, "a TCP address host:port, like 127.0.0.1:8090, or empty to disable the MCP server")
	check("mail.smtp", *mailSMTP, true, dial, "host:port of the SMTP relay, like smtp.example.com:587, or empty to write messages to -mail.outbox")
	check("dns.server", *dnsServer, true, dial, "host:port of a DNS server, like 192.0.2.53:53, or empty for the system resolver")
	url := func(example string) string { return "an absolute http(s) URL like " + example }
	check("http.publicURL", *publicURL, true, absoluteURL, url("https://api.example.com/v1"))
	check("mcp.publicURL", *mcpPublicURL, true, absoluteURL, url("https://agents.example.com/mcp"))
	check("upgrade.url", *upgradeURL, false, absoluteURL, url("https://example.com/pricing"))
	check("licensing.url", *licensingURL, false, absoluteURL, url("https://example.com/licensing"))
	check("x402.facilitator", *facilitatorURL, true, absoluteURL, url("https://x402.org/facilitator"))
	check("images.cdnBase", *cdnBase, true, absoluteURL, url("https://cdn.example.com/img"))
	if strings.HasSuffix(*cdnBase, "/") {
		bad("images.cdnBase", "want the base URL without a trailing slash, like https://cdn.example.com/img")
	}
	cfg.publicBase, cfg.mcpPublic = publicBase(), mcpPublic()

	// Durations.
	positive := func(name string, d time.Duration, example string) {
		if d <= 0 {
			bad(name, "want a positive duration, like %s", example)
		}
	}
	positive("http.readTimeout", *readTimeout, "10s")
	positive("http.writeTimeout", *writeTimeout, "10s")
	positive("http.idleTimeout", *idleTimeout, "60s")
	positive("http.drainTimeout", *drainTimeout, "30s")
	positive("metering.flushInterval", *meterFlush, "1s")
	positive("metering.maxLag", *meterMaxLag, "5s")
	positive("store.timeout", *storeTimeout, "50ms")
	if *cacheMaxAge < time.Second {
		bad("http.cacheMaxAge", "want a duration of at least 1s, like 1h (max-age is in whole seconds, and 0 would mean the default, 1h)")
	}
	if *meterFlush > 0 && *meterMaxLag > 0 && *meterMaxLag <= *meterFlush {
		bad("metering.maxLag", "want a duration longer than -metering.flushInterval (%s): keyed requests are refused whenever no flush has succeeded for -metering.maxLag", *meterFlush)
	}
	if *payTimeout < 10*time.Second || *payTimeout%time.Second != 0 {
		bad("x402.maxTimeout", "want whole seconds, at least 10s, like 60s")
	}
	if *settleTimeout < time.Second {
		bad("x402.settleTimeout", "want a duration of at least 1s, like 7s")
	} else if *writeTimeout > 0 && *settleTimeout >= *writeTimeout {
		bad("x402.settleTimeout", "want a duration shorter than -http.writeTimeout (%s), so that a payment of unknown outcome is still answered (504)", *writeTimeout)
	}

	// Counts.
	atLeast := func(name string, n, min int64, want string) {
		if n < min {
			bad(name, "want %s", want)
		}
	}
	atLeast("x402.perMinute", *paidPerMinute, 0, "a count of calls, 0 or more, like 60")
	atLeast("mcp.perMinute", *mcpPerMinute, 1, "a positive count of calls, like 60")
	atLeast("http.maxConns", int64(*maxConns), 0, "a count of connections, like 10000, or 0 to derive it from the open-file limit")
	atLeast("http.maxConnsPerClient", int64(*maxConnsPerClient), 0, "a count of connections, like 256, or 0 for no cap")
	atLeast("mcp.maxConns", int64(*mcpMaxConns), 0, "a count of connections, like 1024, or 0 for no cap")
	atLeast("http.maxHeaderBytes", int64(*maxHeaderBytes), 1, "a positive number of bytes, like 8192")

	// Limits of the plans.
	cfg.limits = map[access.Plan]access.Limits{}
	for _, l := range []struct {
		plan access.Plan
		name string
		v    string
	}{{access.PlanDemo, "limits.demo", *limitsDemo}, {access.PlanApify, "limits.apify", *limitsApify}, {access.PlanFree, "limits.free", *limitsFree}} {
		parsed, err := parseLimits(l.v)
		if err != nil {
			bad(l.name, "want three counts per minute, per day and per month, like %s (%v)", fs.Lookup(l.name).DefValue, err)
			continue
		}
		cfg.limits[l.plan] = parsed
	}

	// Networks.
	for _, c := range strings.Split(*trustedProxies, ",") {
		if c = strings.TrimSpace(c); c == "" {
			continue
		}
		p, err := netip.ParsePrefix(c)
		if err != nil {
			bad("http.trustedProxies", "want comma-separated CIDRs like 10.0.0.0/8,2001:db8::/32 (a single address is 192.0.2.1/32): %q is not one", c)
			continue
		}
		cfg.proxies = append(cfg.proxies, p)
	}
	if *proxyProtocol && *trustedProxies == "" {
		bad("http.proxyProtocol", "want -http.trustedProxies (%s) set too: PROXY headers are accepted only from the trusted proxies", envName("http.trustedProxies"))
	}

	// Mail.
	switch *mailStartTLS {
	case "required", "opportunistic", "off":
	default:
		bad("mail.starttls", "want required, opportunistic or off")
	}
	if _, err := netmail.ParseAddress(*mailFrom); err != nil {
		bad("mail.from", "want a sender address like keys@example.com or Name <keys@example.com> (%v)", err)
	}
	if *devMode && *mailSMTP != "" {
		bad("mail.smtp", "want it empty with -dev (%s): local mode writes key emails to -mail.outbox and prints the links, it sends no real mail", envName("dev"))
	}
	if *mailSMTP != "" { // the password is used only with a relay
		p, err := secret.Read(*mailPassword)
		if err != nil {
			bad("mail.password", "want a password, literal or file://PATH of a readable file (%v)", err)
		}
		cfg.mailPassword = p
	}

	// Secrets.
	if *idsSecret != "" {
		s, err := publicid.LoadSecret(*idsSecret)
		if err != nil {
			bad("ids.secret", "want at least %d bytes, literal or file://PATH, or empty to keep one in -state (%v)", publicid.SecretSize, err)
		}
		cfg.secret = s
	}
	if *adminListen != "" && *adminTokenFlag != "" { // the token is used only with the admin API
		tok, err := secret.Read(*adminTokenFlag)
		switch {
		case err != nil:
			bad("admin.token", "want at least 16 characters, literal or file://PATH of a readable file (%v)", err)
		case len(tok) < 16:
			bad("admin.token", "want at least 16 characters, literal or file://PATH, or empty to keep one in -state (it has %d)", len(tok))
		}
	}

	// Payments.
	if _, err := eip3009.ParseAddress(*payTo); err != nil {
		bad("x402.payTo", "want an EVM address, 0x and 40 hex digits (%v)", err)
	}
	if chain, ok := strings.CutPrefix(*payNetwork, "eip155:"); !ok || !isChainID(chain) {
		bad("x402.network", "want a CAIP-2 EVM network eip155:<chain id>, like %s (Base) or %s (Base Sepolia)", x402.NetworkBase, x402.NetworkBaseSepolia)
	} else if *payAsset == "" && *payNetwork != x402.NetworkBase && *payNetwork != x402.NetworkBaseSepolia && !*paymentsOff {
		bad("x402.network", "want -x402.asset (%s) set too: only %s and %s have a known USDC", envName("x402.asset"), x402.NetworkBase, x402.NetworkBaseSepolia)
	}
	if *payAsset != "" {
		parts := strings.Split(*payAsset, ",")
		_, err := eip3009.ParseAddress(strings.TrimSpace(parts[0]))
		switch {
		case len(parts) != 3 || strings.TrimSpace(parts[1]) == "" || strings.TrimSpace(parts[2]) == "":
			bad("x402.asset", "want ADDRESS,NAME,VERSION: the token contract and its EIP-712 name and version, like 0x036CbD53842c5426634e7929541eC2318f3dCF7e,USDC,2")
		case err != nil:
			bad("x402.asset", "want ADDRESS,NAME,VERSION whose ADDRESS is an EVM address, 0x and 40 hex digits (%v)", err)
		default:
			cfg.asset, cfg.assetName, cfg.assetVersion = strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])
		}
	}
	if *facilitatorAuth != "" {
		h, err := secret.Read(*facilitatorAuth)
		name, _, ok := strings.Cut(h, ":")
		switch {
		case err != nil:
			bad("x402.facilitatorAuth", "want a header 'Name: value', literal or file://PATH of a readable file (%v)", err)
		case !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(strings.TrimSpace(name), " \t\r\n"):
			bad("x402.facilitatorAuth", "want a header 'Name: value', like 'Authorization: Bearer TOKEN'")
		}
		cfg.facilitatorAuth = h
	}
	return cfg, errs
}

// checkFleet parses -store, -origin and the rollout's flags into cfg.
func checkFleet(cfg *config, bad func(name, format string, args ...any)) {
	if *storeURL != "" {
		co, err := redisstore.ClientOption(*storeURL)
		if err != nil {
			bad("store", "%v", err)
		} else {
			cfg.store = &storeConfig{URL: *storeURL, Client: co}
		}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
		eg   string
	}{{"origin.connectTimeout", *originConnect, "10s"}, {"origin.headerTimeout", *originHeader, "30s"}, {"origin.idleTimeout", *originIdle, "30s"}} {
		if d.v <= 0 {
			bad(d.name, "want a positive duration, like %s", d.eg)
		}
	}
	if *originFlag != "" {
		o, err := rollout.ParseOrigin(*originFlag, rollout.HTTPOptions{ConnectTimeout: *originConnect, HeaderTimeout: *originHeader,
			IdleTimeout: *originIdle, RedirectHosts: cliflag.List(*originRedirects)})
		switch {
		case err != nil:
			bad("origin", "want a directory or an http(s) URL the snapshots are under, like /srv/snapshots or https://cdn.example.com/snapshots (%v)", err)
		case *storeURL == "":
			bad("origin", "want -store (%s) set too: the fleet's current catalogue is kept there", envName("store"))
		default:
			cfg.origin = o
		}
	}
	if *rolloutPoll <= 0 {
		bad("rollout.poll", "want a positive duration, like 5s")
	}
}

// planSnapshot decides what startup does about the snapshot at path: when
// the file exists, nothing; when it is missing, generate the default
// catalogue there if the path is the default one (explicit false: neither
// -snapshot nor CATALOGUED_SNAPSHOT was given) or generation was asked for
// with -generate; otherwise it is an error saying how to make one.
func planSnapshot(path string, explicit, generate bool) (bool, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return false, fmt.Errorf("%s = %q: is a directory, want a snapshot file", flagRef("snapshot"), path)
	case err == nil:
		return false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("%s = %q: %v", flagRef("snapshot"), path, err)
	case !explicit || generate:
		return true, nil
	}
	return false, fmt.Errorf("%s = %q: no such snapshot file. Write one with `catalogue gen -o %s` (go run ./cmd/catalogue gen -o PATH), "+
		"or add -generate (%s=true) to generate the default catalogue there at startup; only the default path, %s, is generated without asking",
		flagRef("snapshot"), path, path, envName("generate"), defaultSnapshot)
}

// hostPort checks a TCP address: host:port with a numeric port; dial
// addresses (a server to connect to) need a host and a port other than 0.
func hostPort(addr string, dial bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	if dial && (host == "" || n == 0) {
		return errors.New("a host and a port are required")
	}
	return nil
}

// absoluteURL checks an absolute http or https URL with a host.
func absoluteURL(v string) error {
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return err
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("the scheme must be http or https")
	case u.Host == "":
		return errors.New("no host")
	}
	return nil
}

// isChainID reports a decimal chain id above 0.
func isChainID(s string) bool {
	id, err := strconv.ParseUint(s, 10, 64)
	return err == nil && id > 0
}

// explainParseErrors wraps the values of fs's bool, number and duration
// flags so that a value that does not parse says what is expected, on the
// command line and in the environment alike: the flag package says only
// "parse error". Call it after the flags are defined and before parsing.
func explainParseErrors(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		switch g.Get().(type) {
		case bool:
			f.Value = explainedBool{explained{g, "want true or false"}}
		case time.Duration:
			f.Value = explained{g, "want a duration with a unit, like 10s, 500ms or 1m30s"}
		case int, int64, uint, uint64:
			f.Value = explained{g, "want a whole number"}
		case float64:
			f.Value = explained{g, "want a number"}
		}
	})
}

// explained is a flag value whose parse error says what is expected.
type explained struct {
	flag.Getter
	want string
}

func (v explained) Set(s string) error {
	previous := v.String()
	err := v.Getter.Set(s)
	if err == nil {
		return nil
	}
	v.Getter.Set(previous) // the flag package stores a zero on error: keep the value as it was
	if _, ok := v.Get().(time.Duration); ok {
		if _, perr := time.ParseDuration(s); perr != nil { // it names the problem, like a missing unit
			return fmt.Errorf("%s (%v)", v.want, perr)
		}
	}
	if err.Error() == "value out of range" {
		return fmt.Errorf("%s (out of range)", v.want)
	}
	return errors.New(v.want)
}

// isBoolFlag reports whether f takes no value: -flag alone means true.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// explainedBool is an explained bool flag: -flag alone means true.
type explainedBool struct{ explained }

func (explainedBool) IsBoolFlag() bool { return true }
