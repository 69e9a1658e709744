package flowtest

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var verifyRE = regexp.MustCompile(`/v1/keys/demo/verify\?t=([0-9a-f]{48})`)

// VerifyToken returns the token of the activation link in the one message
// a server wrote to its outbox directory (-mail.outbox), as it is in the
// file (copyable, no quoted-printable). The test fails when the outbox
// holds another number of messages or the message has no link.
func VerifyToken(t testing.TB, outbox string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(outbox, "*.eml"))
	if len(files) != 1 {
		t.Fatalf("%d messages in the outbox", len(files))
	}
	raw, _ := os.ReadFile(files[0])
	m := verifyRE.FindSubmatch(raw)
	if m == nil {
		t.Fatalf("no link in the message:\n%s", raw)
	}
	return string(m[1])
}
