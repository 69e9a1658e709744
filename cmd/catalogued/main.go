// Command catalogued serves the vehicle catalogue API.
//
// It checks every flag and environment value first, and when one is wrong
// exits with status 2 naming them all, before anything is generated,
// loaded or created. Then it loads the snapshot (generating the default
// catalogue first when the default path does not exist, or any path with
// -generate), serves /v1 over HTTP, reloads the snapshot on SIGHUP without
// dropping a request, and on SIGTERM or SIGINT stops accepting, drains the
// requests in flight and exits. Each step logs how long it took.
//
// Every flag has an environment-variable twin: -snapshot is also
// CATALOGUED_SNAPSHOT, -http.readTimeout is CATALOGUED_HTTP_READTIMEOUT.
// A flag given on the command line wins over the environment.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/cmd/internal/cliflag"
	"github.com/vspec/catalogue/engine"
	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/admin"
	"github.com/vspec/catalogue/httpd/buildinfo"
	"github.com/vspec/catalogue/httpd/hostguard"
	"github.com/vspec/catalogue/httpd/keyflow"
	"github.com/vspec/catalogue/httpd/keyflow/mail"
	"github.com/vspec/catalogue/httpd/mcp"
	"github.com/vspec/catalogue/httpd/observe"
	"github.com/vspec/catalogue/httpd/publicid"
	"github.com/vspec/catalogue/httpd/x402"
	"github.com/vspec/catalogue/loader"
	"github.com/vspec/catalogue/loader/rollout"
)

