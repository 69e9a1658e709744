package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// TestLogHandler: auto is text on a terminal and JSON otherwise; text and
// json force one.
func TestLogHandler(t *testing.T) {
	for _, c := range []struct {
		format string
		tty    bool
		json   bool
	}{{"auto", true, false}, {"auto", false, true}, {"text", false, false}, {"json", true, true}} {
		var buf bytes.Buffer
		slog.New(logHandler(&buf, c.format, c.tty)).Info("serving", "addr", "127.0.0.1:8080")
		var m map[string]any
		isJSON := json.Unmarshal(buf.Bytes(), &m) == nil
		if isJSON != c.json || !strings.Contains(buf.String(), "serving") {
			t.Errorf("format %s, terminal %v: %q", c.format, c.tty, buf.String())
		}
	}
}
