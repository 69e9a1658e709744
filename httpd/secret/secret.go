// Package secret reads the values of secret settings (the token secret, the
// admin token, the SMTP password, the facilitator's header): given
// literally, or as file://PATH to keep them out of the command line and the
// environment, as VictoriaMetrics' flagutil.Password does. It is the one
// place that knows the file:// form.
//
// It imports only the standard library.
package secret

import (
	"fmt"
	"os"
	"strings"
)

// Read returns value itself, or, when it is file://PATH, the file's content
// with surrounding white space (a trailing newline) trimmed.
func Read(value string) (string, error) {
	path, ok := strings.CutPrefix(value, "file://")
	if !ok {
		return value, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// IsFile reports whether value names a file rather than being the secret.
func IsFile(value string) bool { return strings.HasPrefix(value, "file://") }