var (
	listenAddr   = flag.String("listen", ":8080", "TCP address to serve the API on, e.g. 127.0.0.1:8080 or :8080")
	snapshotPath = flag.String("snapshot", defaultSnapshot, "catalogue snapshot to serve; SIGHUP reloads it. When the default path does not exist, the default catalogue (seed 1, 103,372 variants) is generated there first; another path that does not exist is an error unless -generate is set. See also: catalogue gen")
	generate     = flag.Bool("generate", false, "generate the default catalogue at -snapshot when that file does not exist, whatever the path (without it only the default path is generated)")
	stateDir     = flag.String("state", "state", "directory of the service's durable state: API keys and usage (access.db), payments (payments.db), the token secret, the admin token; created when missing. With -store the access state and the token secret are in Redis instead")

	idsSecret       = flag.String("ids.secret", "", "secret of the public id tokens and cursors: at least 32 bytes, literal or file://PATH; empty uses <state>/token.secret, or with -store the fleet's secret in Redis, created once and kept. Changing it changes every token")
	readTimeout     = flag.Duration("http.readTimeout", 10*time.Second, "maximum duration for reading a whole request, including the body")
	writeTimeout    = flag.Duration("http.writeTimeout", 10*time.Second, "maximum duration for writing a response")
	idleTimeout     = flag.Duration("http.idleTimeout", 60*time.Second, "keep-alive connections idle for longer are closed")
	drainTimeout    = flag.Duration("http.drainTimeout", 30*time.Second, "on SIGTERM, how long requests in flight may take to finish before the process exits anyway")
	cacheMaxAge     = flag.Duration("http.cacheMaxAge", time.Hour, "max-age of Cache-Control on catalogue responses (rounded to seconds); clients revalidate with If-None-Match afterwards")
	compressedCache = flag.Int64("http.compressedCacheBytes", 64<<20, "memory for compressed response bodies (gzip, br, zstd), in bytes; negative disables the cache. See also -http.bodyCacheBytes")
	bodyCache       = flag.Int64("http.bodyCacheBytes", 256<<20, "memory for rendered bodies (a variant, its specs, images and prices, the pages of the finite lists: brands, models, generations, a generation's variants, the spec dictionary), in bytes; negative disables the cache")
	searchCache     = flag.Int64("http.searchCacheBytes", 32<<20, "memory for the first pages of recent searches (matches, not bodies), in bytes; negative disables the cache")
	cdnBase         = flag.String("images.cdnBase", "", "base URL of image URLs, without a trailing slash; empty uses the one recorded in the snapshot")
	licensingURL    = flag.String("licensing.url", "https://vspec.example/licensing", "where GET /v1/export points buyers of licensed exports")
	upgradeURL      = flag.String("upgrade.url", "https://vspec.example/pricing", "the upgrade path 403 responses give")
	limitsDemo      = flag.String("limits.demo", "10,2000,20000", "calls a demo key may make per minute, per day and per month (UTC calendar windows), comma-separated")
	limitsApify     = flag.String("limits.apify", "120,10000,100000", "calls an apify key may make per minute, per day and per month, comma-separated")
	limitsFree      = flag.String("limits.free", "20,200,1000", "calls a legacy free key may make per minute, per day and per month, comma-separated")
	meterFlush      = flag.Duration("metering.flushInterval", time.Second, "how often usage counters are written to the state directory; a crash loses at most this much counting")
	meterMaxLag     = flag.Duration("metering.maxLag", 5*time.Second, "when no usage flush has succeeded for this long, keyed requests are refused with 503 (fail closed)")
	publicURL       = flag.String("http.publicURL", "", "public URL of the API, ending in /v1, used in activation links and keys' start_here; empty derives http://<listen>/v1")
	trustedProxies  = flag.String("http.trustedProxies", "", "comma-separated CIDRs of reverse proxies whose X-Forwarded-For is believed for per-network limits; empty trusts none")
	mailSMTP        = flag.String("mail.smtp", "", "host:port of the SMTP relay for activation links and key copies; empty writes each message to -mail.outbox instead")
	mailFrom        = flag.String("mail.from", "Vehicle catalogue API <keys@vspec.example>", "sender of the key emails")
	mailUser        = flag.String("mail.username", "", "SMTP AUTH user name; empty sends without AUTH")
	mailPassword    = flag.String("mail.password", "", "SMTP AUTH password, literal or file://PATH")
	mailStartTLS    = flag.String("mail.starttls", "opportunistic", "STARTTLS with the relay: required, opportunistic or off")
	mailOutbox      = flag.String("mail.outbox", "", "directory where messages are written as .eml files when -mail.smtp is empty; default <state>/outbox")
	dnsServer       = flag.String("dns.server", "", "host:port of the DNS server for the mail-exchanger check of key requests; empty uses the system resolver. See also -dev")
	devMode         = flag.Bool("dev", false, "local mode for a development machine: demo-key requests skip the mail-exchanger check (a warning is logged for each), key emails go to -mail.outbox (so -mail.smtp must be empty) and each activation link is printed on standard output with the command that confirms it. Never in production: any address at any domain passes")
	printOpenAPI    = flag.Bool("openapi.print", false, "write the OpenAPI document of the loaded snapshot to standard output and exit (for linters and client generators)")
	adminListen     = flag.String("admin.listen", "127.0.0.1:8081", "loopback address of the admin API (keys, reload); empty disables it. See also -admin.token")
	payTo           = flag.String("x402.payTo", defaultPayTo, "address that keyless per-request payments (x402) are paid to; the default is a placeholder: set your own before taking real payments")
	payNetwork      = flag.String("x402.network", x402.NetworkBase, "CAIP-2 EVM network of x402 payments: eip155:8453 (Base) or eip155:84532 (Base Sepolia) use their USDC; others need -x402.asset")
	payAsset        = flag.String("x402.asset", "", "token contract of x402 payments, name and EIP-712 version as ADDRESS,NAME,VERSION; empty uses the network's USDC")
	payTimeout      = flag.Duration("x402.maxTimeout", time.Minute, "maxTimeoutSeconds offered with x402 payments: how long a payment may take")
	facilitatorURL  = flag.String("x402.facilitator", "", "base URL of the x402 facilitator that verifies and settles payments (e.g. https://x402.org/facilitator); empty uses the built-in local facilitator, which checks signatures and records receipts in <state>/payments.db but settles nothing on any chain")
	facilitatorAuth = flag.String("x402.facilitatorAuth", "", "header sent to the facilitator, as 'Name: value' (literal or file://PATH), e.g. 'Authorization: Bearer …'")
	paidPerMinute   = flag.Int64("x402.perMinute", 60, "keyless paid calls allowed per network per minute; 429 above it")
	settleTimeout   = flag.Duration("x402.settleTimeout", x402.DefaultSettleTimeout, "longest a paid call waits for the facilitator to settle before answering 504 with a payment reference (the payment is then recorded as unsettled-unknown; see catalogue payments); -http.writeTimeout minus 1s bounds it anyway")
	paymentsOff     = flag.Bool("x402.disable", false, "take no per-request payments: keyless calls to the payable operations get 401 like other keyed routes")
	adminTokenFlag  = flag.String("admin.token", "", "bearer token of the admin API, at least 16 characters, literal or file://PATH; empty uses <state>/admin.token, created once")
	adminHosts      = flag.String("admin.allowedHosts", "", "comma-separated Host values the admin API answers to (name, or name:port); empty allows localhost, 127.0.0.1, [::1] and the host of -admin.listen. Others, and browser Origins of other hosts, get 403 whatever the token (DNS-rebinding protection)")
	bootstrapKeys   = flag.Bool("keys.bootstrap", true, "when the key store is empty at start, create one demo key and one full-catalogue (apify) key and print them once with a curl line to try; false creates none")
	showVersion     = flag.Bool("version", false, "print the build (module version, VCS revision and time, Go version) and exit")
	adminDeprecated = flag.Bool("admin.allowDeprecated", false, "let the admin API create keys of the deprecated free plan (only to migrate a key granted by hand); without it such requests get 422")
)

