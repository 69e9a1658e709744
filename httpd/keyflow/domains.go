package keyflow

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"errors"
	"net"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// disposable.txt.gz is the disposable-email-domains list
// (github.com/ivolo/disposable-email-domains, MIT, npm package
// disposable-email-domains 1.0.62: index.json and wildcard.json), one domain
// a line, sorted. update_disposable.sh refreshes it.
//
//go:embed disposable.txt.gz
var disposableGz []byte

// Disposable is a sorted list of disposable email domains.
type Disposable struct{ domains []string }

// LoadDisposable reads the embedded list.
func LoadDisposable() (*Disposable, error) {
	zr, err := gzip.NewReader(bytes.NewReader(disposableGz))
	if err != nil {
		return nil, err
	}
	var d Disposable
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		l := strings.ToLower(strings.TrimSpace(sc.Text()))
		if l == "" {
			continue
		}
		d.domains = append(d.domains, l)
		// The list writes some internationalised domains in Unicode;
		// addresses are checked in ASCII (A-labels), so both are kept.
		if !isASCII(l) {
			if a, err := idna.Lookup.ToASCII(l); err == nil {
				d.domains = append(d.domains, a)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Strings(d.domains)
	return &d, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Len returns the number of listed domains.
func (d *Disposable) Len() int { return len(d.domains) }

// Contains reports whether domain or one of its parent domains is listed
// (a sub-domain of a disposable domain is disposable too).
func (d *Disposable) Contains(domain string) bool {
	domain = strings.TrimSuffix(strings.ToLower(domain), ".")
	for {
		i := sort.SearchStrings(d.domains, domain)
		if i < len(d.domains) && d.domains[i] == domain {
			return true
		}
		dot := strings.IndexByte(domain, '.')
		if dot < 0 || !strings.Contains(domain[dot+1:], ".") {
			return false
		}
		domain = domain[dot+1:]
	}
}

// reserved reports whether domain is reserved for documentation, tests or
// local use (RFC 2606, RFC 6761) and can never receive mail.
func reserved(domain string) bool {
	domain = strings.TrimSuffix(strings.ToLower(domain), ".")
	switch domain {
	case "example.com", "example.org", "example.net", "localhost", "invalid", "test", "example", "local":
		return true
	}
	for _, tld := range []string{".test", ".invalid", ".localhost", ".example", ".local"} {
		if strings.HasSuffix(domain, tld) {
			return true
		}
	}
	for _, parent := range []string{".example.com", ".example.org", ".example.net"} {
		if strings.HasSuffix(domain, parent) {
			return true
		}
	}
	return false
}

// Resolver is what the mail-exchanger check needs of a DNS resolver
// (*net.Resolver has it). LookupNS is asked only of the root zone, to tell
// a real "no such domain" from a resolver that denies every name.
type Resolver interface {
	LookupMX(ctx context.Context, name string) ([]*net.MX, error)
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
	LookupNS(ctx context.Context, name string) ([]*net.NS, error)
}

// NewResolver returns the system resolver, or, when server is set
// (host:port), a resolver that asks that server only.
func NewResolver(server string) *net.Resolver {
	if server == "" {
		return net.DefaultResolver
	}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, server)
	}}
}

// mailVerdict is what the DNS says of a domain.
type mailVerdict int

const (
	acceptsMail mailVerdict = iota
	noMail                  // NXDOMAIN, a null MX, or neither MX nor address records
	dnsFailed               // the resolver could not answer: not a verdict
	// dnsDeniesAll: the resolver said the domain does not exist, or has
	// no records, but it denies the root zone too, as a sandbox's or an
	// offline machine's resolver does: its answer is not a verdict.
	dnsDeniesAll
)

// checkMail asks the DNS whether domain can receive mail: an MX record
// (other than the null MX of RFC 7505), or else an A or AAAA record (the
// implicit MX of RFC 5321 section 5.1). A resolver failure is dnsFailed,
// never a pass; a "no such record" counts as an answer only from a
// resolver that can name the root zone's servers (see knowsRoot).
func checkMail(ctx context.Context, r Resolver, domain string) (mailVerdict, error) {
	mxs, err := r.LookupMX(ctx, domain)
	if err == nil && len(mxs) > 0 {
		for _, mx := range mxs {
			if mx.Host != "." && mx.Host != "" {
				return acceptsMail, nil
			}
		}
		return noMail, nil // a null MX: the domain declares it accepts no mail
	}
	if err != nil && !notFound(err) {
		return dnsFailed, err
	}
	addrs, err := r.LookupIPAddr(ctx, domain)
	switch {
	case err != nil && !notFound(err):
		return dnsFailed, err
	case err == nil && len(addrs) > 0:
		return acceptsMail, nil
	}
	if ok, rerr := knowsRoot(ctx, r); !ok {
		return dnsDeniesAll, rerr
	}
	return noMail, nil
}

// knowsRoot reports whether the resolver names the root zone's servers,
// which every resolver that reaches the internet does. Without it, its
// "no such domain" for a mail domain says nothing about the domain (a
// machine without DNS answers so for gmail.com). The error is the
// resolver's, when it gave one.
func knowsRoot(ctx context.Context, r Resolver) (bool, error) {
	ns, err := r.LookupNS(ctx, ".")
	return err == nil && len(ns) > 0, err
}

// notFound reports whether a lookup error means "no such record" (NXDOMAIN
// or an empty answer) rather than a failure to get an answer.
func notFound(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}

// resolverAt names the resolver that gave err: the configured server
// (host:port), else the one the system's resolver asked as its error
// records it (the first of /etc/resolv.conf), else the system's.
func resolverAt(err error, configured string) string {
	var de *net.DNSError
	switch {
	case configured != "":
		return configured // a resolver that dials it records resolv.conf's server all the same
	case errors.As(err, &de) && de.Server != "":
		return de.Server
	}
	return "of this system"
}

// dnsCause is the short cause of a lookup error ("i/o timeout", "server
// misbehaving"), without the name and server the message names already.
func dnsCause(err error) string {
	var de *net.DNSError
	if errors.As(err, &de) && de.Err != "" {
		return de.Err
	}
	if err == nil {
		return "no answer"
	}
	return err.Error()
}
