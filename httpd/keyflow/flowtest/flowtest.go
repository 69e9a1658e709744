// Package flowtest runs the real protocol peers the key flow's tests talk
// to over loopback: an SMTP server that records the messages it receives,
// and a DNS server answering MX and address queries from a fixed zone. It
// is imported by tests only; so is VerifyToken, which reads the activation
// link a replica wrote to its -mail.outbox directory.
package flowtest

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// SMTPServer is a minimal SMTP server (RFC 5321: EHLO/HELO, AUTH PLAIN,
// MAIL, RCPT, DATA, RSET, NOOP, QUIT) on a loopback port.
type SMTPServer struct {
	Addr     string
	Username string // when set, AUTH PLAIN with Password is required
	Password string

	ln   net.Listener
	mu   sync.Mutex
	msgs []Received
	cond *sync.Cond
	fail string // the reply to MAIL while failing; "" = accept
}

// Fail makes the server answer every MAIL command with reply (for example
// "451 4.3.0 mail system unavailable"), as a relay in an outage does, until
// Fail("") restores it.
func (s *SMTPServer) Fail(reply string) {
	s.mu.Lock()
	s.fail = reply
	s.mu.Unlock()
}

// Received is one delivered message.
type Received struct {
	From string
	To   []string
	Data string
	Msg  *mail.Message
}

// StartSMTP starts the server; it stops with the test.
func StartSMTP(t testing.TB) *SMTPServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &SMTPServer{Addr: ln.Addr().String(), ln: ln}
	s.cond = sync.NewCond(&s.mu)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return s
}

func (s *SMTPServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	say := func(format string, args ...any) {
		fmt.Fprintf(w, format+"\r\n", args...)
		w.Flush()
	}
	say("220 flowtest ESMTP ready")
	var cur Received
	authed := s.Username == ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(strings.SplitN(line, " ", 2)[0])
		switch verb {
		case "EHLO":
			fmt.Fprintf(w, "250-flowtest\r\n250-8BITMIME\r\n")
			if s.Username != "" {
				fmt.Fprintf(w, "250-AUTH PLAIN\r\n")
			}
			say("250 SIZE 10485760")
		case "HELO":
			say("250 flowtest")
		case "AUTH":
			parts := strings.Fields(line)
			if len(parts) != 3 || strings.ToUpper(parts[1]) != "PLAIN" {
				say("504 only AUTH PLAIN with an initial response")
				continue
			}
			raw, _ := base64.StdEncoding.DecodeString(parts[2])
			f := strings.Split(string(raw), "\x00")
			if len(f) == 3 && f[1] == s.Username && f[2] == s.Password {
				authed = true
				say("235 authenticated")
			} else {
				say("535 authentication failed")
			}
		case "MAIL":
			if !authed {
				say("530 authentication required")
				continue
			}
			s.mu.Lock()
			fail := s.fail
			s.mu.Unlock()
			if fail != "" {
				say("%s", fail)
				continue
			}
			cur = Received{From: between(line, "<", ">")}
			say("250 ok")
		case "RCPT":
			cur.To = append(cur.To, between(line, "<", ">"))
			say("250 ok")
		case "DATA":
			say("354 end with <CRLF>.<CRLF>")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			cur.Data = b.String()
			cur.Msg, _ = mail.ReadMessage(strings.NewReader(cur.Data))
			s.mu.Lock()
			s.msgs = append(s.msgs, cur)
			s.cond.Broadcast()
			s.mu.Unlock()
			say("250 queued")
		case "RSET", "NOOP":
			say("250 ok")
		case "QUIT":
			say("221 bye")
			return
		default:
			say("502 command not implemented")
		}
	}
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	j := strings.LastIndex(s, b)
	if i < 0 || j <= i {
		return ""
	}
	return s[i+1 : j]
}

// Messages returns the messages received so far.
func (s *SMTPServer) Messages() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.msgs...)
}

// DNSServer answers queries from Zone over UDP on a loopback port, and
// NS queries of the root zone as every resolver on the internet does.
type DNSServer struct {
	Addr string
	// Zone maps a lower-case domain (no trailing dot) to its records.
	Zone map[string]Records
	conn net.PacketConn
	// denyAll answers every query NXDOMAIN, the root zone's too, as the
	// resolver of a machine without DNS (a sandbox, a plane) does.
	denyAll bool
}

// Records of a domain. A domain missing from the zone is NXDOMAIN.
type Records struct {
	MX       []string // exchanger host names; "." is the null MX
	A        []string
	ServFail bool // answer SERVFAIL, as a broken upstream would
}

// StartDNS starts the server; it stops with the test.
func StartDNS(t testing.TB, zone map[string]Records) *DNSServer {
	return startDNS(t, &DNSServer{Zone: zone})
}

// StartDeniedDNS starts a server that answers every query "no such
// domain", the root zone's too; it stops with the test.
func StartDeniedDNS(t testing.TB) *DNSServer {
	return startDNS(t, &DNSServer{denyAll: true})
}

func startDNS(t testing.TB, d *DNSServer) *DNSServer {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d.Addr, d.conn = pc.LocalAddr().String(), pc
	go d.serve()
	t.Cleanup(func() { pc.Close() })
	return d
}

// rootServer is the name server the root zone's NS query is answered with.
var rootServer = dnsmessage.MustNewName("a.root-servers.net.")

func (d *DNSServer) serve() {
	buf := make([]byte, 1500)
	for {
		n, addr, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(buf[:n])
		if err != nil {
			continue
		}
		q, err := p.Question()
		if err != nil {
			continue
		}
		name := strings.TrimSuffix(strings.ToLower(q.Name.String()), ".")
		rec, known := d.Zone[name]
		root := name == "" && !d.denyAll
		known = known && !d.denyAll || root
		rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
		switch {
		case known && rec.ServFail:
			rh.RCode = dnsmessage.RCodeServerFailure
		case !known:
			rh.RCode = dnsmessage.RCodeNameError
		}
		b := dnsmessage.NewBuilder(make([]byte, 0, 512), rh)
		b.EnableCompression()
		b.StartQuestions()
		b.Question(q)
		b.StartAnswers()
		if known && !rec.ServFail {
			hdr := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}
			switch q.Type {
			case dnsmessage.TypeNS:
				if root {
					b.NSResource(hdr, dnsmessage.NSResource{NS: rootServer})
				}
			case dnsmessage.TypeMX:
				for i, mx := range rec.MX {
					host := mx
					if !strings.HasSuffix(host, ".") {
						host += "."
					}
					b.MXResource(hdr, dnsmessage.MXResource{Pref: uint16(10 * (i + 1)), MX: dnsmessage.MustNewName(host)})
				}
			case dnsmessage.TypeA:
				for _, a := range rec.A {
					ip := net.ParseIP(a).To4()
					if ip != nil {
						b.AResource(hdr, dnsmessage.AResource{A: [4]byte(ip)})
					}
				}
			}
		}
		msg, err := b.Finish()
		if err != nil {
			continue
		}
		d.conn.WriteTo(msg, addr)
	}
}