// Flags of the agent tool surface (httpd/mcp).
var (
	mcpListen            = flag.String("mcp.listen", "127.0.0.1:8090", "TCP address of the MCP server (the agent tool surface: Streamable HTTP at /mcp, beside the REST API); empty disables it. See also -mcp.publicURL")
	mcpPublicURL         = flag.String("mcp.publicURL", "", "public URL of the MCP endpoint, e.g. https://agents.example.com/mcp, named in the protected-resource metadata and allowed as Host; empty derives http://<mcp.listen>/mcp")
	mcpAllowedHosts      = flag.String("mcp.allowedHosts", "", "comma-separated Host values the MCP server answers to (name, or name:port); empty allows the host of -mcp.publicURL, localhost, 127.0.0.1 and [::1]. Others get 403 (DNS-rebinding protection)")
	mcpAllowedOrigins    = flag.String("mcp.allowedOrigins", "", "comma-separated browser origins allowed to call the MCP server (https://app.example.com, or a host name for any scheme and port); empty allows the allowed hosts. A request with another Origin gets 403")
	mcpPerMinute         = flag.Int64("mcp.perMinute", 60, "MCP tool calls without an API key allowed per network per minute, paid or not; 429 above it")
	mcpRequestsPerMinute = flag.Int64("mcp.requestsPerMinute", 0, "MCP requests of any kind without an API key (initialize, tools/list, ping, calls) allowed per network per minute; 429 above it. 0: 10 times -mcp.perMinute")
)

// defaultSnapshot is -snapshot's default, the one path generated without
// -generate when it does not exist.
const defaultSnapshot = "data/snapshots/catalogue.snap"

func main() {
	flag.Usage = usage
	explainParseErrors(flag.CommandLine)
	flag.Parse()
	if *showVersion {
		fmt.Println(buildinfo.Read().Line("catalogued"))
		return
	}
	cfg, err := configure(flag.CommandLine)
	if err != nil {
		n := len(err.(interface{ Unwrap() []error }).Unwrap())
		fmt.Fprintf(os.Stderr, "catalogued: not started, %d %s in the flags and environment:\n  %s\nRun catalogued -help for every flag, its environment twin and its default.\n",
			n, map[bool]string{true: "problem", false: "problems"}[n == 1], strings.ReplaceAll(err.Error(), "\n", "\n  "))
		os.Exit(2)
	}
	obs, logs := startLogging()
	if err := run(cfg, obs); err != nil {
		log.Fatal(err) // through logs: the pending access lines come first
	}
	logs.Close()
}

