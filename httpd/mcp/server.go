package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/vspec/catalogue/httpd"
	"github.com/vspec/catalogue/httpd/access"
	"github.com/vspec/catalogue/httpd/hostguard"
	"github.com/vspec/catalogue/httpd/observe"
)

// Paths the handler serves.
const (
	Path         = "/mcp"
	MetadataPath = "/.well-known/oauth-protected-resource/mcp" // RFC 9728 §3.1: the well-known prefix inserted before the resource's path
)

// Version is the server version announced in initialize.
const Version = "1.0.0"

// Options configures the agent tool surface. The zero value is usable.
type Options struct {
	// PublicURL is the public URL of the MCP endpoint, e.g.
	// https://agents.vspec.example/mcp. The protected-resource metadata
	// names it as the resource, and its host is allowed by default. Default
	// "http://localhost/mcp".
	PublicURL string
	// AuthorizationServers are the authorization_servers of the
	// protected-resource metadata. Keys are not issued over OAuth: the
	// default, the service's upgrade URL, is where a person gets a key to
	// configure as a bearer token.
	AuthorizationServers []string
	// AllowedHosts are the Host values accepted (DNS-rebinding
	// protection): "name" allows any port, "name:port" that port only.
	// Default: the host of PublicURL, localhost, 127.0.0.1 and [::1].
	AllowedHosts []string
	// AllowedOrigins are the Origin values accepted from browsers: an
	// origin "scheme://host[:port]" exactly, or a host name with any scheme
	// and port. A request without Origin is not a browser's and passes.
	// Default: the default AllowedHosts, by host name.
	AllowedOrigins []string
	// TrustedProxies are the peers whose X-Forwarded-For is believed when
	// telling networks apart.
	TrustedProxies []netip.Prefix
	// AnonymousPerMinute limits tools/call without a key per network (an
	// IPv4 address or an IPv6 /64) per minute, paid or not. Default 60.
	AnonymousPerMinute int64
	// AnonymousRequestsPerMinute limits requests of any kind without a key
	// per network per minute (initialize, tools/list, ping and the calls
	// themselves): what a keyless client may make the server answer.
	// Default 10 times AnonymousPerMinute.
	AnonymousRequestsPerMinute int64
	// Networks returns the per-minute window of a scope ("mcp" for the
	// calls, "mcp-requests" for all requests); nil counts them in this
	// process (access.NewNetworkLimiter). With a shared access store, its
	// NetworkLimiter, so that every replica counts them together.
	Networks func(scope string, perMinute int64) access.NetworkCounter
	// Observer counts what an operator must see of the MCP surface (a
	// panic recovered); nil: a metric set of its own.
	Observer *observe.Observer
	// Now is the clock of the per-network limit. Default time.Now.
	Now func() time.Time
}

// setDefaults fills the zero fields of o and checks PublicURL.
func (o *Options) setDefaults(svc *httpd.Service) (*url.URL, error) {
	if o.PublicURL == "" {
		o.PublicURL = "http://localhost" + Path
	}
	pub, err := url.Parse(o.PublicURL)
	if err != nil || (pub.Scheme != "http" && pub.Scheme != "https") || pub.Host == "" {
		return nil, fmt.Errorf("mcp: the public URL %q is not an absolute http(s) URL", o.PublicURL)
	}
	if len(o.AuthorizationServers) == 0 {
		o.AuthorizationServers = []string{svc.UpgradeURL()}
	}
	if len(o.AllowedHosts) == 0 {
		o.AllowedHosts = []string{pub.Hostname(), "localhost", "127.0.0.1", "[::1]"}
	}
	if len(o.AllowedOrigins) == 0 {
		for _, h := range o.AllowedHosts {
			o.AllowedOrigins = append(o.AllowedOrigins, hostguard.HostName(h))
		}
	}
	if o.AnonymousPerMinute == 0 {
		o.AnonymousPerMinute = 60
	}
	if o.AnonymousRequestsPerMinute == 0 {
		o.AnonymousRequestsPerMinute = 10 * o.AnonymousPerMinute
	}
	if o.AnonymousPerMinute < 0 || o.AnonymousRequestsPerMinute < 0 {
		return nil, errors.New("mcp: the per-network limits must not be negative")
	}
	if o.Networks == nil {
		o.Networks = func(_ string, perMinute int64) access.NetworkCounter { return access.NewNetworkLimiter(perMinute) }
	}
	if o.Observer == nil {
		o.Observer = observe.New(observe.Options{})
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return pub, nil
}

// New returns the HTTP handler of the agent tool surface over svc: MCP
// Streamable HTTP (stateless) at /mcp and the protected-resource metadata
// at /.well-known/oauth-protected-resource/mcp. Serve it on its own
// net/http listener.
func New(svc *httpd.Service, opts Options) (http.Handler, error) {
	pub, err := opts.setDefaults(svc)
	if err != nil {
		return nil, err
	}
	server := sdk.NewServer(&sdk.Implementation{Name: "vehicle-catalogue", Title: "Vehicle specification catalogue", Version: Version},
		&sdk.ServerOptions{Instructions: instructions(svc)})
	server.AddReceivingMiddleware(recovering(opts.Observer.Counter("catalogue_mcp_panics_total")))
	if err := addTools(server, svc); err != nil {
		return nil, err
	}
	g := newGuard(opts.AllowedHosts, opts.AllowedOrigins)
	transport := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{
		Stateless: true,
		// The SDK refuses any non-loopback Host arriving on a loopback
		// listener; the guard checks Host against the allowed list itself,
		// so when that list names a public host (a reverse proxy on the same
		// machine forwards to us) the SDK's coarser check must step aside.
		DisableLocalhostProtection: !g.LoopbackOnly(),
	})
	k := &keeper{
		svc: svc, next: transport,
		calls:    opts.Networks("mcp", opts.AnonymousPerMinute),
		requests: opts.Networks("mcp-requests", opts.AnonymousRequestsPerMinute),
		trusted:  opts.TrustedProxies, now: opts.Now, challenge: challenge(metadataURL(pub)),
	}
	mux := http.NewServeMux()
	mux.Handle(Path, g.origins(k))
	mux.Handle(MetadataPath, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               pub.String(),
		AuthorizationServers:   opts.AuthorizationServers,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Vehicle specification catalogue (MCP)",
		ResourceDocumentation:  svc.UpgradeURL(),
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, http.StatusNotFound, "not-found", "No route for "+r.URL.Path+": the MCP endpoint is "+Path+".", nil)
	})
	return g.hosts(bodies(mux)), nil
}

// metadataURL is where RFC 9728 puts the metadata of a resource: the
// well-known prefix inserted between the host and the resource's path.
func metadataURL(resource *url.URL) string {
	u := *resource
	u.Path = "/.well-known/oauth-protected-resource" + strings.TrimSuffix(resource.Path, "/")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u.String()
}
