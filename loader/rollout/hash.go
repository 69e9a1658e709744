package rollout

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ErrHashMismatch: the bytes fetched from an origin are not the file the
// hash names (corrupt, truncated or replaced). The file is refused.
var ErrHashMismatch = errors.New("content hash mismatch")

// ErrNotInOrigin: the origin holds no file under the hash.
var ErrNotInOrigin = errors.New("not in the origin")

// ParseHash returns s as a content hash: 64 hex digits (a SHA-256), in
// lower case whatever case s uses.
func ParseHash(s string) (string, error) {
	if len(s) != 2*sha256.Size {
		return "", fmt.Errorf("a content hash is 64 hex digits (a SHA-256, as sha256sum prints it), %q has %d characters", s, len(s))
	}
	s = strings.ToLower(s)
	if _, err := hex.DecodeString(s); err != nil {
		return "", fmt.Errorf("a content hash is 64 hex digits (a SHA-256, as sha256sum prints it), %q is not hex", s)
	}
	return s, nil
}

// FileHash returns the content hash of the file at path.
func FileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ObjectName is the name of the file of hash in an origin.
func ObjectName(hash string) string { return hash + ".snap" }