// run starts the service from a validated configuration and returns when
// it has stopped.
func run(cfg *config, obs *observe.Observer) error {
	start := time.Now()
	// Take the signals before anything else: SIGHUP's default action kills
	// the process, so one arriving during startup must be queued, not fatal.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	if err := os.MkdirAll(*stateDir, 0o700); err != nil {
		return fmt.Errorf("cannot create state directory: %w", err)
	}
	apiMaxConns, err := connectionCaps()
	if err != nil {
		return err
	}
	// The access state opens first: with -store an unreachable Redis is a
	// clear error before minutes of loading, and the token secret may be
	// the fleet's, kept there.
	st, err := openAccessState(cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	secret, err := st.tokenSecret(cfg)
	if err != nil {
		return err
	}
	// The admin token too is read (or created) before anything is loaded
	// or served: a token file that holds none stops the start at once.
	var adminToken []byte
	if *adminListen != "" && !*printOpenAPI {
		if adminToken, err = admin.LoadOrCreateToken(*adminTokenFlag, *stateDir); err != nil {
			return err
		}
	}
	// The API listener opens first and answers 503 (with /livez alive and
	// /readyz not ready) while the catalogue is generated and loaded, so
	// orchestrators see a live process and clients a clear answer.
	var current atomic.Pointer[fasthttp.RequestHandler]
	setHandler := func(h fasthttp.RequestHandler) { current.Store(&h) }
	what := "loading the catalogue"
	switch {
	case cfg.origin != nil:
		what = "fetching the fleet's current catalogue from " + cfg.origin.String()
	case cfg.generateSnapshot:
		what = "generating the default catalogue, then loading it"
	}
	setHandler(httpd.Starting(what, start, obs))
	srv := httpd.NewServer(httpd.Options{ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout, IdleTimeout: *idleTimeout, MaxHeaderBytes: *maxHeaderBytes, Observer: obs},
		func(ctx *fasthttp.RequestCtx) { (*current.Load())(ctx) })
	serveErr := make(chan error, 2)
	var ln net.Listener
	if !*printOpenAPI {
		if ln, err = listen(listenerPlan{name: "API", addr: *listenAddr, maxConns: apiMaxConns, perClient: *maxConnsPerClient, proxies: cfg.proxies, proxyProtocol: *proxyProtocol}); err != nil {
			return err
		}
		go func() { serveErr <- srv.Serve(ln) }()
		log.Printf("listening on http://%s: 503 with Retry-After until the catalogue is ready (/livez alive, /readyz not ready)", ln.Addr())
	}
	if cfg.generateSnapshot {
		log.Printf("no snapshot at %s: generating the default catalogue there first", *snapshotPath)
		generated, err := loader.EnsureFile(*snapshotPath)
		if err != nil {
			return err
		}
		if generated {
			log.Printf("generated the default catalogue at %s in %s", *snapshotPath, time.Since(start).Round(time.Millisecond))
		}
	}
	t := time.Now()
	var cat *engine.Catalogue
	var fleet *rollout.Follower
	if cfg.origin != nil {
		f, closeFleet, err := follower(cfg, obs)
		if err != nil {
			return err
		}
		defer closeFleet()
		if cat = firstFleetCatalogue(f); cat == nil {
			log.Printf("stopped before the fleet's catalogue was loaded")
			return nil
		}
		fleet = f
	} else if cat, err = loader.Load(*snapshotPath); err != nil {
		return err
	}
	_, _, _, variants := cat.Counts()
	log.Printf("loaded snapshot %s (identity %s, sha256 %s, %d variants) in %s", source(cat), cat.Meta.Identity, cat.Meta.ContentHash, variants, time.Since(t).Round(time.Millisecond))
	codec, err := publicid.New(secret)
	if err != nil {
		return err
	}
	keys, meter := st.keys, st.meter
	// -openapi.print writes the document alone on standard output (linters
	// and generators read it): no keys are made or printed.
	if *bootstrapKeys && !*printOpenAPI {
		first, err := st.bootstrap()
		if err != nil {
			return err
		}
		if first {
			if err := firstKeys(keys, cfg.publicBase, os.Stdout); err != nil {
				return err
			}
		}
	}
	proxies := cfg.proxies
	flow, err := keyFlow(cfg, keys)
	if err != nil {
		return err
	}
	payments, closePayments, err := paymentGate(cfg, st)
	if err != nil {
		return err
	}
	defer closePayments()
	svc, err := httpd.New(cat, httpd.Options{
		KeyFlow: flow, TrustedProxies: proxies, PublicURL: cfg.publicBase, AgentURL: cfg.mcpPublic,
		Payments: payments, PaidLimiter: keys.NetworkLimiter("paid", *paidPerMinute),
		Codec: codec, Keys: keys, Meter: meter, StoreReachable: st.reachable(), Limits: cfg.limits, ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout, IdleTimeout: *idleTimeout, MaxHeaderBytes: *maxHeaderBytes,
		MaxAge: *cacheMaxAge, CompressedCacheBytes: *compressedCache, BodyCacheBytes: *bodyCache, SearchCacheBytes: *searchCache, CDNBase: *cdnBase,
		LicensingURL: *licensingURL, UpgradeURL: *upgradeURL, Observer: obs,
	})
	if err != nil {
		return err
	}
	if *printOpenAPI {
		return json.NewEncoder(os.Stdout).Encode(svc.Description())
	}
	metrics := registerServerMetrics(obs, svc.Catalogue, meter, st.reachable())
	install := installer(svc.Catalogue, svc.Install) // and give the replaced catalogue's memory back
	reloader := &loader.Reloader{Path: *snapshotPath, Install: install}
	reload := coalesce(func() {
		if fleet != nil { // the fleet's pointer decides what is served
			log.Printf("SIGHUP: reading the fleet's current catalogue now (serving %s)", fleet.Current())
			fleet.Check()
			return
		}
		log.Printf("SIGHUP: reloading %s", *snapshotPath)
		id, took, err := reloader.Reload()
		if err != nil {
			metrics.reloadsRefused()
			_, failures, _ := reloader.Stats()
			log.Printf("reload refused, still serving the previous catalogue (%d refused so far): %v", failures, err)
			return
		}
		metrics.reloadsOK()
		log.Printf("reloaded snapshot %s (identity %s) in %s", *snapshotPath, id, took.Round(time.Millisecond))
	})

	setHandler(svc.Handler())
	log.Printf("serving http://%s/v1 (started in %s)", ln.Addr(), time.Since(start).Round(time.Millisecond))
	if fleet != nil {
		ctx, stopFleet := context.WithCancel(context.Background())
		defer stopFleet()
		go fleet.Run(ctx, install)
	}

	if *adminListen != "" {
		aln, err := listen(listenerPlan{name: "admin API", addr: *adminListen, maxConns: adminMaxConns, perClient: adminMaxConnsPerClient})
		if err != nil {
			return err
		}
		if ip := aln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
			log.Printf("warning: the admin API listens on %s, which is not a loopback address", aln.Addr())
		}
		guard, hosts := adminGuard()
		adminSrv := &http.Server{Handler: &admin.Handler{Keys: keys, Token: adminToken, Guard: guard, Cmdline: redactedArgs(flag.CommandLine, os.Args),
			Metrics: obs.WriteMetrics, AllowDeprecated: *adminDeprecated, Reload: func() (string, error) {
				if fleet != nil {
					return "", fmt.Errorf("this replica serves the fleet's catalogue (-origin): roll one out with catalogue publish")
				}
				id, _, err := reloader.Reload()
				if err != nil {
					metrics.reloadsRefused()
				} else {
					metrics.reloadsOK()
				}
				return id, err
			}}, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout, IdleTimeout: *idleTimeout, MaxHeaderBytes: *maxHeaderBytes}
		go func() { serveErr <- adminSrv.Serve(aln) }()
		defer adminSrv.Close()
		log.Printf("admin API on http://%s/admin (token in %s unless -admin.token is set; answers to the hosts %s)", aln.Addr(), filepath.Join(*stateDir, admin.TokenFile), strings.Join(hosts, ", "))
	}

	stopMCP, err := startMCP(svc, keys, obs, cfg.mcpPublic, proxies, serveErr)
	if err != nil {
		return err
	}

	for {
		select {
		case err := <-serveErr:
			return fmt.Errorf("HTTP server stopped: %w", err)
		case sig := <-signals:
			if sig == syscall.SIGHUP {
				// Load in the background: requests keep being served from
				// the current catalogue until the new one is ready. Signals
				// during a reload are folded into one more.
				reload()
				continue
			}
			log.Printf("received %s: draining requests in flight (at most %s)", sig, *drainTimeout)
			svc.SetDraining()
			t := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), *drainTimeout)
			if err := stopMCP(ctx); err != nil {
				log.Printf("MCP drain incomplete: %v", err)
			}
			err := srv.ShutdownWithContext(ctx)
			cancel()
			if err != nil {
				return fmt.Errorf("drain incomplete after %s: %w", time.Since(t).Round(time.Millisecond), err)
			}
			log.Printf("stopped in %s", time.Since(t).Round(time.Millisecond))
			return nil
		}
	}
}

