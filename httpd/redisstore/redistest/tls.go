package redistest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TLS are the PEM files of a server that listens with TLS: its
// certificate and key, and the authority that signed the certificate.
type TLS struct {
	Cert, Key, CA string
}

// NewTLS makes, in a test temporary directory, a throwaway authority and a
// certificate it signs for 127.0.0.1 and localhost, valid for a day. They
// are never written anywhere else.
func NewTLS(t testing.TB) *TLS {
	t.Helper()
	dir := t.TempDir()
	caKey, caDER := newCert(t, "redistest CA", nil, nil, nil)
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, der := newCert(t, "redistest server", ca, caKey, []net.IP{net.IPv4(127, 0, 0, 1)})
	f := &TLS{Cert: filepath.Join(dir, "server.pem"), Key: filepath.Join(dir, "server.key"), CA: filepath.Join(dir, "ca.pem")}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		path, typ string
		der       []byte
	}{{f.Cert, "CERTIFICATE", der}, {f.Key, "EC PRIVATE KEY", keyDER}, {f.CA, "CERTIFICATE", caDER}} {
		if err := os.WriteFile(w.path, pem.EncodeToMemory(&pem.Block{Type: w.typ, Bytes: w.der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// newCert makes a key and a certificate for it: an authority's, signed by
// itself, when parent is nil; else a server's for ips and localhost,
// signed by parent.
func newCert(t testing.TB, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, ips []net.IP) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), BasicConstraintsValid: true}
	if parent == nil {
		tmpl.IsCA, tmpl.KeyUsage = true, x509.KeyUsageCertSign
		parent, parentKey = tmpl, key
	} else {
		tmpl.KeyUsage, tmpl.ExtKeyUsage = x509.KeyUsageDigitalSignature, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses, tmpl.DNSNames = ips, []string{"localhost"}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	return key, der
}

// client is the TLS configuration of a client that trusts f's authority.
func (f *TLS) client(t testing.TB) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(f.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("%s holds no certificate", f.CA)
	}
	return &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}
