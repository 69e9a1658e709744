package redisstore

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClientOptionHidesPassword: a -store URL that does not parse is
// reported without the URL, which may hold a password.
func TestClientOptionHidesPassword(t *testing.T) {
	for _, u := range []string{"redis://u:hunter2@h:port/0", "http://u:hunter2@h/0", "redis://u:hunter2@h:6379/x", "redis://u:hunter2@%zz/0",
		"rediss://u:hunter2@h:6379/0?skip_verify=1", "redis://u:hunter2@h:6379/0?ca=/etc/ssl/certs/ca-certificates.crt", "rediss://u:hunter2@h:6379/0?ca=",
		"rediss://u:hunter2@h:6379/0?ca=/nonexistent/ca.pem", "rediss://u:hunter2@h:6379/0?ca=a&ca=b", "rediss://u:hunter2@h:6379/0?dial_timeout=x",
		"rediss://u:hunter2@h:6379/0?master_set=m", "rediss://u:hunter2@h:6379/0?%zz"} {
		_, err := ClientOption(u)
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ClientOption(%q): %v", u, err)
		}
	}
	if o, err := ClientOption("redis://u:hunter2@127.0.0.1:6379/3"); err != nil || o.SelectDB != 3 || o.InitAddress[0] != "127.0.0.1:6379" || o.Password != "hunter2" || o.TLSConfig != nil {
		t.Errorf("a good URL: %+v %v", o, err)
	}
	o, err := ClientOption("rediss://u:p%40ss@redis.internal:6380/2?client_name=r1&dial_timeout=2s")
	if err != nil || o.TLSConfig == nil || o.TLSConfig.ServerName != "redis.internal" || o.TLSConfig.RootCAs != nil || o.Password != "p@ss" || o.ClientName != "r1" || o.Dialer.Timeout != 2*time.Second {
		t.Errorf("a TLS URL: %+v %v", o, err)
	}
}

// TestClientOptionCA: ca=FILE makes the certificates of FILE the
// authorities a TLS server is checked against; a file without one is an
// error naming the file.
func TestClientOptionCA(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	o, err := ClientOption("rediss://:pw@127.0.0.1:6380/0?ca=" + ca)
	if err != nil || o.TLSConfig == nil || o.TLSConfig.RootCAs == nil || !o.TLSConfig.RootCAs.Equal(poolOf(t, der)) {
		t.Errorf("with ca=%s: %+v %v", ca, o, err)
	}
	notPEM := filepath.Join(dir, "not.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	if _, err := ClientOption("rediss://:pw@127.0.0.1:6380/0?ca=" + notPEM); err == nil || !strings.Contains(err.Error(), notPEM) || strings.Contains(err.Error(), "pw@") {
		t.Errorf("a ca file without a certificate: %v", err)
	}
}

func poolOf(t *testing.T, der []byte) *x509.CertPool {
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	p := x509.NewCertPool()
	p.AddCert(c)
	return p
}

// FuzzClientOption: any -store value is parsed into one Redis address or
// refused with an error naming the accepted forms; never a panic. A ca
// file is named only with TLS. (parseURL: ClientOption without reading the
// ca file.)
func FuzzClientOption(f *testing.F) {
	for _, s := range []string{"redis://127.0.0.1:6379/0", "rediss://u:p@h:6380/2", "redis://:secret@[::1]:6379/15", "redis://h?addr=a:1&addr=b:2",
		"unix:///tmp/redis.sock", "http://x", "", "redis://h:notaport/0", "redis://h/abc", "redis://%zz", "rediss://h:6380/0?ca=/etc/ca.pem",
		"redis://h/0?ca=x", "rediss://h/0?skip_verify", "rediss://h/0?dial_timeout=1s&client_name=a", "rediss://h/0?ca=a&ca=b", "rediss://h/0?db=3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, url string) {
		opt, ca, err := parseURL(url)
		if err != nil {
			if !strings.Contains(err.Error(), "redis://") && !strings.Contains(err.Error(), "one Redis address") {
				t.Errorf("%q: error %q does not say what is wanted", url, err)
			}
			return
		}
		if len(opt.InitAddress) != 1 || opt.InitAddress[0] == "" {
			t.Errorf("%q accepted with addresses %q", url, opt.InitAddress)
		}
		if ca != "" && opt.TLSConfig == nil {
			t.Errorf("%q accepted with a ca file and no TLS", url)
		}
		if opt.TLSConfig != nil && opt.TLSConfig.InsecureSkipVerify {
			t.Errorf("%q accepted without checking the certificate", url)
		}
	})
}

// FuzzDecodeKey: whatever a key's hash in Redis holds, it decodes to a
// key or an error; never a panic.
func FuzzDecodeKey(f *testing.F) {
	f.Add("apify", "active", "a@example.org", "2026-01-02T03:04:05Z", "2026-01-02T03:04:05.123456789Z")
	f.Add("gold", "active", "", "x", "")
	f.Fuzz(func(t *testing.T, plan, state, email, created, changed string) {
		var h [32]byte
		k, err := decodeKey(h, [6]string{plan, state, email, "", created, changed})
		if err == nil && (k.Plan.String() != plan || k.State.String() != state) {
			t.Errorf("decoded %+v from plan %q state %q", k, plan, state)
		}
	})
}