// adminGuard returns the Host and Origin check of the admin API and the
// hosts it allows: -admin.allowedHosts, or the loopback names and the host
// -admin.listen names (unless it is a wildcard, 0.0.0.0 or ::); browser
// origins of the same names.
func adminGuard() (*hostguard.Guard, []string) {
	hosts := cliflag.List(*adminHosts)
	if len(hosts) == 0 {
		hosts = slices.Clone(hostguard.LoopbackHosts)
		if h, _, err := net.SplitHostPort(*adminListen); err == nil && h != "" {
			if ip, err := netip.ParseAddr(h); err != nil || !ip.IsUnspecified() {
				if ip.Is6() {
					h = "[" + h + "]"
				}
				if !slices.Contains(hosts, h) {
					hosts = append(hosts, h)
				}
			}
		}
	}
	return hostguard.New(hosts, hostguard.Names(hosts)), hosts
}

// follower returns the follower of the fleet's catalogue that -store and
// -origin name, fetching into -rollout.dir, and what closes its
// connections.
func follower(cfg *config, obs *observe.Observer) (*rollout.Follower, func(), error) {
	dir := *rolloutDir
	if dir == "" {
		dir = filepath.Join(*stateDir, "snapshots")
	}
	pointer := rollout.NewRedis(cfg.store.Client, 0)
	f, err := rollout.New(rollout.Options{Pointer: pointer, Origin: cfg.origin, Dir: dir, Poll: *rolloutPoll,
		Installed: func(string, time.Duration) { obs.Counter(`catalogue_rollouts_total{result="installed"}`).Inc() },
		Refused:   func(string, error) { obs.Counter(`catalogue_rollouts_total{result="refused"}`).Inc() }})
	if err != nil {
		pointer.Close()
		return nil, nil, err
	}
	log.Printf("following the fleet's catalogue in %s (key %s, channel %s; polled every %s), fetched from %s into %s",
		pointer, rollout.DefaultKey, rollout.DefaultChannel, *rolloutPoll, cfg.origin, dir)
	return f, pointer.Close, nil
}

