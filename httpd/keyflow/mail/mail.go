// Package mail composes RFC 5322 messages with a plain-text and an HTML
// part and delivers them: over SMTP to a relay (with STARTTLS and AUTH when
// configured), or, on the embedded default, into an outbox directory as one
// .eml file per message.
//
// It imports only the standard library.
package mail

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Message is an email to one recipient.
type Message struct {
	From    string // "Name <addr>" or addr
	To      string
	Subject string
	Text    string // the plain-text part
	HTML    string // the HTML part
	Date    time.Time
}

// Sender delivers messages.
type Sender interface {
	Send(m Message) error
}

// Render returns the message in RFC 5322 form: headers, then a
// multipart/alternative body with the text part first and the HTML part
// last, both quoted-printable UTF-8.
func Render(m Message) ([]byte, error) {
	from, err := mail.ParseAddress(m.From)
	if err != nil {
		return nil, fmt.Errorf("bad From %q: %w", m.From, err)
	}
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return nil, fmt.Errorf("bad To %q: %w", m.To, err)
	}
	if m.Date.IsZero() {
		m.Date = time.Now()
	}
	var rnd [12]byte
	rand.Read(rnd[:])
	boundary := fmt.Sprintf("alt-%x", rnd[:8])
	domain := from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	var b bytes.Buffer
	h := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	h("From", from.String())
	h("To", to.String())
	h("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	h("Date", m.Date.Format(time.RFC1123Z))
	h("Message-ID", fmt.Sprintf("<%x@%s>", rnd[:], domain))
	h("MIME-Version", "1.0")
	h("Content-Type", `multipart/alternative; boundary="`+boundary+`"`)
	b.WriteString("\r\n")
	part := func(ctype, body string) error {
		// A text whose lines fit SMTP's 998 octets goes as it is (7bit or
		// 8bit), so a link in it stays whole and copyable in any client or
		// file; a longer one is quoted-printable.
		if enc := plainEncoding(body); enc != "" {
			fmt.Fprintf(&b, "--%s\r\nContent-Type: %s; charset=utf-8\r\nContent-Transfer-Encoding: %s\r\n\r\n", boundary, ctype, enc)
			b.WriteString(strings.ReplaceAll(body, "\n", "\r\n"))
			b.WriteString("\r\n")
			return nil
		}
		fmt.Fprintf(&b, "--%s\r\nContent-Type: %s; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n", boundary, ctype)
		w := quotedprintable.NewWriter(&b)
		if _, err := w.Write([]byte(strings.ReplaceAll(body, "\n", "\r\n"))); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		b.WriteString("\r\n")
		return nil
	}
	if err := part("text/plain", m.Text); err != nil {
		return nil, err
	}
	if err := part("text/html", m.HTML); err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return b.Bytes(), nil
}

// SMTP delivers through a relay.
type SMTP struct {
	Addr     string // host:port of the relay
	Username string // AUTH PLAIN when set
	Password string
	// StartTLS: "required" refuses to send without it, "opportunistic" uses
	// it when offered, "off" never does. Default "opportunistic".
	StartTLS string
	// TLSConfig for STARTTLS; nil uses the relay's host name.
	TLSConfig *tls.Config
	// Timeout bounds the whole exchange. Default 15 s.
	Timeout time.Duration
	// HelloName is sent in EHLO. Default "localhost".
	HelloName string
}

// Send delivers m.
func (s *SMTP) Send(m Message) error {
	data, err := Render(m)
	if err != nil {
		return err
	}
	from, _ := mail.ParseAddress(m.From)
	to, _ := mail.ParseAddress(m.To)
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 15 * time.Second
	}
	conn, err := net.DialTimeout("tcp", s.Addr, timeout)
	if err != nil {
		return fmt.Errorf("cannot reach the mail relay %s: %w", s.Addr, err)
	}
	conn.SetDeadline(time.Now().Add(timeout))
	host, _, _ := net.SplitHostPort(s.Addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("mail relay %s: %w", s.Addr, err)
	}
	defer c.Close()
	hello := s.HelloName
	if hello == "" {
		hello = "localhost"
	}
	if err := c.Hello(hello); err != nil {
		return err
	}
	switch mode := s.StartTLS; mode {
	case "off":
	case "", "opportunistic", "required":
		if ok, _ := c.Extension("STARTTLS"); ok {
			cfg := s.TLSConfig
			if cfg == nil {
				cfg = &tls.Config{ServerName: host}
			}
			if err := c.StartTLS(cfg); err != nil {
				return fmt.Errorf("STARTTLS with %s: %w", s.Addr, err)
			}
		} else if mode == "required" {
			return fmt.Errorf("the mail relay %s does not offer STARTTLS, which is required", s.Addr)
		}
	default:
		return fmt.Errorf("unknown STARTTLS mode %q", mode)
	}
	if s.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", s.Username, s.Password, host)); err != nil {
			return fmt.Errorf("SMTP AUTH with %s: %w", s.Addr, err)
		}
	}
	if err := c.Mail(from.Address); err != nil {
		return err
	}
	if err := c.Rcpt(to.Address); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// plainEncoding is the transfer encoding a body can go in unencoded: 7bit
// for ASCII, 8bit for other UTF-8, "" when a line is longer than 998
// octets, holds a control character other than tab, or the text is not
// UTF-8 (it then needs quoted-printable).
func plainEncoding(body string) string {
	if !utf8.ValidString(body) {
		return ""
	}
	enc := "7bit"
	for _, line := range strings.Split(body, "\n") {
		if len(line) > 998 {
			return ""
		}
		for _, r := range line {
			switch {
			case r == '\t':
			case r < 0x20 || r == 0x7f:
				return ""
			case r > 0x7f:
				enc = "8bit"
			}
		}
	}
	return enc
}

// Outbox writes each message as a .eml file into Dir, atomically (a
// temporary file renamed into place).
type Outbox struct{ Dir string }

// Local reports that the outbox's mail stays on this machine, so the
// flows may log what a developer would otherwise look for in a mailbox.
func (o *Outbox) Local() bool { return true }

// Send writes m.
func (o *Outbox) Send(m Message) error {
	data, err := Render(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return err
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	name := fmt.Sprintf("%s-%x.eml", time.Now().UTC().Format("20060102T150405.000000000Z"), rnd)
	tmp := filepath.Join(o.Dir, "."+name)
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(o.Dir, name))
}