// firstFleetCatalogue waits for the fleet's current catalogue; SIGTERM or
// SIGINT meanwhile stops the wait, and it returns nil (the process exits).
func firstFleetCatalogue(f *rollout.Follower) *engine.Catalogue {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	c, _ := f.First(ctx) // it fails only when ctx ends
	return c
}

// source names where a catalogue came from, for the log.
func source(c *engine.Catalogue) string {
	if *originFlag != "" {
		return "of the fleet " + rollout.ObjectName(c.Meta.ContentHash)
	}
	return *snapshotPath
}

// keyFlow builds the demo key flow from the flags.
func keyFlow(cfg *config, keys access.Backend) (*keyflow.Flow, error) {
	disposable, err := keyflow.LoadDisposable()
	if err != nil {
		return nil, fmt.Errorf("cannot load the disposable domain list: %w", err)
	}
	if *devMode {
		slog.Warn("local mode (-dev): demo-key requests skip the mail-exchanger check and activation links are printed on standard output; do not run a public server so")
	}
	var sender mail.Sender
	if *mailSMTP != "" {
		sender = &mail.SMTP{Addr: *mailSMTP, Username: *mailUser, Password: cfg.mailPassword, StartTLS: *mailStartTLS}
	} else {
		dir := *mailOutbox
		if dir == "" {
			dir = filepath.Join(*stateDir, "outbox")
		}
		sender = &mail.Outbox{Dir: dir}
		log.Printf("no -mail.smtp: key emails are written to %s", dir)
	}
	return keyflow.New(keyflow.Config{Keys: keys, Mailer: sender, DNSServer: *dnsServer, Dev: *devMode, Disposable: disposable,
		BaseURL: cfg.publicBase, UpgradeURL: *upgradeURL, From: *mailFrom}), nil
}

// publicBase returns -http.publicURL, or the URL derived from -listen.
func publicBase() string {
	if *publicURL != "" {
		return strings.TrimSuffix(*publicURL, "/")
	}
	host := *listenAddr
	if strings.HasPrefix(host, ":") {
		host = "localhost" + host
	}
	return "http://" + host + "/v1"
}

// defaultPayTo is a placeholder recipient for running on the defaults: the
// built-in facilitator settles nothing, so nothing is ever paid to it.
const defaultPayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// paymentGate builds the x402 gate from the flags, and what closes it.
func paymentGate(cfg *config, st *accessState) (*x402.Gate, func(), error) {
	if *paymentsOff {
		return nil, func() {}, nil
	}
	store, where, closeStore, err := st.payments()
	if err != nil {
		return nil, nil, err
	}
	gcfg := x402.Config{PayTo: *payTo, Network: *payNetwork, MaxTimeout: *payTimeout, SettleTimeout: *settleTimeout, Nonces: store,
		Asset: cfg.asset, AssetName: cfg.assetName, AssetVersion: cfg.assetVersion}
	if *facilitatorURL == "" {
		gcfg.Facilitator = &x402.Local{Store: store, MaxTimeout: *payTimeout}
		log.Printf("x402: no -x402.facilitator: the built-in local facilitator checks signatures (not funds) and records receipts in %s; nothing is settled on any chain, so paid calls cost nothing real. Set -x402.facilitator in production", where)
	} else {
		gcfg.Facilitator = &x402.HTTPFacilitator{URL: *facilitatorURL, AuthHeader: cfg.facilitatorAuth}
		log.Printf("x402: payments verified and settled by %s", *facilitatorURL)
	}
	if *payTo == defaultPayTo {
		log.Printf("x402: -x402.payTo is the placeholder %s: set your own address before taking real payments", defaultPayTo)
	}
	gate, err := x402.New(gcfg)
	if err != nil {
		closeStore()
		return nil, nil, err
	}
	return gate, closeStore, nil
}

// parseLimits parses "PER_MINUTE,PER_DAY,PER_MONTH".
func parseLimits(v string) (access.Limits, error) {
	var l access.Limits
	parts := strings.Split(v, ",")
	if len(parts) != 3 {
		return l, errors.New("not three comma-separated values")
	}
	for i, p := range parts {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || n < 0 {
			return l, fmt.Errorf("%q is not a count", p)
		}
		l[i] = n
	}
	return l, nil
}

// applyEnv sets every flag not given on the command line from its
// environment twin CATALOGUED_<NAME>, dots and dashes becoming underscores.
// It returns a problem for each value that does not parse.
func applyEnv(fs *flag.FlagSet) []error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] {
			return
		}
		if v, ok := os.LookupEnv(envName(f.Name)); ok {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s = %s: %w", flagRef(f.Name), shown(f.Name, v), err))
			}
		}
	})
	return errs
}

func envName(flagName string) string {
	return "CATALOGUED_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(flagName))
}

func usage() {
	fmt.Fprintf(os.Stderr, "usage: catalogued [flags]\n\nServes the vehicle catalogue API. Flags (environment twin in brackets):\n\n")
	flag.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(os.Stderr, "  -%s (%s, default %q)\n    \t%s\n", f.Name, envName(f.Name), f.DefValue, f.Usage)
	})
}

// mcpPublic returns the public URL of the MCP endpoint: -mcp.publicURL,
// or the one derived from -mcp.listen; "" when the surface is off.
func mcpPublic() string {
	switch {
	case *mcpListen == "":
		return ""
	case *mcpPublicURL != "":
		return *mcpPublicURL
	}
	host := *mcpListen
	if strings.HasPrefix(host, ":") {
		host = "localhost" + host
	}
	return "http://" + host + mcp.Path
}

// startMCP serves the agent tool surface on -mcp.listen, beside the REST
// API and over the same service, with public as its public URL; an
// unexpected stop is reported on serveErr. It returns what drains it.
func startMCP(svc *httpd.Service, keys access.Backend, obs *observe.Observer, public string, proxies []netip.Prefix, serveErr chan<- error) (func(context.Context) error, error) {
	if *mcpListen == "" {
		return func(context.Context) error { return nil }, nil
	}
	tools, err := mcp.New(svc, mcp.Options{PublicURL: public, AllowedHosts: cliflag.List(*mcpAllowedHosts), AllowedOrigins: cliflag.List(*mcpAllowedOrigins),
		TrustedProxies: proxies, AnonymousPerMinute: *mcpPerMinute, AnonymousRequestsPerMinute: *mcpRequestsPerMinute,
		Networks: keys.NetworkLimiter, Observer: obs})
	if err != nil {
		return nil, err
	}
	// The MCP responses name the catalogue being served, as REST's do.
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Catalogue-Version", svc.Catalogue().Meta.ContentHash)
		tools.ServeHTTP(w, r)
	})
	ln, err := listen(listenerPlan{name: "MCP server", addr: *mcpListen, maxConns: *mcpMaxConns, perClient: *maxConnsPerClient, proxies: proxies, proxyProtocol: *proxyProtocol})
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout, IdleTimeout: *idleTimeout, MaxHeaderBytes: *maxHeaderBytes}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			serveErr <- fmt.Errorf("MCP server: %w", err)
		}
	}()
	log.Printf("serving MCP at http://%s%s (public URL %s)", ln.Addr(), mcp.Path, public)
	return srv.Shutdown, nil
}
